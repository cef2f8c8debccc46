package sandbox

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/airlockrt/airlock/sandbox/internal/quickjs"

	"github.com/stretchr/testify/require"
)

// TestToolResultInvalidUTF8 has a tool (T4: a hostile MCP server or HTTP
// upstream) answer with bytes that are not UTF-8 inside a JSON string,
// which wire.OkValue and wire.CheckEnvelope accept (encoding/json does not
// check UTF-8). The call must settle as it did when the completion reached
// the guest as a string made by JS_NewStringLen and parsed by JSON.parse
// (invalid bytes become U+FFFD, one for each byte; an encoded surrogate
// stays one), in a plain value and in a whole envelope: the upstream must
// not be able to end the chain with an uncaught SyntaxError of the
// engine's JSON parser ("Bad UTF-8 sequence"), which blames the script.
//
// Fails on callpath: Instance.Pump hands the bytes to JS_ParseJSON, which
// refuses what JS_NewStringLen decoded.
func TestToolResultInvalidUTF8(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  string
		want string // the code points of the string the script receives
	}{
		{"plain value", "{\"status\":\"ok\",\"value\":\"a\xffb\"}", `["61","fffd","62"]`},
		{"plain value, truncated sequence", "{\"status\":\"ok\",\"value\":[\"\xe2\x82\"]}", `["fffd","fffd"]`},
		{"plain value, encoded surrogate, overlong, above U+10FFFF", "{\"status\":\"ok\",\"value\":\"\xed\xa0\x80|\xc0\x80|\xf4\x90\x80\x80\"}",
			`["d800","7c","fffd","fffd","7c","fffd","fffd","fffd","fffd"]`},
		{"envelope", "{\"status\":\"error\",\"reason\":\"r\",\"message\":\"m\xc3\"}", `["6d","fffd"]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := engine(t)
			wait := bystander(t, e)
			br := func(context.Context, string, []byte) ([]byte, error) { return []byte(tt.env), nil }
			res, err := e.Run(context.Background(), Script{Source: `let v;
				try { v = await tools.x({}); } catch (e) { v = e.message; }
				if (Array.isArray(v)) v = v[0];
				return [...v].map((c) => c.codePointAt(0).toString(16));`}, br, Limits{})
			wait()
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
		})
	}
}

// TestPumpNotForgeable has the script call the prelude's __airlock_pump
// itself, which it can reach (a fixed global), with a call id of its own
// and a made-up result: the call must still settle with what the tool
// returned. When the host asked the guest for its completion (OP_TAKE),
// calling it handed over nothing; called with the completion as arguments,
// it settles whatever call the script names, with whatever it passes, and
// frees a slot of MaxInFlight the host still counts.
func TestPumpNotForgeable(t *testing.T) {
	for _, tt := range []struct{ name, forge string }{
		{"plain value", `__airlock_pump(1, 1, "forged")`},
		{"envelope", `__airlock_pump(1, 0, { status: "error", reason: "r", message: "forged" }, [[0, 1, "f", 1, 1]])`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, `const p = tools.slow({});
				try { `+tt.forge+`; } catch (_) { /* refused: fine */ }
				try { return await p; } catch (e) { return e.message; }`, okBridge, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, `{"tool":"slow","args":{}}`, string(res.Value))
		})
	}
}

// TestPumpNotReplaceable has the script try to replace, redefine or
// delete the entry points the host calls (__airlock_pump, __airlock_start)
// before its run parks on a pending call: the run resumed in another
// engine (which looks __airlock_pump up again: quickjs.GlobalFunc) still
// delivers the call's result and its ToolError, with the stack read when
// the call was made, through the prelude's own function.
func TestPumpNotReplaceable(t *testing.T) {
	const src = `const tries = [];
for (const name of ["__airlock_pump", "__airlock_start"]) {
  try { globalThis[name] = () => { throw new Error("hijacked"); }; } catch (e) { tries.push(e.name); }
  try { Object.defineProperty(globalThis, name, { value: () => { throw new Error("hijacked"); } }); } catch (e) { tries.push(e.name); }
  try { delete globalThis[name]; } catch (e) { tries.push(e.name); }
}
function ask(n) { return tools.risky({n}); }
const r = await Promise.allSettled([ask(1), ask(2)]);
return [tries, r.map((x) => x.status === "rejected" ? x.reason.stack : x.value)];`
	e := engine(t)
	wait := bystander(t, e)
	res, err := e.Run(context.Background(), Script{Source: src, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	other, err := NewScriptEngine(context.Background(), ScriptOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer other.Close(context.Background())
	got, err := other.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge,
		Retry: func(ctx context.Context, token []byte) ([]byte, error) {
			if string(token) == `{"n":2}` {
				return []byte(`{"status":"denied","reason":"approval_denied","message":"no"}`), nil
			}
			return approveAll(ctx, token)
		}})
	wait()
	require.NoError(t, err)
	require.JSONEq(t, `[["TypeError","TypeError","TypeError","TypeError","TypeError","TypeError"],
		[{"tool":"risky","args":{"n":1}}, "ToolError: no\n    at ask (script.js:7:32)\n    at script.js:8:45"]]`, string(got.Value))
}

// TestResumeRefusesForgedSites edits the call sites a parked state keeps
// (hostState.Sites): a site for a call that is not pending, more frames
// than the host ever reads, a name longer than it ever reads. Each is
// refused as a corrupt state before the instance is restored; the state
// as parked resumes.
func TestResumeRefusesForgedSites(t *testing.T) {
	e := engine(t)
	res, err := e.Run(context.Background(), Script{Source: `function ask(n) { return tools.risky({n}); }
const r = await Promise.allSettled([ask(1)]); return r[0].reason.stack;`, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	h, inst, err := decodeState(res.Parked.State)
	require.NoError(t, err)
	require.Len(t, h.Sites, 1, "the host read the site of the pending call")
	id := h.Pending[0].ID
	encode := func(c hostState) []byte {
		js, err := json.Marshal(c)
		require.NoError(t, err)
		state := append([]byte(parkMagic), binary.AppendUvarint(nil, parkVersion)...)
		state = binary.AppendUvarint(state, uint64(len(js)))
		return append(append(state, js...), inst...)
	}
	deny := func(context.Context, []byte) ([]byte, error) {
		return []byte(`{"status":"denied","reason":"approval_denied","message":"no"}`), nil
	}
	for name, sites := range map[string]map[int32][]quickjs.Site{
		"site of a call not pending": {id: h.Sites[id], id + 1: h.Sites[id]},
		"too many frames":            {id: slices.Repeat(h.Sites[id][:1], maxSiteFrames+1)},
		"name too long":              {id: {{Input: true, HasName: true, Name: strings.Repeat("é", maxSiteName), Line: 1, Col: 1}}},
	} {
		t.Run(name, func(t *testing.T) {
			c := *h
			c.Sites = sites
			_, err := e.Resume(context.Background(), Resumption{State: encode(c), Bridge: okBridge, Retry: deny})
			require.ErrorIs(t, err, ErrCorruptState)
		})
	}
	got, err := e.Resume(context.Background(), Resumption{State: encode(*h), Bridge: okBridge, Retry: deny})
	require.NoError(t, err)
	require.JSONEq(t, `"ToolError: no\n    at ask (script.js:1:32)\n    at script.js:2:37"`, string(got.Value))
}

// TestStartNotRepeatable has the script call __airlock_start itself,
// which it can reach (a fixed global): the run is started once, by the
// host; the script's call starts nothing (its source does not run again,
// its result and limits stay its own).
func TestStartNotRepeatable(t *testing.T) {
	res, err := run(t, `globalThis.runs = (globalThis.runs ?? 0) + 1;
		if (globalThis.runs === 1) { __airlock_start(1, 1, [10, 1, 2, 3, 4]); }
		await tools.slow({});
		return globalThis.runs;`, okBridge, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `1`, string(res.Value))
}

// TestCallSharedExecutor attacks the shared promise executor (makeCall)
// and the prelude variables it reads the call from: a tool call made
// while another's arguments are being encoded (a getter, toJSON, a Proxy
// trap), from the constructor of a Promise the script put in place of the
// engine's, and an executor the script kept and calls again. Each call
// must go out with its own name and arguments, once per executor run.
func TestCallSharedExecutor(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"getter", `let inner;
			const outer = await tools.outer({ get a() { inner = tools.inner({ b: 2 }); return 1; } });
			return [outer, await inner];`,
			`[{"tool":"outer","args":{"a":1}},{"tool":"inner","args":{"b":2}}]`},
		{"toJSON", `let inner;
			const outer = await tools.outer({ toJSON() { inner = tools.inner({ b: 2 }); return { a: 1 }; } });
			return [outer, await inner];`,
			`[{"tool":"outer","args":{"a":1}},{"tool":"inner","args":{"b":2}}]`},
		{"toJSON throws after a call", `let inner;
			const e = await tools.outer({ toJSON() { inner = tools.inner({ b: 2 }); throw new Error("no"); } }).catch((e) => e.message);
			return [e, await inner, await tools.third()];`,
			`["no",{"tool":"inner","args":{"b":2}},{"tool":"third","args":{}}]`},
		{"proxy trap", `let inner;
			const args = new Proxy({ a: 1 }, { ownKeys(t) { inner = tools.inner({ b: 2 }); return Reflect.ownKeys(t); } });
			const outer = await tools.outer(args);
			return [outer, await inner];`,
			`[{"tool":"outer","args":{"a":1}},{"tool":"inner","args":{"b":2}}]`},
		{"replaced Promise calls first", `const NP = Promise; let inner, once = false;
			globalThis.Promise = class extends NP { constructor(ex) { if (!once) { once = true; inner = tools.inner({ b: 2 }); } super(ex); } };
			const outer = tools.outer({ a: 1 });
			globalThis.Promise = NP;
			return [await outer, await inner];`,
			`[{"tool":"outer","args":{"a":1}},{"tool":"inner","args":{"b":2}}]`},
		{"executor kept and run later", `const NP = Promise; let kept;
			globalThis.Promise = function (ex) { kept = ex; return new NP(() => {}); };
			tools.first({ a: 1 });
			globalThis.Promise = NP;
			const second = await tools.second({ b: 2 });
			return [second, await new NP((res, rej) => kept(res, rej)), await new NP((res, rej) => kept(res, rej))];`,
			`[{"tool":"second","args":{"b":2}},{"tool":"first","args":{"a":1}},{"tool":"first","args":{"a":1}}]`},
		{"stub cache names", `const r = [];
			for (const n of ["__proto__", "constructor", "hasOwnProperty", "toString", "then", "valueOf"]) r.push(tools[n] === undefined);
			for (const n of ["__defineGetter__", "__lookupGetter__", "prototype", "length", "0"]) r.push((await tools[n]()).tool);
			r.push(({}).__defineGetter__ === Object.prototype.__defineGetter__, typeof Object.prototype.length, await tools === tools);
			return r;`,
			`[true,true,true,true,true,true,"__defineGetter__","__lookupGetter__","prototype","length","0",true,"undefined",true]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := engine(t)
			wait := bystander(t, e)
			res, err := e.Run(context.Background(), Script{Source: tt.src}, okBridge, Limits{})
			wait()
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
		})
	}
}

// TestToolNameRefusedCatchably calls tools whose names the host refuses
// (wire.CheckToolName) although they are at most 256 UTF-16 units: more
// than 256 bytes of UTF-8, or a lone surrogate (not UTF-8 at all). Like a
// name with a control character, each must reject with a TypeError the
// script catches, not end the run with a script_error it cannot; a name of
// exactly 256 bytes still calls.
//
// Fails on callpath's review: the prelude's validName counted UTF-16 units
// and let lone surrogates through, so the host stopped the run.
func TestToolNameRefusedCatchably(t *testing.T) {
	for _, tt := range []struct{ name, expr, want string }{
		{"257 bytes", `"é".repeat(128) + "a"`, `"TypeError"`},
		{"400 bytes", `"é".repeat(200)`, `"TypeError"`},
		{"65 emoji", `"😀".repeat(65)`, `"TypeError"`},
		{"lone high surrogate", `"a\ud800"`, `"TypeError"`},
		{"lone low surrogate", `"\udc00b"`, `"TypeError"`},
		{"swapped pair", `"\ude00\ud83d"`, `"TypeError"`},
		{"256 bytes", `"é".repeat(128)`, `256`},
		{"64 emoji", `"😀".repeat(64)`, `256`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := engine(t)
			wait := bystander(t, e)
			res, err := e.Run(context.Background(), Script{Source: `const name = ` + tt.expr + `;
				try { const r = await tools[name]({}); return new TextEncoder().encode(r.tool).length; }
				catch (e) { return e.name; }`}, okBridge, Limits{})
			wait()
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
		})
	}
}
