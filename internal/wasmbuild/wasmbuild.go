// Package wasmbuild writes small WebAssembly modules byte by byte, for the
// tests of module admission, the module engine and the survival test:
// hostile modules are built by the tests, never committed as binaries.
package wasmbuild

// U32 appends v as an unsigned LEB128.
func U32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// Name appends a length-prefixed name.
func Name(b []byte, s string) []byte { return append(U32(b, uint32(len(s))), s...) }

// Vec returns a vector: its count, then the items' bytes.
func Vec(items ...[]byte) []byte {
	b := U32(nil, uint32(len(items)))
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}

// Section returns a section with its id and size.
func Section(id byte, content []byte) []byte {
	return append(U32([]byte{id}, uint32(len(content))), content...)
}

// Module returns the header followed by the sections.
func Module(sections ...[]byte) []byte {
	b := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		b = append(b, s...)
	}
	return b
}

// Value types and section ids.
const (
	I32     byte = 0x7f
	I64     byte = 0x7e
	FuncRef byte = 0x70

	SecType     byte = 1
	SecImport   byte = 2
	SecFunction byte = 3
	SecTable    byte = 4
	SecMemory   byte = 5
	SecExport   byte = 7
	SecCode     byte = 10
	SecData     byte = 11
)

// FuncType is a function type (params) -> (results).
func FuncType(params, results []byte) []byte {
	b := append([]byte{0x60}, U32(nil, uint32(len(params)))...)
	b = append(b, params...)
	b = U32(b, uint32(len(results)))
	return append(b, results...)
}

// ImportFunc imports module.name as a function of type typ.
func ImportFunc(module, name string, typ uint32) []byte {
	return U32(append(Name(Name(nil, module), name), 0x00), typ)
}

// Export exports item idx of kind (0 function, 1 table, 2 memory, 3 global).
func Export(name string, kind byte, idx uint32) []byte {
	return U32(append(Name(nil, name), kind), idx)
}

// Limits are a table's or memory's limits; max < 0 means none.
func Limits(min uint32, max int64) []byte {
	if max < 0 {
		return U32([]byte{0x00}, min)
	}
	return U32(U32([]byte{0x01}, min), uint32(max))
}

// Body is a function body: local groups (count, type) and code, which must
// end with 0x0b.
func Body(locals [][2]uint32, code ...byte) []byte {
	b := U32(nil, uint32(len(locals)))
	for _, l := range locals {
		b = append(U32(b, l[0]), byte(l[1]))
	}
	b = append(b, code...)
	return append(U32(nil, uint32(len(b))), b...)
}

// ProcExitCommand is a WASI command whose _start runs code (a function body
// of type () -> () that may call proc_exit, function 0) with the given
// extra sections (tables, memories) placed in order.
func ProcExitCommand(tables, body []byte) []byte {
	secs := [][]byte{
		Section(SecType, Vec(FuncType([]byte{I32}, nil), FuncType(nil, nil))),
		Section(SecImport, Vec(ImportFunc("wasi_snapshot_preview1", "proc_exit", 0))),
		Section(SecFunction, Vec(U32(nil, 1))),
	}
	if tables != nil {
		secs = append(secs, Section(SecTable, tables))
	}
	secs = append(secs,
		Section(SecMemory, Vec(Limits(1, -1))),
		Section(SecExport, Vec(Export("_start", 0, 1), Export("memory", 2, 0))),
		Section(SecCode, Vec(body)),
	)
	return Module(secs...)
}

// S32 appends v as a signed LEB128 (for i32.const).
func S32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// I32Const is i32.const v.
func I32Const(v int32) []byte { return S32([]byte{0x41}, v) }

// Loop returns code running body n times with local counter i (an i32).
func Loop(i uint32, n int32, body ...byte) []byte {
	b := []byte{0x02, 0x40, 0x03, 0x40}                                           // block, loop
	b = append(append(U32(append(b, 0x20), i), I32Const(n)...), 0x4f, 0x0d, 0x01) // i >= n: br_if 1
	b = append(b, body...)
	b = append(append(U32(append(b, 0x20), i), I32Const(1)...), 0x6a, 0x21) // i++
	b = U32(b, i)
	return append(b, 0x0c, 0x00, 0x0b, 0x0b) // br 0, end, end
}

// FDWriteFlood is a WASI command that calls fd_write(stdout) once with
// 100,000 iovecs, every one the same 64 KiB of zeros: 6.5 GB of output in
// one host call, with no line end.
func FDWriteFlood() []byte {
	// iovec k at 1024+8k: {ptr 0, len 65536}; ptr is already zero.
	store := append(append(append(U32([]byte{0x20}, 0), I32Const(3)...), 0x74), append(I32Const(1024), 0x6a)...)
	store = append(append(store, I32Const(65536)...), 0x36, 0x02, 0x04) // i32.store offset=4
	code := Loop(0, 100000, store...)
	code = append(code, I32Const(1)...)
	code = append(code, I32Const(1024)...)
	code = append(code, I32Const(100000)...)
	code = append(code, I32Const(16)...)
	code = append(code, 0x10, 0x00, 0x1a, 0x0b) // call fd_write, drop, end
	return Module(
		Section(SecType, Vec(FuncType([]byte{I32, I32, I32, I32}, []byte{I32}), FuncType(nil, nil))),
		Section(SecImport, Vec(ImportFunc("wasi_snapshot_preview1", "fd_write", 0))),
		Section(SecFunction, Vec(U32(nil, 1))),
		Section(SecMemory, Vec(Limits(16, -1))),
		Section(SecExport, Vec(Export("_start", 0, 1), Export("memory", 2, 0))),
		Section(SecCode, Vec(Body([][2]uint32{{1, uint32(I32)}}, code...))),
	)
}

// LogFlood is a WASI command that calls airlock_log a million times with a
// one-byte Extism block.
func LogFlood() []byte {
	code := []byte{0x42, 0x01, 0x10, 0x00, 0x21, 0x00}  // off = alloc(1)
	call := []byte{0x42, 0x01, 0x20, 0x00, 0x10, 0x01}  // airlock_log(1, off)
	code = append(code, Loop(1, 1_000_000, call...)...) //
	code = append(code, 0x0b)                           //
	return Module(
		Section(SecType, Vec(FuncType([]byte{I64}, []byte{I64}), FuncType([]byte{I64, I64}, nil), FuncType(nil, nil))),
		Section(SecImport, Vec(ImportFunc("extism:host/env", "alloc", 0), ImportFunc("extism:host/user", "airlock_log", 1))),
		Section(SecFunction, Vec(U32(nil, 2))),
		Section(SecMemory, Vec(Limits(1, -1))),
		Section(SecExport, Vec(Export("_start", 0, 2), Export("memory", 2, 0))),
		Section(SecCode, Vec(Body([][2]uint32{{1, uint32(I64)}, {1, uint32(I32)}}, code...))),
	)
}

// TableGrow grows a table declared without a maximum by 2^32-1
// entries and exits 3 if the grow failed, 4 if it succeeded.
func TableGrow(min uint32) []byte {
	code := []byte{0xd0, FuncRef}
	code = append(code, I32Const(-1)...)
	code = append(code, 0xfc, 0x0f, 0x00) // table.grow 0
	code = append(code, I32Const(-1)...)
	code = append(code, 0x46, 0x04, 0x40) // i32.eq; if
	code = append(append(code, I32Const(3)...), 0x10, 0x00, 0x0b)
	code = append(append(code, I32Const(4)...), 0x10, 0x00, 0x0b)
	return ProcExitCommand(Vec(append([]byte{FuncRef}, Limits(min, -1)...)), Body(nil, code...))
}
