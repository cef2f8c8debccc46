package sandbox

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	jsprelude "github.com/airlockrt/airlock/guest-sdk/js"
)

// failBridge fails every call.
func failBridge(context.Context, string, []byte) ([]byte, error) {
	return []byte(`{"status":"error","reason":"r","message":"boom"}`), nil
}

// TestToolErrorSitePaths gives a ToolError the same stack whichever way
// its call site was taken: read by the host from the guest's stack (a call
// that starts at once, under a limit the host reads for), or captured by
// the engine (a call queued behind MaxInFlight, or under another limit).
func TestToolErrorSitePaths(t *testing.T) {
	const g = "var g = function g() { return tools.fail({}); };\n"
	const at = "ToolError: boom\n    at g (script.js:1:37)\n    at script.js:2:"
	for _, tt := range []struct {
		name, src, want string
		lim             Limits
	}{
		{"host read", g + "try { await g(); } catch (e) { return e.stack; }", at + "13", Limits{}},
		{"limit changed and restored", "Error.stackTraceLimit = 20; Error.stackTraceLimit = 10;\n" +
			strings.TrimPrefix(g, "") + "try { await g(); } catch (e) { return e.stack; }",
			"ToolError: boom\n    at g (script.js:2:37)\n    at script.js:3:13", Limits{}},
		{"queued behind the one in flight", g +
			"const r = await Promise.allSettled([g(), g()]); return r[0].reason.stack + '|' + r[1].reason.stack;",
			at + "37|" + at + "42", Limits{MaxInFlight: 1}},
		{"started from a timer", g + "return await new Promise((ok) => setTimeout(() => g().catch((e) => ok(e.stack)), 1));",
			"ToolError: boom\n    at g (script.js:1:37)\n    at script.js:2:51", Limits{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, tt.src, failBridge, tt.lim)
			require.NoError(t, err)
			var got string
			require.NoError(t, json.Unmarshal(res.Value, &got))
			require.Equal(t, tt.want, got)
		})
	}
}

// TestToolErrorSiteAcrossPark denies a call after its run parked and
// resumed in another engine: its ToolError has the stack it would have had
// uninterrupted, from the call site the host read before parking.
func TestToolErrorSiteAcrossPark(t *testing.T) {
	const src = "function ask(n) { return tools.risky({n}); }\n" +
		"const r = await Promise.allSettled([ask(1), tools.safe({}), ask(2)]);\n" +
		"return r.map((x) => x.status === 'rejected' ? x.reason.stack : 'ok');"
	deny := func(context.Context, string, []byte) ([]byte, error) {
		return []byte(`{"status":"denied","reason":"approval_denied","message":"no"}`), nil
	}
	direct := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		if tool == "risky" {
			return deny(ctx, tool, args)
		}
		return okBridge(ctx, tool, args)
	}
	e := engine(t)
	want, err := e.Run(context.Background(), Script{Source: src}, direct, Limits{})
	require.NoError(t, err)
	require.Contains(t, string(want.Value), "at ask (script.js:1:32)")

	res, err := e.Run(context.Background(), Script{Source: src, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	other, err := NewScriptEngine(context.Background(), ScriptOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer other.Close(context.Background())
	got, err := other.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge,
		Retry: func(ctx context.Context, _ []byte) ([]byte, error) { return deny(ctx, "", nil) }})
	require.NoError(t, err)
	require.JSONEq(t, string(want.Value), string(got.Value))
}

// TestCompletionMicrotaskOrder pins the order the host's direct delivery
// (__airlock_pump called with each completion) keeps: every job a
// completion's callback queues, chained ones included, runs before the next
// completion's callback, and a failed call's rejection is delivered in its
// turn like any other; the timer comes after the calls on the virtual clock.
// The two calls complete together, in either order.
func TestCompletionMicrotaskOrder(t *testing.T) {
	aDone := make(chan struct{})
	br := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		switch tool {
		case "a":
			defer close(aDone)
		case "b":
			<-aDone
		case "c":
			<-aDone
			return failBridge(ctx, tool, args)
		}
		return okBridge(ctx, tool, args)
	}
	src := `const log = [];
const a = tools.a({}).then(() => { log.push("a"); Promise.resolve().then(() => log.push("a1")).then(() => log.push("a2")); });
const b = tools.b({}).then(() => { log.push("b"); queueMicrotask(() => log.push("b1")); });
setTimeout(() => log.push("timer"), 1);
await Promise.all([a, b]);
await tools.c({}).catch((e) => { log.push(e.name); Promise.resolve().then(() => log.push("c1")); });
await new Promise((r) => setTimeout(r, 5));
return log;`
	res, err := engine(t).Run(context.Background(), Script{Source: src, Guest: Guest{Clock: ClockVirtual}}, br, Limits{})
	require.NoError(t, err)
	// b's Bridge returns once a's has, but a's completion reaches the
	// channel after its Bridge returns, so either may arrive first: what
	// is pinned is that each callback's jobs run before the other's.
	require.Contains(t, []string{
		`["a","a1","a2","b","b1","ToolError","c1","timer"]`,
		`["b","b1","a","a1","a2","ToolError","c1","timer"]`,
	}, string(res.Value))
}

// TestCallSiteOf hands each Bridge call the line and column of the
// script's call (CallSiteOf), in the script as submitted: a TypeScript
// line where the transpiled JavaScript's differs, UTF-16 columns after
// non-ASCII text, the script's frame under a built-in's, and no site where
// the host does not read one.
func TestCallSiteOf(t *testing.T) {
	type site struct {
		Tool string
		Site CallSite
		OK   bool
	}
	for _, tt := range []struct {
		name string
		lang Lang
		src  string
		lim  Limits
		want []site
	}{
		{name: "two calls of one tool", src: "const a = 1;\nawait tools.x({});\n// between\n  await tools.x({n: 2});\nreturn 1;",
			want: []site{{"x", CallSite{2, 13}, true}, {"x", CallSite{4, 15}, true}}},
		{name: "object over lines", src: "const a = 1;\nawait tools.x({\n  n: 1,\n});",
			want: []site{{"x", CallSite{2, 13}, true}}},
		{name: "argument on the next line", src: "const a = 1;\nawait tools.x(\n  a,\n);",
			want: []site{{"x", CallSite{2, 13}, true}}},
		{name: "a call among the arguments", src: "const f = (v) => ({v});\nconst a = 1;\nawait tools.x(f(\n  a));",
			want: []site{{"x", CallSite{3, 13}, true}}},
		{name: "non-ASCII before", src: "let s = 'é😀';\nlet t = 'é😀'; await tools.y({s});",
			want: []site{{"y", CallSite{2, 28}, true}}},
		{name: "first line, body form", src: "await tools.x({}); return 1;",
			want: []site{{"x", CallSite{1, 13}, true}}},
		{name: "first line, script form", src: "tools.x({a: 1})",
			want: []site{{"x", CallSite{1, 7}, true}}},
		{name: "first line, compiled as a body", src: "const v = await tools.x({a: 1});\nv;",
			want: []site{{"x", CallSite{1, 23}, true}}},
		{name: "in a function a built-in calls", src: "const ids = [1];\nawait Promise.all(ids.map((id) =>\n  tools.get({id})));",
			want: []site{{"get", CallSite{3, 9}, true}}},
		{name: "queued behind max in flight", src: "\nawait Promise.all([tools.a({}), tools.b({})]);", lim: Limits{MaxInFlight: 1},
			want: []site{{"a", CallSite{2, 26}, true}, {"b", CallSite{}, false}}},
		{name: "called by a timer, no frame of the script", src: "setTimeout(tools.x, 1, {});\nawait new Promise((ok) => setTimeout(ok, 20));\nreturn 1;",
			want: []site{{"x", CallSite{}, false}}},
		{name: "a loop on one line", src: "let n = 0;\nfor (const i of [1, 2, 3]) n += (await tools.x({i})).args.i;\nreturn n;",
			want: []site{{"x", CallSite{2, 46}, true}, {"x", CallSite{2, 46}, true}, {"x", CallSite{2, 46}, true}}},
		{name: "typescript", lang: LangTS, src: "interface A {\n  n: number;\n}\nconst a: A = {n: 1};\n\nawait tools.x(\n  a);",
			want: []site{{"x", CallSite{6, 13}, true}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []site
			br := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
				s, ok := CallSiteOf(ctx)
				mu.Lock()
				got = append(got, site{tool, s, ok})
				mu.Unlock()
				return okBridge(ctx, tool, args)
			}
			_, err := engine(t).Run(context.Background(), Script{Source: tt.src, Lang: tt.lang}, br, tt.lim)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// TestCallSiteOfManySites: past the sites a run remembers (maxSiteMemo),
// every call still gets its own line, and a loop's calls their line.
func TestCallSiteOfManySites(t *testing.T) {
	var b strings.Builder
	n := maxSiteMemo + 100
	for i := 0; i < n; i++ {
		b.WriteString("await tools.x({});\n")
	}
	b.WriteString("for (let i = 0; i < 3; i++) await tools.y({});\nreturn 1;")
	var mu sync.Mutex
	var lines []int
	br := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		s, ok := CallSiteOf(ctx)
		require.True(t, ok)
		mu.Lock()
		lines = append(lines, s.Line)
		mu.Unlock()
		return okBridge(ctx, tool, args)
	}
	_, err := engine(t).Run(context.Background(), Script{Source: b.String()}, br, Limits{})
	require.NoError(t, err)
	require.Len(t, lines, n+3)
	for i := 0; i < n; i++ {
		require.Equal(t, i+1, lines[i])
	}
	require.Equal(t, []int{n + 1, n + 1, n + 1}, lines[n:])
}

// TestMapTSShared maps positions of one TypeScript Program from several
// goroutines at once, as its runs do (a Program is safe for concurrent use;
// the call sites of every call map through it now, besides errors): the
// line tables it splits on first use are split once (run with -race).
func TestMapTSShared(t *testing.T) {
	p, err := engine(t).Compile(context.Background(), Script{Source: "const n: number = 1;\nawait tools.save({n});", Lang: LangTS})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Inside a segment (column 14, past its start at 13): the path
			// that compares the lines' text.
			l, c, ok := p.prep.mapTS(2, 14)
			assert.True(t, ok)
			assert.Equal(t, [2]int{2, 14}, [2]int{l, c})
		}()
	}
	wg.Wait()
	require.NotNil(t, p.prep.codeLines)
}

// TestPrefixesMatchThePrelude: the prefixes callSite subtracts on the first
// line are the prelude's own.
func TestPrefixesMatchThePrelude(t *testing.T) {
	require.Contains(t, jsprelude.Source, "const SCRIPT_PREFIX = '"+scriptPrefix+"';")
	require.Contains(t, jsprelude.Source, "const BODY_PREFIX = '"+bodyPrefix+"';")
}
