package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	RunParseWorker() // this binary is the parse worker of the tests' large parses
	goleak.VerifyTestMain(m)
}

// shared is one engine for the tests that do not close theirs: compiling
// QuickJS costs ~1 s per engine. Each test uses its own runs only. It parses
// without the parse-time budget (noParseBudget): a test that checks a large
// script is accepted must not race a wall-clock budget on a busy machine;
// TestParseBudget tests the budget.
var shared = struct {
	once sync.Once
	e    *ScriptEngine
	err  error
}{}

func engine(t testing.TB) *ScriptEngine {
	t.Helper()
	shared.once.Do(func() {
		shared.e, shared.err = NewScriptEngine(context.Background(), ScriptOptions{CompilationCacheDir: cacheDir()})
		if shared.err == nil {
			shared.e.parse = noParseBudget
		}
	})
	require.NoError(t, shared.err)
	return shared.e
}

// cacheDir keeps the compiled engine across test processes.
func cacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return dir + "/airlock/wazero-test"
}

// okBridge answers every call with {"status":"ok","value":{"tool":…,"args":…}}.
func okBridge(_ context.Context, tool string, args []byte) ([]byte, error) {
	return []byte(fmt.Sprintf(`{"status":"ok","value":{"tool":%q,"args":%s}}`, tool, args)), nil
}

func run(t *testing.T, src string, br Bridge, lim Limits) (*Result, error) {
	t.Helper()
	if br == nil {
		br = okBridge
	}
	return engine(t).Run(context.Background(), Script{Source: src}, br, lim)
}

func TestRunResults(t *testing.T) {
	tests := []struct {
		name  string
		lang  Lang
		guest Guest
		src   string
		want  string
	}{
		{name: "body with return", src: "return 1 + 2", want: `3`},
		{name: "body without return", src: "const x = 1; await tools.a()", want: `null`},
		{name: "completion value", src: "const x = 20;\nx * 2 + 2", want: `42`},
		{name: "async arrow", src: "async () => {\n  const r = await tools.search({q: 'x'});\n  return r.args.q;\n}", want: `"x"`},
		{name: "async arrow with semicolon", src: "async () => { return 5 };\n", want: `5`},
		{name: "plain arrow", src: "() => 7", want: `7`},
		{name: "promise expression", src: "tools.echo({n: 1})", want: `{"tool":"echo","args":{"n":1}}`},
		{name: "object literal", src: "({a: [1, 'b', null]})", want: `{"a":[1,"b",null]}`},
		{name: "declared then called", src: "async function main() { return 'm' }\nmain()", want: `"m"`},
		{name: "undefined result", src: "return undefined", want: `null`},
		{name: "no args means {}", src: "return (await tools.t()).args", want: `{}`},
		{name: "tool names that are not identifiers", src: "return (await tools['github.search']({})).tool", want: `"github.search"`},
		{name: "await tools is not a call", src: "const t = await tools; return typeof t.x", want: `"function"`},
		{name: "JSON.stringify(tools)", src: "return JSON.stringify(tools)", want: `"{}"`},
		{name: "artifact passes through", src: "const a = {$artifact: 'art_1', preview: 'p', size: 3, mime: 'text/plain'};\nreturn (await tools.use({doc: a})).args.doc",
			want: `{"$artifact":"art_1","preview":"p","size":3,"mime":"text/plain"}`},
		{name: "TS body", lang: LangTS, src: "interface R { tool: string }\nconst r: R = await tools.a({});\nreturn r.tool;", want: `"a"`},
		{name: "TS arrow", lang: LangTS, src: "async (): Promise<number> => {\n  const n: number = 4;\n  return n;\n}", want: `4`},
		{name: "TS enum", lang: LangTS, src: "enum C { R, G }\nreturn C.G", want: `1`},
		{name: "virtual clock", src: "return new Date(Date.now()).getUTCFullYear()", guest: Guest{Clock: ClockVirtual}, want: `2022`},
		{name: "timers on virtual time", src: "await new Promise(r => setTimeout(r, 60000)); return 'later'",
			guest: Guest{Clock: ClockVirtual}, want: `"later"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := engine(t).Run(context.Background(), Script{Source: tt.src, Lang: tt.lang, Guest: tt.guest}, okBridge, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
		})
	}
}

func TestToolErrors(t *testing.T) {
	br := func(_ context.Context, tool string, _ []byte) ([]byte, error) {
		switch tool {
		case "denied":
			return []byte(`{"status":"denied","reason":"approval_denied","message":"the user said no"}`), nil
		case "bare":
			return []byte(`{"status":"error"}`), nil
		}
		return []byte(`{"status":"error","reason":"unknown_tool","message":"no tool named nope"}`), nil
	}
	res, err := run(t, `
		const out = [];
		for (const name of ["nope", "denied", "bare"]) {
			try { await tools[name]({}); } catch (e) {
				out.push({ctor: e instanceof ToolError && e instanceof Error, name: e.name, tool: e.tool,
					status: e.status, reason: e.reason, message: e.message});
			}
		}
		return out;`, br, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `[
		{"ctor":true,"name":"ToolError","tool":"nope","status":"error","reason":"unknown_tool","message":"no tool named nope"},
		{"ctor":true,"name":"ToolError","tool":"denied","status":"denied","reason":"approval_denied","message":"the user said no"},
		{"ctor":true,"name":"ToolError","tool":"bare","status":"error","reason":"","message":"tool bare: error"}]`, string(res.Value))
}

// TestOkEnvelopeForms checks that envelopes close to the plain ok form,
// which the host hands over as their value alone (wire.OkValue), settle as
// the whole envelope says when they are not exactly that form: a later
// "status" member wins, as in JSON.parse.
func TestOkEnvelopeForms(t *testing.T) {
	envs := map[string]string{
		"plain":   `{"status":"ok","value":{"a":[1,"}"]}}`,
		"spaced":  `{ "status": "ok", "value": 2 }`,
		"second":  `{"status":"ok","value":3,"status":"denied","reason":"r","message":"later status"}`,
		"novalue": `{"status":"ok"}`,
		"extra":   `{"status":"ok","value":4,"note":"x"}`,
	}
	br := func(_ context.Context, tool string, _ []byte) ([]byte, error) { return []byte(envs[tool]), nil }
	res, err := run(t, `
		const out = {};
		for (const name of ["plain", "spaced", "second", "novalue", "extra"]) {
			try { out[name] = await tools[name]({}); } catch (e) { out[name] = e.name + ": " + e.message; }
		}
		return out;`, br, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `{"plain":{"a":[1,"}"]},"spaced":2,"second":"ToolError: later status","novalue":null,"extra":4}`, string(res.Value))
}

// TestToolErrorStack pins how many of the script's frames a ToolError's
// stack (the call site of its tools.x(), relocated) keeps under
// Error.stackTraceLimit: the prelude's frames above the call count against
// the limit, as when every frame was captured (hereSite, 05-errors.js).
func TestToolErrorStack(t *testing.T) {
	br := func(context.Context, string, []byte) ([]byte, error) {
		return []byte(`{"status":"error","message":"boom"}`), nil
	}
	const f = "var f = function f(n) { if (n === 0) return tools.fail({}); return f(n - 1); };\n"
	const at0, at1 = "\n    at f (script.js:1:51)", "\n    at f (script.js:1:68)"
	for _, tt := range []struct{ name, src, want string }{
		{"default limit", f + "try { await f(12); } catch (e) { return e.stack; }", "ToolError: boom" + at0 + at1 + at1 + at1},
		{"shallow", f + "try { await f(1); } catch (e) { return e.stack; }", "ToolError: boom" + at0 + at1 + "\n    at script.js:2:13"},
		{"limit 7", "Error.stackTraceLimit = 7;\n" + f + "try { await f(12); } catch (e) { return e.stack; }",
			"ToolError: boom\n    at f (script.js:2:51)"},
		{"limit 5", "Error.stackTraceLimit = 5;\n" + f + "try { await f(12); } catch (e) { return e.stack; }", "ToolError: boom"},
		{"limit 20", "Error.stackTraceLimit = 20;\n" + f + "try { await f(30); } catch (e) { return e.stack.split('\\n').length; }", "15"},
		{"limit 100", "Error.stackTraceLimit = 100;\n" + f + "try { await f(70); } catch (e) { return e.stack.split('\\n').length; }", "59"},
		{"through map", "Error.stackTraceLimit = 9;\nvar f = (n) => n === 0 ? [1].map(tools.fail)[0] : f(n - 1);\ntry { await f(5); } catch (e) { return e.stack; }",
			"ToolError: boom\n    at f (script.js:2:34)\n    at f (script.js:2:51)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, tt.src, br, Limits{})
			require.NoError(t, err)
			var got any
			require.NoError(t, json.Unmarshal(res.Value, &got))
			require.Equal(t, tt.want, fmt.Sprint(got))
		})
	}
}

func TestConsole(t *testing.T) {
	res, err := run(t, `
		console.log("a", 1, {b: [2]}, null);
		console.info("i"); console.debug("d"); console.warn("w");
		console.error(new TypeError("bad"));
		console.log("nul\0byte");
		return 0;`, nil, Limits{})
	require.NoError(t, err)
	require.Len(t, res.Logs, 6)
	require.Equal(t, LogEntry{Level: LogInfo, Text: `a 1 { b: [ 2 ] } null`}, res.Logs[0])
	require.Equal(t, []LogLevel{LogInfo, LogInfo, LogDebug, LogWarn, LogError, LogInfo},
		[]LogLevel{res.Logs[0].Level, res.Logs[1].Level, res.Logs[2].Level, res.Logs[3].Level, res.Logs[4].Level, res.Logs[5].Level})
	require.Contains(t, res.Logs[4].Text, "TypeError: bad")
	require.Equal(t, `nul\u0000byte`, res.Logs[5].Text)
	require.False(t, res.LogsTruncated)
}

// TestPromiseAllRunsConcurrently proves two calls are in flight at once: the
// bridge holds each call until both have arrived.
func TestPromiseAllRunsConcurrently(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	br := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		arrived.Done()
		waited := make(chan struct{})
		go func() { arrived.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			return nil, errors.New("the other call never arrived")
		}
		return okBridge(ctx, tool, args)
	}
	res, err := run(t, "const [a, b] = await Promise.all([tools.a({}), tools.b({})]); return [a.tool, b.tool]", br, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `["a","b"]`, string(res.Value))
	require.Equal(t, 2, res.Stats.Calls)
}

func TestScriptErrors(t *testing.T) {
	tests := []struct {
		name      string
		lang      Lang
		src       string
		msg       string
		line, col int
	}{
		{name: "JS syntax", src: "const a = 1;\nconst b = ;\n", msg: "SyntaxError", line: 2, col: 11},
		{name: "JS syntax in body", src: "await tools.a();\n\nlet = = 2", msg: "SyntaxError", line: 3},
		{name: "TS syntax", lang: LangTS, src: "const a: number = 1;\n\nlet x: = 3;", msg: "SyntaxError", line: 3, col: 8},
		{name: "thrown Error", src: "const a = 1;\n\n  throw new RangeError('nope')", msg: "RangeError: nope", line: 3},
		{name: "reference error", src: "\n\n  foo.bar", msg: "ReferenceError: foo is not defined", line: 3, col: 3},
		{name: "thrown string", src: "throw 'boom'", msg: `uncaught non-Error value: "boom"`},
		{name: "thrown object", src: "throw {code: 7}", msg: `uncaught non-Error value: { code: 7 }`},
		{name: "thrown null", src: "await null; throw null", msg: `uncaught non-Error value: null`},
		{name: "uncaught tool error", src: "await tools.x()", msg: "ToolError: tool x: error", line: 1, col: 13},
		{name: "TS runtime error", lang: LangTS, src: "type T = number;\nconst a: T = 1;\n\nnull.x;", msg: "TypeError", line: 4},
		{name: "result not JSON", src: "return 1n", msg: "not JSON-serializable"},
		{name: "never settles", src: "await new Promise(() => {})", msg: "can never finish"},
		{name: "NUL byte", src: "let a = 1;\n\x00", msg: "NUL byte", line: 2, col: 1},
	}
	br := func(context.Context, string, []byte) ([]byte, error) { return []byte(`{"status":"error"}`), nil }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := engine(t).Run(context.Background(), Script{Source: tt.src, Lang: tt.lang}, br, Limits{})
			var xe *ExitError
			require.ErrorAs(t, err, &xe)
			require.Equal(t, ScriptError, xe.Kind, xe.Error())
			require.Contains(t, xe.Message, tt.msg)
			require.Equal(t, tt.line, xe.Line, xe.Error())
			if tt.col != 0 {
				require.Equal(t, tt.col, xe.Column, xe.Error())
			}
			require.NotNil(t, res)
			require.Nil(t, res.Value)
		})
	}
}

func TestCheck(t *testing.T) {
	e := engine(t)
	require.NoError(t, e.Check(Script{Source: "return await tools.a()"}))
	require.NoError(t, e.Check(Script{Source: "async () => 1;"}))
	require.NoError(t, e.Check(Script{Source: "const n: number = 1; return n", Lang: LangTS}))
	var xe *ExitError
	require.ErrorAs(t, e.Check(Script{Source: "\nconst x = ;"}), &xe)
	require.Equal(t, 2, xe.Line)
	require.Equal(t, 11, xe.Column)
	require.ErrorAs(t, e.Check(Script{Source: "const n: = 1", Lang: LangTS}), &xe)
	require.Equal(t, 1, xe.Line)
	require.ErrorIs(t, e.Check(Script{Source: "1", Lang: Lang(9)}), ErrInvalidScript)
}

func TestRunMisuse(t *testing.T) {
	e := engine(t)
	_, err := e.Run(context.Background(), Script{Source: "1"}, nil, Limits{})
	require.ErrorIs(t, err, ErrInvalidScript)
	_, err = e.Run(context.Background(), Script{Source: "1"}, okBridge, Limits{MaxInFlight: -1})
	require.ErrorIs(t, err, ErrInvalidLimits)
	_, err = e.Run(context.Background(), Script{Source: "1", Lang: Lang(5)}, okBridge, Limits{})
	require.ErrorIs(t, err, ErrInvalidScript)
}

func TestHostErrors(t *testing.T) {
	tests := []struct {
		name string
		br   Bridge
		msg  string
	}{
		{name: "bridge error", br: func(context.Context, string, []byte) ([]byte, error) { return nil, errors.New("db down") }, msg: "db down"},
		{name: "bridge panic", br: func(context.Context, string, []byte) ([]byte, error) { panic("oops") }, msg: "panicked"},
		{name: "not JSON", br: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{`), nil }, msg: "bad envelope"},
		{name: "no status", br: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{"value":1}`), nil }, msg: "bad envelope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, "try { await tools.a({}) } catch (e) { return 'caught' }", tt.br, Limits{})
			var xe *ExitError
			require.ErrorAs(t, err, &xe)
			require.Equal(t, HostError, xe.Kind)
			require.Contains(t, xe.Message, tt.msg)
			require.NotNil(t, res)
		})
	}
}

func TestCancelAndTimeoutWhileWaiting(t *testing.T) {
	block := func(ctx context.Context, _ string, _ []byte) ([]byte, error) {
		<-ctx.Done()
		return []byte(`{"status":"error","reason":"cancelled"}`), nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := engine(t).Run(ctx, Script{Source: "await tools.slow()"}, block, Limits{})
	require.ErrorIs(t, err, context.Canceled)
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, Cancelled, xe.Kind)

	_, err = run(t, "await tools.slow()", block, Limits{Timeout: 50 * time.Millisecond})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorAs(t, err, &xe)
	require.Equal(t, Timeout, xe.Kind)
}

func TestPoolAndClose(t *testing.T) {
	ctx := context.Background()
	e, err := NewScriptEngine(ctx, ScriptOptions{PoolSize: 2, CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(e.pool.ch) == 2 }, 10*time.Second, 5*time.Millisecond)
	res, err := e.Run(ctx, Script{Source: "globalThis.leak = 1; return 1"}, okBridge, Limits{})
	require.NoError(t, err)
	require.True(t, res.Stats.Pooled)
	// A pooled instance serves one run: nothing survives into the next.
	res, err = e.Run(ctx, Script{Source: "return typeof leak"}, okBridge, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `"undefined"`, string(res.Value))
	// Other memory limits get a fresh instance.
	res, err = e.Run(ctx, Script{Source: "return 2"}, okBridge, Limits{MemoryBytes: 32 << 20})
	require.NoError(t, err)
	require.False(t, res.Stats.Pooled)

	// Close cancels a run in progress.
	started := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		_, err := e.Run(ctx, Script{Source: "await tools.slow()"}, func(ctx context.Context, _ string, _ []byte) ([]byte, error) {
			close(started)
			<-ctx.Done()
			return []byte(`{"status":"error"}`), nil
		}, Limits{})
		errc <- err
	}()
	<-started
	require.NoError(t, e.Close(ctx))
	err = <-errc
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, Cancelled, xe.Kind)
	_, err = e.Run(ctx, Script{Source: "1"}, okBridge, Limits{})
	require.ErrorIs(t, err, ErrClosed)
	require.NoError(t, e.Close(ctx))
}

func TestExitErrorIs(t *testing.T) {
	err := error(&ExitError{Kind: LimitExceeded, Limit: LimitLogs, Message: "x"})
	require.ErrorIs(t, err, &ExitError{Kind: LimitExceeded})
	require.ErrorIs(t, err, &ExitError{Kind: LimitExceeded, Limit: LimitLogs})
	require.NotErrorIs(t, err, &ExitError{Kind: LimitExceeded, Limit: LimitMemory})
	require.NotErrorIs(t, err, context.Canceled)
	require.Equal(t, "sandbox: limit_exceeded (logs): x", err.Error())
	require.Equal(t, "sandbox: script_error at 2:3: E", (&ExitError{Kind: ScriptError, Line: 2, Column: 3, Message: "E"}).Error())
	b, _ := json.Marshal(ScriptError.String())
	require.Equal(t, `"script_error"`, string(b))
}

// TestRunsShareNothing checks that instances restored from the engine's
// snapshot, pooled or not, carry nothing from one run to the next.
func TestRunsShareNothing(t *testing.T) {
	ctx := context.Background()
	for _, pool := range []int{0, 2} {
		t.Run(fmt.Sprintf("pool=%d", pool), func(t *testing.T) {
			e, err := NewScriptEngine(ctx, ScriptOptions{PoolSize: pool, CompilationCacheDir: cacheDir()})
			require.NoError(t, err)
			defer e.Close(ctx)
			for i := 0; i < 3; i++ {
				res, err := e.Run(ctx, Script{Source: `
					const r = Math.random();
					const seen = [typeof leak, typeof ToolError.prototype.leak, typeof ({}).polluted, typeof [].push, r >= 0 && r < 1];
					globalThis.leak = 1;
					ToolError.prototype.leak = 2;
					Object.prototype.polluted = 3;
					Array.prototype.push = null;
					return seen;`}, okBridge, Limits{})
				require.NoError(t, err)
				require.JSONEq(t, `["undefined","undefined","undefined","function",true]`, string(res.Value), "run %d", i)
			}
		})
	}
}

// TestDeterministicStart checks that every run starts from the same clock,
// whether its instance was initialised for it (the first run with a new
// memory limit) or restored from a snapshot. The expected value is what the
// engine gave before it used snapshots. (Math.random is seeded per run:
// TestMathRandomPerRun.)
// TestDeterministicStart checks that the virtual clock reads the same in a
// run on an instance restored from a snapshot as on a fresh one.
func TestDeterministicStart(t *testing.T) {
	const want = `["2022-01-01T00:00:00.000Z",1640995200001,3]`
	src := "return [new Date().toISOString(), Date.now(), performance.now()]"
	e := engine(t)
	e.mu.Lock()
	_, snapped := e.snaps[48<<20]
	e.mu.Unlock()
	require.False(t, snapped, "the second run must initialise its own instance")
	for _, lim := range []Limits{{}, {MemoryBytes: 48 << 20}, {MemoryBytes: 48 << 20}} {
		res, err := e.Run(context.Background(), Script{Source: src, Guest: Guest{Clock: ClockVirtual}}, okBridge, lim)
		require.NoError(t, err)
		require.JSONEq(t, want, string(res.Value))
	}
}

// TestCancelWhileComputing checks that a cancelled ctx, or closing the
// engine, stops a script that never yields to the host, as Cancelled.
func TestCancelWhileComputing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := engine(t).Run(ctx, Script{Source: "for (;;) {}"}, okBridge, Limits{})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, Cancelled, xe.Kind, "%v", err)

	e, err := NewScriptEngine(context.Background(), ScriptOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	require.Same(t, processParse, e.parse, "engines parse within the process's budget")
	errc := make(chan error, 1)
	go func() {
		_, err := e.Run(context.Background(), Script{Source: "for (;;) {}"}, okBridge, Limits{})
		errc <- err
	}()
	require.Eventually(t, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return len(e.active) == 1
	}, 10*time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond) // into the loop
	require.NoError(t, e.Close(context.Background()))
	require.ErrorAs(t, <-errc, &xe)
	require.Equal(t, Cancelled, xe.Kind)
}

// TestManyMemoryLimitsStayBounded: every distinct memory limit a client asks
// for must not cost a runtime and a snapshot forever.
func TestManyMemoryLimitsStayBounded(t *testing.T) {
	ctx := context.Background()
	e, err := NewScriptEngine(ctx, ScriptOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer e.Close(ctx)
	none := func(context.Context, string, []byte) ([]byte, error) { return nil, nil }
	for i := 0; i < 40; i++ {
		lim := Limits{MemoryBytes: uint64(8<<20 + i*(1<<20))} // 8 MiB … 47 MiB
		res, err := e.Run(ctx, Script{Source: `return new Array(1000).fill(7).length`}, none, lim)
		require.NoError(t, err)
		require.JSONEq(t, `1000`, string(res.Value))
	}
	e.mu.Lock()
	snaps, runtimes := len(e.snaps), len(e.runtimes)
	e.mu.Unlock()
	require.LessOrEqual(t, snaps, maxSnapshots)
	// 8–47 MiB plus the 4 MiB headroom are caps of 16, 32 and 64 MiB; the
	// engine's default limit (64 MiB) needs a fourth, of 128 MiB.
	require.LessOrEqual(t, runtimes, 4, "runtimes are per power-of-two memory cap")

	// The limit itself stays exact: 9 MiB is not rounded up to 32.
	res, err := e.Run(ctx, Script{Source: `const a = []; for (;;) a.push(new Array(1e5).fill(1));`}, none, Limits{MemoryBytes: 9 << 20})
	require.Error(t, err)
	var exit *ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, LimitExceeded, exit.Kind)
	require.Equal(t, LimitMemory, exit.Limit)
	require.LessOrEqual(t, res.Stats.MemoryBytes, uint64(9<<20+memoryHeadroom))
}

// TestMathRandomPerRun: every run's Math.random has a seed of its own, even
// from instances restored from one snapshot or pooled; with
// ScriptOptions.Rand the sequence follows that source.
func TestMathRandomPerRun(t *testing.T) {
	ctx := context.Background()
	e, err := NewScriptEngine(ctx, ScriptOptions{PoolSize: 2, CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer e.Close(ctx)
	src := Script{Source: `const a = []; for (let i = 0; i < 4; i++) a.push(Math.random()); return a;`}
	seen := map[string]bool{}
	for range 6 {
		res, err := e.Run(ctx, src, okBridge, Limits{})
		require.NoError(t, err)
		var v []float64
		require.NoError(t, json.Unmarshal(res.Value, &v))
		for _, x := range v {
			require.True(t, x >= 0 && x < 1, "%v", x)
		}
		require.False(t, seen[string(res.Value)], "two runs share a Math.random sequence: %s", res.Value)
		seen[string(res.Value)] = true
	}

	fixed := func() []byte {
		e, err := NewScriptEngine(ctx, ScriptOptions{Rand: bytes.NewReader(bytes.Repeat([]byte{7}, 1<<10)), CompilationCacheDir: cacheDir()})
		require.NoError(t, err)
		defer e.Close(ctx)
		res, err := e.Run(ctx, src, okBridge, Limits{})
		require.NoError(t, err)
		return res.Value
	}
	require.Equal(t, string(fixed()), string(fixed()), "a fixed source gives a fixed sequence")
}

// TestMemoryLimitHolds: a script holds about Limits.MemoryBytes, not
// more: the linear memory's cap (the limit plus quickjs.Headroom) is what
// binds, QuickJS's WASI build counting no allocation's size toward its own
// heap limit. Strings and typed arrays of 1 MiB are kept until the guest
// runs out; it catches the out-of-memory error and reports how many it
// held.
func TestMemoryLimitHolds(t *testing.T) {
	e := engine(t)
	for _, mib := range []int{4, 16, 48} {
		for _, alloc := range []string{`"x".repeat(1 << 20) + i`, `new Uint8Array(1 << 20)`} {
			src := fmt.Sprintf(`const a = []; try { for (let i = 0; i < 1000; i++) a.push(%s); } catch (e) { return [a.length, String(e)] } return [a.length, "no error"]`, alloc)
			res, err := e.Run(context.Background(), Script{Source: src}, okBridge, Limits{MemoryBytes: uint64(mib) << 20})
			require.NoError(t, err)
			var held int
			var why string
			require.NoError(t, json.Unmarshal(res.Value, &[]any{&held, &why}))
			require.Equal(t, "InternalError: out of memory", why, "%d MiB, %s", mib, alloc)
			require.GreaterOrEqual(t, held, mib-1, "%d MiB, %s: about the limit fits", mib, alloc)
			require.LessOrEqual(t, held, mib+2, "%d MiB, %s: not much more", mib, alloc)
		}
	}
}

// TestResultEndsTheRun checks that a run ends with its result although the
// guest is no longer unwound when it reports it (quickjs.Instance.Finish):
// jobs the script queued to run after its result (an endless chain of
// microtasks, a loop that never ends) do not run, and the instance that
// returned normally is not used again.
func TestResultEndsTheRun(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	for _, src := range []string{
		`const spin = () => Promise.resolve().then(spin); spin(); return 1`,
		`let p = Promise.resolve(); for (let i = 0; i < 20; i++) p = p.then(() => 0); p.then(() => { for (;;) {} }); return 1`,
		`(async () => { for (let i = 0; i < 20; i++) await null; for (;;) {} })(); return 1`,
		`1`,
	} {
		res, err := e.Run(ctx, Script{Source: src}, okBridge, Limits{Timeout: 10 * time.Second})
		require.NoError(t, err, src)
		require.Equal(t, "1", string(res.Value), src)
	}
	// A result that is too large still ends the run as before.
	_, err := e.Run(ctx, Script{Source: `return "x".repeat(100)`}, okBridge, Limits{MaxResultBytes: 10})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, LimitExceeded, xe.Kind)
}

// TestResultReadInPlace checks the result as done reads it from the
// guest's memory (quickjs.Instance.ReadString) against what the engine's
// own conversion gives, and the result limit in bytes for a result with
// fewer characters than bytes (read through the engine).
func TestResultReadInPlace(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	for _, tc := range []struct{ src, want string }{
		{`return "abc"`, `"abc"`},
		{`return "é"`, `"é"`},
		{`return ["€", "😀", "\u00ff"]`, `["€","😀","ÿ"]`},
		{`return "\ud800"`, `"\ud800"`},
		{`return "x".repeat(2000) + "é"`, `"` + strings.Repeat("x", 2000) + `é"`},
	} {
		res, err := e.Run(ctx, Script{Source: tc.src}, okBridge, Limits{})
		require.NoError(t, err, tc.src)
		require.Equal(t, tc.want, string(res.Value), tc.src)
	}
	// 6 characters, 10 bytes: fits 10.
	res, err := e.Run(ctx, Script{Source: `return "éééé"`}, okBridge, Limits{MaxResultBytes: 10})
	require.NoError(t, err)
	require.Equal(t, `"éééé"`, string(res.Value))
	// 7 characters, 12 bytes: does not.
	_, err = e.Run(ctx, Script{Source: `return "ééééé"`}, okBridge, Limits{MaxResultBytes: 10})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, LimitExceeded, xe.Kind)
	require.Contains(t, xe.Message, "12 bytes")
}
