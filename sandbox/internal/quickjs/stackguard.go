package quickjs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The QuickJS-ng wasm build compiles its stack-overflow check out (it cannot
// read the C stack pointer under WASI), and its C stack is the 64 KiB that
// wasm-ld reserves below the initial __stack_pointer, right above the
// module's static data. A JavaScript recursion a few hundred frames deep
// therefore runs the stack into the static data and corrupts the engine:
// sometimes a trap, sometimes wrong results or an endless loop.
//
// GuardStack rewrites the module so that every function whose body starts
// with clang's frame-allocating prologue
//
//	global.get 0 ; i32.const N ; i32.sub ; local.tee L ; global.set 0
//
// checks the new stack pointer against a floor the host stores at address
// StackFloorAddr (0 = no check) and, below it, stores StackOverflowMagic at
// StackFlagAddr and traps. The first 1 KiB of memory, below the static data,
// is unused by the build, which is where these words live. Recursion always
// passes through such functions (the interpreter's call path allocates a
// frame), so it traps before the stack leaves its reserved region.

// Addresses in guest memory shared by the patched module and the host.
const (
	StackFloorAddr     = 16         // uint32: lowest allowed stack pointer
	StackFlagAddr      = 24         // uint32: StackOverflowMagic after the trap
	StackOverflowMagic = 0x5AC0FF00 // written before trapping
)

// wasmStackSize is wasm-ld's default stack size, the one this build uses.
const wasmStackSize = 64 << 10

// Layout describes the patched module's C stack.
type Layout struct {
	// StackTop is the initial stack pointer; the stack grows down from it.
	StackTop uint32
	// StackBase is the lowest address of the reserved stack.
	StackBase uint32
	// Patched is the number of function prologues that check the floor.
	Patched int
}

// GuardStack returns a copy of the module with stack checks added, and the
// stack layout it found. It fails if the module is not laid out as expected.
func GuardStack(wasm []byte) ([]byte, Layout, error) {
	var lay Layout
	if len(wasm) < 8 || !bytes.Equal(wasm[:8], []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, lay, errors.New("quickjs: not a wasm module")
	}
	out := append(make([]byte, 0, len(wasm)+len(wasm)/16), wasm[:8]...)
	var dataEnd uint32
	rest := wasm[8:]
	for len(rest) > 0 {
		id := rest[0]
		size, n, err := uleb(rest[1:])
		if err != nil || uint64(len(rest)-1-n) < size {
			return nil, lay, errors.New("quickjs: truncated section")
		}
		body := rest[1+n : 1+n+int(size)]
		rest = rest[1+n+int(size):]
		switch id {
		case 0: // custom: drop DWARF, whose code offsets the patch invalidates
			if nameLen, k, err := uleb(body); err == nil && uint64(len(body)-k) >= nameLen &&
				bytes.HasPrefix(body[k:k+int(nameLen)], []byte(".debug")) {
				continue
			}
		case 6: // globals: global 0 is __stack_pointer, initialised by i32.const
			top, err := firstGlobalI32(body)
			if err != nil {
				return nil, lay, err
			}
			lay.StackTop = top
		case 11: // data: find the end of the static data
			end, err := dataSegmentsEnd(body)
			if err != nil {
				return nil, lay, err
			}
			dataEnd = end
		case 10:
			code, patched, err := patchCode(body)
			if err != nil {
				return nil, lay, err
			}
			lay.Patched = patched
			out = append(out, id)
			out = binary.AppendUvarint(out, uint64(len(code)))
			out = append(out, code...)
			continue
		}
		out = append(out, id)
		out = binary.AppendUvarint(out, size)
		out = append(out, body...)
	}
	if lay.StackTop < wasmStackSize || lay.StackTop-wasmStackSize < dataEnd || lay.Patched == 0 {
		return nil, lay, fmt.Errorf("quickjs: unexpected layout (stack top %d, data end %d, %d prologues)",
			lay.StackTop, dataEnd, lay.Patched)
	}
	lay.StackBase = lay.StackTop - wasmStackSize
	return out, lay, nil
}

// guard is inserted after a matching prologue whose new stack pointer is in
// local L: if (L < load(StackFloorAddr)) { store(StackFlagAddr, magic); unreachable }
func appendGuard(dst []byte, local []byte) []byte {
	dst = append(dst, 0x20)
	dst = append(dst, local...)
	dst = append(dst, 0x41, 0x00, 0x28, 0x02, StackFloorAddr) // i32.const 0; i32.load offset=16
	dst = append(dst, 0x49, 0x04, 0x40)                       // i32.lt_u; if
	dst = append(dst, 0x41, 0x00, 0x41)                       // i32.const 0; i32.const magic
	dst = appendSleb(dst, int64(int32(StackOverflowMagic)))
	dst = append(dst, 0x36, 0x02, StackFlagAddr) // i32.store offset=24
	dst = append(dst, 0x00, 0x0b)                // unreachable; end
	return dst
}

func patchCode(sec []byte) ([]byte, int, error) {
	count, n, err := uleb(sec)
	if err != nil {
		return nil, 0, err
	}
	out := binary.AppendUvarint(make([]byte, 0, len(sec)+len(sec)/16), count)
	rest := sec[n:]
	patched := 0
	var body []byte
	for i := uint64(0); i < count; i++ {
		size, n, err := uleb(rest)
		if err != nil || uint64(len(rest)-n) < size {
			return nil, 0, errors.New("quickjs: truncated function body")
		}
		fn := rest[n : n+int(size)]
		rest = rest[n+int(size):]
		// Skip the locals declarations.
		groups, k, err := uleb(fn)
		if err != nil {
			return nil, 0, err
		}
		p := k
		for g := uint64(0); g < groups; g++ {
			_, k, err := uleb(fn[p:])
			if err != nil || p+k >= len(fn) {
				return nil, 0, errors.New("quickjs: bad locals")
			}
			p += k + 1
		}
		body = body[:0]
		if end, local, ok := prologue(fn[p:]); ok {
			body = append(body, fn[:p+end]...)
			body = appendGuard(body, local)
			body = append(body, fn[p+end:]...)
			patched++
		} else {
			body = append(body, fn...)
		}
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out, patched, nil
}

// prologue matches global.get 0; i32.const N; i32.sub; local.tee L;
// global.set 0 and returns its length and L's encoding.
func prologue(b []byte) (end int, local []byte, ok bool) {
	if len(b) < 2 || b[0] != 0x23 || b[1] != 0x00 {
		return 0, nil, false
	}
	p := 2
	if p >= len(b) || b[p] != 0x41 {
		return 0, nil, false
	}
	_, n, err := uleb(b[p+1:]) // the constant's sign is irrelevant: only skip it
	if err != nil {
		return 0, nil, false
	}
	p += 1 + n
	if p+1 >= len(b) || b[p] != 0x6b || b[p+1] != 0x22 {
		return 0, nil, false
	}
	p += 2
	_, n, err = uleb(b[p:])
	if err != nil {
		return 0, nil, false
	}
	local = b[p : p+n]
	p += n
	if p+1 >= len(b) || b[p] != 0x24 || b[p+1] != 0x00 {
		return 0, nil, false
	}
	return p + 2, local, true
}

func firstGlobalI32(sec []byte) (uint32, error) {
	count, n, err := uleb(sec)
	if err != nil || count == 0 || len(sec) < n+3 {
		return 0, errors.New("quickjs: no globals")
	}
	g := sec[n:]
	if g[0] != 0x7f || g[1] != 0x01 || g[2] != 0x41 { // mutable i32 = i32.const
		return 0, errors.New("quickjs: global 0 is not a mutable i32 stack pointer")
	}
	v, _, err := sleb(g[3:])
	return uint32(v), err
}

func dataSegmentsEnd(sec []byte) (uint32, error) {
	count, n, err := uleb(sec)
	if err != nil {
		return 0, err
	}
	rest := sec[n:]
	var end uint32
	for i := uint64(0); i < count; i++ {
		if len(rest) < 3 || rest[0] != 0 || rest[1] != 0x41 {
			return 0, errors.New("quickjs: unexpected data segment kind")
		}
		off, k, err := sleb(rest[2:])
		if err != nil || len(rest) < 2+k+1 || rest[2+k] != 0x0b {
			return 0, errors.New("quickjs: bad data segment offset")
		}
		rest = rest[2+k+1:]
		size, k, err := uleb(rest)
		if err != nil || uint64(len(rest)-k) < size {
			return 0, errors.New("quickjs: truncated data segment")
		}
		rest = rest[k+int(size):]
		end = max(end, uint32(off)+uint32(size))
	}
	return end, nil
}

func uleb(b []byte) (uint64, int, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, errors.New("quickjs: bad LEB128")
	}
	return v, n, nil
}

func sleb(b []byte) (int64, int, error) {
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

func appendSleb(dst []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(dst, c)
		}
		dst = append(dst, c|0x80)
	}
}
