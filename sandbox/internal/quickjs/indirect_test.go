package quickjs

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
)

// TestRewriteLeavesNoTable checks that the rewritten QuickJS module calls
// nothing through a table and has none to fill: no call_indirect, a table
// of no slots and no element segment (indirect.go).
func TestRewriteLeavesNoTable(t *testing.T) {
	b, _, err := Rewrite(wasmBytes)
	require.NoError(t, err)
	indirect, calls := 0, 0
	forEachInstr(t, b, func(ins []byte) {
		switch ins[0] {
		case 0x11, 0x13:
			indirect++
		case 0x10:
			calls++
		}
	})
	require.Zero(t, indirect)
	require.Greater(t, calls, 1000)
	secs := map[byte][]byte{}
	for rest := b[8:]; len(rest) > 0; {
		size, n, err := wasmcode.ULEB(rest[1:])
		require.NoError(t, err)
		secs[rest[0]] = rest[1+n : 1+n+int(size)]
		rest = rest[1+n+int(size):]
	}
	require.Equal(t, []byte{1, 0x70, 1, 0, 0}, secs[4][:len(secs[4])], "one funcref table of no slots")
	require.Equal(t, []byte{0}, secs[9], "no element segment")

	// The original module calls through the table.
	orig := 0
	forEachInstr(t, wasmBytes, func(ins []byte) {
		if ins[0] == 0x11 {
			orig++
		}
	})
	require.Greater(t, orig, 100)
}

// TestIndirectDispatcher runs a dispatcher body in a small module: a slot
// holding a function of the dispatcher's type calls it with the arguments
// as they came; a slot holding nothing, one past the table and one holding a
// function of another type trap, as call_indirect would.
func TestIndirectDispatcher(t *testing.T) {
	i32 := byte(0x7f)
	i64 := byte(0x7e)
	// Functions: 0 add(i32, i64) i64 = a+b; 1 sub(i32, i64) i64 = b-a;
	// 2 other(i64, i32) i64 (another type); 3 the dispatcher of add's type.
	d := indirectDispatcher{
		typ: funcType{params: []byte{i32, i64}, results: []byte{i64}},
		// slot 0 empty, 1 add, 2 sub, 3 add again, 4 empty; past 4 nothing.
		slots: []uint32{0, 0 + 1, 1 + 1, 0 + 1, 0},
	}
	types := [][]byte{
		{0x60, 2, i32, i64, 1, i64},      // 0: add, sub
		{0x60, 2, i64, i32, 1, i64},      // 1: other
		{0x60, 3, i32, i64, i32, 1, i64}, // 2: the dispatcher
	}
	bodies := [][]byte{
		{0x00, 0x20, 0x00, 0xac, 0x20, 0x01, 0x7c, 0x0b}, // local.get 0; i64.extend_i32_s; local.get 1; i64.add
		{0x00, 0x20, 0x01, 0x20, 0x00, 0xac, 0x7d, 0x0b}, // local.get 1; local.get 0; i64.extend_i32_s; i64.sub
		{0x00, 0x42, 0x07, 0x0b},                         // i64.const 7
		d.body(),
	}
	mod := []byte("\x00asm\x01\x00\x00\x00")
	section := func(id byte, items [][]byte) {
		body := appendU(nil, uint64(len(items)))
		for _, it := range items {
			body = append(body, it...)
		}
		mod = append(mod, id)
		mod = appendU(mod, uint64(len(body)))
		mod = append(mod, body...)
	}
	section(1, types)
	section(3, [][]byte{{0}, {0}, {1}, {2}})
	section(7, [][]byte{append([]byte{4}, "call\x00\x03"...)})
	var code [][]byte
	for _, b := range bodies {
		code = append(code, append(appendU(nil, uint64(len(b))), b...))
	}
	section(10, code)

	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	m, err := rt.Instantiate(ctx, mod)
	require.NoError(t, err)
	call := m.ExportedFunction("call")
	for _, tc := range []struct {
		slot int32
		want int64
		trap bool
	}{
		{slot: 1, want: 3 + 40},
		{slot: 2, want: 40 - 3},
		{slot: 3, want: 3 + 40},
		{slot: 0, trap: true},
		{slot: 4, trap: true},
		{slot: 5, trap: true},
		{slot: -1, trap: true},
	} {
		res, err := call.Call(ctx, uint64(uint32(3)), uint64(40), uint64(uint32(tc.slot)))
		if tc.trap {
			require.Error(t, err, "slot %d", tc.slot)
			require.Contains(t, err.Error(), "unreachable", "slot %d", tc.slot)
			continue
		}
		require.NoError(t, err, "slot %d", tc.slot)
		require.Equal(t, tc.want, int64(res[0]), "slot %d", tc.slot)
	}

	// A dispatcher with no target only traps.
	require.Equal(t, []byte{0x00, 0x00, wasmcode.OpEnd}, (&indirectDispatcher{typ: d.typ, slots: []uint32{0, 0}}).body())
}

// TestPlanIndirect checks which slots each dispatcher reaches: those whose
// function has its type, renumbered, and no other; the two slots the
// rewrite adds hold the normaliser and the host function.
func TestPlanIndirect(t *testing.T) {
	a := funcType{params: []byte{0x7f}, results: []byte{0x7f}}
	b := funcType{params: []byte{0x7e}, results: []byte{0x7e}}
	rw := &rewriter{
		types:       []funcType{a, b, hostFuncType},
		funcImports: 1,                    // function 0 is imported
		funcTypes:   []uint32{0, 1, 0, 2}, // functions 1..4
		tableMin:    5,
		hostFunc:    1, denyFunc: 6, dispatchFunc: 7, hookFunc: 8,
		indirectTypes: []uint32{0, 1, 2},
	}
	// One segment at offset 1: functions 1, 2, 3 (original numbering).
	elem := []byte{1, 0x00, 0x41, 1, 0x0b, 3, 1, 2, 3}
	require.NoError(t, rw.planIndirect(elem))
	require.Len(t, rw.indirect, 3)
	require.Equal(t, []uint32{0, 2 + 1, 0, 4 + 1}, rw.indirect[0].slots)
	require.Equal(t, []uint32{0, 0, 3 + 1}, rw.indirect[1].slots)
	// Slot 6 (tableMin+1) is the host function's; function 4, of the same
	// type, is in no slot.
	require.Equal(t, []uint32{0, 0, 0, 0, 0, 0, 1 + 1}, rw.indirect[2].slots)
	require.Equal(t, map[uint32]uint32{0: 9, 1: 10, 2: 11}, rw.indirectFunc)

	// build_backtrace's slot (here function 2's, of type b) dispatches to
	// the backtrace hook (backtrace.go), which has its type.
	rw.backtrace, rw.hasBacktrace = 2, true
	require.NoError(t, rw.planIndirect(elem))
	require.Equal(t, []uint32{0, 0, 8 + 1}, rw.indirect[1].slots)
	rw.backtrace, rw.hasBacktrace = 0, false

	// A segment past the table, or naming an imported function, is refused.
	require.Error(t, rw.planIndirect([]byte{1, 0x00, 0x41, 4, 0x0b, 2, 1, 2}))
	require.Error(t, rw.planIndirect([]byte{1, 0x00, 0x41, 1, 0x0b, 1, 0}))
}

// TestRewriteExportsWhatTheHostLooksUp checks that the rewritten module
// exports, as functions, only what NewInstance looks up and the dispatcher.
func TestRewriteExportsWhatTheHostLooksUp(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	b, _, err := Rewrite(wasmBytes)
	require.NoError(t, err)
	cm, err := rt.CompileModule(ctx, b)
	require.NoError(t, err)
	var got []string
	for name := range cm.ExportedFunctions() {
		got = append(got, name)
	}
	want := []string{dispatchExport}
	for name := range hostExports {
		want = append(want, name)
	}
	require.ElementsMatch(t, want, got)
}
