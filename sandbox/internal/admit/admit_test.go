package admit

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	w "github.com/airlockrt/airlock/internal/wasmbuild"
)

var abi = Imports{"wasi_snapshot_preview1": nil, "extism:host/user": {"airlock_call": true}}

// attack modules, each also a fuzz seed.
func tableGrow() []byte { // 2^32-1 more entries on a table with no maximum
	body := w.Body(nil, 0xd0, w.FuncRef, 0x41, 0x7f, 0xfc, 0x0f, 0x00, 0x1a, 0x0b)
	return w.ProcExitCommand(w.Vec(append([]byte{w.FuncRef}, w.Limits(0, -1)...)), body)
}

func hugeTable() []byte {
	return w.ProcExitCommand(w.Vec(append([]byte{w.FuncRef}, w.Limits(0, 1<<31)...)), w.Body(nil, 0x0b))
}

func manyLocals() []byte { // 2^28 locals in one function
	return w.ProcExitCommand(nil, w.Body([][2]uint32{{1 << 27, uint32(w.I64)}, {1 << 27, uint32(w.I32)}}, 0x0b))
}

func manyFunctions() []byte { // declares a million functions, has no bodies for them
	return w.Module(
		w.Section(w.SecType, w.Vec(w.FuncType(nil, nil))),
		w.Section(w.SecFunction, append(w.U32(nil, 1_000_000), 0x00)),
	)
}

// nested is n nested blocks in one function.
func nested(n int) []byte {
	return append(append(bytes.Repeat([]byte{0x02, 0x40}, n), bytes.Repeat([]byte{0x0b}, n)...), 0x0b)
}

// functions is a module of n functions with the given body.
func functions(n int, body []byte) []byte {
	fs, bs := make([][]byte, n), make([][]byte, n)
	for i := range fs {
		fs[i], bs[i] = w.U32(nil, 0), w.Body(nil, body...)
	}
	return w.Module(w.Section(w.SecType, w.Vec(w.FuncType(nil, nil))), w.Section(w.SecFunction, w.Vec(fs...)), w.Section(w.SecCode, w.Vec(bs...)))
}

// brTable is a br_table of n targets.
func brTable(n int) []byte {
	b := w.U32([]byte{0x02, 0x40, 0x41, 0x00, 0x0e}, uint32(n))
	return append(append(b, bytes.Repeat([]byte{0x00}, n+1)...), 0x0b, 0x0b)
}

func foreignImport(module, name string) []byte {
	return w.Module(
		w.Section(w.SecType, w.Vec(w.FuncType(nil, nil))),
		w.Section(w.SecImport, w.Vec(w.ImportFunc(module, name, 0))),
	)
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		wasm []byte
		cap  string
		msg  string
	}{
		{"huge table maximum", hugeTable(), "table maximum", "a table of up to 2147483648 entries is more than the 1048576 a chain module may have"},
		{"2^28 locals", manyLocals(), "locals", "function 1 declares more than 50000 locals"},
		{"a million functions", manyFunctions(), "functions", "1000000 functions is more than the 100000 a chain module may have"},
		{"unknown import", foreignImport("env", "system"), "imports", "import env.system is not one a chain module may use (guest-sdk/ABI.md lists them)"},
		{"extism http", foreignImport("extism:host/env", "http_request"), "imports", "import extism:host/env.http_request is not one a chain module may use (guest-sdk/ABI.md lists them)"},
		{"memory import", w.Module(w.Section(w.SecImport, w.Vec(append(w.Name(w.Name(nil, "wasi_snapshot_preview1"), "memory"), 0x02, 0x00, 0x01)))),
			"imports", "import wasi_snapshot_preview1.memory is not a function: a chain module may import only the functions of guest-sdk/ABI.md"},
		{"two memories", w.Module(w.Section(w.SecMemory, w.Vec(w.Limits(1, -1), w.Limits(1, -1)))), "memories", "2 memories is more than the 1 a chain module may have"},
		{"many data segments", w.Module(w.Section(w.SecData, w.U32(nil, 1<<30))), "data segments", "1073741824 data segments is more than the 100000 a chain module may have"},
		{"350k nested blocks", functions(1, nested(350_000)), "block depth", "function 0 nests blocks deeper than 4096"},
		{"deep nesting in many functions", functions(20, nested(4000)), "block depth",
			"the functions nest blocks too deeply together (the sum of their depths squared passes 268435456 at function 16)"},
		{"br_table of 200k targets", functions(1, brTable(200_000)), "branch targets", "function 0 has a br_table of 200000 targets, more than 8192"},
		{"br_tables of 1.2M targets", functions(150, brTable(8000)), "branch targets", "the functions' br_tables have more than 1048576 targets together"},
		{"undecodable code", functions(1, []byte{0xff, 0x0b}), "malformed", "malformed module: function 0: wasmcode: undecodable function body: unknown opcode 0xff"},
		{"not wasm", []byte("hello world"), "malformed", "malformed module: not a WebAssembly binary"},
		{"truncated section", append(w.Module(), 0x01, 0x10, 0x01), "malformed", "malformed module: a length of 16 runs past the end at byte 10"},
		{"overlong integer", append(w.Module(), 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), "malformed", "malformed module: integer too long at byte 14"},
		{"sections out of order", w.Module(w.Section(w.SecFunction, w.Vec()), w.Section(w.SecType, w.Vec())), "malformed", "malformed module: section 1 out of order"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Check(tc.wasm, abi)
			require.Nil(t, info)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.ErrorIs(t, err, ErrRefused)
			require.Equal(t, tc.cap, e.Cap)
			require.Equal(t, tc.msg, e.Error())
		})
	}
}

// TestTableWithoutMaximum: a table with no declared maximum is admitted with
// its minimum as maximum (rewritten in the module compiled), so table.grow
// cannot make the runtime allocate; the declared entries are charged.
func TestTableWithoutMaximum(t *testing.T) {
	mod := tableGrow()
	info, err := Check(mod, abi)
	require.NoError(t, err)
	require.Zero(t, info.TableBytes)
	require.NotEqual(t, mod, info.Wasm)
	again, err := Check(info.Wasm, abi)
	require.NoError(t, err, "the rewritten module is well formed")
	require.Equal(t, info.Wasm, again.Wasm, "and has a maximum now")

	tab := w.ProcExitCommand(w.Vec(append([]byte{w.FuncRef}, w.Limits(1000, -1)...)), w.Body(nil, 0x0b))
	info, err = Check(tab, abi)
	require.NoError(t, err)
	require.Equal(t, uint64(8000), info.TableBytes)
	info, err = Check(w.ProcExitCommand(w.Vec(append([]byte{w.FuncRef}, w.Limits(10, 4000)...)), w.Body(nil, 0x0b)), abi)
	require.NoError(t, err)
	require.Equal(t, uint64(32000), info.TableBytes, "the declared maximum is charged")
	require.Equal(t, w.ProcExitCommand(w.Vec(append([]byte{w.FuncRef}, w.Limits(10, 4000)...)), w.Body(nil, 0x0b)), info.Wasm)
}

// TestCheckAllocatesLittle: refusing the attack modules allocates nothing
// in proportion to what they declare.
func TestCheckAllocatesLittle(t *testing.T) {
	for _, mod := range [][]byte{manyLocals(), manyFunctions(), hugeTable(), tableGrow()} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _ = Check(mod, abi)
		runtime.ReadMemStats(&after)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<10))
	}
}

// FuzzAdmit: Check never panics, never allocates far beyond the module's
// size, and what it admits it admits again unchanged after its own rewrite.
func FuzzAdmit(f *testing.F) {
	for _, seed := range [][]byte{tableGrow(), hugeTable(), manyLocals(), manyFunctions(), foreignImport("env", "x"),
		w.ProcExitCommand(nil, w.Body(nil, 0x0b)), w.Module()} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, wasm []byte) {
		info, err := Check(wasm, abi)
		if err != nil {
			var e *Error
			require.ErrorAs(t, err, &e)
			return
		}
		require.LessOrEqual(t, len(info.Wasm), len(wasm)+16*MaxTables)
		again, err := Check(info.Wasm, abi)
		require.NoError(t, err)
		require.Equal(t, info.Wasm, again.Wasm)
		require.Equal(t, info.TableBytes, again.TableBytes)
	})
}
