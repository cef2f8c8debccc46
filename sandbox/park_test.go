package sandbox

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// parkScript makes three calls in a Promise.all, two of which wait for a
// decision, while a timer is pending; it reads the clock and randomness
// before and after.
const parkScript = `
const order = [];
const t0 = performance.now();
const timer = new Promise(r => setTimeout(() => { order.push('timer'); r('t'); }, 20));
const calls = Promise.all([tools.risky({n: 1}), tools.safe({n: 2}), tools.risky({n: 3})])
  .then(v => { order.push('calls'); return v; });
const big = 'x'.repeat(100000);
const [vals, t] = await Promise.all([calls, timer]);
console.log('after', order.join(','));
return {vals: vals.map(v => v.args.n), t, order, r: Math.random(), u: crypto.randomUUID(),
  forward: performance.now() >= t0, big: big.length, now: typeof Date.now()};
`

// parkBridge answers risky calls with *Pending (the token is the call's
// arguments) and every other call at once.
func parkBridge(_ context.Context, tool string, args []byte) ([]byte, error) {
	if tool == "risky" {
		return nil, &Pending{Token: append([]byte(nil), args...)}
	}
	return okBridge(context.Background(), tool, args)
}

// approveAll answers a retried call as the tool would.
func approveAll(_ context.Context, token []byte) ([]byte, error) {
	return okBridge(context.Background(), "risky", token)
}

func TestParkResumeMatchesUninterrupted(t *testing.T) {
	e := engine(t)
	guest := Guest{Clock: ClockVirtual, Seed: 7}
	want, err := e.Run(context.Background(), Script{Source: parkScript, Guest: guest}, okBridge, Limits{})
	require.NoError(t, err)

	res, err := e.Run(context.Background(), Script{Source: parkScript, Guest: guest, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	require.Nil(t, res.Value)
	require.Len(t, res.Parked.Calls, 2)
	require.Equal(t, `{"n":1}`, string(res.Parked.Calls[0].Token))
	require.Equal(t, `{"n":3}`, string(res.Parked.Calls[1].Token))
	t.Logf("parked state: %d bytes", len(res.Parked.State))

	// Another engine stands for another process.
	other, err := NewScriptEngine(context.Background(), ScriptOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer other.Close(context.Background())
	got, err := other.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge, Retry: approveAll})
	require.NoError(t, err)
	require.Nil(t, got.Parked)
	require.JSONEq(t, string(want.Value), string(got.Value))
	require.Equal(t, want.Logs, got.Logs)
	require.Equal(t, want.Stats.Calls, got.Stats.Calls)
}

func TestParkRealClockTimerFiresFirst(t *testing.T) {
	e := engine(t)
	res, err := e.Run(context.Background(), Script{Source: parkScript, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	time.Sleep(60 * time.Millisecond) // the human takes longer than the timer
	got, err := e.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge, Retry: approveAll})
	require.NoError(t, err)
	var v struct {
		Vals    []int    `json:"vals"`
		Order   []string `json:"order"`
		Forward bool     `json:"forward"`
	}
	require.NoError(t, json.Unmarshal(got.Value, &v))
	require.Equal(t, []int{1, 2, 3}, v.Vals)
	require.Equal(t, []string{"timer", "calls"}, v.Order)
	require.True(t, v.Forward)
}

func TestParkAgainUntilDecided(t *testing.T) {
	e := engine(t)
	res, err := e.Run(context.Background(), Script{Source: parkScript, Guest: Guest{Clock: ClockVirtual}, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	// The first resumption decides only n=1: the run parks again on n=3.
	partly := func(ctx context.Context, token []byte) ([]byte, error) {
		if strings.Contains(string(token), "3") {
			return nil, &Pending{Token: token}
		}
		return approveAll(ctx, token)
	}
	res, err = e.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge, Retry: partly, Park: true})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	require.Len(t, res.Parked.Calls, 1)
	require.Equal(t, `{"n":3}`, string(res.Parked.Calls[0].Token))
	// A denial is just another answer.
	deny := func(context.Context, []byte) ([]byte, error) {
		return []byte(`{"status":"denied","reason":"approval_denied","message":"no"}`), nil
	}
	_, err = e.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge, Retry: deny})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, ScriptError, xe.Kind)
	require.Contains(t, xe.Message, "no")
}

func TestPendingWithoutParkIsABridgeFailure(t *testing.T) {
	_, err := engine(t).Run(context.Background(), Script{Source: parkScript}, parkBridge, Limits{})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, HostError, xe.Kind)
}

func TestParkCatchesUpWithTimers(t *testing.T) {
	// An interval ticking while the run is parked: in Node it would have
	// ticked three times before the call returned.
	src := `let n = 0; const iv = setInterval(() => { if (++n === 3) clearInterval(iv); }, 1);
const v = await tools.risky({}); return n;`
	res, err := engine(t).Run(context.Background(), Script{Source: src, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	// The decision comes after the interval's last tick was due: the
	// resumed run runs the ticks it missed first, each at its own time.
	time.Sleep(30 * time.Millisecond)
	got, err := engine(t).Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge, Retry: approveAll})
	require.NoError(t, err)
	require.Equal(t, "3", string(got.Value))
}

func TestResumeRefusesBadStates(t *testing.T) {
	e := engine(t)
	res, err := e.Run(context.Background(), Script{Source: parkScript, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	state := res.Parked.State
	resume := func(s []byte) error {
		_, err := e.Resume(context.Background(), Resumption{State: s, Bridge: okBridge, Retry: approveAll})
		return err
	}
	require.ErrorIs(t, resume(nil), ErrCorruptState)
	require.ErrorIs(t, resume([]byte("ALPS")), ErrCorruptState)
	newer := append([]byte("ALPS\x03"), state[5:]...) // 2: a state with CryptoKeys
	require.ErrorIs(t, resume(newer), ErrIncompatibleState)
	// Every truncation is refused, never a panic.
	for n := 0; n < len(state); n += max(1, len(state)/97) {
		err := resume(state[:n])
		require.Error(t, err, "truncated at %d", n)
		require.True(t, errors.Is(err, ErrCorruptState) || errors.Is(err, ErrIncompatibleState), "truncated at %d: %v", n, err)
	}
}

func TestResumeRefusesForgedCounters(t *testing.T) {
	e := engine(t)
	res, err := e.Run(context.Background(), Script{Source: parkScript, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	h, inst, err := decodeState(res.Parked.State)
	require.NoError(t, err)
	for name, edit := range map[string]func(*hostState){
		"pending id":     func(h *hostState) { h.Pending[0].ID = 999 },
		"in flight":      func(h *hostState) { h.InFlight = 10_000 },
		"memory limit":   func(h *hostState) { h.MemoryBytes = 1 << 20 },
		"log bytes":      func(h *hostState) { h.LogBytes = -1 },
		"language":       func(h *hostState) { h.Lang = 9 },
		"intl format op": func(h *hostState) { h.IntlFormats = []string{`K{"l":[],"o":{}}` + "\n"} },
		"intl format twice": func(h *hostState) {
			h.IntlFormats = []string{`N{"l":[],"o":{}}` + "\n", `N{"l":[],"o":{}}` + "\n"}
		},
		"intl formats": func(h *hostState) {
			for i := range MaxIntlFormats + 1 {
				h.IntlFormats = append(h.IntlFormats, fmt.Sprintf(`N{"l":["x-%d"],"o":{}}`, i))
			}
		},
		"intl format bytes": func(h *hostState) {
			h.IntlFormats = []string{`N{"l":["` + strings.Repeat("a", MaxIntlFormatBytes) + `"],"o":{}}`}
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := *h
			c.Pending = append([]PendingCall(nil), h.Pending...)
			edit(&c)
			js, err := json.Marshal(c)
			require.NoError(t, err)
			state := fmt.Appendf(nil, "ALPS\x01%c", len(js))
			if len(js) >= 128 {
				state = append([]byte("ALPS\x01"), byte(len(js)|0x80), byte(len(js)>>7))
			}
			state = append(append(state, js...), inst...)
			_, err = e.Resume(context.Background(), Resumption{State: state, Bridge: okBridge, Retry: approveAll})
			require.ErrorIs(t, err, ErrCorruptState)
		})
	}
}

func TestParkedRunsTimeoutCountsRunTimeOnly(t *testing.T) {
	e := engine(t)
	var retried atomic.Int32
	res, err := e.Run(context.Background(), Script{Source: `await tools.risky({}); return 'ok'`, Park: true}, parkBridge,
		Limits{Timeout: 2 * time.Second})
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond)
	got, err := e.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge,
		Retry: func(ctx context.Context, tok []byte) ([]byte, error) { retried.Add(1); return approveAll(ctx, tok) }})
	require.NoError(t, err)
	require.Equal(t, `"ok"`, string(got.Value))
	require.Equal(t, int32(1), retried.Load())
}

func TestResumeRefusesChunkOffsetsThatWrap(t *testing.T) {
	e := engine(t)
	res, err := e.Run(context.Background(), Script{Source: parkScript, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	h, _, err := decodeState(res.Parked.State)
	require.NoError(t, err)
	js, err := json.Marshal(h)
	require.NoError(t, err)
	// An engine state of one chunk at offset 2^64-4096: off+n wraps to 0.
	var inst []byte
	inst = append(inst, "AQJS"...)
	put := func(v uint64) { inst = binary.AppendUvarint(inst, v) }
	putStr := func(v string) { put(uint64(len(v))); inst = append(inst, v...) }
	put(2) // the engine state's format version
	putStr("x")
	put(h.MemoryBytes)
	put(26)
	put(1)
	put(1)
	put(1)
	put(0)
	put(0)
	put(0)
	put(0) // globals
	put(0) // compiled
	put(1) // chunks
	put(math.MaxUint64 - 4095)
	put(4096)
	state := append([]byte("ALPS\x01"), binary.AppendUvarint(nil, uint64(len(js)))...)
	state = append(append(state, js...), inst...)
	// A healthy chain runs alongside the forged resumptions, untouched.
	healthy := make(chan error, 1)
	go func() {
		res, err := e.Run(context.Background(), Script{Source: `const r = await tools.a({n: 1}); return r.args.n + 1`}, okBridge, Limits{})
		if err == nil && string(res.Value) != "2" {
			err = fmt.Errorf("healthy chain returned %s", res.Value)
		}
		healthy <- err
	}()
	for range 20 {
		_, err = e.Resume(context.Background(), Resumption{State: state, Bridge: okBridge, Retry: approveAll})
		require.ErrorIs(t, err, ErrCorruptState)
	}
	require.NoError(t, <-healthy)
}

// TestResumeRefusesAnotherPrelude: a state parked by an engine with another
// prelude (whose code, in the guest's memory, speaks another host protocol),
// or by one that recorded none, is refused as incompatible, whatever base
// its memory was captured against.
func TestResumeRefusesAnotherPrelude(t *testing.T) {
	e := engine(t)
	res, err := e.Run(context.Background(), Script{Source: parkScript, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	h, inst, err := decodeState(res.Parked.State)
	require.NoError(t, err)
	require.Equal(t, preludeHash(), h.Prelude)
	for name, prelude := range map[string]string{"another": strings.Repeat("0", 64), "none": ""} {
		t.Run(name, func(t *testing.T) {
			c := *h
			c.Prelude = prelude
			js, err := json.Marshal(c)
			require.NoError(t, err)
			state := binary.AppendUvarint([]byte("ALPS\x01"), uint64(len(js)))
			state = append(append(state, js...), inst...)
			_, err = e.Resume(context.Background(), Resumption{State: state, Bridge: okBridge, Retry: approveAll})
			require.ErrorIs(t, err, ErrIncompatibleState)
			require.ErrorContains(t, err, "another prelude")
		})
	}
}

// TestResumeWithIntlFormatsThatDoNotCompile: a parked state (T3, past the
// fleet's MAC) whose table of Intl formats holds prefixes that no longer
// compile, or a date format where the guest holds a number format's
// handle, resumes without a panic: a handle whose prefix fails answers
// undefined and the prelude's request reports the error to the script;
// a swapped one formats with what the state says (the MAC, not the
// engine, keeps T3 from choosing). A bystander chain runs alongside.
func TestResumeWithIntlFormatsThatDoNotCompile(t *testing.T) {
	const src = `
const nf = new Intl.NumberFormat("de-DE"), df = new Intl.DateTimeFormat("en-US", { timeZone: "UTC" });
const before = [nf.format(1234.5), df.format(0)];
await tools.risky({ n: 1 });
const out = [];
for (const f of [() => nf.format(1234.5), () => df.format(0), () => (1).toLocaleString("de-DE")]) {
  try { out.push(f()); } catch (e) { out.push(e.name); }
}
return [before, out];`
	e := engine(t)
	wait := bystander(t, e)
	defer wait()
	res, err := e.Run(context.Background(), Script{Source: src, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	h, inst, err := decodeState(res.Parked.State)
	require.NoError(t, err)
	require.Len(t, h.IntlFormats, 2)
	const right = `[["1.234,5","1/1/1970"],["1.234,5","1/1/1970","1"]]`
	for name, tt := range map[string]struct {
		formats []string
		want    string
	}{
		// The prelude's requests carry its own prefixes: right answers.
		"options that fail": {[]string{`N{"l":["de-DE"],"o":{"style":"currency"}}` + "\n", `D{"l":["en-US"],"o":{"timeZone":"Mars/Olympus"}}` + "\n"}, right},
		"not JSON":          {[]string{"N{\n", "D\n"}, right},
		"ops swapped":       {[]string{h.IntlFormats[1], h.IntlFormats[0]}, `[["1.234,5","1/1/1970"],["1/1/1970","0","1"]]`},
	} {
		t.Run(name, func(t *testing.T) {
			c := *h
			c.IntlFormats = tt.formats
			js, err := json.Marshal(c)
			require.NoError(t, err)
			state := fmt.Appendf(nil, "ALPS\x01%c", len(js))
			if len(js) >= 128 {
				state = append([]byte("ALPS\x01"), byte(len(js)|0x80), byte(len(js)>>7))
			}
			state = append(append(state, js...), inst...)
			got, err := e.Resume(context.Background(), Resumption{State: state, Bridge: okBridge, Retry: approveAll})
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(got.Value))
		})
	}
}
