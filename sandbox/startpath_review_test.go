package sandbox

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
	"github.com/airlockrt/airlock/sandbox/internal/wire"
)

// TestReviewNothingRunsAfterResult tries, as a script author, to run code,
// call tools, log or change the result after the result was reported
// (OP_DONE no longer unwinds the guest: quickjs.Instance.Finish).
func TestReviewNothingRunsAfterResult(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	for _, tc := range []struct{ name, src, want string }{
		{"queued call", `tools.x({}); return 1`, "1"},
		{"deep microtask", `let p = Promise.resolve(); for (let i = 0; i < 10; i++) p = p.then(() => 0);
			p.then(() => { tools.x({}); console.log("late"); }); return 1`, "1"},
		{"microtask from toJSON", `return { toJSON() { Promise.resolve().then(() => { tools.x({}); console.log("late"); }); return 1; } }`, "1"},
		{"timer", `setTimeout(() => { tools.x({}); console.log("late"); }, 0); return 1`, "1"},
		{"async generator", `async function* g() { for (let i = 0; i < 20; i++) await null; tools.x({}); console.log("late"); yield 1; }
			const it = g(); it.next(); return 1`, "1"},
		{"finalization registry", `const r = new FinalizationRegistry(() => { tools.x({}); console.log("late"); });
			return { toJSON() { for (let i = 0; i < 1000; i++) r.register({ a: new Array(100) }, i); for (let i = 0; i < 1e4; i++) ({ b: new Array(10) }); return 1; } }`, "1"},
		{"error after result", `let p = Promise.resolve(); for (let i = 0; i < 5; i++) p = p.then(() => 0);
			p.then(() => { throw new Error("late"); }); return 1`, "1"},
		{"rejection after result", `Promise.resolve().then(() => 0).then(() => 0).then(() => Promise.reject(new Error("late"))); return 1`, "1"},
		{"pending call settles after", `tools.x({}).then(() => console.log("late")); await null; return 1`, "1"},
		{"stringify override with a late job", `JSON.stringify = () => { Promise.resolve().then(() => { tools.x({}); console.log("late"); }); return "2"; }; return 1`, "2"},
		{"stringify override returning an object", `JSON.stringify = () => ({ length: 0, toString() { Promise.resolve().then(() => { tools.x({}); console.log("late"); }); return "3"; } }); return 1`, "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			bridge := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
				calls.Add(1)
				return okBridge(ctx, tool, args)
			}
			res, err := e.Run(ctx, Script{Source: tc.src}, bridge, Limits{Timeout: 10 * time.Second})
			require.NoError(t, err)
			require.Equal(t, tc.want, string(res.Value))
			for _, l := range res.Logs {
				require.NotEqual(t, "late", l.Text)
			}
			if tc.name != "pending call settles after" {
				require.Zero(t, calls.Load(), "a tool call reached the bridge after the result")
			}
		})
	}
}

// TestReviewRetiredAndLateHostCalls calls the host as a script that got
// hold of __airlock_host would: the retired op 6 (SOURCE) is a protocol
// error, and after the result no operation is answered or recorded.
func TestReviewRetiredAndLateHostCalls(t *testing.T) {
	call := func(r *scriptRun, args ...uint64) (stopped bool) {
		defer func() {
			if v := recover(); v != nil {
				_, stopped = v.(stopGuest)
				if !stopped {
					panic(v)
				}
			}
		}()
		r.HostCall(context.Background(), nil, args)
		return false
	}
	r := &scriptRun{}
	require.True(t, call(r, quickjs.Int(6)))
	require.True(t, r.finished)
	require.NotNil(t, r.exit)
	require.Equal(t, Trap, r.exit.Kind)
	require.Contains(t, r.exit.Message, "operation 6")

	for _, op := range []int32{wire.OpCall, wire.OpLog, wire.OpDone, wire.OpFail, wire.OpTimer, wire.OpTooLarge, wire.OpPumped, wire.OpWhere, 6} {
		r := &scriptRun{finished: true, value: []byte("1")}
		require.True(t, call(r, quickjs.Int(op), quickjs.Int(0)), "op %d", op)
		require.Nil(t, r.exit, "op %d", op)
		require.Equal(t, "1", string(r.value), "op %d", op)
		require.Empty(t, r.queued, "op %d", op)
	}
}

// TestReviewConcurrentRunsShareNoTables runs chains side by side, all
// restored from the one snapshot, each doing what writes an instance's
// lookup tables (call sites of failing tools, Intl, timers, a result read
// in place): run with -race, and each must see only its own results.
func TestReviewConcurrentRunsShareNoTables(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	fail := func(_ context.Context, tool string, args []byte) ([]byte, error) {
		if tool == "bad" {
			return []byte(`{"status":"error","reason":"nope","message":"no"}`), nil
		}
		return okBridge(ctx, tool, args)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 6 {
				src := fmt.Sprintf(`
					let site = "";
					try { await tools.bad({}); } catch (e) { site = String(e.stack).length > 0; }
					const n = new Intl.NumberFormat("en-US").format(%d);
					await new Promise(r => setTimeout(r, 1));
					const v = await tools.ok({ i: %d });
					return [n, v.args.i, site, "é%d"]`, 1000+i, i*100+j, j)
				res, err := e.Run(ctx, Script{Source: src}, fail, Limits{Timeout: 20 * time.Second})
				if err != nil {
					errs <- err
					return
				}
				want := fmt.Sprintf(`["%s",%d,true,"é%d"]`, fmt.Sprintf("1,%03d", i), i*100+j, j)
				if string(res.Value) != want {
					errs <- fmt.Errorf("run %d.%d: got %s, want %s", i, j, res.Value, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// TestReviewConcurrentResumes resumes one parked state several times at
// once beside fresh runs (-race): the resumed instances look their entry
// points up again in tables Restore shares, and each ends with its result
// and runs nothing after it.
func TestReviewConcurrentResumes(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	src := `const v = await tools.risky({ n: 1 });
		let p = Promise.resolve(); for (let i = 0; i < 10; i++) p = p.then(() => 0);
		p.then(() => { tools.late({}); console.log("late"); });
		return v.args.n`
	res, err := e.Run(ctx, Script{Source: src, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	var late atomic.Int32
	bridge := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		if tool == "late" {
			late.Add(1)
		}
		return okBridge(ctx, tool, args)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			got, err := e.Resume(ctx, Resumption{State: res.Parked.State, Bridge: bridge, Retry: approveAll})
			if err == nil && (string(got.Value) != "1" || len(got.Logs) != 0) {
				err = fmt.Errorf("resumed: %s %v", got.Value, got.Logs)
			}
			if err != nil {
				errs <- err
			}
		}()
		go func() {
			defer wg.Done()
			got, err := e.Run(ctx, Script{Source: `await tools.ok({}); return "fresh"`}, bridge, Limits{})
			if err == nil && string(got.Value) != `"fresh"` {
				err = fmt.Errorf("fresh: %s", got.Value)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Zero(t, late.Load())
}

// TestReviewNestedResultEndsTheOperation has the script report its result
// from inside a host operation that called back into it (the host turning
// a value the script handed it into a string, after the script replaced
// JSON.stringify and captured the prelude's settlement functions through a
// replaced Promise, which the prelude since refuses): the operation in
// progress must not act once the run has its result: not replace the
// result, log, or fail the run.
func TestReviewNestedResultEndsTheOperation(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	steal := `let fin, bad;
		globalThis.Promise = { resolve() { return { then() { return { then(ok, no) { fin = ok; bad = no; } }; } }; } };
		`
	for _, tc := range []struct{ name, src, want string }{
		{"result inside the result's conversion", steal + `
			JSON.stringify = (v) => v === "inner" ? '"inner"' : { length: 0, toString() { fin("inner"); return '"outer"'; } };
			setTimeout(() => fin("outer"), 0); 5`, `"inner"`},
		{"result inside a failure's conversion", steal + `
			JSON.stringify = (v) => v === "inner" ? '"inner"' : { length: 0, indexOf() { return -1; }, toString() { fin("inner"); return '{"name":"Error","message":"outer","error":true}'; } };
			setTimeout(() => bad(new Error("x")), 0); 5`, `"inner"`},
		{"result inside a tool call's arguments", steal + `
			JSON.stringify = (v) => v === "inner" ? '"inner"' : { length: 0, indexOf() { return -1; }, toString() { fin("inner"); return "{}"; } };
			setTimeout(() => { tools.x({}); }, 0); 5`, `"inner"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			bridge := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
				calls.Add(1)
				return okBridge(ctx, tool, args)
			}
			res, err := e.Run(ctx, Script{Source: tc.src}, bridge, Limits{Timeout: 10 * time.Second})
			require.Zero(t, calls.Load())
			if err != nil {
				// The prelude no longer hands the script finish and fail
				// (TestReviewScriptCannotTakeTheSettlement), so the steal
				// fails and the script with it; the host's guard stays.
				return
			}
			require.Equal(t, tc.want, string(res.Value))
			require.Empty(t, res.Logs)
		})
	}
}

// TestReviewScriptCannotTakeTheSettlement replaces Promise, then
// Promise.prototype.then, before the prelude chains the script's
// completion to its result: the script must not get the prelude's finish
// or fail, with which it could report a result and keep running after it.
func TestReviewScriptCannotTakeTheSettlement(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	for _, tc := range []struct{ name, src string }{
		{"replaced Promise", `let got = false;
			globalThis.Promise = { resolve() { return { then() { return { then(ok) { got = true; ok(true); } }; } }; } };
			(() => got)`},
		{"replaced then", `let got = false;
			const then = Promise.prototype.then;
			Promise.prototype.then = function (ok, no) { if ((ok && ok.name === "finish") || (no && no.name === "fail")) got = true; return then.call(this, ok, no); };
			(async () => { await new Promise(r => setTimeout(r, 5)); Promise.prototype.then = then; return got; })`},
		{"species of the derived promises", `let got = false;
			const NP = Promise;
			class Fake {
				constructor(ex) {
					let res, rej;
					const p = new NP((a, b) => { res = a; rej = b; });
					ex((v) => { if (v === undefined) globalThis.late = new Uint8Array(40 << 20); res(v); }, (e) => rej(e));
					return p;
				}
			}
			Object.defineProperty(Promise.prototype, "constructor", { value: { [Symbol.species]: Fake }, writable: true, configurable: true });
			(() => { Object.defineProperty(NP.prototype, "constructor", { value: NP, writable: true, configurable: true }); return 7; })`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Run(ctx, Script{Source: tc.src}, okBridge, Limits{Timeout: 10 * time.Second})
			if tc.name == "species of the derived promises" {
				// finish returns undefined: were the chain's last promise
				// the script's, its resolve would run after the result.
				require.NoError(t, err)
				require.Equal(t, "7", string(res.Value))
				require.Less(t, res.Stats.MemoryBytes, uint64(32<<20), "the script allocated after its result")
				return
			}
			if err != nil {
				// Refusing to run is fine too; handing over the settlement is not.
				return
			}
			require.Equal(t, "false", string(res.Value))
		})
	}
}

// TestReviewResultIsUTF8 hands OP_DONE, through a replaced JSON.stringify,
// results the engine's own JSON.stringify never makes: a raw lone
// surrogate (which the engine converts to WTF-8, not UTF-8) is refused, as
// a result that is not JSON is; strings of every representation the
// result can be read in place from (slices, wide, built by appending)
// come out as the engine converts them.
func TestReviewResultIsUTF8(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	for _, src := range []string{
		`JSON.stringify = () => '"\ud800"'; 1`,
		`JSON.stringify = () => '["a\udc00b"]'; 1`,
		`JSON.stringify = () => ('"' + "€".repeat(40) + '\ud83d"'); 1`,
	} {
		_, err := e.Run(ctx, Script{Source: src}, okBridge, Limits{})
		var xe *ExitError
		require.ErrorAs(t, err, &xe, src)
		require.Equal(t, ScriptError, xe.Kind, src)
		require.Contains(t, xe.Message, "not valid JSON", src)
	}
	for _, tc := range []struct{ src, want string }{
		{`JSON.stringify = () => ('xx"' + "é".repeat(300) + '"').slice(2); 1`, `"` + strings.Repeat("é", 300) + `"`},
		{`JSON.stringify = () => ('xx"' + "€".repeat(300) + '"').slice(2); 1`, `"` + strings.Repeat("€", 300) + `"`},
		{`JSON.stringify = () => { let s = '"'; for (let i = 0; i < 500; i++) s += "ab€"; return s + '"'; }; 1`, `"` + strings.Repeat("ab€", 500) + `"`},
		{`JSON.stringify = () => { const s = '["' + "a".repeat(100) + '","' + "😀".repeat(100) + '"]'; return s.slice(0, 50) + s.slice(50); }; 1`,
			`["` + strings.Repeat("a", 100) + `","` + strings.Repeat("😀", 100) + `"]`},
	} {
		res, err := e.Run(ctx, Script{Source: tc.src}, okBridge, Limits{})
		require.NoError(t, err, tc.src)
		require.Equal(t, tc.want, string(res.Value), tc.src)
	}
}

// TestReviewCallArgsAreUTF8 has a script that replaced JSON.stringify pass
// a tool arguments holding a raw lone surrogate, which the engine converts
// to WTF-8: the Bridge (and whoever approves the call, who would be shown
// a replacement character for what the tool receives) must never see
// arguments that are not UTF-8.
func TestReviewCallArgsAreUTF8(t *testing.T) {
	e := engine(t)
	var bad atomic.Int32
	bridge := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		if !utf8.Valid(args) {
			bad.Add(1)
		}
		return okBridge(ctx, tool, []byte("{}"))
	}
	src := `JSON.stringify = () => '{"a":"\ud800"}';
		try { await tools.x({}); return "called"; } catch (e) { return "refused"; }`
	res, err := e.Run(context.Background(), Script{Source: src}, bridge, Limits{})
	require.Zero(t, bad.Load(), "the bridge got arguments that are not UTF-8")
	if err == nil {
		require.Equal(t, `"refused"`, string(res.Value))
	}
}

// TestReviewHostileToolResultAsResult returns what a hostile tool answered
// (lone surrogates, NULs, deep nesting) as the script's result, read in
// place: it comes out as the engine's JSON.stringify wrote it, UTF-8.
func TestReviewHostileToolResultAsResult(t *testing.T) {
	e := engine(t)
	value := `["\ud800","a\udc00b","\u0000","😀\ud83d",` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `]`
	bridge := func(context.Context, string, []byte) ([]byte, error) {
		return []byte(`{"status":"ok","value":` + value + `}`), nil
	}
	res, err := e.Run(context.Background(), Script{Source: `return await tools.x({})`}, bridge, Limits{})
	require.NoError(t, err)
	require.True(t, utf8.Valid(res.Value))
	require.Equal(t, `["\ud800","a\udc00b","\u0000","😀\ud83d",`+strings.Repeat("[", 200)+strings.Repeat("]", 200)+`]`, string(res.Value))
}
