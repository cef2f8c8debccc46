package quickjs

import (
	"errors"
)

// The QuickJS-ng wasm build compiles its stack-overflow check out (it cannot
// read the C stack pointer under WASI), and its C stack is the 64 KiB that
// wasm-ld reserves below the initial __stack_pointer, right above the
// module's static data. A JavaScript recursion a few hundred frames deep
// therefore runs the stack into the static data and corrupts the engine:
// sometimes a trap, sometimes wrong results or an endless loop.
//
// Rewrite therefore makes every function whose body starts with clang's
// frame-allocating prologue
//
//	global.get 0 ; i32.const N ; i32.sub ; local.tee L ; global.set 0
//
// check the new stack pointer against a floor the host stores at address
// StackFloorAddr (0 = no check) and, below it, store StackOverflowMagic at
// StackFlagAddr and trap. The first 1 KiB of memory, below the static data,
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

// appendStackGuard appends the check that follows a matching prologue whose
// new stack pointer is in local L:
//
//	if (L < load(StackFloorAddr)) { store(StackFlagAddr, magic); unreachable }
func appendStackGuard(dst []byte, local []byte) []byte {
	dst = append(dst, 0x20)
	dst = append(dst, local...)
	dst = append(dst, 0x41, 0x00, 0x28, 0x02, StackFloorAddr) // i32.const 0; i32.load offset=16
	dst = append(dst, 0x49, 0x04, 0x40)                       // i32.lt_u; if
	dst = appendTrap(dst, StackFlagAddr, StackOverflowMagic)
	return append(dst, 0x0b) // end
}

// appendTrap appends: store(addr, magic); unreachable.
func appendTrap(dst []byte, addr byte, magic uint32) []byte {
	dst = append(dst, 0x41, 0x00, 0x41) // i32.const 0; i32.const magic
	dst = appendSleb(dst, int64(int32(magic)))
	dst = append(dst, 0x36, 0x02, addr) // i32.store offset=addr
	return append(dst, 0x00)            // unreachable
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

// dataSegmentsRange returns where the active data segments start and end.
func dataSegmentsRange(sec []byte) (start, end uint32, err error) {
	count, n, err := uleb(sec)
	if err != nil {
		return 0, 0, err
	}
	rest := sec[n:]
	start = ^uint32(0)
	for i := uint64(0); i < count; i++ {
		if len(rest) < 3 || rest[0] != 0 || rest[1] != 0x41 {
			return 0, 0, errors.New("quickjs: unexpected data segment kind")
		}
		off, k, err := sleb(rest[2:])
		if err != nil || len(rest) < 2+k+1 || rest[2+k] != 0x0b {
			return 0, 0, errors.New("quickjs: bad data segment offset")
		}
		rest = rest[2+k+1:]
		size, k, err := uleb(rest)
		if err != nil || uint64(len(rest)-k) < size {
			return 0, 0, errors.New("quickjs: truncated data segment")
		}
		rest = rest[k+int(size):]
		start = min(start, uint32(off))
		end = max(end, uint32(off)+uint32(size))
	}
	return start, end, nil
}
