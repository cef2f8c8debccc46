package sandbox

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// slowBridge answers tools.wait({ms, v}) after ms milliseconds of real time
// with v; any other call at once, like okBridge.
func slowBridge(ctx context.Context, tool string, args []byte) ([]byte, error) {
	if tool != "wait" {
		return okBridge(ctx, tool, args)
	}
	var a struct {
		MS int             `json:"ms"`
		V  json.RawMessage `json:"v"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	select {
	case <-time.After(time.Duration(a.MS) * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if a.V == nil {
		a.V = json.RawMessage("null")
	}
	return []byte(`{"status":"ok","value":` + string(a.V) + `}`), nil
}

func runGuest(t *testing.T, src string, g Guest, lim Limits) (*Result, error) {
	t.Helper()
	return engine(t).Run(context.Background(), Script{Source: src, Guest: g}, slowBridge, lim)
}

const sleepFn = "const sleep = (ms) => new Promise((r) => setTimeout(r, ms));\n"

// TestTimersRaceToolCalls checks that timers and tool calls settle in the
// order they happen in real time, on the default (real) clock.
func TestTimersRaceToolCalls(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"a long timeout loses to a fast call",
			"return await Promise.race([tools.wait({ms: 30, v: 'tool'}), sleep(2000).then(() => 'timeout')])", `"tool"`},
		{"a short timeout wins over a slow call",
			"return await Promise.race([tools.wait({ms: 1500, v: 'tool'}), sleep(30).then(() => 'timeout')])", `"timeout"`},
		{"timers and a completion interleave by time",
			`const seen = [];
			setTimeout(() => seen.push('t30'), 30);
			setTimeout(() => seen.push('t900'), 900);
			const p = tools.wait({ms: 400}).then(() => seen.push('tool'));
			await p; await sleep(1000); return seen`, `["t30","tool","t900"]`},
		{"equal delays fire in creation order",
			// The shorter timer is created last, 90 ms shorter: a loaded
			// machine stalling between the creations (the clock is real)
			// cannot make it due after the others.
			"const s = []; for (const n of [1, 2, 3]) setTimeout(() => s.push(n), 100); setTimeout(() => s.push(0), 10); await sleep(150); return s",
			`[0,1,2,3]`},
		{"the job queue drains between two timers",
			"const s = []; setTimeout(() => { s.push('a'); Promise.resolve().then(() => s.push('micro')) }, 5); setTimeout(() => s.push('b'), 5); await sleep(30); return s",
			`["a","micro","b"]`},
		{"a poll loop sees its background call finish",
			`let done = false;
			tools.wait({ms: 200}).then(() => { done = true });
			let polls = 0;
			while (!done) { polls++; await sleep(20); }
			return polls > 1`, `true`},
		{"clearTimeout cancels", "let hit = false; const h = setTimeout(() => { hit = true }, 10); clearTimeout(h); await sleep(40); return hit", `false`},
		{"clearTimeout takes the primitive id", "let hit = false; const h = setTimeout(() => { hit = true }, 10); clearTimeout(+h); await sleep(40); return hit", `false`},
		{"setInterval until cleared",
			"let n = 0; await new Promise((r) => { const h = setInterval(() => { if (++n === 3) { clearInterval(h); r() } }, 10) }); await sleep(30); return n", `3`},
		{"arguments reach the callback", "return await new Promise((r) => setTimeout((a, b) => r(a + b), 1, 2, 3))", `5`},
		{"setImmediate runs before a 1 ms timer",
			"const s = []; setTimeout(() => s.push('t'), 1); setImmediate(() => s.push('i')); await sleep(20); return s", `["i","t"]`},
		{"a Timeout object, as in Node", "const h = setTimeout(() => {}, 1); return [typeof h, typeof +h, h.hasRef()]", `["object","number",true]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := runGuest(t, sleepFn+tt.src, Guest{}, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
		})
	}
}

// TestSleepAdvancesTheClock checks the real clock: sleep(100) moves Date.now
// and performance.now by at least 100 ms.
func TestSleepAdvancesTheClock(t *testing.T) {
	res, err := runGuest(t, sleepFn+
		"const d = Date.now(), p = performance.now(); await sleep(100); return [Date.now() - d, performance.now() - p]", Guest{}, Limits{})
	require.NoError(t, err)
	var got [2]float64
	require.NoError(t, json.Unmarshal(res.Value, &got))
	require.GreaterOrEqual(t, got[0], 100.0, "Date.now")
	require.GreaterOrEqual(t, got[1], 100.0, "performance.now")
}

// TestWaitingDoesNotEnterTheGuest counts the host's entries into the guest
// while a chain waits: one to start, one per event, none while waiting.
func TestWaitingDoesNotEnterTheGuest(t *testing.T) {
	t.Run("a timer and a call", func(t *testing.T) {
		res, err := runGuest(t, sleepFn+"await sleep(150); await tools.wait({ms: 100}); return 1", Guest{}, Limits{})
		require.NoError(t, err)
		require.Equal(t, 3, res.Stats.Entries, "start, the timer, the completion")
	})
	t.Run("an interval next to a pending call", func(t *testing.T) {
		res, err := runGuest(t, `let fired = 0;
			const h = setInterval(() => { fired++ }, 40);
			await tools.wait({ms: 300});
			clearInterval(h);
			return fired`, Guest{}, Limits{})
		require.NoError(t, err)
		fired, err := strconv.Atoi(string(res.Value))
		require.NoError(t, err)
		require.GreaterOrEqual(t, fired, 1)
		require.Equal(t, 2+fired, res.Stats.Entries, "start, each firing, the completion")
	})
	t.Run("a cleared timer is not waited for", func(t *testing.T) {
		_, err := runGuest(t, "const h = setTimeout(() => {}, 60000); clearTimeout(h); await new Promise(() => {})", Guest{},
			Limits{Timeout: 30 * time.Second})
		requireExit(t, err, ScriptError, "")
		require.ErrorContains(t, err, "can never finish")
	})
}

// TestTimerLimits checks that the chain's deadline bounds every wait, and
// that a callback's uncaught exception or a bad callback fails the run as
// Node would.
func TestTimerLimits(t *testing.T) {
	_, err := runGuest(t, sleepFn+"await sleep(1e9)", Guest{}, Limits{Timeout: 100 * time.Millisecond})
	requireExit(t, err, Timeout, "")

	_, err = runGuest(t, "setTimeout(() => { throw new RangeError('in a timer') }, 5); await new Promise(() => {})", Guest{}, Limits{})
	requireExit(t, err, ScriptError, "")
	require.ErrorContains(t, err, "RangeError: in a timer")

	_, err = runGuest(t, "setTimeout('code', 5)", Guest{}, Limits{})
	requireExit(t, err, ScriptError, "")
	require.ErrorContains(t, err, `TypeError: The "callback" argument must be of type function. Received type string`)
}

// TestVirtualClock checks the deterministic mode: timers jump the clock,
// tool calls take no virtual time, and a seed fixes every random sequence.
func TestVirtualClock(t *testing.T) {
	virtual := Guest{Clock: ClockVirtual}
	res, err := runGuest(t, sleepFn+`const d = Date.now();
		await sleep(3600 * 1000);
		const fast = await Promise.race([tools.wait({ms: 50, v: 'tool'}), sleep(10).then(() => 'timer')]);
		return [Date.now() - d >= 3600 * 1000, new Date(d).toISOString().slice(0, 4), fast]`, virtual, Limits{Timeout: 10 * time.Second})
	require.NoError(t, err)
	require.JSONEq(t, `[true, "2022", "tool"]`, string(res.Value))
	require.Equal(t, 3, res.Stats.Entries, "start, the hour, the completion (the 10 ms timer never fires): no spinning")

	seq := "return [Math.random(), Math.random(), crypto.randomUUID()]"
	a, err := runGuest(t, seq, Guest{Clock: ClockVirtual, Seed: 42}, Limits{})
	require.NoError(t, err)
	b, err := runGuest(t, seq, Guest{Seed: 42}, Limits{})
	require.NoError(t, err)
	c, err := runGuest(t, seq, Guest{Seed: 43}, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, string(a.Value), string(b.Value), "one seed, one sequence")
	require.NotEqual(t, string(a.Value), string(c.Value))
}

// TestRealClockSource checks that runs read ScriptOptions.Clock, also on
// instances restored from a snapshot, and that Date is coarsened to 1 ms.
func TestRealClockSource(t *testing.T) {
	at := time.Date(2031, 5, 6, 7, 8, 9, 987654321, time.UTC)
	e, err := NewScriptEngine(context.Background(), ScriptOptions{CompilationCacheDir: cacheDir(),
		Clock: func() time.Time { return at }})
	require.NoError(t, err)
	defer e.Close(context.Background())
	for range 2 { // the second run is restored from the first's snapshot
		res, err := e.Run(context.Background(), Script{Source: "return [new Date().toISOString(), Date.now() % 1000]"}, okBridge, Limits{})
		require.NoError(t, err)
		require.JSONEq(t, `["2031-05-06T07:08:09.987Z", 987]`, string(res.Value))
	}
}

func TestGuestSettings(t *testing.T) {
	var g Guest
	require.NoError(t, g.Set("clock", "virtual"))
	require.NoError(t, g.Set("seed", "18446744073709551615"))
	require.Equal(t, Guest{Clock: ClockVirtual, Seed: 1<<64 - 1}, g)
	require.ErrorIs(t, g.Set("clock", "fast"), ErrInvalidGuest)
	require.ErrorIs(t, g.Set("seed", "-1"), ErrInvalidGuest)
	require.ErrorIs(t, g.Set("speed", "1"), ErrInvalidGuest)
	v, ok := Guest{}.Get("clock")
	require.True(t, ok)
	require.Equal(t, ClockReal, v)
	require.Equal(t, Guest{Clock: ClockVirtual, Seed: 7}, Guest{Seed: 7}.Or(Guest{Clock: ClockVirtual, Seed: 9}))
	_, err := engine(t).Run(context.Background(), Script{Source: "1", Guest: Guest{Clock: "sundial"}}, okBridge, Limits{})
	require.ErrorIs(t, err, ErrInvalidGuest)
}

// requireExit checks that err is an *ExitError of kind (and limit, if set).
func requireExit(t *testing.T, err error, kind ExitKind, limit string) {
	t.Helper()
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, kind, xe.Kind, xe.Error())
	if limit != "" {
		require.Equal(t, limit, xe.Limit)
	}
}

// TestUnseededRunsDiffer checks that without a seed no two runs share
// Math.random's or crypto's sequence, though their instances come from one
// snapshot.
func TestUnseededRunsDiffer(t *testing.T) {
	seq := "return [Math.random(), crypto.randomUUID()]"
	a, err := runGuest(t, seq, Guest{Clock: ClockVirtual}, Limits{})
	require.NoError(t, err)
	b, err := runGuest(t, seq, Guest{Clock: ClockVirtual}, Limits{})
	require.NoError(t, err)
	var x, y [2]any
	require.NoError(t, json.Unmarshal(a.Value, &x))
	require.NoError(t, json.Unmarshal(b.Value, &y))
	require.NotEqual(t, x[0], y[0])
	require.NotEqual(t, x[1], y[1])
}

// TestTimersHoldUp covers what a hostile review found: long virtual
// timers, a script that replaces the built-ins the timers use, cleared
// timers piling up, and Node's order and handles.
func TestTimersHoldUp(t *testing.T) {
	virtual := Guest{Clock: ClockVirtual}
	res, err := runGuest(t, sleepFn+"for (let d = 0; d < 30; d++) await sleep(86400000); await sleep(2147483647 * 2); return 'a month later'",
		virtual, Limits{Timeout: 20 * time.Second})
	require.NoError(t, err)
	require.JSONEq(t, `"a month later"`, string(res.Value))
	require.Equal(t, 32, res.Stats.Entries, "start and one per sleep: no spinning past 2^31 ms")

	res, err = runGuest(t, sleepFn+`Math.ceil = Math.min = Math.max = () => 0;
		Array.prototype.push = Array.prototype.pop = function () { return 0 };
		Map.prototype.get = Map.prototype.set = function () { return undefined };
		JSON.parse = () => [];
		await sleep(150); return 'slept'`, Guest{}, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `"slept"`, string(res.Value))
	require.Equal(t, 2, res.Stats.Entries, "replaced built-ins do not make the loop spin")

	// A live timer costs the guest about 700 bytes: 30,000 that were not
	// freed would need five times the 4 MiB.
	res, err = runGuest(t, `const watchdog = setTimeout(() => {}, 60000);
		for (let i = 0; i < 30000; i++) clearTimeout(setTimeout(() => {}, 5000));
		clearTimeout(watchdog); return 'freed'`, Guest{}, Limits{MemoryBytes: 4 << 20})
	require.NoError(t, err, "cleared timers behind a live one are freed")
	require.JSONEq(t, `"freed"`, string(res.Value))

	tests := []struct{ name, src, want string }{
		{"an immediate set in a timer runs before a timer that fell due meanwhile",
			"const s = []; await new Promise((done) => setTimeout(() => { setTimeout(() => { s.push('t'); done() }, 1); const t0 = performance.now(); while (performance.now() - t0 < 3); setImmediate(() => s.push('i')) }, 1)); return s.join('')",
			`"it"`},
		{"refresh re-arms a timer that fired",
			"let n = 0; const h = setTimeout(() => n++, 5); await sleep(20); h.refresh(); await sleep(20); return n", `2`},
		{"clearTimeout does not clear an immediate, nor clearImmediate a timeout",
			"const s = []; const i = setImmediate(() => s.push('i')); clearTimeout(i); const t = setTimeout(() => s.push('t'), 1); clearImmediate(t); await sleep(20); return s", `["i","t"]`},
		{"this in a callback is its Timeout", "return await new Promise((r) => { const h = setTimeout(function () { r(this === h) }, 1) })", `true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := runGuest(t, sleepFn+tt.src, Guest{}, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
		})
	}
}
