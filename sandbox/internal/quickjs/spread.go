package quickjs

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
)

// Object spread and object rest of a string.
//
// ECMAScript's CopyDataProperties converts its source with ToObject, so
// {..."ab"} is {0: "a", 1: "b"} and `const {...r} = "ab"` gives r the same,
// as V8 does. QuickJS-NG 0.15.1's JS_CopyDataProperties (the engine's
// OP_copy_data_properties, which both forms compile to) returns at once for
// any source that is not an object, so a string spreads nothing. The
// prelude cannot reach a spread, and rewriting the script's source would
// move every later column of its line.
//
// The rewrite therefore gives JS_CopyDataProperties a prologue: when the
// source is a string (tag JS_TAG_STRING or JS_TAG_STRING_ROPE), it converts
// it with JS_ToObject, calls itself with the String object in its place,
// frees the object and returns what the call returned; a failed conversion
// (out of memory) returns -1, the function's exception result. Every other
// source takes the original code: numbers and booleans spread nothing, as
// in V8, and null and undefined are skipped by the callers.
//
// JS_CopyDataProperties is static, so it is found by the name the module's
// name section gives it (read before the section is dropped); the rewrite
// checks its type and those of the exported JS_ToObject and JS_FreeValue,
// and a module without them fails to load.

const (
	copyDataName    = "JS_CopyDataProperties"
	toObjectExport  = "JS_ToObject"
	freeValueExport = "JS_FreeValue"
)

// The types the prologue relies on (wasm32, NaN-boxed JSValue as i64):
var (
	// JS_CopyDataProperties(JSContext*, JSValue target, JSValue source, JSValue excluded, bool setprop) int.
	copyDataType = funcType{params: []byte{0x7f, 0x7e, 0x7e, 0x7e, 0x7f}, results: []byte{0x7f}}
	// JS_ToObject(JSContext*, JSValue) JSValue.
	toObjectType = funcType{params: []byte{0x7f, 0x7e}, results: []byte{0x7e}}
	// JS_FreeValue(JSContext*, JSValue).
	freeValueType = funcType{params: []byte{0x7f, 0x7e}}
)

// tagString is JS_TAG_STRING; JS_TAG_STRING_ROPE is one more
// (tagException, quickjs.go, is the other tag the prologue tests).
const tagString = -7

// maxNames bounds the function names read from the name section.
const maxNames = 1 << 20

// parseNames finds, in the name section's function names, the indices of
// the static functions the rewrite changes: JS_CopyDataProperties (here),
// build_backtrace (backtrace.go) and js_json_to_str (jsondepth.go). Other custom sections are ignored.
func (rw *rewriter) parseNames(sec []byte) error {
	nameLen, k, err := wasmcode.ULEB(sec)
	if err != nil || uint64(len(sec)-k) < nameLen || string(sec[k:k+int(nameLen)]) != "name" {
		return nil
	}
	rest := sec[k+int(nameLen):]
	for len(rest) > 0 {
		id := rest[0]
		size, n, err := wasmcode.ULEB(rest[1:])
		if err != nil || uint64(len(rest)-1-n) < size {
			return errors.New("quickjs: bad name section")
		}
		sub := rest[1+n : 1+n+int(size)]
		rest = rest[1+n+int(size):]
		if id != 1 { // function names
			continue
		}
		count, p, err := wasmcode.ULEB(sub)
		if err != nil || count > maxNames {
			return errors.New("quickjs: bad function names")
		}
		for i := uint64(0); i < count; i++ {
			idx, k, err := wasmcode.ULEB(sub[p:])
			if err != nil {
				return errors.New("quickjs: bad function names")
			}
			p += k
			l, k, err := wasmcode.ULEB(sub[p:])
			if err != nil || uint64(len(sub)-p-k) < l {
				return errors.New("quickjs: bad function names")
			}
			p += k
			switch name := string(sub[p : p+int(l)]); name {
			case copyDataName:
				if rw.copyDataFound {
					return fmt.Errorf("quickjs: two functions are named %s", name)
				}
				rw.copyData, rw.copyDataFound = uint32(idx), true
			case jsonToStrName: // jsondepth.go
				if rw.hasJSONToStr {
					return fmt.Errorf("quickjs: two functions are named %s", name)
				}
				rw.jsonToStr, rw.hasJSONToStr = uint32(idx), true
			case backtraceName: // backtrace.go
				if rw.hasBacktrace {
					return fmt.Errorf("quickjs: two functions are named %s", name)
				}
				rw.backtrace, rw.hasBacktrace = uint32(idx), true
			}
			p += int(l)
		}
	}
	return nil
}

// planSpread checks that the three functions the prologue uses exist with
// the expected types.
func (rw *rewriter) planSpread() error {
	if !rw.copyDataFound {
		return fmt.Errorf("quickjs: the module's names lack %s", copyDataName)
	}
	var ok1, ok2 bool
	rw.toObject, ok1 = rw.exports[toObjectExport]
	rw.freeValue, ok2 = rw.exports[freeValueExport]
	if !ok1 || !ok2 {
		return fmt.Errorf("quickjs: the module lacks %s or %s", toObjectExport, freeValueExport)
	}
	for _, c := range []struct {
		f    uint32
		t    funcType
		name string
	}{{rw.copyData, copyDataType, copyDataName}, {rw.toObject, toObjectType, toObjectExport}, {rw.freeValue, freeValueType, freeValueExport}} {
		if t, ok := rw.funcType(c.f); !ok || !bytes.Equal(t.params, c.t.params) || !bytes.Equal(t.results, c.t.results) {
			return fmt.Errorf("quickjs: %s has an unexpected type", c.name)
		}
	}
	return nil
}

// appendSpreadPrologue appends the prologue above. obj is an i64 local the
// rewrite adds to the function, res an i32 one; parameters are ctx 0,
// target 1, source 2, excluded 3, setprop 4.
//
//	if ((u32)(tag(source) + 7) < 2) {   // a string or a rope
//		obj = JS_ToObject(ctx, source)
//		if (tag(obj) == JS_TAG_EXCEPTION) return -1
//		res = JS_CopyDataProperties(ctx, target, obj, excluded, setprop)
//		JS_FreeValue(ctx, obj)
//		return res
//	}
func (rw *rewriter) appendSpreadPrologue(dst []byte, obj, res uint32) []byte {
	o := appendU(nil, uint64(obj))
	r := appendU(nil, uint64(res))
	tag := []byte{0x42, 0x20, 0x88, 0xa7} // i64.const 32; i64.shr_u; i32.wrap_i64
	dst = append(dst, 0x20, 0x02)         // local.get source
	dst = append(dst, tag...)
	dst = append(dst, 0x41)
	dst = wasmcode.AppendSLEB(dst, -tagString)      // i32.const 7
	dst = append(dst, 0x6a, 0x41, 0x02, 0x49)       // i32.add; i32.const 2; i32.lt_u
	dst = append(dst, 0x04, 0x40)                   // if
	dst = append(dst, 0x20, 0x00, 0x20, 0x02, 0x10) //   local.get ctx; local.get source; call
	dst = appendU(dst, rw.shift(uint64(rw.toObject)))
	dst = append(append(dst, 0x22), o...) //   local.tee obj
	dst = append(dst, tag...)
	dst = append(dst, 0x41, tagException, 0x46)                   //   i32.const 6; i32.eq
	dst = append(dst, 0x04, 0x40, 0x41, 0x7f, 0x0f, 0x0b)         //   if i32.const -1; return end
	dst = append(dst, 0x20, 0x00, 0x20, 0x01, 0x20)               //   local.get ctx; local.get target; local.get
	dst = append(append(dst, o...), 0x20, 0x03, 0x20, 0x04, 0x10) //     obj; local.get excluded; local.get setprop; call
	dst = appendU(dst, rw.shift(uint64(rw.copyData)))
	dst = append(append(dst, 0x21), r...) //   local.set res
	dst = append(dst, 0x20, 0x00, 0x20)   //   local.get ctx; local.get
	dst = append(append(dst, o...), 0x10) //     obj; call
	dst = appendU(dst, rw.shift(uint64(rw.freeValue)))
	dst = append(append(dst, 0x20), r...) //   local.get res
	return append(dst, 0x0f, 0x0b)        //   return; end
}
