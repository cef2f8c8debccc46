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
// The rewrite therefore bounds that recursion by jsonStack bytes of stack
// below where the JSON.stringify began, wherever that is (a stringify deep
// in a script's recursion keeps its full room). JS_JSONStringify, through
// which every JSON.stringify goes, gets a prologue: when no stringify is
// under way (the jsonFloor global is 0), it sets jsonFloor jsonStack below
// the stack pointer, calls itself, sets jsonFloor back to 0 and returns
// what the call returned; a nested stringify (from a toJSON or a replacer)
// runs under the outer one's floor. js_json_to_str gets a prologue that
// throws QuickJS's own RangeError "Maximum call stack size exceeded" (the
// exported JS_ThrowRangeError with the engine's message and no arguments)
// and returns -1, its exception result, when the stack pointer is below
// jsonFloor. A trap inside a stringify leaves jsonFloor set, but a trapped
// instance runs nothing again. A stringify that fits keeps every byte it
// had.

const (
	jsonToStrName    = "js_json_to_str"
	throwRangeExport = "JS_ThrowRangeError"
	stringifyExport  = "JS_JSONStringify"
	overflowMessage  = "Maximum call stack size exceeded"
	// jsonStack is the stack JSON.stringify may use: wasm-ld's old stack.
	jsonStack = 56 << 10
)

var (
	// throwRangeType is JS_ThrowRangeError's: (JSContext*, const char* fmt, va_list) JSValue.
	throwRangeType = funcType{params: []byte{0x7f, 0x7f, 0x7f}, results: []byte{0x7e}}
	// stringifyType is JS_JSONStringify's: (JSContext*, JSValue obj, JSValue replacer, JSValue space) JSValue.
	stringifyType = funcType{params: []byte{0x7f, 0x7e, 0x7e, 0x7e}, results: []byte{0x7e}}
)

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
	if rw.stringify, ok = rw.exports[stringifyExport]; !ok {
		return fmt.Errorf("quickjs: the module lacks %s", stringifyExport)
	}
	if t, ok := rw.funcType(rw.stringify); !ok || !bytes.Equal(t.params, stringifyType.params) || !bytes.Equal(t.results, stringifyType.results) {
		return fmt.Errorf("quickjs: %s has an unexpected type", stringifyExport)
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

// appendStringifyPrologue appends:
//
//	if (jsonFloor == 0) {
//		jsonFloor = sp > jsonStack ? sp - jsonStack : 1
//		r = JS_JSONStringify(ctx, obj, replacer, space)
//		jsonFloor = 0
//		return r
//	}
func (rw *rewriter) appendStringifyPrologue(dst []byte) []byte {
	fl := appendU(nil, uint64(rw.jsonFloorGlobal))
	dst = append(append(dst, 0x23), fl...)                // global.get jsonFloor
	dst = append(dst, 0x45, 0x04, 0x40)                   // i32.eqz; if
	dst = append(dst, 0x23, 0x00, 0x41)                   //   global.get sp; i32.const
	dst = wasmcode.AppendSLEB(dst, jsonStack)             //     jsonStack
	dst = append(dst, 0x6b, 0x41, 0x01, 0x23, 0x00, 0x41) //   i32.sub; i32.const 1; global.get sp; i32.const
	dst = wasmcode.AppendSLEB(dst, jsonStack)             //     jsonStack
	dst = append(dst, 0x4b, 0x1b)                         //   i32.gt_u; select
	dst = append(append(dst, 0x24), fl...)                //   global.set jsonFloor
	dst = append(dst, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02) //   local.get ctx, obj, replacer,
	dst = append(dst, 0x20, 0x03, 0x10)                   //     space; call
	dst = appendU(dst, rw.shift(uint64(rw.stringify)))    //     JS_JSONStringify
	dst = append(append(dst, 0x41, 0x00, 0x24), fl...)    //   i32.const 0; global.set jsonFloor
	return append(dst, 0x0f, 0x0b)                        //   return; end
}
