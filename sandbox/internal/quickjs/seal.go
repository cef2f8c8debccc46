package quickjs

import (
	"bytes"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
)

// Sealing the engine against module imports.
//
// The reactor build also carries QuickJS's C modules qjs:std (files,
// environment, evalScript), qjs:os and qjs:bjson (raw bytecode and object
// (de)serialisation, which trusts its input: bjson.read of crafted bytes
// corrupts the engine), but only registers them when js_init_module_* is
// called, which the host never does; it creates its context with
// JS_NewContext alone, without js_std_add_helpers, so no script sees
// print, scriptArgs, std, os or bjson.
//
// Every module import, static or dynamic, first passes the module name
// through the runtime's normaliser (JSRuntime.module_normalize_func, NULL
// for the default) before looking among the loaded modules or calling the
// loader. The rewrite adds a normaliser, denyImport, that throws
// ReferenceError(denyMessage) and returns NULL, which fails the import, in
// a table slot of its own (Layout.DenySlot). The host installs it, with no
// loader, by JS_SetModuleLoaderFunc when it creates the runtime
// (Instance.seal), so every import() and every static import fails with
// that message, whatever the specifier.
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
// unused). The host's scratch area (the out-parameters of the calls it
// makes, and what Pump passes: pump.go) is at scratchAddr, also there.
const (
	denyMessage = "import is not available in chains: call tools.* instead"
	denyMsgAddr = 256
	scratchAddr = 512
	scratchSize = 512
)

// DenyMessage is the message of the ReferenceError every import throws.
const DenyMessage = denyMessage

// The exports the rewrite reads or calls: the thrower the normaliser
// calls, and the function whose code gives the stack fields' offset.
const (
	throwRefExport    = "JS_ThrowReferenceError"
	setMaxStackExport = "JS_SetMaxStackSize"
)

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
//	JS_ThrowReferenceError(ctx, denyMessage, NULL); return NULL
//
// The message holds no format directive, so the (lowered) va_list is never
// read.
func (rw *rewriter) denyBody() []byte {
	b := []byte{0x00, 0x20, 0x00, 0x41} // no locals; local.get 0; i32.const
	b = wasmcode.AppendSLEB(b, denyMsgAddr)
	b = append(b, 0x41, 0x00, 0x10) // i32.const 0; call
	b = appendU(b, rw.shift(uint64(rw.throwRef)))
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
