package sandbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
	require.JSONEq(t, `["a","a1","a2","b","b1","ToolError","c1","timer"]`, string(res.Value))
}
