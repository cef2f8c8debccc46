package quickjs

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// jsonChecker compares AppendJSON with the engine's JSON.stringify: the
// script calls __airlock_host(value, JSON.stringify(value) or null when
// it threw).
type jsonChecker struct {
	t            testing.TB
	taken, calls int
	wantTaken    bool // every call must take the fast path
	wantDeclined bool // no call may
	max          int
}

func (c *jsonChecker) HostCall(ctx context.Context, in *Instance, args []uint64) uint64 {
	t := c.t
	c.calls++
	got, ok := in.AppendJSON([]byte("prefix"), args[0], c.max)
	if !ok {
		require.Equal(t, "prefix", string(got), "a declined AppendJSON leaves dst as it was")
		require.False(t, c.wantTaken, "declined, but a plain value")
		return in.Undefined()
	}
	c.taken++
	require.False(t, c.wantDeclined, "took %s", got)
	require.True(t, IsString(args[1]), "JSON.stringify threw, but AppendJSON wrote %s", got)
	ref, err := in.ToString(ctx, args[1])
	require.NoError(t, err)
	want, _ := ref.Bytes(1 << 24)
	require.NoError(t, ref.Release(ctx))
	require.Equal(t, string(want), string(got[6:]))
	return in.Undefined()
}

func jsonInstance(t testing.TB, rt *Runtime) *Instance {
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	t.Cleanup(func() { in.Close(ctx) })
	in.SetStackLimit(0)
	return in
}

// jsonProbe is the script every case runs in: check(v) hands v and its
// JSON.stringify to the checker; f64(hex) is the double with those bits.
const jsonProbe = `var check = (v) => { let s = null; try { s = JSON.stringify(v); } catch (_) {} __airlock_host(v, s); };
var f64 = (h) => new Float64Array(new BigUint64Array([BigInt("0x" + h)]).buffer)[0];
`

// TestAppendJSON checks AppendJSON against JSON.stringify: byte for byte
// where it writes (which it must for every plain value), and that it
// declines everything JSON.stringify would run code for, throw on or
// order differently.
func TestAppendJSON(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	for _, tt := range []struct {
		name, expr string
		plain      bool // must be taken; else must be declined
	}{
		{"the benchmark's", `{q: "x".repeat(80), n: 1}`, true},
		{"empty object", `{}`, true},
		{"empty array", `[]`, true},
		{"scalars", `{a: null, b: true, c: false, d: 0, e: -1, f: 2147483647, g: -2147483648}`, true},
		{"numbers", `[0.1, -0.5, 1e21, 1e-7, 123456789012345680000, 1.7976931348623157e308, 5e-324, -0, 2**53, 1/3, 100, 1e20, 0.000001, 1.5e-6]`, true},
		{"non-finite", `[NaN, Infinity, -Infinity]`, true},
		{"escapes", `{s: "\"\\\b\f\n\r\t\u0000\u001f\u007f\u0080 / é ÿ"}`, true},
		{"wide", `{s: "名🎉\u2028\u2029", t: "\ud800", u: "x\udc00y", v: "\ud83c\udf89\ud83c"}`, true},
		{"keys", `{"": 1, "a b": 2, "é": 3, "名": 4, "\n": 5, "-1": 6, "a1": 7, "🎉": 8}`, true},
		{"nesting", `{a: [1, [2, [3, {b: [{}]}]]], c: {d: {e: {}}}}`, true},
		{"undefined left out", `{a: undefined, b: 1, c: undefined}`, true},
		{"undefined in array", `[undefined, 1, undefined]`, true},
		{"only undefined", `{a: undefined}`, true},
		{"null prototype", `Object.assign(Object.create(null), {a: 1, b: "x"})`, true},
		{"deleted property", `(() => { const o = {a: 1, b: 2, c: 3}; delete o.b; return o; })()`, true},
		{"non-enumerable", `Object.defineProperty({a: 1}, "h", {value: 2, enumerable: false})`, true},
		{"many keys", `Object.fromEntries(Array.from({length: 300}, (_, i) => ["k" + i, i]))`, true},
		{"top-level string", `"str\n"`, true},
		{"top-level number", `1.5`, true},
		{"top-level null", `null`, true},
		{"shared subobject", `(() => { const s = {x: 1}; return [s, s, {s}]; })()`, true},
		{"frozen", `Object.freeze({a: [1], b: "x"})`, true},
		{"array with extra property", `Object.assign([1, 2], {extra: 3})`, true},
		{"pushed array", `(() => { const a = []; for (let i = 0; i < 100; i++) a.push(i * 1.5); return a; })()`, true},
		{"slice of a string", `{s: "abcdefghij".repeat(100).slice(3, 700)}`, true},
		{"rope", `{s: "é".repeat(600) + "名".repeat(600)}`, true},
		{"rope of ropes", `(() => { let s = ""; for (let i = 0; i < 200; i++) s += "x\n".repeat(300) + i; return {s, t: [s + "名".repeat(600)]}; })()`, true},
		{"rope key and value", `(() => { const k = "k".repeat(600) + "é".repeat(600); return {[k]: k + "\"".repeat(600)}; })()`, true},

		{"integer key", `{b: 1, 2: 2, a: 3}`, false},
		{"big integer key", `{b: 1, "4294967295": 2}`, false},
		{"digit key", `{b: 1, "1a": 2}`, false},
		{"symbol key", `{a: 1, [Symbol("s")]: 2}`, false},
		{"symbol value", `{a: Symbol("s")}`, false},
		{"function value", `{a: () => 1}`, false},
		{"bigint", `{a: 1n}`, false},
		{"own toJSON", `{toJSON() { return 1; }}`, false},
		{"toJSON data", `{toJSON: 1}`, false},
		{"nested toJSON", `{a: {toJSON() { return 1; }}}`, false},
		{"array toJSON", `Object.assign([1], {toJSON() { return 2; }})`, false},
		{"date", `{d: new Date(0)}`, false},
		{"getter", `{get a() { return 1; }}`, false},
		{"setter only", `{set a(v) {}}`, false},
		{"proxy", `new Proxy({a: 1}, {})`, false},
		{"proxy of array", `new Proxy([1], {})`, false},
		{"nested proxy", `{a: new Proxy({}, {})}`, false},
		{"class instance", `new (class C { constructor() { this.a = 1; } })()`, false},
		{"subclassed array", `new (class A extends Array {})(1, 2)`, false},
		{"other prototype", `Object.create({inherited: 1})`, false},
		{"cycle", `(() => { const o = {}; o.o = o; return o; })()`, false},
		{"array cycle", `(() => { const a = []; a.push(a); return a; })()`, false},
		{"holes", `[1, , 3]`, false},
		{"long length", `(() => { const a = [1]; a.length = 3; return a; })()`, false},
		{"boxed", `[new Number(1), new String("s"), new Boolean(true)]`, false},
		{"map", `new Map([[1, 2]])`, false},
		{"typed array", `new Uint8Array(2)`, false},
		{"error", `new Error("e")`, false},
		{"arguments", `(function () { return arguments; })(1, 2)`, false},
		{"regexp", `{r: /x/}`, false},
		{"raw json", `JSON.rawJSON ? JSON.rawJSON("1") : Symbol()`, false},
		{"too deep", `(() => { let o = 1; for (let i = 0; i < 100; i++) o = [o]; return o; })()`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := jsonInstance(t, rt)
			c := &jsonChecker{t: t, wantTaken: tt.plain, wantDeclined: !tt.plain, max: 1 << 20}
			exc, text, err := in.Eval(WithHandler(ctx, in, c), jsonProbe+"check("+tt.expr+"); throw 'ok'", "<input>")
			require.NoError(t, err)
			require.True(t, exc)
			require.Equal(t, "ok", text)
			require.Equal(t, 1, c.calls)
		})
	}
	// Ropes whose seams fall on surrogates: the same bytes if written (a
	// pair split between two halves is declined).
	for _, expr := range []string{
		`{s: "a".repeat(600) + "\ud83c" + ("\udf89" + "b".repeat(600))}`,
		`{s: ("a".repeat(600) + "\ud83c".repeat(600)) + ("\udf89".repeat(600) + "b")}`,
		`{s: "\ud83c".repeat(600) + "b".repeat(600) + "\udf89".repeat(600)}`,
		`{s: "\udf89".repeat(600) + "\ud83c".repeat(600)}`,
	} {
		in := jsonInstance(t, rt)
		c := &jsonChecker{t: t, max: 1 << 20}
		exc, text, err := in.Eval(WithHandler(ctx, in, c), jsonProbe+"check("+expr+"); throw 'ok'", "<input>")
		require.NoError(t, err)
		require.True(t, exc)
		require.Equal(t, "ok", text)
		require.Equal(t, 1, c.calls)
	}
	// What Object.prototype and Array.prototype lend.
	for name, src := range map[string]string{
		"Object.prototype.toJSON":    `Object.prototype.toJSON = function () { return 1; };`,
		"Array.prototype.toJSON":     `Array.prototype.toJSON = function () { return 1; };`,
		"Object.prototype getter":    `Object.defineProperty(Object.prototype, "toJSON", {get() { return undefined; }});`,
		"Array.prototype's proto":    `Object.setPrototypeOf(Array.prototype, {toJSON() { return 1; }});`,
		"Array.prototype null proto": `Object.setPrototypeOf(Array.prototype, null);`,
	} {
		t.Run(name, func(t *testing.T) {
			in := jsonInstance(t, rt)
			c := &jsonChecker{t: t, wantDeclined: true, max: 1 << 20}
			exc, text, err := in.Eval(WithHandler(ctx, in, c), jsonProbe+src+"check([{a: 1}]); throw 'ok'", "<input>")
			require.NoError(t, err)
			require.True(t, exc)
			require.Equal(t, "ok", text)
			require.Equal(t, 1, c.calls)
		})
	}
}

// TestAppendJSONMax checks the output bound: a value whose JSON is longer
// than max is declined, one exactly max long is written.
func TestAppendJSONMax(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in := jsonInstance(t, rt)
	for _, tt := range []struct {
		expr  string
		max   int
		taken bool
	}{
		{`{q: "x".repeat(80)}`, 88, true},
		{`{q: "x".repeat(80)}`, 87, false},
		{`{q: "\n".repeat(80)}`, 168, true},
		{`{q: "\n".repeat(80)}`, 167, false},
		{`{q: "名".repeat(80)}`, 248, true},
		{`{q: "名".repeat(80)}`, 247, false},
		{`Array.from({length: 1000}, () => ({}))`, 3001, true},
		{`Array.from({length: 1000}, () => ({}))`, 3000, false},
		{`[1]`, 0, false},
	} {
		c := &jsonChecker{t: t, wantTaken: tt.taken, wantDeclined: !tt.taken, max: tt.max}
		exc, text, err := in.Eval(WithHandler(ctx, in, c), jsonProbe+"check("+tt.expr+"); throw 'ok'", "<input>")
		require.NoError(t, err)
		require.True(t, exc)
		require.Equal(t, "ok", text, "%s max %d", tt.expr, tt.max)
	}
}

// TestAppendJSONStack checks that AppendJSON writes nothing that
// JSON.stringify, called at the same place, would not write: near
// QuickJS's stack limit, JSON.stringify of a nested value throws a
// RangeError, or uses up the stack's margin and traps, and AppendJSON must
// decline there. Each case recurses to the limit, backs off some frames,
// and asks AppendJSON, then JSON.stringify, for a value nested n deep.
func TestAppendJSONStack(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	taken, declined := 0, 0
	for back := 1; back < 160; back += 4 {
		for _, n := range []int{0, 2, 8} {
			in := jsonInstance(t, rt)
			in.SetStackLimit(32 << 10)
			var got []byte
			var took, compared bool
			h := handlerFunc(func(ctx context.Context, in *Instance, args []uint64) uint64 {
				if op, _ := DecodeInt(args[0]); op == 0 {
					got, took = in.AppendJSON(nil, args[1], 1<<20)
					return in.Undefined()
				}
				if took {
					require.True(t, IsString(args[1]), "back %d, n %d: JSON.stringify threw where AppendJSON wrote %s", back, n, got)
					want, ok := in.ReadString(args[1], 1<<20)
					require.True(t, ok)
					require.Equal(t, string(want), string(got))
				}
				compared = true
				return in.Undefined()
			})
			src := fmt.Sprintf(`const nest = (n) => { let o = 1; for (let i = 0; i < n; i++) o = [o]; return o; };
function down(d) { try { return down(d + 1); } catch (_) { return d; } }
const max = down(0), v = nest(%d);
function at(d) {
  if (d > 0) return at(d - 1);
  __airlock_host(0, v);
  let s = null;
  try { s = JSON.stringify(v); } catch (_) {}
  __airlock_host(1, s);
}
try { at(max - %d); } catch (_) {}
throw 'ok'`, n, back)
			_, text, err := in.Eval(WithHandler(ctx, in, h), src, "<input>")
			if err != nil {
				require.True(t, in.StackOverflowed(), "%v", err)
				require.False(t, took, "back %d, n %d: JSON.stringify trapped where AppendJSON wrote %s", back, n, got)
			} else {
				require.Equal(t, "ok", text)
			}
			if took {
				taken++
				require.True(t, compared)
			} else {
				declined++
			}
			in.Close(ctx)
		}
	}
	require.NotZero(t, taken, "some calls far enough from the limit are written")
	require.NotZero(t, declined, "some calls near the limit are declined")
}

// TestJSONFields checks the offsets AppendJSON reads beyond the call
// sites' against values the engine gives: the atoms it compares with are
// the ones JS_NewAtomLen gives for "toJSON" and "length", and class_proto
// holds the Object.prototype and Array.prototype a script sees.
func TestJSONFields(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in := jsonInstance(t, rt)
	for want, name := range map[uint32]string{atomToJSON: "toJSON", atomLength: "length"} {
		a, err := in.Atom(ctx, name)
		require.NoError(t, err)
		require.Equal(t, want, a, name)
	}
	require.NoError(t, checkJSONFields(in))
	protos, _ := in.mem.ReadUint32Le(uint32(in.ctx) + ctxClassProto)
	op, _ := in.mem.ReadUint64Le(protos + 8*classObject)
	ap, _ := in.mem.ReadUint64Le(protos + 8*classArray)
	var seen []uint64
	h := handlerFunc(func(ctx context.Context, in *Instance, args []uint64) uint64 {
		seen = append(seen, args[0], args[1])
		return in.Undefined()
	})
	_, text, err := in.Eval(WithHandler(ctx, in, h), "__airlock_host(Object.prototype, Array.prototype); throw 'ok'", "x.js")
	require.NoError(t, err)
	require.Equal(t, "ok", text)
	require.Equal(t, []uint64{op, ap}, seen)
	// A context whose fields are not where expected is refused.
	old, _ := in.mem.ReadUint32Le(uint32(in.ctx) + ctxClassProto)
	in.mem.WriteUint32Le(uint32(in.ctx)+ctxClassProto, old+8)
	require.Error(t, checkJSONFields(in))
	in.mem.WriteUint32Le(uint32(in.ctx)+ctxClassProto, old)
	tab, _ := in.mem.ReadUint32Le(uint32(in.rt) + rtAtomArray)
	in.mem.WriteUint32Le(uint32(in.rt)+rtAtomArray, tab+4)
	require.Error(t, checkJSONFields(in))
	in.mem.WriteUint32Le(uint32(in.rt)+rtAtomArray, tab)
	require.NoError(t, checkJSONFields(in))
}

// FuzzAppendJSON compares AppendJSON with JSON.stringify over values
// generated from the input: nested arrays and objects of strings (ASCII,
// Latin-1, wide, surrogates), keys of every kind, numbers from arbitrary
// bits, and the values it must decline.
func FuzzAppendJSON(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x05\x01\x02abc", "\x07\x07\x07\x03\x00\x00\x00\x00\x00\x00\xf0\x7f", "\x06\x02k\x01\x04\x03\x80\x00\xd8"} {
		f.Add([]byte(s))
	}
	rt := testRuntime(f, Config{})
	ctx := context.Background()
	in := jsonInstance(f, rt)
	f.Fuzz(func(t *testing.T, data []byte) {
		g := jsGen{data: data}
		expr := g.value(0)
		c := &jsonChecker{t: t, max: 1 << 16}
		exc, text, err := in.Eval(WithHandler(ctx, in, c), jsonProbe+"check("+expr+"); throw 'ok'", "<input>")
		require.NoError(t, err)
		require.True(t, exc)
		require.Equal(t, "ok", text, "%s", expr)
		if g.plain {
			require.Equal(t, 1, c.taken, "a plain value was declined: %s", expr)
		}
	})
}

// jsGen writes a JavaScript expression from fuzz bytes; plain stays true
// while everything it wrote must be taken by AppendJSON.
type jsGen struct {
	data  []byte
	plain bool
	init  bool
}

func (g *jsGen) byte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

func (g *jsGen) str() string {
	n := int(g.byte() % 12)
	var b strings.Builder
	b.WriteByte('"')
	for range n {
		switch c := g.byte(); c % 6 {
		case 0:
			fmt.Fprintf(&b, `\u%04x`, uint16(g.byte())|uint16(g.byte())<<8) // any code unit, surrogates included
		case 1:
			fmt.Fprintf(&b, `\u%04x`, c>>3) // a control character
		case 2:
			fmt.Fprintf(&b, `\u%04x`, 0x80+uint16(g.byte())) // Latin-1 and beyond
		default:
			b.WriteString([]string{"a", "\\\"", "\\\\", "0", "é", "名", " ", "🎉"}[c%8])
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (g *jsGen) value(depth int) string {
	if !g.init {
		g.init, g.plain = true, true
	}
	switch c := g.byte(); {
	case c%16 == 0 || depth > 5 || len(g.data) == 0:
		return []string{"null", "true", "false", "0", "-0", "1", "-2147483648", "2147483647"}[g.byte()%8]
	case c%16 == 1:
		var bits [8]byte
		for i := range bits {
			bits[i] = g.byte()
		}
		return fmt.Sprintf("f64(%q)", fmt.Sprintf("%016x", binary.LittleEndian.Uint64(bits[:])))
	case c%16 == 2:
		x := math.Float64frombits(uint64(g.byte())<<56 | uint64(g.byte())<<48 | 0x3ff<<52>>8)
		return fmt.Sprint(x)
	case c%16 == 3:
		// A rope: two strings long enough not to be copied into one, which
		// AppendJSON declines if a surrogate pair falls on the seam.
		g.plain = false
		// (At most 64 repeats: the probe's own JSON.stringify of large
		// nested values would take seconds.)
		return fmt.Sprintf("(%s.repeat(%d) + %s.repeat(%d))", g.str(), 1+int(g.byte()%64), g.str(), 1+int(g.byte()%64))
	case c%16 <= 5:
		return g.str()
	case c%16 <= 8:
		n := int(g.byte() % 6)
		parts := make([]string, n)
		for i := range parts {
			if g.byte()%8 == 0 {
				parts[i] = "undefined"
			} else {
				parts[i] = g.value(depth + 1)
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case c%16 <= 12:
		n := int(g.byte() % 6)
		parts := make([]string, n)
		for i := range parts {
			var key string
			switch k := g.byte(); k % 8 {
			case 0:
				key = fmt.Sprint(k) // an integer key: declined
				g.plain = false
			case 1:
				key = `"k` + g.str()[1:]
			default:
				key = string(rune('a' + k%26))
			}
			if g.byte()%8 == 0 {
				parts[i] = key + ": undefined"
			} else {
				parts[i] = key + ": " + g.value(depth+1)
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		g.plain = false
		return []string{"1n", "Symbol()", "() => 1", "{toJSON() { return 1; }}", "new Proxy({}, {})", "new Date(0)", "[1, , 2]", "{get a() { return 1; }}"}[g.byte()%8]
	}
}

// TestAppendJSONHostile corrupts, from within the host call, what
// AppendJSON reads: pointers out of bounds, counts and lengths near 2^31,
// an atom past the table, a shape made to loop back to its object. Each
// AppendJSON must end without a panic, within its bounds, and whatever it
// writes is at most max bytes.
func TestAppendJSONHostile(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in := jsonInstance(t, rt)
	h := handlerFunc(func(ctx context.Context, in *Instance, args []uint64) uint64 {
		obj, arr, str, rope := uint32(args[0]), uint32(args[1]), uint32(args[2]), uint32(args[3])
		require.Equal(t, uint32(tagStringRope), uint32(args[3]>>32), "a rope")
		m := in.mem
		shape, _ := m.ReadUint32Le(obj + objShape)
		props, _ := m.ReadUint32Le(obj + objProp)
		vals, _ := m.ReadUint32Le(arr + objArrayVals)
		top := m.Size()
		for _, c := range []struct {
			name string
			at   uint32
			v    uint32
		}{
			{"shape out of bounds", obj + objShape, top - 4},
			{"shape at the end", obj + objShape, 0xfffffff0},
			{"property count huge", shape + shapePropCount, 0x7fffffff},
			{"property count over the bound", shape + shapePropCount, jsonMaxCount + 1},
			{"properties out of bounds", obj + objProp, top - 8},
			{"atom past the table", shape + shapeProps + 4, 0x7ffffff0},
			{"array count huge", arr + objArrayCount, 0x7fffffff},
			{"array values out of bounds", arr + objArrayVals, top - 16},
			{"array element is itself", vals, arr},
			{"property value is the object", props, obj},
			{"string length huge", str + strLen, 0x7fffffff},
			{"wide string length huge", str + strLen, 0xffffffff},
			{"string slice out of bounds", str + strKind, 1 << 28},
			{"prototype out of bounds", shape + shapeProto, top + 64},
			{"rope's half is the rope", rope + ropeLeft, rope},
			{"rope's half out of bounds", rope + ropeRight, top - 4},
		} {
			old, ok := m.ReadUint32Le(c.at)
			require.True(t, ok, c.name)
			require.True(t, m.WriteUint32Le(c.at, c.v), c.name)
			for _, v := range args[:4] {
				got, ok := in.AppendJSON(nil, v, 1<<16)
				require.LessOrEqual(t, len(got), 1<<16, c.name)
				if !ok {
					require.Empty(t, got, c.name)
				}
			}
			require.True(t, m.WriteUint32Le(c.at, old), c.name)
		}
		got, ok := in.AppendJSON(nil, args[0], 1<<16)
		require.True(t, ok)
		require.Equal(t, `{"a":[1,2],"s":"xyz"}`, string(got))
		return in.Undefined()
	})
	src := `const s = "xyz", a = [1, 2], o = {a, s}; __airlock_host(o, a, s, "x".repeat(600) + "y".repeat(600)); throw 'ok'`
	_, text, err := in.Eval(WithHandler(ctx, in, h), src, "<input>")
	require.NoError(t, err)
	require.Equal(t, "ok", text)
}
