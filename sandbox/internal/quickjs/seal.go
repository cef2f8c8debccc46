package quickjs

import (
	"bytes"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
)

// Sealing the engine against module imports.
//
// The build registers QuickJS's C modules qjs:std (files, environment,
// evalScript), qjs:os and qjs:bjson (raw bytecode and object
// (de)serialisation, which trusts its input: bjson.read of crafted bytes
// corrupts the engine) while New_QJS initialises the context, and its
// initialisation imports them to set globals and the timer functions. A
// script could import them again with import() and reach all of it.
//
// Every module import, static or dynamic, first passes the module name
// through the runtime's normaliser (JSRuntime.module_normalize_func, NULL
// for the default) before looking among the loaded modules or calling the
// loader. The rewrite adds a normaliser, denyImport, that throws
// ReferenceError(denyMessage) and returns NULL, which fails the import, and
// finds where New_QJS stores the loader in the JSRuntime (the normaliser is
// the field stored right after it, with 0). The host installs denyImport
// there once initialisation is done (Instance.seal), so every later
// import() and every static import fails with that message, whatever the
// specifier.
//
// The rewrite also makes the engine record its own out-of-memory errors: it
// sets a sticky flag (Layout.OOM) wherever the code passes the "out of
// memory" message to a thrower, which only QuickJS's out-of-memory path
// does (throwsOOM).
// QuickJS throws null or an uninitialised value, not an InternalError, when
// it runs out of memory while building that error, and the flag tells that
// from a script's own `throw null`.

// denyMessage is the import error's message, placed in linear memory at
// denyMsgAddr, below the static data (the build leaves the first 1 KiB
// unused).
const (
	denyMessage = "import is not available in chains: call tools.* instead"
	denyMsgAddr = 256
)

// DenyMessage is the message of the ReferenceError every import throws.
const DenyMessage = denyMessage

// loaderExport is the exported module loader that New_QJS installs.
const loaderExport = "QJS_ModuleLoader"

// oomMessage is QuickJS's out-of-memory message, NUL-terminated.
const oomMessage = "out of memory\x00"

func oomMessageIndex(data []byte) int { return bytes.Index(data, []byte(oomMessage)) }

// throwsOOM reports whether b, which follows a load of the out-of-memory
// message's address, starts with `i32.const 0; call`: the message passed to
// a variadic thrower (JS_ThrowInternalError(ctx, "out of memory"), which
// JS_ThrowOutOfMemory, inlined everywhere, calls). Other loads of the
// address (libregexp keeps it as an error string, and may materialise it
// before knowing it failed) do not count.
func throwsOOM(b []byte) bool {
	return len(b) >= 3 && b[0] == 0x41 && b[1] == 0x00 && b[2] == 0x10
}

// denyBody is the normaliser's body:
//
//	QJS_ThrowReferenceError(ctx, denyMessage); return NULL
func (rw *rewriter) denyBody() []byte {
	b := []byte{0x00, 0x20, 0x00, 0x41} // no locals; local.get 0; i32.const
	b = wasmcode.AppendSLEB(b, denyMsgAddr)
	b = append(b, 0x10) // call
	b = appendU(b, uint64(rw.throwRef))
	return append(b, 0x1a, 0x41, 0x00, wasmcode.OpEnd) // drop; i32.const 0; end
}

// denyData is an active data segment holding denyMessage, NUL-terminated.
func denyData() []byte {
	b := []byte{0, 0x41}
	b = wasmcode.AppendSLEB(b, denyMsgAddr)
	b = append(b, wasmcode.OpEnd)
	b = appendU(b, uint64(len(denyMessage)+1))
	b = append(b, denyMessage...)
	return append(b, 0)
}

// appendOOMFlag appends: oom = 1.
func (rw *rewriter) appendOOMFlag(dst []byte) []byte {
	dst = append(dst, 0x41, 0x01, 0x24)
	return appendU(dst, uint64(rw.oomGlobal))
}

// loaderStores matches, at the end of w, New_QJS storing the loader and
// then NULL as the normaliser into the runtime it holds in local A:
//
//	local.get A; i32.const LoaderSlot; i32.store offset=loader
//	local.get A; i32.const 0;          i32.store offset=norm
func (rw *rewriter) loaderStores(w [6]instr) (norm, loader uint32, ok bool) {
	slot := rw.slots[rw.exports[loaderExport]]
	for _, in := range w {
		if len(in) == 0 {
			return 0, 0, false
		}
	}
	if w[0][0] != 0x20 || !bytes.Equal(w[0], w[3]) || w[1][0] != 0x41 || w[2][0] != 0x36 ||
		!bytes.Equal(w[4], []byte{0x41, 0x00}) || w[5][0] != 0x36 {
		return 0, 0, false
	}
	if v, _, err := wasmcode.SLEB(w[1][1:]); err != nil || v != int64(slot) {
		return 0, 0, false
	}
	store := func(in instr) (uint32, bool) { // i32.store align offset, memory 0
		align, k, err := wasmcode.ULEB(in[1:])
		if err != nil || align&0x40 != 0 {
			return 0, false
		}
		off, _, err := wasmcode.ULEB(in[1+k:])
		return uint32(off), err == nil && off > 0 && off < 1<<16
	}
	loader, ok1 := store(w[2])
	norm, ok2 := store(w[5])
	return norm, loader, ok1 && ok2
}
