package quickjs

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
)

// JSON.stringify's depth.
//
// QuickJS's js_json_to_str recurses once per nested object or array and,
// at each level, looks the value up in the stack of the values it is
// inside (its cycle check, a linear scan), so a value n levels deep costs
// n²/2 comparisons. Its frames are small (some 30 bytes of C stack a
// level), so with the engine's stack region (stackguard.go) a deep value
// would recurse some 16,000 levels, about 128 million comparisons and tens
// of seconds, before the stack check threw; on wasm-ld's 56 KiB it threw
// within 2,000 levels, in milliseconds, as V8 does.
//
// The rewrite therefore gives js_json_to_str a prologue that throws
// QuickJS's own RangeError "Maximum call stack size exceeded" (the
// exported JS_ThrowRangeError with the engine's message, no arguments) and
// returns -1, the function's exception result, when the stack pointer is
// below a floor of its own, a global the host sets with the others
// (Instance.SetStackLimit): jsonStack below the stack's top, or the run's
// own limit if that is higher. Only JSON.stringify's recursion is bounded
// so; a stringify that fits keeps every byte it had.

const (
	jsonToStrName    = "js_json_to_str"
	throwRangeExport = "JS_ThrowRangeError"
	overflowMessage  = "Maximum call stack size exceeded"
	// jsonStack is the stack JSON.stringify may use: wasm-ld's old stack.
	jsonStack = 56 << 10
)

// throwRangeType is JS_ThrowRangeError's: (JSContext*, const char* fmt, va_list) JSValue.
var throwRangeType = funcType{params: []byte{0x7f, 0x7f, 0x7f}, results: []byte{0x7e}}

// planJSONDepth checks the functions and the message the prologue uses.
func (rw *rewriter) planJSONDepth() error {
	if !rw.hasJSONToStr {
		return fmt.Errorf("quickjs: the module's names lack %s", jsonToStrName)
	}
	t, ok := rw.funcType(rw.jsonToStr)
	if !ok || len(t.params) == 0 || t.params[0] != 0x7f || !bytes.Equal(t.results, []byte{0x7f}) {
		return fmt.Errorf("quickjs: %s has an unexpected type", jsonToStrName)
	}
	if rw.throwRange, ok = rw.exports[throwRangeExport]; !ok {
		return fmt.Errorf("quickjs: the module lacks %s", throwRangeExport)
	}
	if t, ok := rw.funcType(rw.throwRange); !ok || !bytes.Equal(t.params, throwRangeType.params) || !bytes.Equal(t.results, throwRangeType.results) {
		return fmt.Errorf("quickjs: %s has an unexpected type", throwRangeExport)
	}
	if rw.overflowAddr == 0 {
		return errors.New("quickjs: the module's data lacks the stack-overflow message")
	}
	return nil
}

// overflowMessageIndex is where data holds the NUL-terminated message, or -1.
func overflowMessageIndex(data []byte) int { return bytes.Index(data, []byte(overflowMessage+"\x00")) }

// appendJSONDepthPrologue appends:
//
//	if (sp <u jsonFloor) { JS_ThrowRangeError(ctx, message, 0); return -1 }
func (rw *rewriter) appendJSONDepthPrologue(dst []byte) []byte {
	dst = append(dst, 0x23, 0x00, 0x23)                           // global.get sp; global.get
	dst = append(appendU(dst, uint64(rw.jsonFloorGlobal)), 0x49)  //   jsonFloor; i32.lt_u
	dst = append(dst, 0x04, 0x40, 0x20, 0x00, 0x41)               // if; local.get ctx; i32.const
	dst = wasmcode.AppendSLEB(dst, int64(int32(rw.overflowAddr))) //   message
	dst = append(dst, 0x41, 0x00, 0x10)                           // i32.const 0; call
	dst = appendU(dst, rw.shift(uint64(rw.throwRange)))
	return append(dst, 0x1a, 0x41, 0x7f, 0x0f, 0x0b) // drop; i32.const -1; return; end
}
