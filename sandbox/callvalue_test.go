package sandbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// callOutcome is everything a run shows: the calls the Bridge saw (tool
// and argument bytes), the result, the logs and how it failed.
type callOutcome struct {
	Calls []string
	Value string
	Logs  []string
	Exit  string
}

// runCalls runs src with a Bridge that records each call and answers ok
// with the arguments.
func runCalls(t *testing.T, src string, lim Limits, stringify bool) callOutcome {
	t.Helper()
	var mu sync.Mutex
	var out callOutcome
	br := func(_ context.Context, tool string, args []byte) ([]byte, error) {
		mu.Lock()
		out.Calls = append(out.Calls, tool+" "+string(args))
		mu.Unlock()
		return okBridge(context.Background(), tool, args)
	}
	ctx := context.Background()
	if stringify {
		ctx = context.WithValue(ctx, noCallValueKey{}, true)
	}
	res, err := engine(t).Run(ctx, Script{Source: src}, br, lim)
	var xe *ExitError
	switch {
	case errors.As(err, &xe):
		out.Exit = fmt.Sprintf("%v: %s (%d:%d) limit %q", xe.Kind, xe.Message, xe.Line, xe.Column, xe.Limit)
	case err != nil:
		t.Fatal(err)
	}
	slices.Sort(out.Calls) // calls in flight together reach the Bridge in any order
	if res != nil {
		out.Value = string(res.Value)
		for _, l := range res.Logs {
			out.Logs = append(out.Logs, l.Text)
		}
	}
	return out
}

// TestCallValueAsStringify runs each script twice: as it is, where the
// prelude hands plain arguments to the host to write (CALL_VALUE), and
// with the host declining every CALL_VALUE (noCallValueKey), which makes
// the prelude stringify every call's arguments itself with the engine's
// JSON.stringify and send CALL, as it did before CALL_VALUE; and once
// more with JSON.stringify replaced by a function that calls the
// engine's, where the prelude sends CALL without asking (its bytes must
// be the same; the errors, thrown from another frame, may differ). Everything the runs show must be the
// same: the bytes each call's arguments reach the Bridge as, the results,
// the logs, and the failures of hostile arguments (getters that throw or
// start calls, Proxies, toJSON, cycles, BigInt, nesting past the stack,
// arguments over the limit, more calls than may be in flight).
func TestCallValueAsStringify(t *testing.T) {
	const same = "{ const s = JSON.stringify; }\n"
	const wrapped = "{ const s = JSON.stringify; JSON.stringify = function (v, r, i) { return s(v, r, i); }; }\n"
	for _, tt := range []struct {
		name, src string
		lim       Limits
		deep      bool // at the stack's limit, where a replaced JSON.stringify's frame counts
	}{
		{name: "benchmark", src: `return await tools.noop({q: "x".repeat(80), n: 1});`},
		{name: "scalars", src: `return await tools.t({a: null, b: true, c: [0, -0, 1.5, 1e21, 1e-7, NaN, -Infinity, 2**53, 0.1 + 0.2], d: undefined, e: [undefined]});`},
		{name: "strings", src: `return await tools.t({s: "\"\\\n\t\u0001\u007f é 名 🎉", l: "\ud800", r: "\udc00x", k: {"": 1, "é": 2, "名": 3, "a\nb": 4}});`},
		{name: "primitives", src: `return [await tools.a("str"), await tools.b(5), await tools.c(null), await tools.d(true), await tools.e(), await tools.f(undefined)];`},
		{name: "key order", src: `return await tools.t({b: 1, 2: 2, a: 3, 1: 4, "10": 5, "-1": 6});`},
		{name: "null prototype and deleted", src: `const o = Object.assign(Object.create(null), {a: 1, b: 2, c: 3}); delete o.b; return await tools.t(o);`},
		{name: "non-enumerable and symbols", src: `const o = {a: 1, [Symbol("s")]: 2}; Object.defineProperty(o, "h", {value: 3}); return await tools.t(o);`},
		{name: "rope", src: `return await tools.t({s: "é".repeat(600) + "名".repeat(600)});`},
		{name: "toJSON", src: `return [await tools.t({toJSON() { return {x: 1}; }}), await tools.t({d: new Date(0)}), await tools.t({a: {toJSON: () => undefined}})];`},
		{name: "Object.prototype.toJSON", src: `Object.prototype.toJSON = function () { return "p"; }; return await tools.t({a: 1});`},
		{name: "Array.prototype.toJSON", src: `Array.prototype.toJSON = function () { return "p"; }; return await tools.t({a: [1]});`},
		{name: "getter", src: `let n = 0; return [await tools.t({get a() { return ++n; }}), n];`},
		{name: "getter that throws", src: `await tools.t({get a() { throw new RangeError("nope"); }});`},
		{name: "getter that calls", src: `return await tools.outer({get a() { tools.inner({x: 1}); return 2; }});`},
		{name: "toJSON that calls past in-flight", src: `const ps = []; ps.push(tools.outer({toJSON() { for (let i = 0; i < 3; i++) ps.push(tools.inner({i})); return 1; }})); return await Promise.all(ps);`, lim: Limits{MaxInFlight: 2}},
		{name: "proxy", src: `const log = []; const p = new Proxy({a: 1, b: 2}, {ownKeys(t) { log.push("keys"); return Reflect.ownKeys(t); }, get(t, k) { log.push(String(k)); return t[k]; }}); await tools.t(p); return log;`},
		{name: "cycle", src: `const o = {}; o.self = o; await tools.t(o);`},
		{name: "bigint", src: `await tools.t({n: 1n});`},
		{name: "function", src: `return await tools.t({f() {}, g: [() => 1]});`},
		{name: "function alone", src: `await tools.t(() => 1);`},
		{name: "symbol alone", src: `await tools.t(Symbol("s"));`},
		{name: "holes and length", src: `const a = [1, , 3]; const b = [1]; b.length = 3; return await tools.t({a, b});`},
		{name: "boxed", src: `return await tools.t([new Number(1), new String("s"), new Boolean(false)]);`},
		{name: "class instance", src: `class P { constructor() { this.x = 1; } } return await tools.t({p: new P()});`},
		{name: "deep", src: `let o = 1; for (let i = 0; i < 200; i++) o = {o}; return (await tools.t(o)) !== undefined;`},
		{name: "too deep for the stack", src: `let o = 1; for (let i = 0; i < 100000; i++) o = [o]; await tools.t(o);`},
		{name: "too deep near the stack limit", src: `let o = 1; for (let i = 0; i < 30; i++) o = [o];
function down(d) { try { return down(d + 1); } catch (_) { return d; } }
const max = down(0), seen = [];
function at(d) { if (d > 0) return at(d - 1); return tools.t(o); }
for (let b = 1; b < 60; b += 3) { try { seen.push(at(max - b).then(() => "ok", (e) => e.name)); } catch (e) { seen.push("sync " + e.name); } }
return await Promise.all(seen);`, deep: true},
		{name: "stack limit", src: `function down(d) { try { return down(d + 1); } catch (_) { return d; } }
const max = down(0), seen = [], v = {a: [{b: "c"}]};
function at(d) { if (d > 0) return at(d - 1); return tools.t(v); }
for (let b = 0; b < 8; b++) { try { seen.push(at(max - b).then(() => "ok", (e) => e.name)); } catch (e) { seen.push("sync " + e.name); } }
return await Promise.all(seen);`, deep: true},
		{name: "over the limit", src: `await tools.t({s: "x".repeat(2000)});`, lim: Limits{MaxArgsBytes: 1000}},
		{name: "at the limit", src: `return await tools.t({s: "x".repeat(1000 - 8)});`, lim: Limits{MaxArgsBytes: 1000}},
		{name: "many keys", src: `const o = {}; for (let i = 0; i < 5000; i++) o["k" + i] = i; return Object.keys((await tools.t(o)).args).length;`},
		{name: "in flight", src: `return (await Promise.all(Array.from({length: 10}, (_, i) => tools.t({i})))).length;`, lim: Limits{MaxInFlight: 3}},
		{name: "invalid name", src: `await tools["a\u0001"]({a: 1});`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			slow := runCalls(t, same+tt.src, tt.lim, true)
			fast := runCalls(t, same+tt.src, tt.lim, false)
			require.Equal(t, slow, fast)
			replaced := runCalls(t, wrapped+tt.src, tt.lim, false)
			if replaced.Exit == "" && !tt.deep {
				require.Equal(t, replaced, fast)
			}
			if tt.name == "benchmark" {
				require.Equal(t, []string{`noop {"q":"` + strings.Repeat("x", 80) + `","n":1}`}, fast.Calls)
			}
		})
	}
}
