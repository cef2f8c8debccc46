package quickjs

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// sitesProbe is a script that calls probe(limit) from many kinds of frame:
// probe captures its call site with the engine (Error.captureStackTrace)
// and hands it to the host with itself, and the host reads the same site
// from the stack (CallSites) and compares.
const sitesProbe = `
Error.prepareStackTrace = (e, sites) => sites.map((c) => ({
  native: c.isNative(), input: c.getFileName() === "<input>",
  name: c.getFunctionName(), line: c.getLineNumber(), col: c.getColumnNumber() }));
function probe(limit) {
  const saved = Error.stackTraceLimit;
  Error.stackTraceLimit = limit;
  const o = {};
  Error.captureStackTrace(o, probe);
  Error.stackTraceLimit = saved;
  return __airlock_host(probe, limit, JSON.stringify(o.stack));
}
`

// sitesCases run in the file "<input>", each after sitesProbe (evaluated
// under another file name), to throw "ok" when every probe agreed.
var sitesCases = map[string]string{
	"top level": `probe(4); throw "ok"`,
	"nested named": `function a() { return b(); }
function b() {    return   probe(10); }
a(); throw "ok"`,
	"arrow and method": `const o = { m() { return [1].map(() => probe(10)); } };
o.m(); throw "ok"`,
	"computed and symbol names": `const k = "dyn" + 1; const o = { [k]() { return probe(10); }, [Symbol.iterator]() { return probe(10); } };
o[k](); o[Symbol.iterator](); throw "ok"`,
	"renamed": `function f() { return probe(10); }
Object.defineProperty(f, "name", { value: "renamed" }); f();
function g() { return probe(10); }
Object.defineProperty(g, "name", { get() { return "x"; } }); g();
function h() { return probe(10); }
Object.defineProperty(h, "name", { value: 42 }); h();
function e() { return probe(10); }
Object.defineProperty(e, "name", { value: "" }); e();
function u() { return probe(10); }
Object.defineProperty(u, "name", { value: "é名🎉" }); u();
throw "ok"`,
	"class": `class C { constructor() { probe(10); } static s() { return new C(); } get x() { return probe(10); } }
C.s(); new C().x; throw "ok"`,
	"generator and async": `function* gen() { yield probe(10); }
gen().next();
let done = false;
async function af() { await null; probe(10); done = true; }
af(); Promise.resolve().then(() => Promise.resolve()).then(() => { if (!done) throw "async not run"; });
throw "ok"`,
	"deep": `function r(n) { return n === 0 ? probe(64) : r(n - 1); }
r(80); r(3); throw "ok"`,
	"natives between": `["x"].forEach(function each() { JSON.parse("[1]", function reviver() { probe(10); }); });
Reflect.apply(probe, null, [10]); throw "ok"`,
	"eval":      `eval("function ev() { return probe(10); }\n ev();"); new Function("return probe(10)")(); throw "ok"`,
	"long line": `const pad = "` + fmt.Sprintf("%0300d", 0) + `"; function z() { return pad && probe(10); } z(); throw "ok"`,
}

type sitesChecker struct {
	t      *testing.T
	input  uint32
	name   uint32
	probes int
}

type wantSite struct {
	Native bool    `json:"native"`
	Input  bool    `json:"input"`
	Name   *string `json:"name"`
	Line   int32   `json:"line"`
	Col    int32   `json:"col"`
}

func (c *sitesChecker) HostCall(ctx context.Context, in *Instance, args []uint64) uint64 {
	t := c.t
	limit, _ := DecodeInt(args[1])
	ref, err := in.ToString(ctx, args[2])
	require.NoError(t, err)
	b, _ := ref.Bytes(1 << 20)
	require.NoError(t, ref.Release(ctx))
	var want []wantSite
	require.NoError(t, json.Unmarshal(b, &want))
	got, ok := in.CallSites(args[0], int(limit), c.input, c.name, nil)
	require.True(t, ok)
	require.Len(t, got, len(want), "%s", b)
	for i, w := range want {
		g := got[i]
		require.Equal(t, w.Native, g.Native, "site %d of %s", i, b)
		require.Equal(t, w.Input, g.Input, "site %d of %s", i, b)
		require.Equal(t, w.Name != nil, g.HasName, "site %d of %s", i, b)
		if w.Name != nil {
			require.Equal(t, *w.Name, g.Name, "site %d of %s", i, b)
		}
		if !w.Native {
			require.Equal(t, [2]int32{w.Line, w.Col}, [2]int32{g.Line, g.Col}, "site %d of %s", i, b)
		}
	}
	c.probes++
	return in.Undefined()
}

// TestCallSites checks the host's reading of call sites against the
// engine's own, for every kind of frame a tool call can be made from.
func TestCallSites(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	for name, src := range sitesCases {
		t.Run(name, func(t *testing.T) {
			in, err := rt.NewInstance(ctx, 32<<20)
			require.NoError(t, err)
			defer in.Close(ctx)
			c := &sitesChecker{t: t}
			c.input, err = in.Atom(ctx, "<input>")
			require.NoError(t, err)
			c.name, err = in.Atom(ctx, "name")
			require.NoError(t, err)
			hctx := WithHandler(ctx, in, c)
			exc, text, err := in.Eval(hctx, sitesProbe, "probe.js")
			require.NoError(t, err)
			require.False(t, exc, text)
			exc, text, err = in.Eval(hctx, src, "<input>")
			require.NoError(t, err)
			require.True(t, exc)
			require.Equal(t, "ok", text)
			require.NotZero(t, c.probes)
		})
	}
}

// TestCallSitesHostile corrupts the frames CallSites reads, from within
// the host call, in every way that matters: pointers out of bounds, a frame
// chain that loops, a function that is not an object, a huge line table or
// property count. Each read must end, without a panic, reporting false or
// some sites; an instance beside it runs as usual.
func TestCallSitesHostile(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	corrupt := []struct {
		name string
		do   func(in *Instance, sf, fn uint32)
	}{
		{"frame pointer out of bounds", func(in *Instance, sf, _ uint32) { in.mem.WriteUint32Le(sf+sfPrev, 0xfffffff0) }},
		{"frame chain loops", func(in *Instance, sf, _ uint32) { in.mem.WriteUint32Le(sf+sfPrev, sf) }},
		{"function not an object", func(in *Instance, sf, _ uint32) { in.mem.WriteUint64Le(sf+sfCurFunc, 7) }},
		{"object out of bounds", func(in *Instance, sf, _ uint32) {
			in.mem.WriteUint64Le(sf+sfCurFunc, uint64(tagObjectType)<<32|0xfffffff8)
		}},
		{"huge line table", func(in *Instance, _, fn uint32) {
			b, _ := in.mem.ReadUint32Le(fn + objFuncB)
			in.mem.WriteUint32Le(b+bcPC2LineN, 0x7fffffff)
		}},
		{"line table out of bounds", func(in *Instance, _, fn uint32) {
			b, _ := in.mem.ReadUint32Le(fn + objFuncB)
			in.mem.WriteUint32Le(b+bcPC2LineBf, 0xffffff00)
		}},
		{"huge property count", func(in *Instance, _, fn uint32) {
			sh, _ := in.mem.ReadUint32Le(fn + objShape)
			in.mem.WriteUint32Le(sh+shapePropCount, 0xffffffff)
		}},
		{"bytecode out of bounds", func(in *Instance, _, fn uint32) { in.mem.WriteUint32Le(fn+objFuncB, 0xfffffffc) }},
	}
	for _, tt := range corrupt {
		t.Run(tt.name, func(t *testing.T) {
			in, err := rt.NewInstance(ctx, 32<<20)
			require.NoError(t, err)
			defer in.Close(ctx)
			input, _ := in.Atom(ctx, "<input>")
			name, _ := in.Atom(ctx, "name")
			calls := 0
			h := handlerFunc(func(ctx context.Context, in *Instance, args []uint64) uint64 {
				calls++
				// The frame below the stub's: the script's caller.
				off := (in.layout.StackSizeOffset+12+7)&^7 + 12
				top, _ := in.mem.ReadUint32Le(uint32(in.rt) + off)
				stubFrame, _ := in.mem.ReadUint32Le(top + sfPrev)
				caller, _ := in.mem.ReadUint32Le(stubFrame + sfPrev)
				fn, _ := in.mem.ReadUint64Le(caller + sfCurFunc)
				tt.do(in, caller, uint32(fn))
				sites, _ := in.CallSites(args[0], 60, input, name, nil)
				require.LessOrEqual(t, len(sites), 60)
				panic(stopGuest{}) // the corrupted guest must not run on
			})
			_, _, err = in.Eval(WithHandler(ctx, in, h),
				"function stub() { return __airlock_host(stub); } function caller() { return stub(); } caller()", "<input>")
			require.Error(t, err)
			require.Equal(t, 1, calls)

			by, err := rt.NewInstance(ctx, 32<<20)
			require.NoError(t, err)
			defer by.Close(ctx)
			require.Equal(t, "499500", evalText(t, by, "let s = 0; for (let i = 0; i < 1000; i++) s += i; throw String(s)"))
		})
	}
}

type stopGuest struct{}

// TestReadString reads strings in place as ToString converts them, and
// declines what it cannot read flat: ropes, lone surrogates, strings
// longer than asked for, values that are not strings or point outside
// memory.
func TestReadString(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 32<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	for _, tt := range []struct {
		expr string
		ok   bool
	}{
		{`"plain ascii\n{}"`, true},
		{`"latin1 é ÿ"`, true},
		{`"bmp 名 and astral 🎉"`, true},
		{`"a".repeat(300) + "b".repeat(100)`, true},  // concatenated, short: flat
		{`"x".repeat(1000).slice(100, 900)`, true},   // a slice, if the engine makes one
		{`"é".repeat(600) + "名".repeat(600)`, false}, // a rope
		{`"lone \ud800 high"`, false},
		{`"lone \udc00 low"`, false},
		{`"x".repeat(5000)`, false}, // longer than asked for
		{`12`, false},
	} {
		t.Run(tt.expr, func(t *testing.T) {
			h := handlerFunc(func(ctx context.Context, in *Instance, args []uint64) uint64 {
				got, ok := in.ReadString(args[0], 4096)
				if tt.ok {
					require.True(t, ok)
				}
				if ok {
					ref, err := in.ToString(ctx, args[0])
					require.NoError(t, err)
					want, _ := ref.Bytes(1 << 20)
					require.NoError(t, ref.Release(ctx))
					require.Equal(t, string(want), string(got))
				}
				return in.Undefined()
			})
			exc, text, err := in.Eval(WithHandler(ctx, in, h), "__airlock_host("+tt.expr+"); throw 'ok'", "s.js")
			require.NoError(t, err)
			require.True(t, exc)
			require.Equal(t, "ok", text)
		})
	}
	for _, v := range []uint64{uint64(tagStringType)<<32 | 0xfffffff0, uint64(tagStringType)<<32 | uint64(in.mem.Size()-8)} {
		_, ok := in.ReadString(v, 1<<20)
		require.False(t, ok)
	}
}
