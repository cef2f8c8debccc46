// Package wasmcode decodes WebAssembly function bodies instruction by
// instruction, for the load-time rewrites of the script engine and the
// admission of modules.
package wasmcode

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// An instruction decoder for WebAssembly function bodies: enough to walk
// every instruction of a body and know where each one ends, which is what
// the load-time rewrites need to find `loop` headers without mistaking an
// immediate byte for an opcode. It covers the core 2.0 instruction set that
// wazero v1.11 accepts (MVP, sign extension, saturating truncation, bulk
// memory, reference types, multi-value block types, fixed-width and relaxed
// SIMD), tail calls and the threads prefix; anything else is an error, so an
// unfamiliar build fails loudly at load time instead of being mis-patched.

// Opcodes the rewrites and admission look for.
const (
	OpBlock = 0x02
	OpLoop  = 0x03
	OpIf    = 0x04
	OpEnd   = 0x0b
)

var ErrBadCode = errors.New("wasmcode: undecodable function body")

// InstrLen returns the length in bytes of the instruction starting at b[0].
func InstrLen(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, ErrBadCode
	}
	op := b[0]
	p := 1
	// skipU skips one unsigned LEB128 immediate; skipS one signed.
	skipU := func() error {
		_, n, err := ULEB(b[p:])
		p += n
		return err
	}
	skipS := func() error {
		_, n, err := SLEB(b[p:])
		p += n
		return err
	}
	var err error
	switch {
	case op == 0x00, op == 0x01, op == 0x05, op == OpEnd, op == 0x0f, op == 0x1a, op == 0x1b, op == 0xd1:
		// unreachable, nop, else, end, return, drop, select, ref.is_null
	case op == OpBlock, op == OpLoop, op == OpIf:
		p, err = blockTypeEnd(b, p)
	case op == 0x0c, op == 0x0d: // br, br_if
		err = skipU()
	case op == 0x0e: // br_table: vec(label) label
		var count uint64
		var n int
		if count, n, err = ULEB(b[p:]); err == nil {
			p += n
			for i := uint64(0); i <= count && err == nil; i++ {
				err = skipU()
			}
		}
	case op == 0x10, op == 0x12: // call, return_call
		err = skipU()
	case op == 0x11, op == 0x13: // call_indirect, return_call_indirect: type, table
		if err = skipU(); err == nil {
			err = skipU()
		}
	case op == 0x1c: // select t*: vec(valtype)
		var count uint64
		var n int
		if count, n, err = ULEB(b[p:]); err == nil {
			p += n + int(count)
		}
	case op >= 0x20 && op <= 0x26: // local.get/set/tee, global.get/set, table.get/set
		err = skipU()
	case op >= 0x28 && op <= 0x3e: // loads and stores
		p, err = memargEnd(b, p)
	case op == 0x3f, op == 0x40: // memory.size, memory.grow: memory index
		err = skipU()
	case op == 0x41, op == 0x42: // i32.const, i64.const
		err = skipS()
	case op == 0x43:
		p += 4
	case op == 0x44:
		p += 8
	case op >= 0x45 && op <= 0xc4: // numeric and sign extension: no immediate
	case op == 0xd0: // ref.null heaptype
		p++
	case op == 0xd2: // ref.func
		err = skipU()
	case op == 0xfc:
		p, err = miscEnd(b, p)
	case op == 0xfd:
		p, err = simdEnd(b, p)
	case op == 0xfe:
		p, err = atomicEnd(b, p)
	default:
		return 0, fmt.Errorf("%w: unknown opcode %#x", ErrBadCode, op)
	}
	if err != nil || p > len(b) {
		return 0, fmt.Errorf("%w: truncated immediate of opcode %#x", ErrBadCode, op)
	}
	return p, nil
}

// blockTypeEnd skips a block type at b[p:]: the empty type 0x40, a value
// type, or a type index as a signed 33-bit LEB128.
func blockTypeEnd(b []byte, p int) (int, error) {
	if p >= len(b) {
		return p, ErrBadCode
	}
	switch b[p] {
	case 0x40, 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
		return p + 1, nil
	}
	v, n, err := SLEB(b[p:])
	if err != nil || v < 0 {
		return p, ErrBadCode
	}
	return p + n, nil
}

// memargEnd skips a memarg: alignment (whose bit 6 announces an explicit
// memory index) and offset.
func memargEnd(b []byte, p int) (int, error) {
	align, n, err := ULEB(b[p:])
	if err != nil {
		return p, err
	}
	p += n
	if align&0x40 != 0 {
		if _, n, err = ULEB(b[p:]); err != nil {
			return p, err
		}
		p += n
	}
	_, n, err = ULEB(b[p:])
	return p + n, err
}

// miscEnd skips the 0xFC-prefixed instruction whose sub-opcode is at b[p:].
func miscEnd(b []byte, p int) (int, error) {
	sub, n, err := ULEB(b[p:])
	if err != nil {
		return p, err
	}
	p += n
	var imms int
	switch {
	case sub <= 7: // saturating truncations
	case sub == 8, sub == 10, sub == 12, sub == 14: // memory.init, memory.copy, table.init, table.copy
		imms = 2
	case sub == 9, sub == 11, sub == 13, sub >= 15 && sub <= 17: // data.drop, memory.fill, elem.drop, table.grow/size/fill
		imms = 1
	default:
		return p, fmt.Errorf("%w: unknown opcode 0xfc %d", ErrBadCode, sub)
	}
	for range imms {
		if _, n, err = ULEB(b[p:]); err != nil {
			return p, err
		}
		p += n
	}
	return p, nil
}

// simdEnd skips the 0xFD-prefixed instruction whose sub-opcode is at b[p:].
func simdEnd(b []byte, p int) (int, error) {
	sub, n, err := ULEB(b[p:])
	if err != nil {
		return p, err
	}
	p += n
	switch {
	case sub <= 11, sub == 92, sub == 93: // v128 loads and stores, load32/64_zero
		return memargEnd(b, p)
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		return p + 16, nil
	case sub >= 21 && sub <= 34: // extract_lane, replace_lane
		return p + 1, nil
	case sub >= 84 && sub <= 91: // load/store lane: memarg, lane
		p, err = memargEnd(b, p)
		return p + 1, err
	case sub <= 0x113: // everything else, relaxed SIMD included, has no immediate
		return p, nil
	}
	return p, fmt.Errorf("%w: unknown opcode 0xfd %d", ErrBadCode, sub)
}

// atomicEnd skips the 0xFE-prefixed instruction whose sub-opcode is at b[p:].
func atomicEnd(b []byte, p int) (int, error) {
	sub, n, err := ULEB(b[p:])
	if err != nil {
		return p, err
	}
	p += n
	switch {
	case sub == 3: // atomic.fence: one reserved byte
		return p + 1, nil
	case sub <= 2, sub >= 0x10 && sub <= 0x4e:
		return memargEnd(b, p)
	}
	return p, fmt.Errorf("%w: unknown opcode 0xfe %d", ErrBadCode, sub)
}

func ULEB(b []byte) (uint64, int, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, errors.New("quickjs: bad LEB128")
	}
	return v, n, nil
}

func SLEB(b []byte) (int64, int, error) {
	var v int64
	var shift uint
	for i, c := range b {
		if i >= 10 {
			break
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("quickjs: bad signed LEB128")
}

func AppendSLEB(dst []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(dst, c)
		}
		dst = append(dst, c|0x80)
	}
}
