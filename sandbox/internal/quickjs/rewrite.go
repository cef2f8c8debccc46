package quickjs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// Rewrite makes three load-time changes to the QuickJS module, all in the
// module's own bytes so that wazero runs it like any other:
//
//   - a stack guard after every frame-allocating function prologue (see
//     stackguard.go);
//   - an interrupt check at every loop header. A global the rewrite adds
//     (the budget) counts loop iterations down; when it reaches zero the
//     guest resets it to yieldEvery and calls the imported host proxy with
//     no arguments (the yield). The host (hostProxy) answers 1 when the word
//     at InterruptFlagAddr is set, and the guest then stores InterruptMagic
//     at InterruptedAddr and traps. Instance.Interrupt sets the word and
//     drops the budget to 1, so the guest yields, and traps, at its next
//     loop header. Any guest computation that does not end either iterates
//     a loop, and so reaches a check, or recurses, and so meets the stack
//     guard or wazero's call-depth limit.
//
//     This replaces wazero's close-on-context-done, which leaves native
//     code for Go at every loop iteration and starts a watcher goroutine per
//     host-to-guest call (RATIONALE.md, "Why an interrupt check at loop
//     headers, not close-on-context-done?"). The periodic yield is needed
//     on its own account: Go cannot preempt a goroutine while it runs
//     wazero's native code, so without it a guest loop would hold its
//     thread until it ended and stall every stop-the-world pause of the
//     process (the garbage collector's, and with it the timer that would
//     interrupt the loop);
//   - an export of every mutable global (named GlobalExportPrefix + its
//     index), the budget included, so that a Snapshot can save and restore
//     them.
//
// DWARF sections, whose code offsets the changes invalidate, are dropped.

// Addresses in guest memory of the interrupt words.
const (
	InterruptFlagAddr = 32         // uint32: non-zero asks the guest to trap at its next yield
	InterruptedAddr   = 40         // uint32: InterruptMagic after the trap
	InterruptMagic    = 0x1A7E0FF0 // written before trapping
)

// reservedEnd bounds the words the rewrites use; the static data must start
// at or above it.
const reservedEnd = 64

// GlobalExportPrefix starts the export name of every mutable global.
const GlobalExportPrefix = "airlock.global."

// yieldEvery is the number of loop iterations between two yields: about
// 0.1 ms of interpretation, so that a guest loop reaches a Go preemption
// point (and an interrupt check) that often, for the cost of one host call
// per 16384 iterations.
const yieldEvery = 1 << 14

// The host function the yield calls: the module's only non-WASI import,
// whose implementation (hostProxy) is ours.
const proxyImportModule, proxyImportName = "env", "jsFunctionProxy"

// rewriter carries what the rewrite learns from earlier sections.
type rewriter struct {
	funcImports     uint32 // imported functions
	proxyFunc       uint32 // function index of the proxy import
	haveProxy       bool
	importedGlobals uint32
	mutableImports  uint32
	budgetGlobal    uint32 // index of the countdown global the rewrite adds
}

// Layout describes the rewritten module.
type Layout struct {
	// StackTop is the initial stack pointer; the stack grows down from it.
	StackTop uint32
	// StackBase is the lowest address of the reserved stack.
	StackBase uint32
	// Patched is the number of function prologues that check the floor.
	Patched int
	// Loops is the number of loop headers that check the interrupt flag.
	Loops int
	// Globals are the export names of the module's mutable globals.
	Globals []string
	// Budget is the export name of the loop-iteration countdown.
	Budget string
	// SnapshotSafe is set when linear memory and mutable globals are an
	// instance's whole mutable state: the code neither writes tables nor
	// drops data or element segments, and imports no mutable global.
	SnapshotSafe bool
}

// Rewrite returns a copy of the module with the changes above, and the
// layout it found. It fails if the module is not laid out as expected or
// holds an instruction the decoder does not know.
func Rewrite(wasm []byte) ([]byte, Layout, error) {
	var lay Layout
	if len(wasm) < 8 || !bytes.Equal(wasm[:8], []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, lay, errors.New("quickjs: not a wasm module")
	}
	out := append(make([]byte, 0, len(wasm)+len(wasm)/8), wasm[:8]...)
	var dataStart, dataEnd uint32
	var rw rewriter
	sawExports, safe := false, true
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
		case 0: // custom: drop DWARF
			if nameLen, k, err := uleb(body); err == nil && uint64(len(body)-k) >= nameLen &&
				bytes.HasPrefix(body[k:k+int(nameLen)], []byte(".debug")) {
				continue
			}
		case 2:
			if err = rw.imports(body); err != nil {
				return nil, lay, err
			}
		case 6: // globals: global 0 is __stack_pointer, initialised by i32.const
			if body, lay.StackTop, lay.Globals, err = rw.globals(body); err != nil {
				return nil, lay, err
			}
		case 7:
			sawExports = true
			body, err = appendGlobalExports(body, lay.Globals)
			if err != nil {
				return nil, lay, err
			}
		case 11: // data: find the extent of the static data
			if dataStart, dataEnd, err = dataSegmentsRange(body); err != nil {
				return nil, lay, err
			}
		case 10:
			if !rw.haveProxy || rw.budgetGlobal == 0 {
				return nil, lay, errors.New("quickjs: the module lacks the host proxy import or globals")
			}
			code, err := rw.code(body, &lay, &safe)
			if err != nil {
				return nil, lay, err
			}
			body = code
		}
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	if lay.StackTop < wasmStackSize || lay.StackTop-wasmStackSize < dataEnd || dataStart < reservedEnd ||
		lay.Patched == 0 || lay.Loops == 0 || !sawExports {
		return nil, lay, fmt.Errorf("quickjs: unexpected layout (stack top %d, data %d–%d, %d prologues, %d loops)",
			lay.StackTop, dataStart, dataEnd, lay.Patched, lay.Loops)
	}
	lay.StackBase = lay.StackTop - wasmStackSize
	lay.Budget = GlobalExportPrefix + strconv.FormatUint(uint64(rw.budgetGlobal), 10)
	lay.SnapshotSafe = safe && rw.mutableImports == 0
	return out, lay, nil
}

// appendLoopCheck appends the code placed right after a loop header:
//
//	budget--
//	if (budget == 0) {
//		budget = yieldEvery
//		if (proxy(0, 0, 0, 0) != 0) { store(InterruptedAddr, magic); unreachable }
//	}
func (rw *rewriter) appendLoopCheck(dst []byte) []byte {
	b := binary.AppendUvarint(nil, uint64(rw.budgetGlobal))
	dst = append(append(dst, 0x23), b...)           // global.get budget
	dst = append(dst, 0x41, 0x7f, 0x6a)             // i32.const -1; i32.add
	dst = append(append(dst, 0x24), b...)           // global.set budget
	dst = append(append(dst, 0x23), b...)           // global.get budget
	dst = append(dst, 0x45, 0x04, 0x40, 0x41)       // i32.eqz; if; i32.const
	dst = appendSleb(dst, yieldEvery)               //   yieldEvery
	dst = append(append(dst, 0x24), b...)           //   global.set budget
	dst = append(dst, 0x41, 0x00, 0x42, 0x00, 0x41) //   i32.const 0; i64.const 0; i32.const
	dst = append(dst, 0x00, 0x41, 0x00, 0x10)       //   0; i32.const 0; call
	dst = binary.AppendUvarint(dst, uint64(rw.proxyFunc))
	dst = append(dst, 0x50, 0x45, 0x04, 0x40) //   i64.eqz; i32.eqz; if
	dst = appendTrap(dst, InterruptedAddr, InterruptMagic)
	return append(dst, 0x0b, 0x0b) // end; end
}

// code rewrites every function body of the code section. It clears
// *safe when an instruction changes instance state outside memory and
// globals.
func (rw *rewriter) code(sec []byte, lay *Layout, safe *bool) ([]byte, error) {
	count, n, err := uleb(sec)
	if err != nil {
		return nil, err
	}
	out := binary.AppendUvarint(make([]byte, 0, len(sec)+len(sec)/8), count)
	rest := sec[n:]
	var body []byte
	for i := uint64(0); i < count; i++ {
		size, n, err := uleb(rest)
		if err != nil || uint64(len(rest)-n) < size {
			return nil, errors.New("quickjs: truncated function body")
		}
		fn := rest[n : n+int(size)]
		rest = rest[n+int(size):]
		// The locals declarations: count, then (count, type) pairs.
		groups, k, err := uleb(fn)
		if err != nil {
			return nil, err
		}
		p := k
		for g := uint64(0); g < groups; g++ {
			_, k, err := uleb(fn[p:])
			if err != nil || p+k >= len(fn) {
				return nil, errors.New("quickjs: bad locals")
			}
			p += k + 1
		}
		body = append(body[:0], fn[:p]...)
		if end, local, ok := prologue(fn[p:]); ok {
			body = append(body, fn[p:p+end]...)
			body = appendStackGuard(body, local)
			lay.Patched++
			p += end
		}
		last := byte(0)
		for p < len(fn) {
			l, err := instrLen(fn[p:])
			if err != nil {
				return nil, fmt.Errorf("function %d, byte %d: %w", i, p, err)
			}
			op := fn[p]
			body = append(body, fn[p:p+l]...)
			switch op {
			case opLoop:
				body = rw.appendLoopCheck(body)
				lay.Loops++
			case 0x26: // table.set
				*safe = false
			case 0xfc:
				switch sub, _, _ := uleb(fn[p+1:]); sub {
				case 9, 12, 13, 14, 15, 17: // data.drop, table.init, elem.drop, table.copy/grow/fill
					*safe = false
				}
			}
			last = op
			p += l
		}
		if last != opEnd {
			return nil, fmt.Errorf("%w: function %d does not end with end", errBadCode, i)
		}
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	if len(rest) != 0 {
		return nil, errors.New("quickjs: trailing bytes in the code section")
	}
	return out, nil
}

// imports records the function index of the host proxy and counts the
// imported functions and globals.
func (rw *rewriter) imports(sec []byte) error {
	count, n, err := uleb(sec)
	if err != nil {
		return err
	}
	p := n
	name := func() (string, bool) {
		l, k, err := uleb(sec[p:])
		if err != nil || uint64(len(sec)-p-k) < l {
			return "", false
		}
		s := string(sec[p+k : p+k+int(l)])
		p += k + int(l)
		return s, true
	}
	skipU := func() bool {
		_, k, err := uleb(sec[p:])
		p += k
		return err == nil
	}
	skipLimits := func() bool {
		if p >= len(sec) {
			return false
		}
		flags := sec[p]
		p++
		return skipU() && (flags&1 == 0 || skipU())
	}
	for i := uint64(0); i < count; i++ {
		mod, ok1 := name()
		field, ok2 := name()
		if !ok1 || !ok2 || p >= len(sec) {
			return errors.New("quickjs: bad import section")
		}
		kind := sec[p]
		p++
		ok := false
		switch kind {
		case 0:
			if mod == proxyImportModule && field == proxyImportName {
				rw.proxyFunc, rw.haveProxy = rw.funcImports, true
			}
			rw.funcImports++
			ok = skipU()
		case 1:
			p++ // reference type
			ok = p < len(sec) && skipLimits()
		case 2:
			ok = skipLimits()
		case 3:
			if p+1 < len(sec) {
				rw.importedGlobals++
				if sec[p+1] != 0 {
					rw.mutableImports++
				}
				p += 2
				ok = true
			}
		}
		if !ok {
			return errors.New("quickjs: bad import section")
		}
	}
	return nil
}

// globals checks that global 0 is the mutable i32 __stack_pointer and
// returns its initial value, the section with the countdown global added,
// and the export names of the mutable globals.
func (rw *rewriter) globals(sec []byte) (out []byte, stackTop uint32, names []string, err error) {
	count, n, err := uleb(sec)
	if err != nil || count == 0 || len(sec) < n+3 {
		return nil, 0, nil, errors.New("quickjs: no globals")
	}
	g := sec[n:]
	if rw.importedGlobals != 0 || g[0] != 0x7f || g[1] != 0x01 || g[2] != 0x41 { // mutable i32 = i32.const
		return nil, 0, nil, errors.New("quickjs: global 0 is not a mutable i32 stack pointer")
	}
	top, _, err := sleb(g[3:])
	if err != nil {
		return nil, 0, nil, err
	}
	p := 0
	for i := uint64(0); i < count; i++ {
		if p+2 > len(g) {
			return nil, 0, nil, errors.New("quickjs: truncated global")
		}
		if g[p+1] != 0 {
			names = append(names, GlobalExportPrefix+strconv.FormatUint(uint64(rw.importedGlobals)+i, 10))
		}
		p += 2
		for { // the constant initialiser, up to its end
			l, err := instrLen(g[p:])
			if err != nil {
				return nil, 0, nil, err
			}
			op := g[p]
			p += l
			if op == opEnd {
				break
			}
		}
	}
	if p != len(g) {
		return nil, 0, nil, errors.New("quickjs: trailing bytes in the global section")
	}
	rw.budgetGlobal = rw.importedGlobals + uint32(count)
	names = append(names, GlobalExportPrefix+strconv.FormatUint(uint64(rw.budgetGlobal), 10))
	out = binary.AppendUvarint(nil, count+1)
	out = append(out, g...)
	out = append(out, 0x7f, 0x01, 0x41) // mutable i32 = i32.const yieldEvery
	out = appendSleb(out, yieldEvery)
	out = append(out, 0x0b)
	return out, uint32(top), names, nil
}

// appendGlobalExports adds an export of each global named in names.
func appendGlobalExports(sec []byte, names []string) ([]byte, error) {
	count, n, err := uleb(sec)
	if err != nil {
		return nil, err
	}
	out := binary.AppendUvarint(nil, count+uint64(len(names)))
	out = append(out, sec[n:]...)
	for _, name := range names {
		idx, _ := strconv.ParseUint(name[len(GlobalExportPrefix):], 10, 32)
		out = binary.AppendUvarint(out, uint64(len(name)))
		out = append(out, name...)
		out = append(out, 0x03) // global
		out = binary.AppendUvarint(out, idx)
	}
	return out, nil
}
