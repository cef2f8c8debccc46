package quickjs

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// frameOf returns, from within a host call made by stub() called from
// caller(), the frame of caller and its function object.
func frameOf(in *Instance) (top, caller, fn uint32) {
	off := (in.layout.StackSizeOffset+12+7)&^7 + 12
	top, _ = in.mem.ReadUint32Le(uint32(in.rt) + off)
	stubFrame, _ := in.mem.ReadUint32Le(top + sfPrev)
	caller, _ = in.mem.ReadUint32Le(stubFrame + sfPrev)
	f, _ := in.mem.ReadUint64Le(caller + sfCurFunc)
	return top, caller, uint32(f)
}

// nameSlot returns the address of the JSValue of fn's own "name"
// property.
func nameSlot(t *testing.T, in *Instance, fn, name uint32) uint32 {
	shape, _ := in.mem.ReadUint32Le(fn + objShape)
	props, _ := in.mem.ReadUint32Le(fn + objProp)
	count, _ := in.mem.ReadUint32Le(shape + shapePropCount)
	for i := range count {
		if a, _ := in.mem.ReadUint32Le(shape + shapeProps + 8*i + 4); a == name {
			return props + 8*i
		}
	}
	t.Fatal("no name property")
	return 0
}

// TestCallSitesHostileMore corrupts, from within the host call, what
// TestCallSitesHostile leaves alone: the function name's string header
// (huge, a slice or indirection out of bounds or wrapping around memory,
// a lone surrogate), a line table of unterminated LEB128, the runtime's
// frame pointer, a loop above the stub, a top frame that is not the host
// function's. Each read ends without a panic with the exact outcome given;
// garbage read from the guest's own memory is allowed only within the
// bounds (sites, name length).
func TestCallSitesHostileMore(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	type outcome int
	const (
		declined outcome = iota // CallSites reports false
		bounded                 // true or false, within the bounds
		noName                  // true, the caller's site without a name
		lineOnly                // true, the caller at its function's first line, column 1
	)
	corrupt := []struct {
		name string
		do   func(t *testing.T, in *Instance, top, sf, fn, name uint32)
		want outcome
	}{
		{"name longer than read", func(t *testing.T, in *Instance, _, _, fn, name uint32) {
			v, _ := in.mem.ReadUint64Le(nameSlot(t, in, fn, name))
			in.mem.WriteUint32Le(uint32(v)+strLen, 0x7fffffff)
		}, declined},
		{"wide name of 2^31-1 units", func(t *testing.T, in *Instance, _, _, fn, name uint32) {
			v, _ := in.mem.ReadUint64Le(nameSlot(t, in, fn, name))
			in.mem.WriteUint32Le(uint32(v)+strLen, 0xffffffff)
		}, declined},
		{"name indirect out of bounds", func(t *testing.T, in *Instance, _, _, fn, name uint32) {
			v, _ := in.mem.ReadUint64Le(nameSlot(t, in, fn, name))
			k, _ := in.mem.ReadUint32Le(uint32(v) + strKind)
			in.mem.WriteUint32Le(uint32(v)+strKind, k&^(3<<28)|2<<28)
			in.mem.WriteUint32Le(uint32(v)+strChars, 0xffffff00)
		}, declined},
		{"name slice wrapping around memory", func(t *testing.T, in *Instance, _, _, fn, name uint32) {
			v, _ := in.mem.ReadUint64Le(nameSlot(t, in, fn, name))
			k, _ := in.mem.ReadUint32Le(uint32(v) + strKind)
			in.mem.WriteUint32Le(uint32(v)+strKind, k&^(3<<28)|1<<28)
			in.mem.WriteUint32Le(uint32(v)+strChars, 0xffffffec) // + strChars wraps to 0
			in.mem.WriteUint32Le(uint32(v)+strChars+4, denyMsgAddr)
		}, bounded},
		{"name slice start out of bounds", func(t *testing.T, in *Instance, _, _, fn, name uint32) {
			v, _ := in.mem.ReadUint64Le(nameSlot(t, in, fn, name))
			k, _ := in.mem.ReadUint32Le(uint32(v) + strKind)
			in.mem.WriteUint32Le(uint32(v)+strKind, k&^(3<<28)|1<<28)
			in.mem.WriteUint32Le(uint32(v)+strChars+4, 0xfffff000)
		}, declined},
		{"name kind 3", func(t *testing.T, in *Instance, _, _, fn, name uint32) {
			v, _ := in.mem.ReadUint64Le(nameSlot(t, in, fn, name))
			k, _ := in.mem.ReadUint32Le(uint32(v) + strKind)
			in.mem.WriteUint32Le(uint32(v)+strKind, k|3<<28)
		}, declined},
		{"wide name ending in a high surrogate", func(t *testing.T, in *Instance, _, _, fn, name uint32) {
			v, _ := in.mem.ReadUint64Le(nameSlot(t, in, fn, name))
			in.mem.WriteUint32Le(uint32(v)+strLen, 1|1<<31)
			in.mem.WriteUint16Le(uint32(v)+strChars, 0xd800)
		}, declined},
		{"name not a string", func(t *testing.T, in *Instance, _, _, fn, name uint32) {
			in.mem.WriteUint64Le(nameSlot(t, in, fn, name), Int(5))
		}, noName},
		{"name pointer at the end of memory", func(t *testing.T, in *Instance, _, _, fn, name uint32) {
			in.mem.WriteUint64Le(nameSlot(t, in, fn, name), uint64(tagStringType)<<32|uint64(in.mem.Size()-6))
		}, declined},
		{"line table of unterminated LEB128", func(t *testing.T, in *Instance, _, _, fn, _ uint32) {
			b, _ := in.mem.ReadUint32Le(fn + objFuncB)
			p, _ := in.mem.ReadUint32Le(b + bcPC2LineBf)
			n, _ := in.mem.ReadUint32Le(b + bcPC2LineN)
			buf, _ := in.mem.Read(p, n)
			buf[0] = 0
			for i := 1; i < len(buf); i++ {
				buf[i] = 0x80
			}
		}, lineOnly},
		{"line table absent", func(t *testing.T, in *Instance, _, _, fn, _ uint32) {
			b, _ := in.mem.ReadUint32Le(fn + objFuncB)
			in.mem.WriteUint32Le(b+bcPC2LineBf, 0)
		}, lineOnly},
		{"frame pointer of the runtime out of bounds", func(t *testing.T, in *Instance, _, _, _, _ uint32) {
			off := (in.layout.StackSizeOffset+12+7)&^7 + 12
			in.mem.WriteUint32Le(uint32(in.rt)+off, 0xfffffffc)
		}, declined},
		{"frame chain loops above the stub", func(t *testing.T, in *Instance, top, _, _, _ uint32) {
			in.mem.WriteUint32Le(top+sfPrev, top)
		}, declined},
		{"frame chain ends above the stub", func(t *testing.T, in *Instance, top, _, _, _ uint32) {
			in.mem.WriteUint32Le(top+sfPrev, 0)
		}, declined},
		{"top frame not a C function", func(t *testing.T, in *Instance, top, _, fn, _ uint32) {
			in.mem.WriteUint64Le(top+sfCurFunc, uint64(tagObjectType)<<32|uint64(fn))
		}, declined},
		{"pc below the bytecode", func(t *testing.T, in *Instance, _, sf, _, _ uint32) {
			in.mem.WriteUint32Le(sf+sfCurPC, 0)
		}, bounded},
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
				top, caller, fn := frameOf(in)
				bc, _ := in.mem.ReadUint32Le(fn + objFuncB)
				firstLine, _ := in.mem.ReadUint32Le(bc + bcLineNum)
				tt.do(t, in, top, caller, fn, name)
				sites, ok := in.CallSites(args[0], 4, input, name, nil)
				require.LessOrEqual(t, len(sites), 4)
				for _, s := range sites {
					require.LessOrEqual(t, len(s.Name), 3*maxNameBytes)
				}
				switch tt.want {
				case declined:
					require.False(t, ok)
				case noName:
					require.True(t, ok)
					require.NotEmpty(t, sites)
					require.False(t, sites[0].HasName)
					require.Equal(t, Site{Input: true, Line: 1, Col: 76}, sites[0])
				case lineOnly:
					require.True(t, ok)
					require.NotEmpty(t, sites)
					require.Equal(t, Site{Input: true, Name: "caller", HasName: true, Line: int32(firstLine), Col: 1}, sites[0])
				}
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

// TestReadStringHostile hands ReadString string headers the guest could
// have corrupted: lengths whose byte count overflows 32 bits, slices and
// indirections out of bounds or wrapping around memory, kinds that do not
// exist, a wide string ending in a high surrogate. Each read ends, without a
// panic, refusing, or (wrapping) returning at most max characters' worth.
func TestReadStringHostile(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 32<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	p, err := in.call(ctx, fnMalloc, 64)
	require.NoError(t, err)
	at := uint32(p)
	str := func(lenWord, kindWord, c0, c1 uint32) uint64 {
		b, _ := in.mem.Read(at, 32)
		clear(b)
		in.mem.WriteUint32Le(at, 1)
		in.mem.WriteUint32Le(at+strLen, lenWord)
		in.mem.WriteUint32Le(at+strKind, kindWord)
		in.mem.WriteUint32Le(at+strChars, c0)
		in.mem.WriteUint32Le(at+strChars+4, c1)
		return uint64(tagStringType)<<32 | uint64(at)
	}
	for _, tt := range []struct {
		name string
		v    func() uint64
		max  int
		ok   bool
		want string
	}{
		{"wide, 2^31-1 units", func() uint64 { return str(0xffffffff, 0, 0, 0) }, math.MaxInt, false, ""},
		{"narrow, 2^31-1 bytes", func() uint64 { return str(0x7fffffff, 0, 0, 0) }, math.MaxInt, false, ""},
		{"longer than max", func() uint64 { return str(9, 0, 0, 0) }, 8, false, ""},
		{"negative max", func() uint64 { return str(1, 0, 0, 0) }, -1, false, ""},
		{"slice out of bounds", func() uint64 { return str(4, 1<<28, 0xffffff00, 0) }, 100, false, ""},
		{"slice start out of bounds", func() uint64 { return str(4, 1<<28, at, 0x7ffffff0) }, 100, false, ""},
		{"slice wrapping to the import message", func() uint64 { return str(6, 1<<28, 0xffffffec, denyMsgAddr) }, 100, true, DenyMessage[:6]},
		{"indirect out of bounds", func() uint64 { return str(4, 2<<28, 0xfffffffe, 0) }, 100, false, ""},
		{"kind 3", func() uint64 { return str(1, 3<<28, 0, 0) }, 100, false, ""},
		{"wide ending in a high surrogate", func() uint64 { return str(1|1<<31, 0, 0xd800, 0) }, 100, false, ""},
		{"wide high surrogate then not a low one", func() uint64 { return str(2|1<<31, 0, 0x0041d800, 0) }, 100, false, ""},
		{"header at the end of memory", func() uint64 { return uint64(tagStringType)<<32 | uint64(in.mem.Size()-4) }, 100, false, ""},
		{"not a string", func() uint64 { return uint64(tagObjectType)<<32 | uint64(at) }, 100, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := in.ReadString(tt.v(), tt.max)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, string(got))
		})
	}
}

// TestFreeValueHostile has freeValue drop values whose count the guest
// corrupted: a count above one is decremented in place, a pointer out of
// bounds goes to JS_FreeValue, whose trap is an error, never a panic; an instance beside it runs as usual.
func TestFreeValueHostile(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 32<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	p, err := in.call(ctx, fnMalloc, 64)
	require.NoError(t, err)
	at := uint32(p)
	in.mem.WriteUint32Le(at, 7)
	require.NoError(t, in.freeValue(ctx, uint64(tagObjectType)<<32|uint64(at)))
	rc, _ := in.mem.ReadUint32Le(at)
	require.Equal(t, uint32(6), rc)
	require.NoError(t, in.freeValue(ctx, Int(3)), "not counted: nothing to do")
	err = in.freeValue(ctx, uint64(tagObjectType)<<32|uint64(in.mem.Size()-2))
	require.ErrorIs(t, err, ErrGuest)

	by, err := rt.NewInstance(ctx, 32<<20)
	require.NoError(t, err)
	defer by.Close(ctx)
	require.Equal(t, "499500", evalText(t, by, "let s = 0; for (let i = 0; i < 1000; i++) s += i; throw String(s)"))
}

// TestPumpScratchNotInherited delivers a completion holding a secret
// through the scratch buffer of one instance, then restores another from
// the same snapshot (on Linux, maybe on the very mapping the first used):
// the second's scratch area holds the snapshot's bytes, not the secret.
func TestPumpScratchNotInherited(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	base, err := rt.NewInstance(ctx, 32<<20)
	require.NoError(t, err)
	defer base.Close(ctx)
	exc, text, err := base.Eval(ctx, `Object.defineProperty(globalThis, "deliver", { value: (a, b, v) => { globalThis.last = v; } });`, "t.js")
	require.NoError(t, err)
	require.False(t, exc, text)
	_, err = base.GlobalFunc(ctx, "deliver")
	require.NoError(t, err)
	snap, err := rt.Snapshot(ctx, base)
	require.NoError(t, err)
	want, ok := base.mem.Read(scratchAddr, scratchSize)
	require.True(t, ok)
	want = bytes.Clone(want)
	const secret = "SECRET-of-tenant-A"
	for i := range 3 {
		a, err := rt.Restore(ctx, snap)
		require.NoError(t, err)
		fn, err := a.GlobalFunc(ctx, "deliver")
		require.NoError(t, err)
		exc, text, err := a.Pump(ctx, fn, 1, 1, []byte(`{"k":"`+secret+`"}`), []byte(`["`+secret+`"]`))
		require.NoError(t, err)
		require.False(t, exc, text)
		got, _ := a.mem.Read(scratchAddr, scratchSize)
		require.True(t, bytes.Contains(got, []byte(secret)), "iteration %d: the delivery went through the scratch buffer", i)
		a.Close(ctx)
		b, err := rt.Restore(ctx, snap)
		require.NoError(t, err)
		got, _ = b.mem.Read(scratchAddr, scratchSize)
		require.Equal(t, want, got, "iteration %d", i)
		b.Close(ctx)
	}
}

// TestReadStringCopies checks that the bytes ReadString returns are the
// host's own: the guest rewriting the string's characters afterwards (as
// it may, through an engine bug, between a call's arguments being read and
// being approved or run) changes nothing the host holds.
func TestReadStringCopies(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 32<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	for _, expr := range []string{`"ascii args {\"a\":1}"`, `"latin1 é"`, `"wide 名"`} {
		t.Run(expr, func(t *testing.T) {
			h := handlerFunc(func(ctx context.Context, in *Instance, args []uint64) uint64 {
				got, ok := in.ReadString(args[0], 4096)
				require.True(t, ok)
				want := string(got)
				p := uint32(args[0])
				w, _ := in.mem.ReadUint32Le(p + strLen)
				n := w & 0x7fffffff
				if w>>31 != 0 {
					n *= 2
				}
				chars, _ := in.mem.Read(p+strChars, n)
				for i := range chars {
					chars[i] = 'X'
				}
				require.Equal(t, want, string(got))
				return in.Undefined()
			})
			exc, text, err := in.Eval(WithHandler(ctx, in, h), "__airlock_host("+expr+"); throw 'ok'", "s.js")
			require.NoError(t, err)
			require.True(t, exc)
			require.Equal(t, "ok", text)
		})
	}
}

// TestPumpScratchBoundary delivers JSON texts of lengths around the
// scratch buffer's size: each is parsed whole, from the buffer or from an
// allocation, and the static data right above the scratch area is left as
// it was.
func TestPumpScratchBoundary(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 32<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	exc, text, err := in.Eval(ctx, `Object.defineProperty(globalThis, "deliver", { value: (a, b, v) => { globalThis.last = v; } });`, "t.js")
	require.NoError(t, err)
	require.False(t, exc, text)
	fn, err := in.GlobalFunc(ctx, "deliver")
	require.NoError(t, err)
	above, ok := in.mem.Read(scratchAddr+scratchSize, 256)
	require.True(t, ok)
	want := bytes.Clone(above)
	for _, n := range []int{jsonBufSize - 2, jsonBufSize - 1, jsonBufSize, jsonBufSize + 1} {
		s := strings.Repeat("z", n-2)
		exc, text, err := in.Pump(ctx, fn, 1, 1, []byte(`"`+s+`"`), nil)
		require.NoError(t, err)
		require.False(t, exc, text)
		require.Equal(t, strconv.Itoa(n-2), evalText(t, in, "throw String(last.length)"))
		require.Equal(t, want, above, "length %d", n)
	}
}

// TestPumpCorruptFunction has the guest corrupt the function Pump calls,
// which the instance keeps (GlobalFunc): its object out of bounds, its
// bytecode out of bounds. The call traps, Pump returns an error wrapping
// ErrGuest, never a panic, and an instance beside it runs as usual.
func TestPumpCorruptFunction(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		do   func(in *Instance, fn uint64)
	}{
		{"object out of bounds", func(in *Instance, _ uint64) {
			in.funcs["deliver"] = uint64(tagObjectType)<<32 | uint64(in.mem.Size()-4)
		}},
		{"bytecode out of bounds", func(in *Instance, fn uint64) { in.mem.WriteUint32Le(uint32(fn)+objFuncB, 0xfffffff0) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := rt.NewInstance(ctx, 32<<20)
			require.NoError(t, err)
			defer in.Close(ctx)
			exc, text, err := in.Eval(ctx, `Object.defineProperty(globalThis, "deliver", { value: function deliver(a, b, v) { globalThis.last = v; } });`, "t.js")
			require.NoError(t, err)
			require.False(t, exc, text)
			fn, err := in.GlobalFunc(ctx, "deliver")
			require.NoError(t, err)
			tt.do(in, fn)
			fn, err = in.GlobalFunc(ctx, "deliver")
			require.NoError(t, err)
			_, _, err = in.Pump(ctx, fn, 1, 1, []byte(`{"a":1}`), []byte(`[]`))
			require.ErrorIs(t, err, ErrGuest)

			by, err := rt.NewInstance(ctx, 32<<20)
			require.NoError(t, err)
			defer by.Close(ctx)
			require.Equal(t, "499500", evalText(t, by, "let s = 0; for (let i = 0; i < 1000; i++) s += i; throw String(s)"))
		})
	}
}
