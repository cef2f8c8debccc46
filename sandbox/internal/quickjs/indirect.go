package quickjs

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
)

// Indirect calls without a table. QuickJS calls every C function pointer
// (a builtin, the allocator's hooks, a class's finaliser) with
// call_indirect through its one funcref table, whose slots its element
// segments fill. wazero fills a table when it instantiates a module, with
// one heap allocation per slot (some 580 for this build): most of what a
// fresh instance allocated, and a tenth of a chain start's instructions.
// So the rewrite keeps the table's slot numbers, which are what C stores as
// function pointers, but not the table: each call_indirect of type T
// becomes a call of an added function, the indirect dispatcher of T, which
// takes T's parameters and the slot, and calls, through a br_table on the
// slot, the function the slot held if its type is T. A slot that held
// nothing, or a function of another type, or lies past the table, traps
// (unreachable), where call_indirect would have trapped too. The table is
// left with no slots and the element segments are dropped, so nothing is
// filled at instantiation (RATIONALE.md, "Why no function table?").

// scanIndirect records the type of every call_indirect in the code section
// and fails on any other use of the table, which the rewrite would break.
func (rw *rewriter) scanIndirect(sec []byte) error {
	count, p, err := wasmcode.ULEB(sec)
	if err != nil {
		return err
	}
	used := map[uint32]bool{}
	for i := uint64(0); i < count; i++ {
		size, n, err := wasmcode.ULEB(sec[p:])
		if err != nil || uint64(len(sec)-p-n) < size {
			return errors.New("quickjs: truncated function body")
		}
		fn := sec[p+n : p+n+int(size)]
		p += n + int(size)
		groups, q, err := wasmcode.ULEB(fn)
		if err != nil {
			return err
		}
		for g := uint64(0); g < groups; g++ {
			_, k, err := wasmcode.ULEB(fn[q:])
			if err != nil || q+k >= len(fn) {
				return errors.New("quickjs: bad locals")
			}
			q += k + 1
		}
		for q < len(fn) {
			l, err := wasmcode.InstrLen(fn[q:])
			if err != nil {
				return fmt.Errorf("quickjs: function %d: %w", rw.funcImports+uint32(i), err)
			}
			ins := fn[q : q+l]
			q += l
			switch ins[0] {
			case 0x11: // call_indirect type table
				t, k, _ := wasmcode.ULEB(ins[1:])
				table, _, _ := wasmcode.ULEB(ins[1+k:])
				if table != 0 || t >= uint64(len(rw.types)) {
					return fmt.Errorf("quickjs: function %d: call_indirect of type %d through table %d", rw.funcImports+uint32(i), t, table)
				}
				used[uint32(t)] = true
			case 0x13, 0x25, 0x26, 0xd2: // return_call_indirect, table.get/set, ref.func
				return fmt.Errorf("quickjs: function %d uses the function table beyond call_indirect (opcode %#x)", rw.funcImports+uint32(i), ins[0])
			case 0xfc:
				if sub, _, _ := wasmcode.ULEB(ins[1:]); sub >= 12 && sub <= 17 { // table.init … table.fill
					return fmt.Errorf("quickjs: function %d uses the function table beyond call_indirect (0xfc %d)", rw.funcImports+uint32(i), sub)
				}
			}
		}
	}
	if p != len(sec) {
		return errors.New("quickjs: trailing bytes in the code section")
	}
	rw.indirectTypes = slices.Sorted(func(yield func(uint32) bool) {
		for t := range used {
			if !yield(t) {
				return
			}
		}
	})
	return nil
}

// tableSlots returns what each slot of the original table holds once the
// rewrite adds its two (Layout.DenySlot, Layout.HostSlot): the function's
// index in the rewritten module plus one, 0 for none.
func (rw *rewriter) tableSlots(elemSec []byte) ([]uint32, error) {
	slots := make([]uint32, rw.tableMin+2)
	count, p, err := wasmcode.ULEB(elemSec)
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < count; i++ {
		// elems checked the form: 0x00, i32.const off, end, vec(funcidx).
		off, k, err := wasmcode.SLEB(elemSec[p+2:])
		if err != nil {
			return nil, err
		}
		p += 2 + k + 1
		n, k, err := wasmcode.ULEB(elemSec[p:])
		if err != nil {
			return nil, err
		}
		p += k
		if off < 0 || uint64(off)+n > uint64(rw.tableMin) {
			return nil, errors.New("quickjs: element segment past the table")
		}
		for j := uint64(0); j < n; j++ {
			f, k, err := wasmcode.ULEB(elemSec[p:])
			if err != nil {
				return nil, err
			}
			p += k
			if _, ok := rw.funcType(uint32(f)); !ok {
				return nil, fmt.Errorf("quickjs: element segment holds function %d, which is not a defined function", f)
			}
			if rw.hasBacktrace && f == uint64(rw.backtrace) {
				slots[uint64(off)+j] = rw.hookFunc + 1 // build_backtrace's pointer calls the hook (backtrace.go)
			} else {
				slots[uint64(off)+j] = uint32(rw.shift(f)) + 1
			}
		}
	}
	slots[rw.tableMin] = rw.denyFunc + 1
	slots[rw.tableMin+1] = rw.hostFunc + 1
	return slots, nil
}

// planIndirect picks the indirect dispatchers' types and indices (after the
// call dispatcher and the backtrace hook) and what each can reach.
func (rw *rewriter) planIndirect(elemSec []byte) error {
	slots, err := rw.tableSlots(elemSec)
	if err != nil {
		return err
	}
	typeOf := func(f uint32) funcType { // f in the new numbering
		switch f {
		case rw.denyFunc:
			return denyFuncType
		case rw.hostFunc:
			return hostFuncType
		case rw.hookFunc:
			t, _ := rw.funcType(rw.backtrace)
			return t
		}
		t, _ := rw.funcType(uint32(rw.unshift(uint64(f))))
		return t
	}
	rw.indirectFunc = map[uint32]uint32{}
	rw.indirect = make([]indirectDispatcher, len(rw.indirectTypes))
	for k, ti := range rw.indirectTypes {
		t := rw.types[ti]
		d := indirectDispatcher{typ: t}
		for s, f := range slots {
			if f == 0 {
				continue
			}
			if u := typeOf(f - 1); bytes.Equal(u.params, t.params) && bytes.Equal(u.results, t.results) {
				for len(d.slots) < s {
					d.slots = append(d.slots, 0)
				}
				d.slots = append(d.slots, f)
			}
		}
		params := append(slices.Clip(t.params), 0x7f)
		d.typeIndex = rw.typeIndex(funcType{params: params, results: t.results})
		rw.indirect[k] = d
		rw.indirectFunc[ti] = rw.hookFunc + 1 + uint32(k)
	}
	return nil
}

// unshift inverts shift for a defined function's index.
func (rw *rewriter) unshift(f uint64) uint64 {
	if f > uint64(rw.funcImports) {
		return f - 1
	}
	return f
}

// indirectDispatcher is the added function that replaces call_indirect of
// one type.
type indirectDispatcher struct {
	typ       funcType
	typeIndex uint32   // its own type: typ's parameters, the slot, typ's results
	slots     []uint32 // by slot, the function it calls (new numbering) plus one; 0 traps
}

// body returns the dispatcher's code: a block per distinct target and one
// for the trap, a br_table on the slot (the last parameter) into them,
// then each target's call with the parameters as they came.
func (d *indirectDispatcher) body() []byte {
	var targets []uint32 // distinct, in slot order
	label := map[uint32]uint64{}
	for _, f := range d.slots {
		if _, ok := label[f]; f != 0 && !ok {
			label[f] = uint64(len(targets))
			targets = append(targets, f)
		}
	}
	n := uint64(len(targets))
	b := []byte{0x00} // no locals
	if n == 0 {
		return append(b, 0x00, wasmcode.OpEnd) // unreachable; end
	}
	for range n + 1 {
		b = append(b, 0x02, 0x40) // block
	}
	b = append(b, 0x20) // local.get slot
	b = appendU(b, uint64(len(d.typ.params)))
	b = append(b, 0x0e) // br_table
	b = appendU(b, uint64(len(d.slots)))
	for _, f := range d.slots {
		if f == 0 {
			b = appendU(b, n) // the trap
		} else {
			b = appendU(b, label[f])
		}
	}
	b = appendU(b, n) // default: the trap
	for _, f := range targets {
		b = append(b, wasmcode.OpEnd)
		for j := range d.typ.params {
			b = append(b, 0x20) // local.get j
			b = appendU(b, uint64(j))
		}
		b = append(b, 0x10) // call
		b = appendU(b, uint64(f-1))
		b = append(b, 0x0f) // return
	}
	return append(b, wasmcode.OpEnd, 0x00, wasmcode.OpEnd) // end (the trap's block); unreachable; end
}
