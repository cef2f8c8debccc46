package quickjs

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAppendJSONReview is a hostile reviewer's cases: each written value
// must be what JSON.stringify writes; taken says which are written.
func TestAppendJSONReview(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	for _, tt := range []struct {
		name, expr string
	}{
		{"private field on plain object", `(() => { class B { constructor(o) { return o; } } class S extends B { #x = 1; constructor(o) { super(o); } } const o = {a: 1}; new S(o); return o; })()`},
		{"private method brand", `(() => { class B { constructor(o) { return o; } } class S extends B { #m() {} constructor(o) { super(o); } } const o = {a: 1}; new S(o); return o; })()`},
		{"regexp exec", `/a(b)/.exec("ab")`},
		{"template raw", `((s) => s)` + "`x${1}y`"},
		{"split", `"a,b,c".split(",")`},
		{"keys", `Object.keys({x: 1, y: 2})`},
		{"concat", `[1].concat([2, 3])`},
		{"array from undefined", `Array.from({length: 3})`},
		{"new Array filled", `new Array(3).fill(1)`},
		{"shrunk", `(() => { const a = [1, 2, 3]; a.length = 1; return a; })()`},
		{"deleted last", `(() => { const a = [1, 2, 3]; delete a[2]; return a; })()`},
		{"frozen array", `Object.freeze([1, 2])`},
		{"sealed", `Object.seal({a: 1})`},
		{"non-writable length", `Object.defineProperty([1, 2], "length", {writable: false})`},
		{"proto key", `({["__proto__"]: 1, b: 2})`},
		{"lone surrogate key", `({"\ud800": 1, "\udc00x": 2})`},
		{"del key", `({"\u007f": 1, "\u0000": 2})`},
		{"leading zero", `({b: 1, "01": 2})`},
		{"null proto toJSON", `Object.assign(Object.create(null), {toJSON: 1})`},
		{"non-enumerable toJSON", `Object.defineProperty({a: 1}, "toJSON", {value: () => 5})`},
		{"Object.prototype", `Object.prototype`},
		{"Array.prototype", `Array.prototype`},
		{"globalThis", `globalThis`},
		{"groupBy", `Object.groupBy([1, 2, 3], (x) => x % 2 ? "odd" : "even")`},
		{"entries", `Object.fromEntries([["a", 1]])`},
		{"json parse", `JSON.parse('{"a":[1,{"b":null}],"c":"d"}')`},
		{"json parse int keys", `JSON.parse('{"b":1,"1":2}')`},
		{"numbers", `[2**31, -(2**31), -(2**31) - 1, 2**64, 1e300 * 10, Number.MIN_VALUE, -Number.MAX_VALUE, 123e-7, 1e-6, 1e-7, 0.1 + 0.2, 4.35, 1e21 - 65536, 9007199254740993, -1e-7, 1/-Infinity]`},
		{"float ints", `[5 / 1, 10 / 2, 2**53 + 2, 1e16, 1e17, 999999999999999900000]`},
		{"strings latin1", `["\x80\xff\x7f\x1f", "\u00e9".repeat(3)]`},
		{"rope top", `"a".repeat(600) + "b".repeat(600)`},
		{"rope with latin1 and wide", `"\xe9".repeat(600) + "\u4e00".repeat(600) + "\x01".repeat(600)`},
		{"slice of rope", `("a".repeat(600) + "\u00e9".repeat(600)).slice(1, 1100)`},
		{"substring wide", `"\ud83c\udf89".repeat(400).substring(1, 700)`},
		{"json array extra toJSON non-enum", `Object.defineProperty([1], "toJSON", {value: () => 2})`},
		{"array of functions", `[() => 1, Symbol()]`},
		{"empty string key undefined", `({"": undefined, a: 1})`},
		{"with length key", `({length: 3, 0: 1})`},
		{"array-like", `({length: 1, a: 2})`},
		{"wrapped object", `Object(1)`},
		{"array with getter index", `(() => { const a = [1, 2]; Object.defineProperty(a, 1, {get() { return 3; }}); return a; })()`},
		{"array prototype set to null", `Object.setPrototypeOf([1], null)`},
		{"object with array proto", `Object.setPrototypeOf({a: 1}, Array.prototype)`},
		{"many deleted", `(() => { const o = {}; for (let i = 0; i < 100; i++) o["k" + i] = i; for (let i = 0; i < 90; i++) delete o["k" + i]; o.z = 1; return o; })()`},
		{"re-added", `(() => { const o = {a: 1, b: 2}; delete o.a; o.a = 3; return o; })()`},
		{"defineProperty order", `(() => { const o = {}; Object.defineProperty(o, "b", {value: 1, enumerable: true}); o.a = 2; return o; })()`},
		{"weak", `new WeakMap()`},
		{"promise", `Promise.resolve(1)`},
		{"error-like", `{message: "m", stack: "s"}`},
		{"bigint object", `Object(1n)`},
		{"symbol object", `Object(Symbol())`},
		{"deep 63", `(() => { let o = 1; for (let i = 0; i < 63; i++) o = [o]; return o; })()`},
		{"deep 64", `(() => { let o = 1; for (let i = 0; i < 64; i++) o = [o]; return o; })()`},
		{"deep 65", `(() => { let o = 1; for (let i = 0; i < 65; i++) o = {o}; return o; })()`},
		{"dag", `(() => { let o = [1]; for (let i = 0; i < 15; i++) o = [o, o]; return o; })()`},
		{"rope dag", `(() => { let s = "ab"; for (let i = 0; i < 20; i++) s = s + s; return s; })()`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := jsonInstance(t, rt)
			c := &jsonChecker{t: t, max: 1 << 20}
			exc, text, err := in.Eval(WithHandler(ctx, in, c), jsonProbe+"check("+tt.expr+"); throw 'ok'", "<input>")
			require.NoError(t, err)
			require.True(t, exc, text)
			require.Equal(t, "ok", text)
			require.Equal(t, 1, c.calls)
		})
	}
}

// boundsHandler runs AppendJSON on its argument and measures what it
// took: time and bytes allocated.
type boundsHandler struct {
	max   int
	d     time.Duration
	alloc uint64
	ok    bool
}

func (h *boundsHandler) HostCall(ctx context.Context, in *Instance, args []uint64) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := time.Now()
	_, h.ok = in.AppendJSON(nil, args[0], h.max)
	h.d = time.Since(s)
	runtime.ReadMemStats(&after)
	h.alloc = after.TotalAlloc - before.TotalAlloc
	return in.Undefined()
}

// TestAppendJSONReviewBounds checks what a hostile value costs AppendJSON:
// shared subtrees and ropes (exponentially many paths), strings that
// escape to six bytes a character, undefined-valued properties (steps
// without output). Each is declined, in bounded time, having allocated
// no more than a few times max (its output's bound: growing a slice to max
// bytes allocates some five times max in all).
func TestAppendJSONReviewBounds(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	const max = 1 << 20
	for _, tt := range []struct{ name, expr string }{
		{"array dag", `(() => { let o = [1]; for (let i = 0; i < 60; i++) o = [o, o]; return o; })()`},
		{"undefined dag", `(() => { let o = {a: undefined, b: undefined, c: undefined, d: undefined}; for (let i = 0; i < 20; i++) o = [o, o, o, o, o, o, o, o, o, o]; return o; })()`},
		{"wide array dag", `(() => { const x = Object.assign([], Object.fromEntries(Array.from({length: 1000}, (_, i) => ["k" + i, i]))); let o = [x]; for (let i = 0; i < 20; i++) o = [o, o, o, o, o, o, o, o, o, o]; return o; })()`},
		{"escaped string dag", `(() => { const s = "\u0001".repeat((1 << 20) - 8); let o = [s]; for (let i = 0; i < 60; i++) o = [o, o]; return o; })()`},
		{"escaped latin1", `"\u0001".repeat((1 << 20) - 2)`},
		{"escaped wide", `"\u0001\u4e00".repeat((1 << 19) - 2)`},
		{"escaped rope", `"\u0001".repeat(1 << 19) + "\u0002".repeat(1 << 19)`},
		{"rope dag", `(() => { let s = "ab"; for (let i = 0; i < 27; i++) s = s + s; return s; })()`},
		// The output exactly max long when a string's opening quote is
		// written: the string's characters must still be bounded by max.
		{"string after max", `["x".repeat((1 << 20) - 4), "a".repeat(40 << 20)]`},
		{"key after max", `({a: "x".repeat((1 << 20) - 8), ["b".repeat(40 << 20)]: 1})`},
		{"rope after max", `["x".repeat((1 << 20) - 4), "a".repeat(20 << 20) + "c".repeat(20 << 20)]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := jsonInstance(t, rt)
			h := &boundsHandler{max: max}
			exc, text, err := in.Eval(WithHandler(ctx, in, h), "__airlock_host("+tt.expr+"); throw 'ok'", "<input>")
			require.NoError(t, err)
			require.True(t, exc, text)
			require.Equal(t, "ok", text)
			require.False(t, h.ok)
			require.Less(t, h.d, 2*time.Second)
			require.LessOrEqual(t, h.alloc, uint64(6*max), "allocated %d bytes for an output bound of %d", h.alloc, max)
		})
	}
}

// TestAppendJSONReviewCorrupt writes random words over the memory around
// a value's objects, shapes and strings and the runtime's and context's
// fields, from within the host call, and
// runs AppendJSON on each corrupted heap: it must end, without a panic,
// within max, and restore nothing itself (it writes nothing).
func TestAppendJSONReviewCorrupt(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in := jsonInstance(t, rt)
	const max = 1 << 16
	h := handlerFunc(func(ctx context.Context, in *Instance, args []uint64) uint64 {
		m := in.mem
		want, ok := in.AppendJSON(nil, args[0], max)
		require.True(t, ok)
		var near []uint32
		for _, v := range args[:4] {
			p := uint32(v)
			near = append(near, p)
			if s, ok := m.ReadUint32Le(p + objShape); ok {
				near = append(near, s)
			}
			if s, ok := m.ReadUint32Le(p + objProp); ok {
				near = append(near, s)
			}
		}
		// The runtime's and context's fields setup reads: the atom table,
		// its size, the stack limit, class_proto.
		near = append(near, uint32(in.rt)+32, uint32(in.ctx)+16, uint32(in.rt)+in.layout.StackSizeOffset-64)
		seed := uint64(1)
		rnd := func() uint32 {
			seed ^= seed << 13
			seed ^= seed >> 7
			seed ^= seed << 17
			return uint32(seed)
		}
		for i := 0; i < 20000; i++ {
			at := near[rnd()%uint32(len(near))] + rnd()%128&^3
			old, ok := m.ReadUint32Le(at)
			if !ok {
				continue
			}
			var v uint32
			switch rnd() % 4 {
			case 0:
				v = rnd()
			case 1:
				v = old ^ 1<<(rnd()%32)
			case 2:
				v = near[rnd()%uint32(len(near))] + rnd()%64
			default:
				v = 0xffffffff - rnd()%256
			}
			require.True(t, m.WriteUint32Le(at, v))
			for _, x := range args[:4] {
				s := time.Now()
				got, ok := in.AppendJSON(nil, x, max)
				require.Less(t, time.Since(s), time.Second)
				require.LessOrEqual(t, len(got), max)
				if !ok {
					require.Empty(t, got)
				}
			}
			require.True(t, m.WriteUint32Le(at, old))
		}
		got, ok := in.AppendJSON(nil, args[0], max)
		require.True(t, ok)
		require.Equal(t, string(want), string(got))
		return in.Undefined()
	})
	src := `const s = "xyz" + "é".repeat(40), a = [1, 2.5, "名".repeat(30), {k: null}], o = {a, s, n: {b: [true, false]}, u: undefined};
__airlock_host(o, a, s, "x".repeat(600) + "\u4e00".repeat(600)); throw 'ok'`
	_, text, err := in.Eval(WithHandler(ctx, in, h), src, "<input>")
	require.NoError(t, err)
	require.Equal(t, "ok", text)
}

// TestAppendJSONReviewStackRope is TestAppendJSONStack's probe with ropes
// nested as deep as the engine nests them (and values holding them):
// JSON.stringify flattens a rope where AppendJSON walks it, and must not
// be the one to throw or trap where AppendJSON wrote.
func TestAppendJSONReviewStackRope(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	taken := 0
	for back := 1; back < 120; back += 2 {
		for _, val := range []string{
			`rope(70)`,
			`[[{a: rope(70)}]]`,
			`{k: rope(30), l: [rope(45)]}`,
		} {
			in := jsonInstance(t, rt)
			in.SetStackLimit(32 << 10)
			var got []byte
			var took bool
			h := handlerFunc(func(ctx context.Context, in *Instance, args []uint64) uint64 {
				if op, _ := DecodeInt(args[0]); op == 0 {
					got, took = in.AppendJSON(nil, args[1], 1<<20)
					return in.Undefined()
				}
				if took {
					require.True(t, IsString(args[1]), "back %d, %s: JSON.stringify threw where AppendJSON wrote %.40s", back, val, got)
					want, ok := in.ReadString(args[1], 1<<20)
					require.True(t, ok)
					require.Equal(t, string(want), string(got))
				}
				return in.Undefined()
			})
			src := `const rope = (d) => { let s = "x".repeat(300); for (let i = 0; i < d; i++) s = (i % 2 ? "a".repeat(300) + s : s + "b".repeat(300)); return s; };
function down(d) { try { return down(d + 1); } catch (_) { return d; } }
const max = down(0), v = ` + val + `;
function at(d) {
  if (d > 0) return at(d - 1);
  __airlock_host(0, v);
  let s = null;
  try { s = JSON.stringify(v); } catch (_) {}
  __airlock_host(1, s);
}
try { at(max - ` + fmt.Sprint(back) + `); } catch (_) {}
throw 'ok'`
			_, text, err := in.Eval(WithHandler(ctx, in, h), src, "<input>")
			if err != nil {
				require.True(t, in.StackOverflowed(), "%v", err)
				require.False(t, took, "back %d, %s: JSON.stringify trapped where AppendJSON wrote", back, val)
			} else {
				require.Equal(t, "ok", text)
			}
			if took {
				taken++
			}
			in.Close(ctx)
		}
	}
	require.NotZero(t, taken)
}
