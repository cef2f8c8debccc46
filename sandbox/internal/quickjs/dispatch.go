package quickjs

import (
	"fmt"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
)

// The dispatcher is a function the rewrite adds and exports as
// dispatchExport:
//
//	dispatch(fn i32, a0, a1, a2, a3, a4, a5 i64) i64
//
// which calls the fn-th of exportNames with as many of the arguments as
// it takes (each i32 parameter gets its argument's low 32 bits) and
// returns its result (an i32 zero-extended, 0 for none). The host makes
// every call after initialisation through it, so that an instance has one
// api.Function per call depth rather than one per export: wazero gives
// every api.Function a call stack of its own (10 KiB, grown by copying and
// never shrunk), which an instance keeps for as long as it keeps the
// api.Function, a chain waiting in a tool call included.
const dispatchExport = "airlock.call"

// dispatchArgs is the number of arguments the dispatcher passes on.
const dispatchArgs = 6

// dispatchFuncType is the dispatcher's type.
var dispatchFuncType = funcType{
	params:  []byte{0x7f, 0x7e, 0x7e, 0x7e, 0x7e, 0x7e, 0x7e},
	results: []byte{0x7e},
}

// dispatchTargets checks that every export of exportNames has a type the
// dispatcher can call and returns their original function indices.
func (rw *rewriter) dispatchTargets() ([]uint32, error) {
	fns := make([]uint32, len(exportNames))
	for i, name := range exportNames {
		f, ok := rw.exports[name]
		if !ok {
			return nil, fmt.Errorf("quickjs: the module lacks export %s", name)
		}
		t, ok := rw.funcType(f)
		if !ok || len(t.params) > dispatchArgs || len(t.results) > 1 {
			return nil, fmt.Errorf("quickjs: %s has a type the dispatcher cannot call", name)
		}
		for _, v := range append(t.params[:len(t.params):len(t.params)], t.results...) {
			if v != 0x7f && v != 0x7e {
				return nil, fmt.Errorf("quickjs: %s has a type the dispatcher cannot call", name)
			}
		}
		fns[i] = f
	}
	return fns, nil
}

// dispatchBody is the dispatcher's body: one block per target and one for
// the default, a br_table on fn into them, then each target's call.
func (rw *rewriter) dispatchBody() []byte {
	n := uint64(len(rw.dispatchFns))
	b := []byte{0x00} // no locals
	for range n + 1 {
		b = append(b, 0x02, 0x40) // block
	}
	b = append(b, 0x20, 0x00, 0x0e) // local.get 0; br_table
	b = appendU(b, n)
	for i := range n + 1 {
		b = appendU(b, i) // targets 0..n-1, default n
	}
	b = append(b, wasmcode.OpEnd)
	for _, f := range rw.dispatchFns {
		t, _ := rw.funcType(f)
		for j, p := range t.params {
			b = append(b, 0x20, byte(j+1)) // local.get j+1
			if p == 0x7f {
				b = append(b, 0xa7) // i32.wrap_i64
			}
		}
		b = append(b, 0x10) // call
		b = appendU(b, rw.shift(uint64(f)))
		switch {
		case len(t.results) == 0:
			b = append(b, 0x42, 0x00) // i64.const 0
		case t.results[0] == 0x7f:
			b = append(b, 0xad) // i64.extend_i32_u
		}
		b = append(b, 0x0f, wasmcode.OpEnd) // return; end
	}
	return append(b, 0x00, wasmcode.OpEnd) // unreachable; end
}

// dispatchExportEntry is the dispatcher's export entry.
func (rw *rewriter) dispatchExportEntry() []byte {
	b := appendU(nil, uint64(len(dispatchExport)))
	b = append(b, dispatchExport...)
	b = append(b, 0x00) // function
	return appendU(b, uint64(rw.dispatchFunc))
}
