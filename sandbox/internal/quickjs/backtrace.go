package quickjs

import (
	"fmt"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
)

// QuickJS builds an error's stack in build_backtrace, which collects the
// call sites and then calls Error.prepareStackTrace, the prelude's hook (a
// JavaScript function), to make the stack. When the error is the stack
// overflow QuickJS's own check throws (stackguard.go), the stack pointer is
// already past JSRuntime.stack_limit, so calling the hook fails that same
// check at once: the error got `stack: null` and no position.
//
// The rewrite therefore routes every call of build_backtrace (found by its
// name in the module's name section, which the module as built carries;
// every call, ref.func and table entry naming it) through a function it
// adds, of the same type, the backtrace hook:
//
//	hook(args…) {
//		if (limitAddr != 0) {
//			saved = *limitAddr
//			if (sp <u saved + backtraceBand && saved >u spareLimit) {
//				*limitAddr = spareLimit
//				build_backtrace(args…)
//				*limitAddr = saved
//				return
//			}
//		}
//		build_backtrace(args…)
//	}
//
// where limitAddr and spareLimit are globals the rewrite adds, which only
// the host writes (Instance.SetStackLimit: the address of the runtime's
// stack_limit and a limit lower than the one it sets there, still above
// the floor). An error made with less than backtraceBand of stack left
// above the limit (the overflow's, and any other made that deep) is
// therefore made with the limit lowered to spareLimit, which leaves the
// hook room to run; a stack overflow inside the hook, at the lowered
// limit, is thrown as before (QuickJS does not nest build_backtrace: that
// error has no stack), and the error being made then gets a null stack, as
// every overflow's did before (RATIONALE.md, "Why lower the stack limit
// while an error is made, not read the frames from the host?"). The limit is
// lowered only once (saved >u spareLimit) and is restored as
// build_backtrace returns; a trap (the hard floor, an interrupt) ends the
// instance, and every run sets the limit afresh. The hard floor is a
// global the guest cannot reach, and it is checked as before, so a lowered
// limit can never let the stack past it.

// backtraceBand is how close to QuickJS's stack limit the stack pointer
// must be, as an error is made, for the hook to lower the limit.
const backtraceBand = 8 << 10

// backtraceName is the name of QuickJS's build_backtrace in the module's
// name section.
const backtraceName = "build_backtrace"

// planBacktrace checks build_backtrace and picks the hook's type.
func (rw *rewriter) planBacktrace() error {
	if !rw.hasBacktrace {
		return fmt.Errorf("quickjs: the module's name section lacks %s", backtraceName)
	}
	t, ok := rw.funcType(rw.backtrace)
	if !ok || len(t.results) != 0 || len(t.params) == 0 || len(t.params) > 16 {
		return fmt.Errorf("quickjs: %s has an unexpected type", backtraceName)
	}
	rw.hookType = rw.typeIndex(t)
	return nil
}

// hookBody is the backtrace hook's body (above).
func (rw *rewriter) hookBody() []byte {
	t, _ := rw.funcType(rw.backtrace)
	saved := appendU(nil, uint64(len(t.params)))
	addr := appendU(nil, uint64(rw.limitAddrGlobal))
	spare := appendU(nil, uint64(rw.spareLimitGlobal))
	call := func(b []byte) []byte {
		for j := range t.params {
			b = append(b, 0x20)
			b = appendU(b, uint64(j)) // local.get j
		}
		b = append(b, 0x10)
		return appendU(b, rw.shift(uint64(rw.backtrace))) // call build_backtrace
	}
	b := []byte{0x01, 0x01, 0x7f}                 // one i32 local: saved
	b = append(append(b, 0x23), addr...)          // global.get limitAddr
	b = append(b, 0x04, 0x40)                     // if
	b = append(append(b, 0x23), addr...)          //   global.get limitAddr
	b = append(b, 0x28, 0x02, 0x00)               //   i32.load
	b = append(append(b, 0x21), saved...)         //   local.set saved
	b = append(b, 0x23, 0x00)                     //   global.get 0 (sp)
	b = append(append(b, 0x20), saved...)         //   local.get saved
	b = append(b, 0x41)                           //   i32.const
	b = wasmcode.AppendSLEB(b, backtraceBand)     //     backtraceBand
	b = append(b, 0x6a, 0x49)                     //   i32.add; i32.lt_u
	b = append(append(b, 0x20), saved...)         //   local.get saved
	b = append(append(b, 0x23), spare...)         //   global.get spareLimit
	b = append(b, 0x4b, 0x71, 0x04, 0x40)         //   i32.gt_u; i32.and; if
	b = append(append(b, 0x23), addr...)          //     global.get limitAddr
	b = append(append(b, 0x23), spare...)         //     global.get spareLimit
	b = append(b, 0x36, 0x02, 0x00)               //     i32.store
	b = call(b)                                   //     build_backtrace(args…)
	b = append(append(b, 0x23), addr...)          //     global.get limitAddr
	b = append(append(b, 0x20), saved...)         //     local.get saved
	b = append(b, 0x36, 0x02, 0x00, 0x0f)         //     i32.store; return
	b = append(b, wasmcode.OpEnd, wasmcode.OpEnd) // end; end
	b = call(b)
	return append(b, wasmcode.OpEnd)
}
