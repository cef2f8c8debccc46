package quickjs

import (
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// The QuickJS-ng WASI build disables its stack-overflow check (its
// update_stack_limit sets no limit under WASI), and its C stack is the 64 KiB that
// wasm-ld reserves below the initial __stack_pointer (global 0), right above
// the module's static data. QuickJS allocates every interpreter frame on
// that stack (alloca, sized by the function's operand stack and locals), so
// a deep recursion, or one JavaScript function with a large operand stack,
// would move the stack pointer below the reserved region, over the static
// data, or wrap it around to the top of the address space.
//
// Rewrite therefore checks every write of the stack pointer, wherever it is
// in a function body (clang's prologues and epilogues, alloca sequences,
// setjmp-style restores):
//
//	global.set 0
//
// becomes
//
//	local.tee $s
//	if ($s <u floor) { reason = ReasonStack; unreachable }
//	if ($s >u top) { reason = ReasonStack; unreachable }
//	global.set 0
//
// where $s is a scratch i32 local the rewrite adds to the function, floor
// and top are globals the rewrite adds (set by the host through their
// exports, see Instance.SetStackLimit and below) and reason is the
// trap-reason global. Nothing the check relies on is in linear memory: the
// guest's code cannot write a global the rewrite added, as no original
// instruction names it (Rewrite refuses a module whose code does). The
// stack pointer therefore never leaves [floor, top], and no frame is
// written outside it.
//
// wasm-ld's 64 KiB would give a script only about 120 nested calls (Node
// gives some 10,000). NewInstance therefore gives the engine a stack region
// of its own, StackRegion bytes malloc'd from the guest's heap before the
// QuickJS runtime exists, and moves the stack pointer, top and floor there;
// wasm-ld's stack is used only by the reactor's constructors. The region is
// an allocation like any other, so the heap cannot grow into it, and the
// floor keeps the stack out of the heap below it. Pages of the region a
// chain never reaches are never written.

// wasmStackSize is wasm-ld's default stack size, the one this build uses.
const wasmStackSize = 64 << 10

// Values of the trap-reason global (Layout.Reason): why the rewritten code
// trapped. Zero means it did not.
const (
	ReasonStack     = 1 // a stack-pointer write below the floor (or above the top)
	ReasonInterrupt = 2 // the yield answered that the run must stop
)

// appendStackCheck appends the checked form of global.set 0 (above); the
// value to store is on the operand stack. The two bounds are two ifs, each
// a compare and a branch, rather than one if on their or, which wazero
// compiles to two flag materialisations, an or and a test.
func (rw *rewriter) appendStackCheck(dst []byte, scratch uint32) []byte {
	s := appendU(nil, uint64(scratch))
	dst = append(append(dst, 0x22), s...)                                    // local.tee s
	dst = append(append(dst, 0x20), s...)                                    // local.get s
	dst = append(append(dst, 0x23), appendU(nil, uint64(rw.floorGlobal))...) // global.get floor
	dst = append(dst, 0x49, 0x04, 0x40)                                      // i32.lt_u; if
	dst = rw.appendTrap(dst, ReasonStack)
	dst = append(dst, 0x0b)                                                // end
	dst = append(append(dst, 0x20), s...)                                  // local.get s
	dst = append(append(dst, 0x23), appendU(nil, uint64(rw.topGlobal))...) // global.get top
	dst = append(dst, 0x4b, 0x04, 0x40)                                    // i32.gt_u; if
	dst = rw.appendTrap(dst, ReasonStack)
	dst = append(dst, 0x0b)        // end
	return append(dst, 0x24, 0x00) // global.set 0
}

// appendTrap appends: reason = r; unreachable.
func (rw *rewriter) appendTrap(dst []byte, r byte) []byte {
	dst = append(dst, 0x41, r, 0x24) // i32.const r; global.set
	dst = appendU(dst, uint64(rw.reasonGlobal))
	return append(dst, 0x00) // unreachable
}

// minStackBase is the lowest address the stack region may start at: more
// than the largest frame QuickJS allocates at once (an interpreter frame
// of 65,535 arguments, locals and operand slots each, some 1.6 MiB; a
// bound function's 131,070 arguments, 1 MiB). QuickJS's check computes
// sp - size unsigned, so a frame larger than the stack pointer's address
// would wrap it, pass, and trap on the floor where a catchable RangeError
// was due; with the region this high, sp - size is never below zero.
// moveStack puts a spacer below the region when the heap starts lower; it
// stays allocated and is never written, so its pages cost no memory, and
// Headroom counts it.
const minStackBase = 2 << 20

// StackRegion is the size of the engine's stack region (above), stackMargin
// is kept below the lowest floor the host may set, and maxStack is the
// deepest stack a run may be given.
const (
	StackRegion = 512 << 10
	stackMargin = 8 << 10
	maxStack    = StackRegion - stackMargin
)

// QuickJS's own stack check. The build keeps js_check_stack_overflow, which
// compares the stack pointer (less the frame about to be allocated) with
// JSRuntime.stack_limit and throws RangeError "Maximum call stack size
// exceeded", catchable, as V8 does; only the WASI build's
// update_stack_limit sets that limit to 0 (no limit), once, when the
// runtime is created. The host writes it instead (Instance.SetStackLimit):
// SoftStackMargin above the floor, so that QuickJS throws while the hard
// floor still has room below for building and throwing the error, and for
// the prelude's hook that makes its stack.
//
// The fields are JSRuntime's stack_size, stack_top and stack_limit, three
// consecutive words; Rewrite finds the first one's offset in the code of
// JS_SetMaxStackSize (Layout.StackSizeOffset: 120 in QuickJS-NG 0.15.1
// built for wasm32), and checkStackFields verifies them on every new
// runtime: stack_size and stack_limit 0, and stack_top inside the reserved
// stack.

// SoftStackMargin is how far above the floor of an n-byte stack QuickJS's
// own check throws: SpareStackMargin(n) plus hookRoom (or plus
// SpareStackMargin(n) when that is more), never more than half of n. The
// part above SpareStackMargin(n) is the room the prelude's
// Error.prepareStackTrace hook runs in as the overflow's error is made
// (backtrace.go lowers the limit to SpareStackMargin(n) for it); under
// 20 KiB, half of n leaves it too little, and the overflow's error has no
// stack.
func SoftStackMargin(n uint32) uint32 {
	s := SpareStackMargin(n)
	return min(s+max(s, hookRoom), n/2)
}

// hookRoom is the least room kept for the prelude's hook: it needs about
// 5 KiB to give the overflow's error its stack.
const hookRoom = 6 << 10

// SpareStackMargin is how far above the floor of an n-byte stack QuickJS's
// limit is while an error is made near it (backtrace.go): an eighth of n,
// at least 4 KiB and at most 8 KiB, never more than half of n: the margin
// QuickJS's limit had before the hook. The C code between two checks, and
// throwing an overflow inside the hook, fit in it.
func SpareStackMargin(n uint32) uint32 {
	m := min(max(n/8, 4<<10), 8<<10)
	return min(m, n/2)
}

// checkStackFields verifies the runtime's stack fields where the offsets
// say they are: its stack top must be in the region [base, top].
func checkStackFields(mem api.Memory, rt uint32, lay Layout, base, stackTop uint32) error {
	size, ok1 := mem.ReadUint32Le(rt + lay.StackSizeOffset)
	top, ok2 := mem.ReadUint32Le(rt + lay.StackSizeOffset + 4)
	limit, ok3 := mem.ReadUint32Le(rt + lay.StackSizeOffset + 8)
	if !ok1 || !ok2 || !ok3 || size != 0 || limit != 0 || top <= base || top > stackTop {
		return fmt.Errorf("quickjs: the runtime's stack limit is not where expected (%d, %#x, %d)", size, top, limit)
	}
	return nil
}
