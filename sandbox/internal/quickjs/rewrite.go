package quickjs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
	"strconv"
)

// Rewrite makes these load-time changes to the QuickJS module, all in the
// module's own bytes so that wazero runs it like any other:
//
//   - a check of every write of the stack pointer against a floor held in a
//     global the rewrite adds (see stackguard.go);
//   - an interrupt check at every loop header. A global the rewrite adds
//     (the budget) counts loop iterations down; when it reaches zero the
//     guest resets it to yieldEvery and calls the imported host proxy with
//     no arguments (the yield). The host answers 1 when the run must stop
//     (its context ended, or Instance.Interrupt was called: both host-side
//     state), and the guest then sets the trap-reason global to
//     ReasonInterrupt and traps. Instance.Interrupt also drops the budget to
//     1, so the guest yields, and traps, at its next loop header. Any guest
//     computation that does not end either iterates a loop, and so reaches
//     a check, or recurses, and so meets the stack check or wazero's
//     call-depth limit.
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
//   - the engine sealed against module imports (see seal.go): a module
//     normaliser that throws, which the host installs after initialisation,
//     and a sticky out-of-memory flag;
//   - an export of every mutable global (named GlobalExportPrefix + its
//     index), the added ones included, so that a Snapshot can save and
//     restore them and the host can set the floor and read the flags.
//
// No word the host relies on to stop the guest (budget, floor, trap reason,
// interrupt request, deadline) is in linear memory, which the guest's code
// can write: the globals the rewrite adds are written only by the code it
// adds and by the host, and the interrupt request and deadline are host-side.
//
// DWARF sections, whose code offsets the changes invalidate, are dropped.

// GlobalExportPrefix starts the export name of every mutable global.
const GlobalExportPrefix = "airlock.global."

// yieldEvery is the number of loop iterations between two yields: about
// 0.1 ms of interpretation, so that a guest loop reaches a Go preemption
// point (and an interrupt check) that often, for the cost of one host call
// per 16384 iterations.
const yieldEvery = 1 << 14

// The host function the yield calls: the module's only non-WASI import,
// whose implementation (Runtime.hostProxy) is ours.
const proxyImportModule, proxyImportName = "env", "jsFunctionProxy"

// Layout describes the rewritten module.
type Layout struct {
	// StackTop is the initial stack pointer; the stack grows down from it.
	StackTop uint32
	// StackBase is the lowest address of the reserved stack.
	StackBase uint32
	// StackWrites is the number of stack-pointer writes that check the floor.
	StackWrites int
	// Loops is the number of loop headers that check for an interrupt.
	Loops int
	// OOMSites is the number of places that set the out-of-memory flag.
	OOMSites int
	// Globals are the export names of the module's mutable globals.
	Globals []string
	// Budget, Floor, Reason and OOM are the export names of the globals the
	// rewrite adds: the loop-iteration countdown, the lowest stack pointer
	// allowed, why the rewritten code trapped (Reason* constants), and
	// whether QuickJS has thrown an out-of-memory error (1) since
	// instantiation.
	Budget, Floor, Reason, OOM string
	// NormalizeOffset and LoaderOffset are the offsets in QuickJS's
	// JSRuntime of its module-name normaliser and module loader function
	// pointers; LoaderSlot is the table slot New_QJS stores as the loader,
	// DenySlot the one of the normaliser the rewrite adds (seal.go).
	NormalizeOffset, LoaderOffset uint32
	LoaderSlot, DenySlot          uint32
	// SnapshotSafe is set when linear memory and mutable globals are an
	// instance's whole mutable state: the code neither writes tables nor
	// drops data or element segments, and imports no mutable global.
	SnapshotSafe bool
}

// section is one section of a module.
type section struct {
	id   byte
	body []byte
}

// funcType is a function type's parameter and result value types.
type funcType struct{ params, results []byte }

// rewriter carries what the rewrite learns from the module and decides.
type rewriter struct {
	types           []funcType
	funcImports     uint32   // imported functions
	funcTypes       []uint32 // type index of each defined function
	proxyFunc       uint32   // function index of the proxy import
	haveProxy       bool
	importedGlobals uint32
	mutableImports  uint32
	globals         uint32 // defined globals
	stackTop        uint32
	tableMin        uint32
	tableMax        uint32
	tableHasMax     bool
	exports         map[string]uint32 // function exports by name
	slots           map[uint32]uint32 // table slot by function index (first)
	dataStart       uint32
	dataEnd         uint32
	oomAddr         uint32 // address of the "out of memory" message

	// Decided by the rewrite.
	budgetGlobal, floorGlobal, reasonGlobal, oomGlobal uint32
	denyType                                           uint32
	addType                                            bool
	denyFunc                                           uint32
	newQJS, throwRef                                   uint32
}

// Rewrite returns a copy of the module with the changes above, and the
// layout it found. It fails if the module is not laid out as expected or
// holds an instruction the decoder does not know.
func Rewrite(wasm []byte) ([]byte, Layout, error) {
	var lay Layout
	if len(wasm) < 8 || !bytes.Equal(wasm[:8], []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, lay, errors.New("quickjs: not a wasm module")
	}
	var secs []section
	for rest := wasm[8:]; len(rest) > 0; {
		id := rest[0]
		size, n, err := wasmcode.ULEB(rest[1:])
		if err != nil || uint64(len(rest)-1-n) < size {
			return nil, lay, errors.New("quickjs: truncated section")
		}
		secs = append(secs, section{id, rest[1+n : 1+n+int(size)]})
		rest = rest[1+n+int(size):]
	}
	rw := &rewriter{exports: map[string]uint32{}, slots: map[uint32]uint32{}}
	seen := map[byte]bool{}
	for _, s := range secs {
		seen[s.id] = true
		var err error
		switch s.id {
		case 1:
			err = rw.parseTypes(s.body)
		case 2:
			err = rw.parseImports(s.body)
		case 3:
			err = rw.parseFuncs(s.body)
		case 4:
			err = rw.parseTable(s.body)
		case 6:
			err = rw.parseGlobals(s.body)
		case 7:
			err = rw.parseExports(s.body)
		case 9:
			err = rw.parseElems(s.body)
		case 11:
			err = rw.parseData(s.body)
		}
		if err != nil {
			return nil, lay, err
		}
	}
	for _, id := range []byte{1, 3, 4, 6, 7, 9, 10, 11} {
		if !seen[id] {
			return nil, lay, fmt.Errorf("quickjs: the module lacks section %d", id)
		}
	}
	if !rw.haveProxy || rw.globals == 0 {
		return nil, lay, errors.New("quickjs: the module lacks the host proxy import or globals")
	}
	if rw.stackTop < wasmStackSize || rw.stackTop-wasmStackSize < rw.dataEnd {
		return nil, lay, fmt.Errorf("quickjs: unexpected layout (stack top %d, static data %d–%d)",
			rw.stackTop, rw.dataStart, rw.dataEnd)
	}
	if err := rw.plan(); err != nil {
		return nil, lay, err
	}

	safe := true
	out := append(make([]byte, 0, len(wasm)+len(wasm)/4), wasm[:8]...)
	for _, s := range secs {
		body := s.body
		var err error
		switch s.id {
		case 0: // custom: drop DWARF
			if nameLen, k, err := wasmcode.ULEB(body); err == nil && uint64(len(body)-k) >= nameLen &&
				bytes.HasPrefix(body[k:k+int(nameLen)], []byte(".debug")) {
				continue
			}
		case 1:
			body = rw.appendedTypes(body)
		case 3:
			body = appendVecItem(body, appendU(nil, uint64(rw.denyType)))
		case 4:
			body = rw.grownTable()
		case 6:
			body, lay.Globals = rw.addedGlobals(body)
		case 7:
			body, err = appendGlobalExports(body, lay.Globals)
		case 9:
			body = appendVecItem(body, rw.denyElem())
		case 10:
			body, err = rw.code(body, &lay, &safe)
		case 11:
			body = appendVecItem(body, denyData())
		case 12:
			var n uint64
			if n, _, err = wasmcode.ULEB(body); err == nil {
				body = appendU(nil, n+1)
			}
		}
		if err != nil {
			return nil, lay, err
		}
		out = append(out, s.id)
		out = appendU(out, uint64(len(body)))
		out = append(out, body...)
	}
	if lay.StackWrites == 0 || lay.Loops == 0 || lay.OOMSites == 0 || lay.LoaderOffset == 0 {
		return nil, lay, fmt.Errorf("quickjs: unexpected code (%d stack writes, %d loops, %d out-of-memory sites, loader at %d)",
			lay.StackWrites, lay.Loops, lay.OOMSites, lay.LoaderOffset)
	}
	lay.StackTop = rw.stackTop
	lay.StackBase = rw.stackTop - wasmStackSize
	name := func(g uint32) string { return GlobalExportPrefix + strconv.FormatUint(uint64(g), 10) }
	lay.Budget, lay.Floor, lay.Reason, lay.OOM = name(rw.budgetGlobal), name(rw.floorGlobal), name(rw.reasonGlobal), name(rw.oomGlobal)
	lay.LoaderSlot, lay.DenySlot = rw.slots[rw.exports[loaderExport]], rw.tableMin
	lay.SnapshotSafe = safe && rw.mutableImports == 0
	return out, lay, nil
}

// plan picks the indices of what the rewrite adds and checks that the
// functions it uses exist with the expected types.
func (rw *rewriter) plan() error {
	g := rw.importedGlobals + rw.globals
	rw.budgetGlobal, rw.floorGlobal, rw.reasonGlobal, rw.oomGlobal = g, g+1, g+2, g+3
	var ok1, ok2, ok3 bool
	rw.newQJS, ok1 = rw.exports["New_QJS"]
	rw.throwRef, ok2 = rw.exports["QJS_ThrowReferenceError"]
	loader, ok3 := rw.exports[loaderExport]
	if !ok1 || !ok2 || !ok3 {
		return errors.New("quickjs: the module lacks New_QJS, QJS_ThrowReferenceError or " + loaderExport)
	}
	if _, ok := rw.slots[loader]; !ok {
		return errors.New("quickjs: the module loader is not in the function table")
	}
	// QJS_ThrowReferenceError(JSContext*, const char*) JSValue.
	if t, ok := rw.funcType(rw.throwRef); !ok || !bytes.Equal(t.params, []byte{0x7f, 0x7f}) || !bytes.Equal(t.results, []byte{0x7e}) {
		return errors.New("quickjs: QJS_ThrowReferenceError has an unexpected type")
	}
	// The normaliser: (JSContext*, const char* base, const char* name, void* opaque) char*.
	want := funcType{params: []byte{0x7f, 0x7f, 0x7f, 0x7f}, results: []byte{0x7f}}
	rw.denyType, rw.addType = uint32(len(rw.types)), true
	for i, t := range rw.types {
		if bytes.Equal(t.params, want.params) && bytes.Equal(t.results, want.results) {
			rw.denyType, rw.addType = uint32(i), false
			break
		}
	}
	rw.denyFunc = rw.funcImports + uint32(len(rw.funcTypes))
	if rw.oomAddr == 0 {
		return errors.New("quickjs: the module's data lacks the out-of-memory message")
	}
	if rw.dataStart < denyMsgAddr+uint32(len(denyMessage))+1 {
		return fmt.Errorf("quickjs: static data starts at %d, below the import message", rw.dataStart)
	}
	if rw.tableHasMax && rw.tableMax != rw.tableMin {
		return errors.New("quickjs: the function table is growable")
	}
	return nil
}

// funcType returns the type of function f (imported or defined).
func (rw *rewriter) funcType(f uint32) (funcType, bool) {
	if f < rw.funcImports || f-rw.funcImports >= uint32(len(rw.funcTypes)) {
		return funcType{}, false
	}
	t := rw.funcTypes[f-rw.funcImports]
	if t >= uint32(len(rw.types)) {
		return funcType{}, false
	}
	return rw.types[t], true
}

// appendLoopCheck appends the code placed right after a loop header:
//
//	budget--
//	if (budget == 0) {
//		budget = yieldEvery
//		if (proxy(0, 0, 0, 0) != 0) { reason = ReasonInterrupt; unreachable }
//	}
func (rw *rewriter) appendLoopCheck(dst []byte) []byte {
	b := appendU(nil, uint64(rw.budgetGlobal))
	dst = append(append(dst, 0x23), b...)           // global.get budget
	dst = append(dst, 0x41, 0x7f, 0x6a)             // i32.const -1; i32.add
	dst = append(append(dst, 0x24), b...)           // global.set budget
	dst = append(append(dst, 0x23), b...)           // global.get budget
	dst = append(dst, 0x45, 0x04, 0x40, 0x41)       // i32.eqz; if; i32.const
	dst = wasmcode.AppendSLEB(dst, yieldEvery)      //   yieldEvery
	dst = append(append(dst, 0x24), b...)           //   global.set budget
	dst = append(dst, 0x41, 0x00, 0x42, 0x00, 0x41) //   i32.const 0; i64.const 0; i32.const
	dst = append(dst, 0x00, 0x41, 0x00, 0x10)       //   0; i32.const 0; call
	dst = appendU(dst, uint64(rw.proxyFunc))
	dst = append(dst, 0x50, 0x45, 0x04, 0x40) //   i64.eqz; i32.eqz; if
	dst = rw.appendTrap(dst, ReasonInterrupt)
	return append(dst, 0x0b, 0x0b) // end; end
}

// code rewrites every function body of the code section and appends the
// normaliser's. It clears *safe when an instruction changes instance state
// outside memory and globals.
func (rw *rewriter) code(sec []byte, lay *Layout, safe *bool) ([]byte, error) {
	count, n, err := wasmcode.ULEB(sec)
	if err != nil {
		return nil, err
	}
	if count != uint64(len(rw.funcTypes)) {
		return nil, errors.New("quickjs: the code and function sections disagree")
	}
	out := appendU(make([]byte, 0, len(sec)+len(sec)/4), count+1)
	rest := sec[n:]
	var body, code []byte
	for i := uint32(0); i < uint32(count); i++ {
		size, n, err := wasmcode.ULEB(rest)
		if err != nil || uint64(len(rest)-n) < size {
			return nil, errors.New("quickjs: truncated function body")
		}
		fn := rest[n : n+int(size)]
		rest = rest[n+int(size):]
		if body, code, err = rw.function(body[:0], code[:0], fn, i, lay, safe); err != nil {
			return nil, fmt.Errorf("quickjs: function %d: %w", rw.funcImports+i, err)
		}
		out = appendU(out, uint64(len(body)))
		out = append(out, body...)
	}
	if len(rest) != 0 {
		return nil, errors.New("quickjs: trailing bytes in the code section")
	}
	deny := rw.denyBody()
	out = appendU(out, uint64(len(deny)))
	return append(out, deny...), nil
}

// function rewrites the body fn of defined function i into body, using code
// as scratch space.
func (rw *rewriter) function(body, code, fn []byte, i uint32, lay *Layout, safe *bool) ([]byte, []byte, error) {
	t := rw.types[rw.funcTypes[i]]
	// The locals declarations: count, then (count, type) pairs.
	groups, k, err := wasmcode.ULEB(fn)
	if err != nil {
		return nil, nil, err
	}
	p := k
	locals := uint64(len(t.params))
	for g := uint64(0); g < groups; g++ {
		c, k, err := wasmcode.ULEB(fn[p:])
		if err != nil || p+k >= len(fn) {
			return nil, nil, errors.New("bad locals")
		}
		locals += c
		p += k + 1
	}
	if locals >= 50000 {
		return nil, nil, errors.New("too many locals")
	}
	scratch := uint32(locals) // the local the stack check adds, if needed
	needScratch := false
	isNewQJS := rw.funcImports+i == rw.newQJS
	var window [6]instr // the last instructions, for the loader pattern
	last := byte(0)
	for q := p; q < len(fn); {
		l, err := wasmcode.InstrLen(fn[q:])
		if err != nil {
			return nil, nil, fmt.Errorf("byte %d: %w", q, err)
		}
		ins := fn[q : q+l]
		op := ins[0]
		switch op {
		case 0x23, 0x24: // global.get, global.set
			g, _, _ := wasmcode.ULEB(ins[1:])
			if g >= uint64(rw.importedGlobals+rw.globals) {
				return nil, nil, fmt.Errorf("%w: global %d out of range", wasmcode.ErrBadCode, g)
			}
			if op == 0x24 && g == 0 {
				code = rw.appendStackCheck(code, scratch)
				needScratch = true
				lay.StackWrites++
			} else {
				code = append(code, ins...)
			}
		case wasmcode.OpLoop:
			code = append(code, ins...)
			code = rw.appendLoopCheck(code)
			lay.Loops++
		case 0x41: // i32.const
			if v, _, _ := wasmcode.SLEB(ins[1:]); v == int64(rw.oomAddr) && throwsOOM(fn[q+l:]) {
				code = rw.appendOOMFlag(code)
				lay.OOMSites++
			}
			code = append(code, ins...)
		default:
			code = append(code, ins...)
			switch op {
			case 0x26: // table.set
				*safe = false
			case 0xfc:
				switch sub, _, _ := wasmcode.ULEB(ins[1:]); sub {
				case 9, 12, 13, 14, 15, 17: // data.drop, table.init, elem.drop, table.copy/grow/fill
					*safe = false
				}
			}
		}
		if isNewQJS {
			copy(window[:], window[1:])
			window[len(window)-1] = instr(ins)
			if norm, loader, ok := rw.loaderStores(window); ok {
				if lay.LoaderOffset != 0 {
					return nil, nil, errors.New("New_QJS sets the module loader twice")
				}
				lay.NormalizeOffset, lay.LoaderOffset = norm, loader
			}
		}
		last = op
		q += l
	}
	if last != wasmcode.OpEnd {
		return nil, nil, fmt.Errorf("%w: does not end with end", wasmcode.ErrBadCode)
	}
	if isNewQJS && lay.LoaderOffset == 0 {
		return nil, nil, errors.New("New_QJS does not set the module loader as expected")
	}
	if needScratch {
		body = appendU(body, groups+1)
		body = append(body, fn[k:p]...)
		body = append(body, 0x01, 0x7f) // one i32
	} else {
		body = append(body, fn[:p]...)
	}
	return append(body, code...), code, nil
}

// instr is one encoded instruction.
type instr []byte

// parseTypes records the function types.
func (rw *rewriter) parseTypes(sec []byte) error {
	count, p, err := wasmcode.ULEB(sec)
	if err != nil {
		return err
	}
	vec := func() ([]byte, bool) {
		n, k, err := wasmcode.ULEB(sec[p:])
		if err != nil || uint64(len(sec)-p-k) < n {
			return nil, false
		}
		v := sec[p+k : p+k+int(n)]
		p += k + int(n)
		return v, true
	}
	for i := uint64(0); i < count; i++ {
		if p >= len(sec) || sec[p] != 0x60 {
			return errors.New("quickjs: unexpected type section entry")
		}
		p++
		params, ok1 := vec()
		results, ok2 := vec()
		if !ok1 || !ok2 {
			return errors.New("quickjs: bad type section")
		}
		rw.types = append(rw.types, funcType{params, results})
	}
	return nil
}

// appendedTypes returns the type section with the normaliser's type added
// if the module lacks it.
func (rw *rewriter) appendedTypes(sec []byte) []byte {
	if !rw.addType {
		return sec
	}
	return appendVecItem(sec, []byte{0x60, 0x04, 0x7f, 0x7f, 0x7f, 0x7f, 0x01, 0x7f})
}

// parseFuncs records the type of every defined function.
func (rw *rewriter) parseFuncs(sec []byte) error {
	count, p, err := wasmcode.ULEB(sec)
	if err != nil {
		return err
	}
	for i := uint64(0); i < count; i++ {
		t, k, err := wasmcode.ULEB(sec[p:])
		if err != nil || t >= uint64(len(rw.types)) {
			return errors.New("quickjs: bad function section")
		}
		rw.funcTypes = append(rw.funcTypes, uint32(t))
		p += k
	}
	return nil
}

// parseTable reads the one funcref table's limits.
func (rw *rewriter) parseTable(sec []byte) error {
	if len(sec) < 4 || sec[0] != 1 || sec[1] != 0x70 || sec[2] > 1 {
		return errors.New("quickjs: expected one funcref table")
	}
	minimum, k, err := wasmcode.ULEB(sec[3:])
	if err != nil {
		return err
	}
	p := 3 + k
	rw.tableMin = uint32(minimum)
	if sec[2] == 1 {
		maximum, k, err := wasmcode.ULEB(sec[p:])
		if err != nil {
			return err
		}
		rw.tableMax, rw.tableHasMax = uint32(maximum), true
		p += k
	}
	if p != len(sec) || minimum >= 1<<20 {
		return errors.New("quickjs: bad table section")
	}
	return nil
}

// grownTable returns the table section with one more slot, for the
// normaliser.
func (rw *rewriter) grownTable() []byte {
	out := []byte{1, 0x70, 0}
	if rw.tableHasMax {
		out[2] = 1
	}
	out = appendU(out, uint64(rw.tableMin)+1)
	if rw.tableHasMax {
		out = appendU(out, uint64(rw.tableMax)+1)
	}
	return out
}

// parseElems records the table slot of every function an active element
// segment places.
func (rw *rewriter) parseElems(sec []byte) error {
	count, p, err := wasmcode.ULEB(sec)
	if err != nil {
		return err
	}
	for i := uint64(0); i < count; i++ {
		if p+2 >= len(sec) || sec[p] != 0 || sec[p+1] != 0x41 {
			return errors.New("quickjs: unexpected element segment kind")
		}
		off, k, err := wasmcode.SLEB(sec[p+2:])
		p += 2 + k
		if err != nil || p >= len(sec) || sec[p] != wasmcode.OpEnd {
			return errors.New("quickjs: bad element segment offset")
		}
		p++
		n, k, err := wasmcode.ULEB(sec[p:])
		if err != nil {
			return err
		}
		p += k
		for j := uint64(0); j < n; j++ {
			f, k, err := wasmcode.ULEB(sec[p:])
			if err != nil {
				return err
			}
			p += k
			if _, ok := rw.slots[uint32(f)]; !ok {
				rw.slots[uint32(f)] = uint32(off) + uint32(j)
			}
		}
	}
	if p != len(sec) {
		return errors.New("quickjs: trailing bytes in the element section")
	}
	return nil
}

// denyElem is an active element segment placing the normaliser in the
// table's new last slot.
func (rw *rewriter) denyElem() []byte {
	out := []byte{0, 0x41}
	out = wasmcode.AppendSLEB(out, int64(rw.tableMin))
	out = append(out, wasmcode.OpEnd, 1)
	return appendU(out, uint64(rw.denyFunc))
}

// parseImports records the function index of the host proxy and counts the
// imported functions and globals.
func (rw *rewriter) parseImports(sec []byte) error {
	count, n, err := wasmcode.ULEB(sec)
	if err != nil {
		return err
	}
	p := n
	name := func() (string, bool) {
		l, k, err := wasmcode.ULEB(sec[p:])
		if err != nil || uint64(len(sec)-p-k) < l {
			return "", false
		}
		s := string(sec[p+k : p+k+int(l)])
		p += k + int(l)
		return s, true
	}
	skipU := func() bool {
		_, k, err := wasmcode.ULEB(sec[p:])
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
			t, k, err := wasmcode.ULEB(sec[p:])
			if mod == proxyImportModule && field == proxyImportName {
				rw.proxyFunc, rw.haveProxy = rw.funcImports, true
			}
			rw.funcImports++
			p += k
			ok = err == nil && t < uint64(len(rw.types))
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

// parseGlobals checks that global 0 is the mutable i32 __stack_pointer,
// initialised by i32.const, and records its initial value.
func (rw *rewriter) parseGlobals(sec []byte) error {
	count, n, err := wasmcode.ULEB(sec)
	if err != nil || count == 0 || len(sec) < n+3 {
		return errors.New("quickjs: no globals")
	}
	g := sec[n:]
	if rw.importedGlobals != 0 || g[0] != 0x7f || g[1] != 0x01 || g[2] != 0x41 {
		return errors.New("quickjs: global 0 is not a mutable i32 stack pointer")
	}
	top, _, err := wasmcode.SLEB(g[3:])
	if err != nil || top <= 0 || top > 1<<31 {
		return errors.New("quickjs: bad initial stack pointer")
	}
	rw.stackTop, rw.globals = uint32(top), uint32(count)
	return nil
}

// addedGlobals returns the global section with the rewrite's globals added,
// and the export names of every mutable global.
func (rw *rewriter) addedGlobals(sec []byte) ([]byte, []string) {
	count, n, _ := wasmcode.ULEB(sec)
	g := sec[n:]
	var names []string
	p := 0
	for i := uint64(0); i < count; i++ {
		if g[p+1] != 0 {
			names = append(names, GlobalExportPrefix+strconv.FormatUint(uint64(rw.importedGlobals)+i, 10))
		}
		p += 2
		for { // the constant initialiser, up to its end (checked by parseGlobals' caller)
			l, err := wasmcode.InstrLen(g[p:])
			if err != nil {
				break
			}
			op := g[p]
			p += l
			if op == wasmcode.OpEnd {
				break
			}
		}
	}
	out := appendU(nil, count+4)
	out = append(out, g...)
	for _, init := range []int64{yieldEvery, int64(rw.stackTop - maxStack), 0, 0} { // budget, floor, reason, oom
		out = append(out, 0x7f, 0x01, 0x41) // mutable i32 = i32.const init
		out = wasmcode.AppendSLEB(out, init)
		out = append(out, wasmcode.OpEnd)
	}
	for _, idx := range []uint32{rw.budgetGlobal, rw.floorGlobal, rw.reasonGlobal, rw.oomGlobal} {
		names = append(names, GlobalExportPrefix+strconv.FormatUint(uint64(idx), 10))
	}
	return out, names
}

// parseExports records the function exports by name.
func (rw *rewriter) parseExports(sec []byte) error {
	count, p, err := wasmcode.ULEB(sec)
	if err != nil {
		return err
	}
	for i := uint64(0); i < count; i++ {
		l, k, err := wasmcode.ULEB(sec[p:])
		if err != nil || uint64(len(sec)-p-k) < l+1 {
			return errors.New("quickjs: bad export section")
		}
		name := string(sec[p+k : p+k+int(l)])
		p += k + int(l)
		kind := sec[p]
		idx, k, err := wasmcode.ULEB(sec[p+1:])
		if err != nil {
			return errors.New("quickjs: bad export section")
		}
		p += 1 + k
		if kind == 0 {
			rw.exports[name] = uint32(idx)
		}
	}
	if p != len(sec) {
		return errors.New("quickjs: trailing bytes in the export section")
	}
	return nil
}

// appendGlobalExports adds an export of each global named in names.
func appendGlobalExports(sec []byte, names []string) ([]byte, error) {
	count, n, err := wasmcode.ULEB(sec)
	if err != nil {
		return nil, err
	}
	out := appendU(nil, count+uint64(len(names)))
	out = append(out, sec[n:]...)
	for _, name := range names {
		idx, _ := strconv.ParseUint(name[len(GlobalExportPrefix):], 10, 32)
		out = appendU(out, uint64(len(name)))
		out = append(out, name...)
		out = append(out, 0x03) // global
		out = appendU(out, idx)
	}
	return out, nil
}

// parseData records where the active data segments start and end, and the
// address of the out-of-memory message.
func (rw *rewriter) parseData(sec []byte) error {
	count, n, err := wasmcode.ULEB(sec)
	if err != nil {
		return err
	}
	rest := sec[n:]
	rw.dataStart = ^uint32(0)
	for i := uint64(0); i < count; i++ {
		if len(rest) < 3 || rest[0] != 0 || rest[1] != 0x41 {
			return errors.New("quickjs: unexpected data segment kind")
		}
		off, k, err := wasmcode.SLEB(rest[2:])
		if err != nil || off < 0 || len(rest) < 2+k+1 || rest[2+k] != wasmcode.OpEnd {
			return errors.New("quickjs: bad data segment offset")
		}
		rest = rest[2+k+1:]
		size, k, err := wasmcode.ULEB(rest)
		if err != nil || uint64(len(rest)-k) < size {
			return errors.New("quickjs: truncated data segment")
		}
		data := rest[k : k+int(size)]
		rest = rest[k+int(size):]
		rw.dataStart = min(rw.dataStart, uint32(off))
		rw.dataEnd = max(rw.dataEnd, uint32(off)+uint32(size))
		if rw.oomAddr == 0 {
			if j := oomMessageIndex(data); j >= 0 {
				rw.oomAddr = uint32(off) + uint32(j)
			}
		}
	}
	if len(rest) != 0 {
		return errors.New("quickjs: trailing bytes in the data section")
	}
	return nil
}

// appendVecItem appends item to the vector sec (count, items).
func appendVecItem(sec, item []byte) []byte {
	count, n, _ := wasmcode.ULEB(sec)
	out := appendU(make([]byte, 0, len(sec)+len(item)+4), count+1)
	out = append(out, sec[n:]...)
	return append(out, item...)
}

func appendU(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }
