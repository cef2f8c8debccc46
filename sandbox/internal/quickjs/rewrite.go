package quickjs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
)

// Rewrite makes these load-time changes to the QuickJS module, all in the
// module's own bytes so that wazero runs it like any other:
//
//   - one imported host function, env.jsFunctionProxy, with the type of a
//     QuickJS C function (JSCFunction: ctx i32, this i64, argc i32, argv i32
//     -> i64), appended to the imports, and a table slot (Layout.HostSlot)
//     holding it, which the host installs as the global __airlock_host with
//     JS_NewCFunction2. The WASI reactor build imports nothing but WASI, so
//     every JS-to-host call and every yield (below) goes through this one
//     function, whose implementation (Runtime.hostProxy) is ours. Adding an
//     import shifts the index of every defined function by one; the rewrite
//     renumbers every call, ref.func, export and element entry to match;
//   - a check of every write of the stack pointer against a floor held in a
//     global the rewrite adds (see stackguard.go);
//   - an interrupt check at every loop header. A global the rewrite adds
//     (the budget) counts loop iterations down; when it reaches zero the
//     guest resets it to yieldEvery and calls the host function with a null
//     context (the yield). The host answers 1 when the run must stop (its
//     context ended, or Instance.Interrupt was called: both host-side
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
//     normaliser that throws, in a table slot the rewrite adds
//     (Layout.DenySlot), which the host installs when it creates the
//     runtime, and a sticky out-of-memory flag;
//   - an export of every mutable global (named GlobalExportPrefix + its
//     index), the added ones included, so that a Snapshot can save and
//     restore them and the host can set the floor and read the flags.
//   - every call_indirect replaced by a call of an added function that
//     dispatches on the table slot with a br_table, and the table left
//     empty, so that instantiating fills no table (see indirect.go). The
//     slot numbers, C's function pointers, stay as they were; the two
//     slots added above are two more entries of the dispatchers.
//
// No word the host relies on to stop the guest (budget, floor, trap reason,
// interrupt request, deadline) is in linear memory, which the guest's code
// can write: the globals the rewrite adds are written only by the code it
// adds and by the host, and the interrupt request and deadline are host-side.
//
// DWARF sections, whose code offsets the changes invalidate, and the name
// section, whose function indices they shift, are dropped.

// GlobalExportPrefix starts the export name of every mutable global.
const GlobalExportPrefix = "airlock.global."

// yieldEvery is the number of loop iterations between two yields: about
// 0.1 ms of interpretation, so that a guest loop reaches a Go preemption
// point (and an interrupt check) that often, for the cost of one host call
// per 16384 iterations.
const yieldEvery = 1 << 14

// The host function the rewrite imports: the module's only non-WASI import.
const proxyImportModule, proxyImportName = "env", "jsFunctionProxy"

// wasiModule is the only module the original build may import from.
const wasiModule = "wasi_snapshot_preview1"

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
	// Budget, Floor, Reason, OOM and Top are the export names of the
	// globals the rewrite adds: the loop-iteration countdown, the lowest
	// stack pointer allowed, why the rewritten code trapped (Reason*
	// constants), whether QuickJS has thrown an out-of-memory error (1)
	// since instantiation, and the highest stack pointer allowed (the top
	// of the stack region NewInstance gives the engine, stackguard.go).
	Budget, Floor, Reason, OOM, Top string
	// JSONFloor is the export name of the lowest stack pointer the
	// JSON.stringify under way may reach, 0 when none is (jsondepth.go).
	JSONFloor string
	// LimitAddr and SpareLimit are the export names of the backtrace hook's
	// globals (backtrace.go): the address of QuickJS's stack_limit, 0 while
	// the hook is off, and the limit it lowers that to while an error is
	// made near it.
	LimitAddr, SpareLimit string
	// Backtraces is the number of calls of build_backtrace routed through
	// the hook.
	Backtraces int
	// DenySlot is the table slot (a C function pointer) of the normaliser
	// the rewrite adds (seal.go), HostSlot the one of the host function.
	// The rewritten module has no table: its indirect dispatchers hold the
	// slots (indirect.go).
	DenySlot, HostSlot uint32
	// StackSizeOffset is the offset in QuickJS's JSRuntime of its
	// stack_size field, which stack_top and stack_limit follow; the rewrite
	// reads it from the code of JS_SetMaxStackSize (stackguard.go).
	StackSizeOffset uint32
	// Data are the module's data segments, which the rewrite makes passive
	// so that instantiation does not write them: the host writes them into
	// a fresh memory, and a memory that starts as a snapshot's image
	// (linmem.Image) already holds them as the snapshot left them. Nil when
	// the code uses memory.init, and the segments stay active.
	Data []DataSegment
	// SnapshotSafe is set when linear memory and mutable globals are an
	// instance's whole mutable state: the code neither writes tables nor
	// drops data or element segments, and imports no mutable global.
	SnapshotSafe bool
}

// DataSegment is a data segment: bytes to write at Offset.
type DataSegment struct {
	Offset uint32
	Bytes  []byte
}

// section is one section of a module.
type section struct {
	id   byte
	body []byte
}

// funcType is a function type's parameter and result value types.
type funcType struct{ params, results []byte }

// The value types of the two functions the rewrite adds or imports.
var (
	// The normaliser: (JSContext*, const char* base, const char* name, void* opaque) char*.
	denyFuncType = funcType{params: []byte{0x7f, 0x7f, 0x7f, 0x7f}, results: []byte{0x7f}}
	// JSCFunction: (JSContext*, JSValueConst this, int argc, JSValueConst* argv) JSValue.
	hostFuncType = funcType{params: []byte{0x7f, 0x7e, 0x7f, 0x7f}, results: []byte{0x7e}}
)

// rewriter carries what the rewrite learns from the module and decides.
type rewriter struct {
	types           []funcType
	funcImports     uint32   // imported functions (before the rewrite's)
	funcTypes       []uint32 // type index of each defined function
	importedGlobals uint32
	mutableImports  uint32
	globals         uint32 // defined globals
	stackTop        uint32
	tableMin        uint32
	tableMax        uint32
	tableHasMax     bool
	exports         map[string]uint32 // function exports by name (original indices)
	dataStart       uint32
	memoryInit      bool // the code uses memory.init
	dataEnd         uint32
	oomAddr         uint32 // address of the "out of memory" message

	// Decided by the rewrite.
	budgetGlobal, floorGlobal, reasonGlobal, oomGlobal uint32
	topGlobal                                          uint32
	denyType, hostType                                 uint32
	addTypes                                           []funcType
	hostFunc                                           uint32   // function index of the import (new numbering)
	denyFunc                                           uint32   // function index of the normaliser (new numbering)
	dispatchType, dispatchFunc                         uint32   // the dispatcher's type and function index (new numbering)
	dispatchFns                                        []uint32 // original indices of exportNames (dispatch.go)
	throwRef, setMaxStack                              uint32   // original indices
	copyData, toObject, freeValue                      uint32   // original indices (spread.go)
	copyDataFound                                      bool
	backtrace                                          uint32 // build_backtrace's original index
	hasBacktrace                                       bool
	hookType, hookFunc                                 uint32 // the backtrace hook's type and function index (new numbering)
	limitAddrGlobal, spareLimitGlobal                  uint32
	jsonToStr, throwRange, stringify, overflowAddr     uint32 // jsondepth.go (original indices, an address)
	hasJSONToStr                                       bool
	jsonFloorGlobal                                    uint32

	// Indirect calls (indirect.go).
	elemSec       []byte               // the element section, as read
	indirectTypes []uint32             // types of the module's call_indirects, ascending
	indirect      []indirectDispatcher // one per indirectTypes entry
	indirectFunc  map[uint32]uint32    // type index -> its dispatcher's function index
}

// shift maps an original function index to the rewritten module's: the
// added import comes after the original ones and before every defined
// function.
func (rw *rewriter) shift(f uint64) uint64 {
	if f >= uint64(rw.funcImports) {
		return f + 1
	}
	return f
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
	rw := &rewriter{exports: map[string]uint32{}}
	seen := map[byte]bool{}
	for _, s := range secs {
		if s.id == 8 {
			return nil, lay, errors.New("quickjs: the module has a start function")
		}
		seen[s.id] = true
		var err error
		switch s.id {
		case 0:
			err = rw.parseNames(s.body)
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
			err = rw.checkElems(s.body)
			rw.elemSec = s.body
		case 10:
			err = rw.scanIndirect(s.body)
		case 11:
			err = rw.parseData(s.body)
		}
		if err != nil {
			return nil, lay, err
		}
	}
	for _, id := range []byte{1, 2, 3, 4, 6, 7, 9, 10, 11} {
		if !seen[id] {
			return nil, lay, fmt.Errorf("quickjs: the module lacks section %d", id)
		}
	}
	if rw.globals == 0 {
		return nil, lay, errors.New("quickjs: the module lacks globals")
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
		case 0: // custom: drop DWARF and the function names
			if nameLen, k, err := wasmcode.ULEB(body); err == nil && uint64(len(body)-k) >= nameLen {
				name := body[k : k+int(nameLen)]
				if bytes.HasPrefix(name, []byte(".debug")) || string(name) == "name" {
					continue
				}
			}
		case 1:
			for _, t := range rw.addTypes {
				item := append([]byte{0x60}, appendU(nil, uint64(len(t.params)))...)
				item = append(item, t.params...)
				item = appendU(item, uint64(len(t.results)))
				item = append(item, t.results...)
				body = appendVecItem(body, item)
			}
		case 2:
			body = appendVecItem(body, rw.hostImport())
		case 3:
			body = appendVecItem(body, appendU(nil, uint64(rw.denyType)))
			body = appendVecItem(body, appendU(nil, uint64(rw.dispatchType)))
			body = appendVecItem(body, appendU(nil, uint64(rw.hookType)))
			for _, d := range rw.indirect {
				body = appendVecItem(body, appendU(nil, uint64(d.typeIndex)))
			}
		case 4:
			body = rw.emptyTable()
		case 6:
			body, lay.Globals = rw.addedGlobals(body)
		case 7:
			if body, err = rw.exportSection(body, lay.Globals); err == nil {
				body = appendVecItem(body, rw.dispatchExportEntry())
			}
		case 9:
			body = []byte{0} // no segments: the indirect dispatchers hold the slots
		case 10:
			body, err = rw.code(body, &lay, &safe)
		case 11:
			body = appendVecItem(body, denyData())
			if !rw.memoryInit {
				body, lay.Data, err = passiveData(body)
			}
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
	if lay.StackWrites == 0 || lay.Loops == 0 || lay.OOMSites == 0 || lay.StackSizeOffset == 0 || lay.Backtraces == 0 {
		return nil, lay, fmt.Errorf("quickjs: unexpected code (%d stack writes, %d loops, %d out-of-memory sites, stack size at %d, %d backtrace calls)",
			lay.StackWrites, lay.Loops, lay.OOMSites, lay.StackSizeOffset, lay.Backtraces)
	}
	lay.StackTop = rw.stackTop
	lay.StackBase = rw.stackTop - wasmStackSize
	name := func(g uint32) string { return GlobalExportPrefix + strconv.FormatUint(uint64(g), 10) }
	lay.Budget, lay.Floor, lay.Reason, lay.OOM = name(rw.budgetGlobal), name(rw.floorGlobal), name(rw.reasonGlobal), name(rw.oomGlobal)
	lay.LimitAddr, lay.SpareLimit = name(rw.limitAddrGlobal), name(rw.spareLimitGlobal)
	lay.Top, lay.JSONFloor = name(rw.topGlobal), name(rw.jsonFloorGlobal)
	lay.DenySlot, lay.HostSlot = rw.tableMin, rw.tableMin+1
	lay.SnapshotSafe = safe && rw.mutableImports == 0
	return out, lay, nil
}

// plan picks the indices of what the rewrite adds and checks that the
// functions it uses exist with the expected types.
func (rw *rewriter) plan() error {
	g := rw.importedGlobals + rw.globals
	rw.budgetGlobal, rw.floorGlobal, rw.reasonGlobal, rw.oomGlobal = g, g+1, g+2, g+3
	rw.limitAddrGlobal, rw.spareLimitGlobal, rw.topGlobal, rw.jsonFloorGlobal = g+4, g+5, g+6, g+7
	var ok1, ok2 bool
	rw.throwRef, ok1 = rw.exports[throwRefExport]
	rw.setMaxStack, ok2 = rw.exports[setMaxStackExport]
	if !ok1 || !ok2 {
		return fmt.Errorf("quickjs: the module lacks %s or %s", throwRefExport, setMaxStackExport)
	}
	// JS_ThrowReferenceError(JSContext*, const char* fmt, va_list) JSValue.
	if t, ok := rw.funcType(rw.throwRef); !ok || !bytes.Equal(t.params, []byte{0x7f, 0x7f, 0x7f}) || !bytes.Equal(t.results, []byte{0x7e}) {
		return errors.New("quickjs: JS_ThrowReferenceError has an unexpected type")
	}
	if err := rw.planSpread(); err != nil {
		return err
	}
	if err := rw.planJSONDepth(); err != nil {
		return err
	}
	rw.denyType = rw.typeIndex(denyFuncType)
	rw.hostType = rw.typeIndex(hostFuncType)
	rw.hostFunc = rw.funcImports
	rw.denyFunc = rw.funcImports + 1 + uint32(len(rw.funcTypes))
	rw.dispatchType = rw.typeIndex(dispatchFuncType)
	rw.dispatchFunc = rw.denyFunc + 1
	rw.hookFunc = rw.dispatchFunc + 1
	if err := rw.planBacktrace(); err != nil {
		return err
	}
	var err error
	if rw.dispatchFns, err = rw.dispatchTargets(); err != nil {
		return err
	}
	if rw.oomAddr == 0 {
		return errors.New("quickjs: the module's data lacks the out-of-memory message")
	}
	if rw.dataStart < scratchAddr+scratchSize {
		return fmt.Errorf("quickjs: static data starts at %d, below the import message and scratch words", rw.dataStart)
	}
	if rw.tableHasMax && rw.tableMax != rw.tableMin {
		return errors.New("quickjs: the function table is growable")
	}
	return rw.planIndirect(rw.elemSec)
}

// typeIndex returns the index of the type t, planning to add it if the
// module lacks it.
func (rw *rewriter) typeIndex(t funcType) uint32 {
	for i, u := range rw.types {
		if bytes.Equal(t.params, u.params) && bytes.Equal(t.results, u.results) {
			return uint32(i)
		}
	}
	for i, u := range rw.addTypes {
		if bytes.Equal(t.params, u.params) && bytes.Equal(t.results, u.results) {
			return uint32(len(rw.types) + i)
		}
	}
	rw.addTypes = append(rw.addTypes, t)
	return uint32(len(rw.types) + len(rw.addTypes) - 1)
}

// hostImport is the import entry of the host function.
func (rw *rewriter) hostImport() []byte {
	b := appendU(nil, uint64(len(proxyImportModule)))
	b = append(b, proxyImportModule...)
	b = appendU(b, uint64(len(proxyImportName)))
	b = append(b, proxyImportName...)
	b = append(b, 0x00) // function
	return appendU(b, uint64(rw.hostType))
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
//		if (host(0, 0, 0, 0) != 0) { reason = ReasonInterrupt; unreachable }
//	}
//
// as a block that the common case leaves with one conditional branch:
// the decremented budget is kept in the scratch local $s rather than read
// back from the global, and a non-zero budget branches past the yield.
// The loop-header check is most of what the rewrite costs a running
// script (RATIONALE.md, "Why an interrupt check at loop headers, not
// close-on-context-done?"): QuickJS's interpreter passes a loop header
// once per bytecode.
func (rw *rewriter) appendLoopCheck(dst []byte, scratch uint32) []byte {
	b := appendU(nil, uint64(rw.budgetGlobal))
	s := appendU(nil, uint64(scratch))
	dst = append(dst, 0x02, 0x40)                   // block
	dst = append(append(dst, 0x23), b...)           //   global.get budget
	dst = append(dst, 0x41, 0x01, 0x6b)             //   i32.const 1; i32.sub
	dst = append(append(dst, 0x22), s...)           //   local.tee s
	dst = append(append(dst, 0x24), b...)           //   global.set budget
	dst = append(append(dst, 0x20), s...)           //   local.get s
	dst = append(dst, 0x0d, 0x00, 0x41)             //   br_if 0; i32.const
	dst = wasmcode.AppendSLEB(dst, yieldEvery)      //     yieldEvery
	dst = append(append(dst, 0x24), b...)           //   global.set budget
	dst = append(dst, 0x41, 0x00, 0x42, 0x00, 0x41) //   i32.const 0; i64.const 0; i32.const
	dst = append(dst, 0x00, 0x41, 0x00, 0x10)       //   0; i32.const 0; call
	dst = appendU(dst, uint64(rw.hostFunc))
	dst = append(dst, 0x50, 0x0d, 0x00) //   i64.eqz; br_if 0
	dst = rw.appendTrap(dst, ReasonInterrupt)
	return append(dst, 0x0b) // end
}

// code rewrites every function body of the code section and appends the
// normaliser's and the dispatcher's. It clears *safe when an instruction changes instance state
// outside memory and globals.
func (rw *rewriter) code(sec []byte, lay *Layout, safe *bool) ([]byte, error) {
	count, n, err := wasmcode.ULEB(sec)
	if err != nil {
		return nil, err
	}
	if count != uint64(len(rw.funcTypes)) {
		return nil, errors.New("quickjs: the code and function sections disagree")
	}
	out := appendU(make([]byte, 0, len(sec)+len(sec)/4), count+3+uint64(len(rw.indirect)))
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
	out = append(out, deny...)
	dispatch := rw.dispatchBody()
	out = appendU(out, uint64(len(dispatch)))
	out = append(out, dispatch...)
	hook := rw.hookBody()
	out = appendU(out, uint64(len(hook)))
	out = append(out, hook...)
	for i := range rw.indirect {
		b := rw.indirect[i].body()
		out = appendU(out, uint64(len(b)))
		out = append(out, b...)
	}
	return out, nil
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
	scratch := uint32(locals) // the local the checks add, if needed
	needScratch := false
	isSetMaxStack := rw.funcImports+i == rw.setMaxStack
	isCopyData := rw.funcImports+i == rw.copyData
	switch rw.funcImports + i { // jsondepth.go
	case rw.jsonToStr:
		code = rw.appendJSONDepthPrologue(code)
	case rw.stringify:
		code = rw.appendStringifyPrologue(code)
	}
	if isCopyData { // spread.go: the result in the scratch local, the object in one more
		code = rw.appendSpreadPrologue(code, scratch+1, scratch)
		needScratch = true
	}
	var window [3]instr // the last instructions, for the stack-field pattern
	var sizeStore, limitStore []uint32
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
		case 0x10, 0x12, 0xd2: // call, return_call, ref.func: renumbered
			f, _, _ := wasmcode.ULEB(ins[1:])
			if f >= uint64(rw.funcImports)+uint64(len(rw.funcTypes)) {
				return nil, nil, fmt.Errorf("%w: function %d out of range", wasmcode.ErrBadCode, f)
			}
			if rw.hasBacktrace && f == uint64(rw.backtrace) {
				// build_backtrace is called (or referenced) as the hook
				// (backtrace.go), which has its type.
				code = appendU(append(code, op), uint64(rw.hookFunc))
				lay.Backtraces++
			} else {
				code = appendU(append(code, op), rw.shift(f))
			}
		case 0x11: // call_indirect: a call of its type's dispatcher (indirect.go)
			t, _, _ := wasmcode.ULEB(ins[1:])
			d, ok := rw.indirectFunc[uint32(t)]
			if !ok {
				return nil, nil, fmt.Errorf("%w: call_indirect of type %d unplanned", wasmcode.ErrBadCode, t)
			}
			code = appendU(append(code, 0x10), uint64(d))
		case wasmcode.OpLoop:
			code = append(code, ins...)
			code = rw.appendLoopCheck(code, scratch)
			needScratch = true
			lay.Loops++
		case 0x41: // i32.const
			if v, _, _ := wasmcode.SLEB(ins[1:]); v == int64(rw.oomAddr) && throwsOOM(fn[q+l:]) {
				code = rw.appendOOMFlag(code)
				lay.OOMSites++
			}
			code = append(code, ins...)
		default:
			code = append(code, ins...)
			// scanIndirect refused every table instruction but call_indirect.
			if op == 0xfc {
				switch sub, _, _ := wasmcode.ULEB(ins[1:]); sub {
				case 8: // memory.init: it must keep trapping on the (dropped) active segments
					rw.memoryInit = true
				case 9: // data.drop
					*safe = false
				}
			}
		}
		if isSetMaxStack {
			copy(window[:], window[1:])
			window[len(window)-1] = instr(ins)
			if off, ok := storeOffset(window, []byte{0x20, 0x01}); ok { // rt->stack_size = stack_size
				sizeStore = append(sizeStore, off)
			}
			if off, ok := storeOffset(window, []byte{0x41, 0x00}); ok { // rt->stack_limit = 0
				limitStore = append(limitStore, off)
			}
		}
		last = op
		q += l
	}
	if last != wasmcode.OpEnd {
		return nil, nil, fmt.Errorf("%w: does not end with end", wasmcode.ErrBadCode)
	}
	if isSetMaxStack {
		// JS_SetMaxStackSize(rt, size) stores size into stack_size and, in
		// the WASI build, 0 into stack_limit, two words further on.
		if len(sizeStore) != 1 || len(limitStore) != 1 || limitStore[0] != sizeStore[0]+8 {
			return nil, nil, fmt.Errorf("JS_SetMaxStackSize does not store the stack fields as expected (%v, %v)", sizeStore, limitStore)
		}
		lay.StackSizeOffset = sizeStore[0]
	}
	if needScratch {
		added := uint64(1)
		if isCopyData {
			added++
		}
		body = appendU(body, groups+added)
		body = append(body, fn[k:p]...)
		body = append(body, 0x01, 0x7f) // one i32
		if isCopyData {
			body = append(body, 0x01, 0x7e) // one i64
		}
	} else {
		body = append(body, fn[:p]...)
	}
	return append(body, code...), code, nil
}

// storeOffset matches, in w, `local.get 0; value; i32.store offset=off`:
// a store of value into a field of the struct the function's first
// parameter points to.
func storeOffset(w [3]instr, value []byte) (uint32, bool) {
	if len(w[0]) == 0 || !bytes.Equal(w[0], []byte{0x20, 0x00}) || !bytes.Equal(w[1], value) || w[2][0] != 0x36 {
		return 0, false
	}
	align, k, err := wasmcode.ULEB(w[2][1:])
	if err != nil || align&0x40 != 0 {
		return 0, false
	}
	off, _, err := wasmcode.ULEB(w[2][1+k:])
	return uint32(off), err == nil && off > 0 && off < 1<<16
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

// emptyTable returns the table section with the table left without slots:
// the indirect dispatchers hold what they held (indirect.go).
func (rw *rewriter) emptyTable() []byte {
	if rw.tableHasMax {
		return []byte{1, 0x70, 1, 0, 0}
	}
	return []byte{1, 0x70, 0, 0}
}

// checkElems checks that the element section holds only active segments
// of function indices into table 0 at constant offsets, the one form
// elemSection renumbers.
func (rw *rewriter) checkElems(sec []byte) error {
	_, err := rw.elems(sec, nil)
	return err
}

// elems walks the element section; with out non-nil it appends the
// section to it with every function index renumbered.
func (rw *rewriter) elems(sec, out []byte) ([]byte, error) {
	count, p, err := wasmcode.ULEB(sec)
	if err != nil {
		return nil, err
	}
	out = appendU(out, count)
	for i := uint64(0); i < count; i++ {
		if p+2 >= len(sec) || sec[p] != 0 || sec[p+1] != 0x41 {
			return nil, errors.New("quickjs: unexpected element segment kind")
		}
		_, k, err := wasmcode.SLEB(sec[p+2:])
		if err != nil || p+2+k >= len(sec) || sec[p+2+k] != wasmcode.OpEnd {
			return nil, errors.New("quickjs: bad element segment offset")
		}
		out = append(out, sec[p:p+2+k+1]...)
		p += 2 + k + 1
		n, k, err := wasmcode.ULEB(sec[p:])
		if err != nil {
			return nil, err
		}
		out = appendU(out, n)
		p += k
		for j := uint64(0); j < n; j++ {
			f, k, err := wasmcode.ULEB(sec[p:])
			if err != nil {
				return nil, err
			}
			if f >= uint64(rw.funcImports)+uint64(len(rw.funcTypes)) {
				return nil, errors.New("quickjs: element segment names an unknown function")
			}
			p += k
			if out != nil && rw.hasBacktrace && f == uint64(rw.backtrace) {
				out = appendU(out, uint64(rw.hookFunc)) // backtrace.go
			} else {
				out = appendU(out, rw.shift(f))
			}
		}
	}
	if p != len(sec) {
		return nil, errors.New("quickjs: trailing bytes in the element section")
	}
	return out, nil
}

// parseImports checks that the module imports from WASI only and counts
// the imported functions and globals.
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
		if mod != wasiModule {
			return fmt.Errorf("quickjs: the module imports %s.%s; only WASI is expected", mod, field)
		}
		kind := sec[p]
		p++
		ok := false
		switch kind {
		case 0:
			t, k, err := wasmcode.ULEB(sec[p:])
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
	out := appendU(nil, count+8)
	out = append(out, g...)
	// budget, floor, reason, oom, limitAddr, spareLimit, top, jsonFloor:
	// until NewInstance moves the stack to a region of its own, the stack
	// is wasm-ld's.
	for _, init := range []int64{yieldEvery, int64(rw.stackTop - (wasmStackSize - stackMargin)), 0, 0, 0, 0, int64(rw.stackTop), 0} {
		out = append(out, 0x7f, 0x01, 0x41) // mutable i32 = i32.const init
		out = wasmcode.AppendSLEB(out, init)
		out = append(out, wasmcode.OpEnd)
	}
	for _, idx := range []uint32{rw.budgetGlobal, rw.floorGlobal, rw.reasonGlobal, rw.oomGlobal, rw.limitAddrGlobal, rw.spareLimitGlobal, rw.topGlobal, rw.jsonFloorGlobal} {
		names = append(names, GlobalExportPrefix+strconv.FormatUint(uint64(idx), 10))
	}
	return out, names
}

// parseExports records the function exports by name.
func (rw *rewriter) parseExports(sec []byte) error {
	_, _, err := rw.exportEntries(sec, nil)
	return err
}

// exportSection returns the export section with every function index
// renumbered and an export added for each global named in names.
func (rw *rewriter) exportSection(sec []byte, names []string) ([]byte, error) {
	entries, kept, err := rw.exportEntries(sec, []byte{})
	if err != nil {
		return nil, err
	}
	out := appendU(nil, kept+uint64(len(names)))
	out = append(out, entries...)
	for _, name := range names {
		idx, _ := strconv.ParseUint(name[len(GlobalExportPrefix):], 10, 32)
		out = appendU(out, uint64(len(name)))
		out = append(out, name...)
		out = append(out, 0x03) // global
		out = appendU(out, idx)
	}
	return out, nil
}

// exportEntries walks the export section's entries; with out non-nil it
// appends them to it, function indices renumbered.
func (rw *rewriter) exportEntries(sec, out []byte) ([]byte, uint64, error) {
	count, p, err := wasmcode.ULEB(sec)
	if err != nil {
		return nil, 0, err
	}
	kept := uint64(0)
	for i := uint64(0); i < count; i++ {
		l, k, err := wasmcode.ULEB(sec[p:])
		if err != nil || uint64(len(sec)-p-k) < l+1 {
			return nil, 0, errors.New("quickjs: bad export section")
		}
		name := string(sec[p+k : p+k+int(l)])
		entry := sec[p : p+k+int(l)]
		p += k + int(l)
		kind := sec[p]
		idx, k, err := wasmcode.ULEB(sec[p+1:])
		if err != nil {
			return nil, 0, errors.New("quickjs: bad export section")
		}
		p += 1 + k
		if kind == 0 {
			if out == nil {
				rw.exports[name] = uint32(idx)
			}
			idx = rw.shift(idx)
			if !hostExports[name] {
				continue // the host calls it through the dispatcher, or not at all
			}
		}
		if out != nil {
			out = append(out, entry...)
			out = appendU(append(out, kind), idx)
			kept++
		}
	}
	if p != len(sec) {
		return nil, 0, errors.New("quickjs: trailing bytes in the export section")
	}
	return out, kept, nil
}

// hostExports are the module's function exports the host looks up by name
// (NewInstance); the rewrite drops the others, which it calls through the
// dispatcher (dispatch.go) or not at all. wazero walks a module's exports
// each time it instantiates it: the build's 290 cost a chain start some
// 25k instructions.
var hostExports = map[string]bool{
	"_initialize": true, "JS_NewRuntime": true, "JS_SetMemoryLimit": true, "JS_NewContext": true,
	"JS_SetModuleLoaderFunc": true, "JS_NewNumber": true, "JS_NewCFunction2": true, "JS_GetGlobalObject": true,
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
		if rw.overflowAddr == 0 {
			if j := overflowMessageIndex(data); j >= 0 {
				rw.overflowAddr = uint32(off) + uint32(j)
			}
		}
	}
	if len(rest) != 0 {
		return errors.New("quickjs: trailing bytes in the data section")
	}
	return nil
}

// passiveData turns the active data segments of the data section sec
// into passive ones and returns them.
func passiveData(sec []byte) ([]byte, []DataSegment, error) {
	count, n, err := wasmcode.ULEB(sec)
	if err != nil {
		return nil, nil, err
	}
	out := appendU(make([]byte, 0, len(sec)), count)
	segs := make([]DataSegment, 0, count)
	rest := sec[n:]
	for i := uint64(0); i < count; i++ {
		if len(rest) < 3 || rest[0] != 0 || rest[1] != 0x41 {
			return nil, nil, errors.New("quickjs: unexpected data segment kind")
		}
		off, k, err := wasmcode.SLEB(rest[2:])
		if err != nil || off < 0 || off > math.MaxUint32 || len(rest) < 2+k+1 || rest[2+k] != wasmcode.OpEnd {
			return nil, nil, errors.New("quickjs: bad data segment offset")
		}
		rest = rest[2+k+1:]
		size, k, err := wasmcode.ULEB(rest)
		if err != nil || uint64(len(rest)-k) < size {
			return nil, nil, errors.New("quickjs: truncated data segment")
		}
		segs = append(segs, DataSegment{Offset: uint32(off), Bytes: rest[k : k+int(size)]})
		out = append(out, 0x01) // passive: no memory, no offset
		out = append(out, rest[:k+int(size)]...)
		rest = rest[k+int(size):]
	}
	if len(rest) != 0 {
		return nil, nil, errors.New("quickjs: trailing bytes in the data section")
	}
	return out, segs, nil
}

// appendVecItem appends item to the vector sec (count, items).
func appendVecItem(sec, item []byte) []byte {
	count, n, _ := wasmcode.ULEB(sec)
	out := appendU(make([]byte, 0, len(sec)+len(item)+4), count+1)
	out = append(out, sec[n:]...)
	return append(out, item...)
}

func appendU(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }
