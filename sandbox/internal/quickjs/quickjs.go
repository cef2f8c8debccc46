// Package quickjs drives QuickJS-NG, as the upstream project builds it for
// WASI (the reactor build, embedded by
// github.com/aperturerobotics/go-quickjs-wasi-reactor), directly through
// wazero and QuickJS's own C API, so that the sandbox decides the WASI
// calls the engine may make (none that reach a file, the environment or the
// process), the clock, the memory ceiling, the compilation cache and how a
// runaway guest is stopped. See RATIONALE.md ("Why QuickJS-NG's own WASI
// reactor build, driven through its C API?").
//
// The guest talks to the host through one function the load-time rewrite
// imports (Rewrite), env.jsFunctionProxy, which this package installs as
// the QuickJS C function __airlock_host and which hands every call to the
// Handler found in the call's context.
package quickjs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"sync"
	"sync/atomic"
	"time"

	quickjswasi "github.com/aperturerobotics/go-quickjs-wasi-reactor"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/airlockrt/airlock/sandbox/internal/linmem"
)

// wasmBytes is QuickJS-NG's WASI reactor build (qjs-wasi-reactor.wasm,
// MIT), as github.com/aperturerobotics/go-quickjs-wasi-reactor embeds it;
// go.sum pins its checksum.
var wasmBytes = quickjswasi.QuickJSWASM

// EngineVersion is the QuickJS-NG release the module is built from.
const EngineVersion = quickjswasi.Version

// Wasm returns the embedded QuickJS-NG module. The slice must not be modified.
func Wasm() []byte { return wasmBytes }

// PageSize is the WebAssembly page size in bytes.
const PageSize = 65536

// Module is the QuickJS module as Rewrite leaves it.
type Module struct {
	wasm   []byte
	layout Layout
}

// LoadModule rewrites the embedded QuickJS module. It costs a few
// milliseconds; do it once per engine.
func LoadModule() (*Module, error) {
	b, lay, err := Rewrite(wasmBytes)
	if err != nil {
		return nil, err
	}
	return &Module{wasm: b, layout: lay}, nil
}

// MaxStackBytes is the largest stack a script can be given: the engine's
// stack region (StackRegion) less a margin for the C functions that run
// below the last checked frame.
func (m *Module) MaxStackBytes() uint32 { return maxStack }

// Config configures a Runtime. The zero value is not usable: Module and
// Cache are required.
type Config struct {
	// Module is the module to compile.
	Module *Module
	// Cache is the wazero compilation cache shared by every Runtime of an
	// engine, so that the 1 MiB module is compiled once per process.
	Cache wazero.CompilationCache
	// MemoryLimitPages caps each instance's linear memory, in 64 KiB pages.
	MemoryLimitPages uint32
	// Walltime, when non-nil, is the guest's wall and monotonic clock; nil
	// gives every instance a deterministic clock that behaves like wazero's
	// default (wall time 2022-01-01T00:00:00Z and monotonic time 0 at the
	// first reading, each advancing 1 ms per reading).
	Walltime func() time.Time
	// Rand, when non-nil, is the guest's random source (WASI random_get); it
	// must be safe for concurrent use. Nil gives every instance the same
	// deterministic source as wazero's default.
	Rand io.Reader
}

// Runtime is one wazero runtime with the QuickJS module compiled into it and
// the host modules it imports. It is safe for concurrent use.
type Runtime struct {
	mod      *Module
	wrt      wazero.Runtime
	compiled wazero.CompiledModule
	modCfg   wazero.ModuleConfig
	walltime func() time.Time
	rand     io.Reader
	mems     *linmem.Pool
	// instances maps each live instance's module to it, for the yield.
	instances sync.Map // api.Module -> *Instance
}

// Recycled linear memories (see linmem.Pool): enough for the instances a
// busy engine closes and creates at once, each keeping what an initialised
// instance and a small script use.
const (
	memoryPoolSize  = 16
	memoryKeepBytes = 4 << 20
)

// NewRuntime compiles (or loads from cfg.Cache) the QuickJS module.
//
// The runtime does not use wazero's close-on-context-done: a guest call is
// stopped at its next loop header once the context passed to the Instance
// method ends or Instance.Interrupt is called (see Rewrite); the context also
// carries the Handler (see WithHandler).
func NewRuntime(ctx context.Context, cfg Config) (*Runtime, error) {
	rc := wazero.NewRuntimeConfig().
		WithCompilationCache(cfg.Cache).
		WithMemoryLimitPages(cfg.MemoryLimitPages)
	wrt := wazero.NewRuntimeWithConfig(ctx, rc)
	r := &Runtime{mod: cfg.Module, wrt: wrt, walltime: cfg.Walltime, rand: cfg.Rand,
		mems: linmem.NewPool(memoryPoolSize, memoryKeepBytes)}
	ok := false
	defer func() {
		if !ok {
			_ = wrt.Close(ctx)
			r.mems.Close()
		}
	}()
	if err := r.instantiateWASI(ctx, wrt); err != nil {
		return nil, err
	}
	_, err := wrt.NewHostModuleBuilder(proxyImportModule).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(r.hostProxy),
			[]api.ValueType{api.ValueTypeI32, api.ValueTypeI64, api.ValueTypeI32, api.ValueTypeI32},
			[]api.ValueType{api.ValueTypeI64}).
		Export(proxyImportName).
		Instantiate(ctx)
	if err != nil {
		return nil, fmt.Errorf("quickjs: instantiating host module: %w", err)
	}
	compiled, err := wrt.CompileModule(ctx, cfg.Module.wasm)
	if err != nil {
		return nil, fmt.Errorf("quickjs: compiling module: %w", err)
	}
	if compiled.ExportedFunctions()[dispatchExport] == nil {
		return nil, fmt.Errorf("quickjs: module lacks export %s", dispatchExport)
	}
	// The WASI host (wasi.go) gives the guest no file, directory, argument
	// or environment variable; its clocks are the instance's (sysState).
	r.compiled = compiled
	// Nothing reads wazero's own random source (random_get is wasi.go's):
	// a shared one spares every instance the 5 KiB source wazero would
	// make for it.
	r.modCfg = wazero.NewModuleConfig().WithName("").WithStartFunctions().WithRandSource(unusedRand{})
	ok = true
	return r, nil
}

// Close closes the runtime and every instance it created. It may be called
// while instances are in use on other goroutines: a guest running then
// traps at its next yield, and each instance keeps its linear memory, which
// nothing else can get, until its own Close.
func (r *Runtime) Close(ctx context.Context) error {
	err := r.wrt.Close(ctx)
	r.mems.Close()
	return err
}

// unusedRand is the random source of wazero's system context, which
// nothing reads.
type unusedRand struct{}

func (unusedRand) Read([]byte) (int, error) {
	return 0, errors.New("quickjs: wazero's random source is not the guest's")
}

// ErrGuest is wrapped by Instance methods when a wasm call failed: a trap
// (also the one Interrupt causes) or a Handler that stopped the guest.
var ErrGuest = errors.New("quickjs: guest call failed")

// Instance is one QuickJS runtime and context in a fresh wasm instance. It is
// not safe for concurrent use, except for Interrupt.
type Instance struct {
	layout Layout
	mod    api.Module
	mem    api.Memory
	lin    *linmem.Memory
	rtm    *Runtime
	// The globals Rewrite adds: loop-iteration countdown, stack floor, trap
	// reason and out-of-memory flag, and the backtrace hook's address of
	// QuickJS's stack limit and the limit it lowers that to.
	budget, floor, reason, oom api.MutableGlobal
	limitAddr, spareLimit      api.MutableGlobal
	// top is the highest stack pointer allowed: the top of the stack
	// region (stackguard.go).
	top api.MutableGlobal
	// sp is the C stack pointer (global 0), which AppendJSON reads.
	sp        api.Global
	stop      atomic.Bool // set by Interrupt
	sys       *sysState
	rt, ctx   uint64            // JSRuntime*, JSContext*
	undefined uint64            // the JSValue encoding of undefined
	compiled  map[string]uint32 // code -> its JSFunctionBytecode*
	funcs     map[string]uint64 // global name -> the function it holds (GlobalFunc)
	atoms     map[string]uint32 // string -> its atom (Atom)
	fns       exports
	closed    bool
	depth     int    // guest calls in progress (re-entrant ones nest)
	pinned    bool   // lin is pinned (until Close and the last call)
	heapLimit uint64 // the QuickJS heap limit (0 = none)
	idler     idler  // Idle (idle.go)

	// sharedMaps is set while compiled, funcs and atoms are a Snapshot's,
	// which Restore shares instead of copying: ownMaps copies them before
	// the first write.
	sharedMaps bool
	// finished is set by Finish; only the goroutine running the guest
	// reads and writes it.
	finished bool
}

// Headroom is how much linear memory an instance may use beyond its heap
// limit: the engine's static data, its stack region (StackRegion) and the
// unwritten spacer that keeps the region above minStackBase, and the
// prelude's heap, about 5 MiB together. An instance's linear memory is capped at heap limit +
// Headroom, whatever the runtime's (larger) page limit, and that cap is
// what binds: QuickJS's WASI build counts no allocation's size toward
// JS_SetMemoryLimit (it cannot ask the allocator for one), so a script
// can hold about its heap limit plus 2 MiB.
const Headroom = 4<<20 + StackRegion + minStackBase

// MemLimit is the linear-memory cap of an instance with heapLimit.
func MemLimit(heapLimit uint64) uint64 { return memLimit(heapLimit) }

// memLimit is the linear-memory cap of an instance with heapLimit.
func memLimit(heapLimit uint64) uint64 {
	if heapLimit == 0 {
		return 0
	}
	return (heapLimit + Headroom + PageSize - 1) / PageSize * PageSize
}

// fnID names an export the host calls (exportNames).
type fnID int

const (
	fnMalloc fnID = iota
	fnFree
	fnEval
	fnEvalFunction
	fnDupValue
	fnToCString
	fnFreeCString
	fnNewString
	fnFreeValue
	fnHasException
	fnGetException
	fnExecutePendingJob
	fnGetPropertyStr
	fnSetPropertyStr
	fnPromiseState
	fnPromiseResult
	fnGetGlobalObject
	fnParseJSON
	fnCall
	fnNewAtomLen
	numFns
)

// exportNames are the module's exports behind the fnIDs.
var exportNames = [numFns]string{"malloc", "free", "JS_Eval", "JS_EvalFunction", "JS_DupValue", "JS_ToCStringLen2", "JS_FreeCString", "JS_NewStringLen", "JS_FreeValue", "JS_HasException", "JS_GetException", "JS_ExecutePendingJob", "JS_GetPropertyStr", "JS_SetPropertyStr",
	"JS_PromiseState", "JS_PromiseResult", "JS_GetGlobalObject", "JS_ParseJSON", "JS_Call", "JS_NewAtomLen"}

// exports calls the exports of exportNames through the dispatcher
// (dispatch.go), with one api.Function per call depth, each made at its
// first use: a run needs two, one for the call that runs JavaScript and one
// for the calls a Handler makes into the guest meanwhile.
//
// wazero never shrinks the call stack of an api.Function, and the one that
// runs JavaScript grows to ~0.1 MiB. An instance that makes no call for
// idleRelease, as a chain waiting for a tool does, lets its api.Functions
// go: the next call makes them again, and grows the stack again, at a cost
// (~0.2 MiB allocated, some 10–20 µs) small next to the wait.
type exports struct {
	mod api.Module
	mu  sync.Mutex // guards depth[*].f: the idle timer clears them
	// depth holds what each call depth uses, nil until used.
	depth []*callDepth
	idle  *time.Timer // clears depth[*].f; nil until the first call
}

// callDepth is the api.Function of one call depth (nil until used) and the
// parameter and result stack of its calls.
type callDepth struct {
	f     api.Function
	stack [1 + dispatchArgs]uint64
}

// idleRelease is how long an instance makes no guest call before it lets
// its api.Functions, and their call stacks, go.
const idleRelease = 20 * time.Millisecond

// call calls export id with args (at most dispatchArgs) from a host call
// nested depth deep in guest calls (0 for none).
func (e *exports) call(ctx context.Context, depth int, id fnID, args ...uint64) (uint64, error) {
	e.mu.Lock()
	for len(e.depth) <= depth {
		e.depth = append(e.depth, nil)
	}
	d := e.depth[depth]
	if d == nil {
		d = &callDepth{}
		e.depth[depth] = d
	}
	f := d.f
	if f == nil {
		f = e.mod.ExportedFunction(dispatchExport)
		d.f = f
	}
	e.mu.Unlock()
	d.stack = [1 + dispatchArgs]uint64{uint64(id)}
	copy(d.stack[1:], args)
	err := f.CallWithStack(ctx, d.stack[:])
	if depth == 0 {
		if e.idle == nil {
			e.idle = time.AfterFunc(idleRelease, e.release)
		} else {
			e.idle.Reset(idleRelease)
		}
	}
	return d.stack[0], err
}

// release lets every api.Function go. A call in progress keeps its own
// until it returns.
func (e *exports) release() {
	e.mu.Lock()
	for _, d := range e.depth {
		if d != nil {
			d.f = nil
		}
	}
	e.mu.Unlock()
}

// close stops the idle timer and lets every api.Function go.
func (e *exports) close() {
	if e.idle != nil {
		e.idle.Stop()
	}
	e.release()
}

// instantiate instantiates the module, without initialising QuickJS, with
// sys as its clock and random source and its linear memory capped for
// heapLimit (memLimit).
func (r *Runtime) instantiate(ctx context.Context, sys *sysState, heapLimit uint64) (_ *Instance, err error) {
	in, _, err := r.instantiateFrom(ctx, sys, heapLimit, nil)
	return in, err
}

// instantiateFrom is instantiate with a memory that starts as img, where
// it can (fromImage): wazero has then written the data segments over it.
func (r *Runtime) instantiateFrom(ctx context.Context, sys *sysState, heapLimit uint64, img *linmem.Image) (_ *Instance, fromImage bool, err error) {
	var lin *linmem.Memory
	ctx = experimental.WithMemoryAllocator(ctx, r.mems.AllocatorFrom(img, func(m *linmem.Memory, fi bool) { lin, fromImage = m, fi }, memLimit(heapLimit)))
	mod, err := r.wrt.InstantiateModule(ctx, r.compiled, r.modCfg)
	if err != nil {
		return nil, false, fmt.Errorf("quickjs: instantiating: %w", err)
	}
	in := &Instance{layout: r.mod.layout, rtm: r, mod: mod, mem: mod.Memory(), lin: lin, sys: sys, heapLimit: heapLimit}
	if lin == nil {
		_ = mod.Close(context.WithoutCancel(ctx))
		return nil, false, errors.New("quickjs: the instance's memory was not allocated by linmem")
	}
	// The memory stays this instance's until Close, even if the module is
	// closed under it (Runtime.Close): see linmem.Memory.Free.
	lin.Pin()
	in.pinned = true
	r.instances.Store(mod, in)
	in.fns = exports{mod: mod}
	if !fromImage {
		// The segments are passive (Layout.Data): write them, as
		// instantiation would have.
		for _, d := range in.layout.Data {
			if !in.mem.Write(d.Offset, d.Bytes) {
				err = fmt.Errorf("quickjs: data segment at %d out of bounds", d.Offset)
			}
		}
	}
	global := func(name string) api.MutableGlobal {
		g, _ := mod.ExportedGlobal(name).(api.MutableGlobal)
		if g == nil && err == nil {
			err = fmt.Errorf("quickjs: module lacks the global export %s", name)
		}
		return g
	}
	in.budget, in.floor, in.reason, in.oom = global(in.layout.Budget), global(in.layout.Floor),
		global(in.layout.Reason), global(in.layout.OOM)
	in.limitAddr, in.spareLimit = global(in.layout.LimitAddr), global(in.layout.SpareLimit)
	in.top = global(in.layout.Top)
	if len(in.layout.Globals) > 0 && in.layout.Globals[0] == GlobalExportPrefix+"0" {
		in.sp = mod.ExportedGlobal(in.layout.Globals[0])
	}
	if err != nil {
		in.Close(ctx)
		return nil, false, err
	}
	return in, fromImage, nil
}

// NewInstance instantiates the module and creates a QuickJS runtime whose
// heap is capped at heapLimit bytes (0 = none; at most 4 GiB less a page),
// with one context holding the standard intrinsics and the host function
// installed as the global __airlock_host.
func (r *Runtime) NewInstance(ctx context.Context, heapLimit uint64) (_ *Instance, err error) {
	if heapLimit > math.MaxUint32-PageSize {
		return nil, fmt.Errorf("quickjs: heap limit %d does not fit the 32-bit engine", heapLimit)
	}
	in, err := r.instantiate(ctx, r.newSysState(), heapLimit)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			in.Close(ctx)
		}
	}()
	mod := in.mod
	get := func(name string) api.Function {
		f := mod.ExportedFunction(name)
		if f == nil && err == nil {
			err = fmt.Errorf("quickjs: module lacks export %s", name)
		}
		return f
	}
	initialize, newRuntime, setMemoryLimit, newContext := get("_initialize"), get("JS_NewRuntime"), get("JS_SetMemoryLimit"), get("JS_NewContext")
	setLoader, newNumber, newCFunction, global := get("JS_SetModuleLoaderFunc"), get("JS_NewNumber"), get("JS_NewCFunction2"), get("JS_GetGlobalObject")
	if err != nil {
		return nil, err
	}
	// The reactor's constructors (libc, QuickJS's static state) run once.
	if _, err := in.call1(ctx, initialize); err != nil {
		return nil, err
	}
	if err := in.moveStack(ctx); err != nil {
		return nil, err
	}
	if in.rt, err = in.call1(ctx, newRuntime); err != nil {
		return nil, err
	}
	if in.rt == 0 {
		return nil, errors.New("quickjs: JS_NewRuntime failed")
	}
	// Before anything else: every import fails (seal.go).
	if err := in.seal(ctx, setLoader); err != nil {
		return nil, err
	}
	if heapLimit > 0 {
		if _, err := in.call1(ctx, setMemoryLimit, in.rt, heapLimit); err != nil {
			return nil, err
		}
	}
	// JS_NewContext adds the standard intrinsics only (ECMAScript, plus
	// performance, queueMicrotask and DOMException); the std and os
	// helpers of quickjs-libc are never added.
	if in.ctx, err = in.call1(ctx, newContext, in.rt); err != nil {
		return nil, err
	}
	if in.ctx == 0 {
		return nil, errors.New("quickjs: JS_NewContext failed")
	}
	// The host proxy returns call ids as int JSValues built without a call;
	// check that the build encodes them as expected (NaN-boxing, tag 0).
	if v, err := in.call1(ctx, newNumber, in.ctx, api.EncodeF64(12345)); err != nil || v != 12345 {
		return nil, fmt.Errorf("quickjs: unexpected int encoding %#x (%v)", v, err)
	}
	in.undefined = jsUndefined
	name, err := in.cString(ctx, "__airlock_host")
	if err != nil {
		return nil, err
	}
	fn, err := in.call1(ctx, newCFunction, in.ctx, uint64(in.layout.HostSlot), name, 0, 0, 0) // JS_CFUNC_generic
	if err != nil {
		return nil, err
	}
	g, err := in.call1(ctx, global, in.ctx)
	if err != nil {
		return nil, err
	}
	// JS_SetPropertyStr takes ownership of fn.
	if _, err := in.call(ctx, fnSetPropertyStr, in.ctx, g, name, fn); err != nil {
		return nil, err
	}
	if err := in.freePtr(ctx, name); err != nil {
		return nil, err
	}
	if _, err := in.call(ctx, fnFreeValue, in.ctx, g); err != nil {
		return nil, err
	}
	if err := checkJSONFields(in); err != nil {
		return nil, err
	}
	top := in.stackTop()
	return in, checkStackFields(in.mem, uint32(in.rt), in.layout, top-StackRegion, top)
}

// moveStack gives the engine its stack region (stackguard.go): StackRegion
// bytes, 16-byte aligned, malloc'd from the guest's heap while no guest
// frame is live, with the stack pointer, top and floor moved there.
func (in *Instance) moveStack(ctx context.Context) error {
	p, err := in.call(ctx, fnMalloc, StackRegion+16)
	if err != nil {
		return err
	}
	if p != 0 && p < minStackBase {
		// Too low: move the region up past a spacer, which stays
		// allocated and unwritten (Headroom counts it; its pages are
		// never committed), so that no hole below the region is left for
		// FillFreeChunks to keep.
		if _, err := in.call(ctx, fnFree, p); err != nil {
			return err
		}
		spacer, err := in.call(ctx, fnMalloc, minStackBase-p)
		if err != nil {
			return err
		}
		if p, err = in.call(ctx, fnMalloc, StackRegion+16); err != nil {
			return err
		}
		if spacer == 0 || p < minStackBase {
			return fmt.Errorf("quickjs: the stack region at %#x is below %#x", p, minStackBase)
		}
	}
	base := (p + 15) &^ 15
	if p == 0 || base+StackRegion > uint64(in.mem.Size()) {
		return fmt.Errorf("quickjs: the stack region at %#x does not fit the memory", p)
	}
	sp, ok := in.mod.ExportedGlobal(GlobalExportPrefix + "0").(api.MutableGlobal)
	if !ok {
		return errors.New("quickjs: the stack pointer is not exported")
	}
	top := base + StackRegion
	in.top.Set(top)
	in.floor.Set(top - maxStack)
	sp.Set(top)
	return nil
}

// stackTop is the top of the engine's stack region.
func (in *Instance) stackTop() uint32 { return uint32(in.top.Get()) }

// JSValue encodings of the NaN-boxed wasm32 build: tag << 32 | payload.
const (
	jsUndefined   = 3 << 32
	tagException  = 6
	tagBytecode   = 0xfffffffe // JS_TAG_FUNCTION_BYTECODE (-2)
	jsTagShift    = 32
	maxEvalSource = math.MaxUint32 / 2
)

// seal installs, as the runtime's module normaliser, the one the rewrite
// adds (seal.go), with no loader.
func (in *Instance) seal(ctx context.Context, setLoader api.Function) error {
	_, err := in.call1(ctx, setLoader, in.rt, uint64(in.layout.DenySlot), 0, 0)
	return err
}

// Close releases the instance; it is safe to call more than once, also
// from a Handler during a guest call (the memory is then released when the
// outermost call returns). No slice read from the instance's memory may be
// used afterwards: its memory may belong to another instance by then.
func (in *Instance) Close(ctx context.Context) {
	if in.closed {
		return
	}
	in.closed = true
	in.closeIdle()
	in.fns.close()
	in.rtm.instances.Delete(in.mod)
	_ = in.mod.Close(context.WithoutCancel(ctx))
	in.unpin()
}

// unpin hands the instance's memory back once it is closed and no guest
// call is in progress.
func (in *Instance) unpin() {
	if in.pinned && in.closed && in.depth == 0 {
		in.pinned = false
		in.lin.Unpin()
	}
}

// SetClock makes c the instance's clock from now on (Date, performance.now
// and everything else that reads WASI's clocks). A run installs its own
// after its instance was restored from a snapshot, which keeps using the
// deterministic clock it was initialised with.
func (in *Instance) SetClock(c Clock) { in.sys.clock = c }

// MonoOrigin is the monotonic reading the deterministic clock would give
// next: a run's clock continues from it, so that performance.now, which the
// engine measures from a reading taken at initialisation, stays positive.
func (in *Instance) MonoOrigin() int64 { return in.sys.monoNow() }

// SetStackLimit lets the guest's C stack grow by at most n bytes (clamped to
// the Module's MaxStackBytes) below its top.
//
// Two limits follow from n (stackguard.go). QuickJS's own check, which the
// interpreter makes before every call and the parser, JSON and regular
// expressions make as they recurse, throws a catchable RangeError "Maximum
// call stack size exceeded" once the stack pointer would pass floor +
// SoftStackMargin(n); while an error is made near that limit, it is
// lowered to floor + SpareStackMargin(n), so that the prelude's hook can
// give the error its stack (backtrace.go). Below that, the guest traps at
// the floor itself and StackOverflowed reports true: the last resort for C
// code that recurses without QuickJS's check, which scripts cannot catch.
//
// The floor is a global Rewrite adds, out of the guest's reach; every write
// of the stack pointer is checked against it. QuickJS's limit is a field of
// its runtime, in linear memory.
func (in *Instance) SetStackLimit(n uint32) {
	if n == 0 || n > maxStack {
		n = maxStack
	}
	if in.closed {
		return
	}
	top := in.stackTop()
	floor := top - n
	if top < n { // never (NewInstance and every restore set it): no stack at all
		floor = top
	}
	in.floor.Set(uint64(floor))
	limit := uint32(in.rt) + in.layout.StackSizeOffset + 8
	in.mem.WriteUint32Le(limit, floor+SoftStackMargin(n))
	in.spareLimit.Set(uint64(floor + SpareStackMargin(n)))
	in.limitAddr.Set(uint64(limit))
}

// StackOverflowed reports whether the guest trapped on its stack limit.
func (in *Instance) StackOverflowed() bool { return in.reason.Get() == ReasonStack }

// OutOfMemory reports whether QuickJS has thrown an out-of-memory error in
// this instance, caught or not.
func (in *Instance) OutOfMemory() bool { return in.oom.Get() != 0 }

// Interrupt makes the guest trap at its next loop header, and every later
// guest call trap as soon as it loops; the instance is unusable afterwards.
// It is safe to call from any goroutine, at any time, also during or after
// Close. A Handler that is running when Interrupt is called is not
// interrupted: it sees its own context end.
//
// Interrupt sets a host-side flag, which the yield reads, so the guest sees
// it at its next yield at the latest, yieldEvery loop iterations away; a
// guest call whose context ends is stopped the same way without Interrupt.
// To make that the next loop header, Interrupt also sets the budget global
// to 1. That store is a plain one into the slot wazero's compiled code
// reads, racing with the guest's own update of the counter; if it is lost,
// the interrupt only waits for the next regular yield. Nothing depends on it
// but promptness, and nothing the guest writes can delay either.
func (in *Instance) Interrupt() {
	in.stop.Store(true)
	in.budget.Set(1)
}

// Finish ends the guest's run without abandoning the guest call in
// progress, for a Handler whose run is over: it must be called on the
// goroutine running the guest (from HostCall). The host call then returns
// normally, and the guest with it, but the Eval or Pump in progress runs no
// further job and returns as if the job queue were empty, and a guest that
// computes on instead of returning traps at its next periodic yield (at
// most yieldEvery loop iterations away), as an interrupted one does. It
// spares a run that has its result the cost of unwinding the guest with a
// panic (wazero builds a stack trace for every trap).
func (in *Instance) Finish() { in.finished = true }

// Interrupted reports whether the guest trapped because Interrupt was called
// or the context of the guest call ended.
func (in *Instance) Interrupted() bool { return in.reason.Get() == ReasonInterrupt }

// MemoryBytes returns the current (and, as wasm memory never shrinks, peak)
// linear memory size.
func (in *Instance) MemoryBytes() uint64 { return uint64(in.mem.Size()) }

// Undefined returns the JSValue encoding of undefined.
func (in *Instance) Undefined() uint64 { return in.undefined }

// Int returns the JSValue encoding of a small non-negative integer.
func Int(n int32) uint64 { return uint64(uint32(n)) }

// DecodeInt decodes a JSValue holding an int32 (tag 0).
func DecodeInt(v uint64) (int32, bool) {
	if v>>32 != 0 {
		return 0, false
	}
	return int32(uint32(v)), true
}

// IsString reports whether the JSValue v is a string (flat or a rope).
func IsString(v uint64) bool {
	tag := uint32(v >> 32)
	return tag == tagStringType || tag == tagStringRope
}

// NaN boxing of numbers: a float64 is stored as its bits minus
// floatAddend << 32, which puts every tag from tagFirstRef (-9) to
// tagFloat64 (8) below the quiet NaNs (JS_FLOAT64_TAG_ADDEND and
// JS_VALUE_GET_FLOAT64 in quickjs.h; JS_NAN is tagFloat64 << 32).
const (
	tagFloat64    = 8
	tagStringRope = 0xfffffffa         // JS_TAG_STRING_ROPE (-6)
	floatAddend   = 0x7ff80000 + 9 + 1 // 0x7ff80000 - JS_TAG_FIRST + 1
)

// DecodeNumber decodes a JSValue holding a number, an int32 (tag 0) or a
// float64, as a float64; ok is false for any other value. It runs no
// JavaScript: a Number object or a string is not a number here.
func DecodeNumber(v uint64) (x float64, ok bool) {
	tag := uint32(v >> 32)
	switch {
	case tag == 0:
		return float64(int32(uint32(v))), true
	case tag < tagFloat64 || tag >= tagFirstRef:
		return 0, false
	}
	return math.Float64frombits(v + floatAddend<<32), true
}

// ownMaps makes compiled, funcs and atoms in's own, copying them if they
// are still the Snapshot's it was restored from, which other instances
// read at the same time.
func (in *Instance) ownMaps() {
	if in.sharedMaps {
		in.compiled, in.funcs, in.atoms = maps.Clone(in.compiled), maps.Clone(in.funcs), maps.Clone(in.atoms)
		in.sharedMaps = false
	}
}

// call1 calls f, an export NewInstance calls once.
func (in *Instance) call1(ctx context.Context, f api.Function, args ...uint64) (uint64, error) {
	if in.closed {
		return 0, fmt.Errorf("%w: instance closed", ErrGuest)
	}
	in.depth++
	res, err := f.Call(ctx, args...)
	in.depth--
	in.unpin()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrGuest, err)
	}
	if len(res) == 0 {
		return 0, nil
	}
	return res[0], nil
}

// call calls export id through the dispatcher and returns its result (0
// for none).
func (in *Instance) call(ctx context.Context, id fnID, args ...uint64) (uint64, error) {
	if in.closed {
		return 0, fmt.Errorf("%w: instance closed", ErrGuest)
	}
	in.depth++
	res, err := in.fns.call(ctx, in.depth-1, id, args...)
	in.depth--
	in.unpin()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrGuest, err)
	}
	return res, nil
}

// cString copies s into a fresh malloc'd, NUL-terminated guest buffer.
func (in *Instance) cString(ctx context.Context, s string) (uint64, error) {
	p, err := in.call(ctx, fnMalloc, uint64(len(s)+1))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, errOutOfMemory
	}
	buf, ok := in.mem.Read(uint32(p), uint32(len(s)+1))
	if !ok {
		return 0, fmt.Errorf("%w: malloc returned %#x out of bounds", ErrGuest, p)
	}
	copy(buf, s)
	buf[len(s)] = 0
	return p, nil
}

func (in *Instance) freePtr(ctx context.Context, p uint64) error {
	_, err := in.call(ctx, fnFree, p)
	return err
}

// errOutOfMemory reports a guest allocation the host asked for that failed.
var errOutOfMemory = fmt.Errorf("%w: guest out of memory", ErrGuest)

// IsOutOfMemory reports whether err is a host-requested guest allocation
// that failed.
func IsOutOfMemory(err error) bool { return errors.Is(err, errOutOfMemory) }

// Eval evaluates code as a strict global script named filename and runs
// the job queue until it is empty (timers live in the prelude, which the
// host drives). When the evaluation or a job throws, it clears the
// exception and returns exception true with the exception converted to a
// string (empty if even that failed). A non-nil error wraps ErrGuest and
// means the wasm call itself failed. Code given to Precompile before is not
// parsed again.
func (in *Instance) Eval(ctx context.Context, code, filename string) (exception bool, text string, err error) {
	var v uint64
	if fb, ok := in.compiled[code]; ok {
		// JS_EvalFunction takes ownership of the function: hand it a
		// reference of its own, so the compiled function stays.
		f := uint64(tagBytecode)<<jsTagShift | uint64(fb)
		if _, err := in.call(ctx, fnDupValue, in.ctx, f); err != nil {
			return false, "", err
		}
		if v, err = in.call(ctx, fnEvalFunction, in.ctx, f); err != nil {
			return false, "", err
		}
	} else if v, err = in.evalSource(ctx, code, filename, evalFlagStrict); err != nil {
		return false, "", err
	}
	if v>>jsTagShift != tagException {
		if _, err := in.call(ctx, fnFreeValue, in.ctx, v); err != nil {
			return false, "", err
		}
		if v, err = in.runJobs(ctx); err != nil {
			return false, "", err
		}
	}
	if v>>jsTagShift != tagException {
		return false, "", nil
	}
	return in.takeException(ctx)
}

// evalSource runs JS_Eval on code with flags (JS_EVAL_TYPE_GLOBAL plus
// the given flags) and returns its result.
func (in *Instance) evalSource(ctx context.Context, code, filename string, flags uint64) (uint64, error) {
	if len(code) > maxEvalSource {
		return 0, fmt.Errorf("%w: %d bytes of source", errOutOfMemory, len(code))
	}
	// One allocation holds code and filename, each NUL-terminated (JS_Eval
	// requires input[input_len] == 0).
	codeLen := len(code) + 1
	p, err := in.cStrings(ctx, code, filename)
	if err != nil {
		return 0, err
	}
	v, err := in.call(ctx, fnEval, in.ctx, p, uint64(len(code)), p+uint64(codeLen), flags)
	if err != nil {
		return 0, err
	}
	return v, in.freePtr(ctx, p)
}

// runJobs runs the job queue until it is empty or a job throws; it
// returns the exception JSValue tag in the latter case, else 0.
func (in *Instance) runJobs(ctx context.Context) (uint64, error) {
	for {
		if in.finished {
			return 0, nil // Finish: no job runs after the run's end
		}
		r, err := in.call(ctx, fnExecutePendingJob, in.rt, scratchAddr)
		if err != nil {
			return 0, err
		}
		switch int32(uint32(r)) {
		case 0:
			return 0, nil
		case 1:
		default:
			return tagException << jsTagShift, nil
		}
	}
}

// takeException clears the pending exception and reports it as Eval does.
func (in *Instance) takeException(ctx context.Context) (exception bool, text string, err error) {
	exc, err := in.call(ctx, fnGetException, in.ctx)
	if err != nil {
		return true, "", err
	}
	if ref, err := in.ToString(ctx, exc); err == nil {
		b, _ := ref.Bytes(4096)
		text = string(b)
		if err := ref.Release(ctx); err != nil {
			return true, text, err
		}
	} else if !IsOutOfMemory(err) {
		return true, "", err
	}
	_, err = in.call(ctx, fnFreeValue, in.ctx, exc)
	return true, text, err
}

// cStrings copies a and b, each NUL-terminated, into one fresh malloc'd
// guest buffer and returns its address (a's; b follows it).
func (in *Instance) cStrings(ctx context.Context, a, b string) (uint64, error) {
	total := len(a) + 1 + len(b) + 1
	p, err := in.call(ctx, fnMalloc, uint64(total))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, errOutOfMemory
	}
	buf, ok := in.mem.Read(uint32(p), uint32(total))
	if !ok {
		return 0, fmt.Errorf("%w: malloc returned %#x out of bounds", ErrGuest, p)
	}
	n := copy(buf, a)
	buf[n] = 0
	n += 1 + copy(buf[n+1:], b)
	buf[n] = 0
	return p, nil
}

// Precompile compiles code, as Eval would evaluate it, to a function kept
// in the guest's heap, so that Eval of the same code later only runs it.
// Instances restored from a Snapshot of in have it too.
func (in *Instance) Precompile(ctx context.Context, code, filename string) error {
	v, err := in.evalSource(ctx, code, filename, evalFlagStrict|evalFlagCompileOnly)
	if err != nil {
		return err
	}
	if uint32(v>>jsTagShift) != tagBytecode {
		if v>>jsTagShift == tagException {
			_, text, _ := in.takeException(ctx)
			return fmt.Errorf("%w: compiling %q failed: %s", ErrGuest, code, text)
		}
		return fmt.Errorf("%w: compiling %q gave %#x, not a function", ErrGuest, code, v)
	}
	in.ownMaps()
	if in.compiled == nil {
		in.compiled = map[string]uint32{}
	}
	in.compiled[code] = uint32(v)
	return nil
}

const (
	evalFlagStrict      = 1 << 3 // JS_EVAL_FLAG_STRICT
	evalFlagCompileOnly = 1 << 5 // JS_EVAL_FLAG_COMPILE_ONLY
)

// StringRef is a string the guest holds, located but not yet copied, so that
// the host can check its length before copying it.
type StringRef struct {
	in       *Instance
	ptr, len uint32
}

// Len returns the string's length in bytes (UTF-8, as QuickJS encodes it).
func (s *StringRef) Len() int { return int(s.len) }

// Bytes copies up to n bytes of the string out of guest memory.
func (s *StringRef) Bytes(n int) ([]byte, error) {
	if s.in.closed {
		return nil, fmt.Errorf("%w: instance closed", ErrGuest)
	}
	n = min(n, int(s.len))
	b, ok := s.in.mem.Read(s.ptr, uint32(n))
	if !ok {
		return nil, fmt.Errorf("%w: string out of bounds", ErrGuest)
	}
	return append([]byte(nil), b...), nil
}

// Release frees the guest copy of the string.
func (s *StringRef) Release(ctx context.Context) error {
	_, err := s.in.call(ctx, fnFreeCString, s.in.ctx, uint64(s.ptr))
	return err
}

// ToString converts the JSValue v to a UTF-8 string in guest memory, NULs
// included. A failed conversion, which in practice means the guest is out
// of memory, returns an error for which IsOutOfMemory is true.
func (in *Instance) ToString(ctx context.Context, v uint64) (*StringRef, error) {
	// JS_ToCStringLen2(ctx, size_t* plen, val, cesu8 false)
	p, err := in.call(ctx, fnToCString, in.ctx, scratchAddr, v, 0)
	if err != nil {
		return nil, err
	}
	if p == 0 {
		return nil, errOutOfMemory
	}
	n, ok := in.mem.ReadUint32Le(scratchAddr)
	if !ok {
		return nil, fmt.Errorf("%w: string length out of bounds", ErrGuest)
	}
	return &StringRef{in: in, ptr: uint32(p), len: n}, nil
}

// NewString creates a JavaScript string from the UTF-8 bytes s. A short
// one is copied through the scratch buffer (pump.go) and needs no guest
// allocation of its own: JS_NewStringLen copies the bytes and runs no
// JavaScript, so nothing else can use the buffer meanwhile.
func (in *Instance) NewString(ctx context.Context, s []byte) (uint64, error) {
	if len(s) < jsonBufSize {
		buf, ok := in.mem.Read(jsonBufAddr, uint32(len(s)))
		if !ok {
			return 0, fmt.Errorf("%w: scratch area out of bounds", ErrGuest)
		}
		copy(buf, s)
		return in.call(ctx, fnNewString, in.ctx, jsonBufAddr, uint64(len(s)))
	}
	p, err := in.cString(ctx, string(s))
	if err != nil {
		return 0, err
	}
	v, err := in.call(ctx, fnNewString, in.ctx, p, uint64(len(s)))
	if err != nil {
		return 0, err
	}
	if err := in.freePtr(ctx, p); err != nil {
		return 0, err
	}
	return v, nil
}

// Promise states PromiseState returns (QuickJS's JSPromiseStateEnum).
const (
	PromiseNotAPromise = -1 // v is not a promise (a Proxy of one included)
	PromisePending     = 0
	PromiseFulfilled   = 1
	PromiseRejected    = 2
)

// PromiseState returns the state of the promise v, a JSValue the caller
// holds (a host call's argument): one of the Promise constants. It runs
// no JavaScript.
func (in *Instance) PromiseState(ctx context.Context, v uint64) (int32, error) {
	r, err := in.call(ctx, fnPromiseState, in.ctx, v)
	return int32(uint32(r)), err
}

// PromiseResult returns a new reference to the value a settled promise v
// holds (undefined for a pending promise or another value), for the caller
// to hand back to the guest. It runs no JavaScript.
func (in *Instance) PromiseResult(ctx context.Context, v uint64) (uint64, error) {
	return in.call(ctx, fnPromiseResult, in.ctx, v)
}

// Handler receives the guest's calls to __airlock_host. args are the JSValue
// arguments the script passed; the returned value is handed back to it. A
// Handler may call the Instance re-entrantly, and may panic to abandon the
// guest call in progress: the panic unwinds the wasm stack and the pending
// Eval returns an error wrapping ErrGuest.
type Handler interface {
	HostCall(ctx context.Context, in *Instance, args []uint64) uint64
}

// Yielder is implemented by a Handler that wants to hear of the guest's
// periodic yields (see Rewrite): one every 16384 loop iterations while the
// guest computes. Yield runs on the goroutine running the guest, which is
// suspended in the middle of its work: it must not call the Instance.
type Yielder interface {
	Yield(ctx context.Context, in *Instance)
}

type handlerKey struct{}

type binding struct {
	in *Instance
	h  Handler
}

// WithHandler returns a context under which guest calls made by in are
// delivered to h. Every Instance call that may run JavaScript must use it.
func WithHandler(ctx context.Context, in *Instance, h Handler) context.Context {
	return context.WithValue(ctx, handlerKey{}, binding{in: in, h: h})
}

// maxHostArgs bounds the number of arguments the proxy accepts.
const maxHostArgs = 8

// hostProxy implements env.jsFunctionProxy(ctx, this, argc, argv), with
// the type of a QuickJS C function. A call with a null context is the yield
// the rewritten loops make (see Rewrite): it returns 1, which makes the
// guest trap, when ctx has ended or the instance was interrupted (or is
// unknown), and 0 otherwise; either way the goroutine has passed through Go
// code, where the scheduler can preempt it. Any other call is the script
// calling __airlock_host, from the instance's own context, with argv
// holding its argc arguments.
func (r *Runtime) hostProxy(ctx context.Context, mod api.Module, stack []uint64) {
	jsctx, argc, argv := uint32(stack[0]), uint32(stack[2]), uint32(stack[3])
	if jsctx == 0 {
		stack[0] = 0
		v, _ := r.instances.Load(mod)
		if in, _ := v.(*Instance); ctx.Err() != nil || in == nil || in.stop.Load() || in.finished || mod.IsClosed() {
			stack[0] = 1
			return
		}
		if b, _ := ctx.Value(handlerKey{}).(binding); b.in != nil && b.in.mod == mod {
			if y, ok := b.h.(Yielder); ok {
				y.Yield(ctx, b.in)
			}
		}
		return
	}
	b, _ := ctx.Value(handlerKey{}).(binding)
	if b.h == nil || b.in.mod != mod || uint64(jsctx) != b.in.ctx || argc > maxHostArgs {
		panic(fmt.Errorf("quickjs: unexpected host call (argc %d)", argc))
	}
	vals := make([]uint64, argc)
	for i := range vals {
		v, ok := mod.Memory().ReadUint64Le(argv + 8*uint32(i))
		if !ok {
			panic(errors.New("quickjs: host call arguments out of bounds"))
		}
		vals[i] = v
	}
	stack[0] = b.h.HostCall(ctx, b.in, vals)
}
