// Package quickjs drives the QuickJS-ng WebAssembly build that
// github.com/fastschema/qjs embeds, directly through wazero, so that the
// sandbox and not that package decides the filesystem (none), the clock, the
// memory ceiling, the compilation cache and how a runaway guest is stopped.
// See RATIONALE.md ("Why drive qjs's embedded wasm directly instead of its
// Go API?") for why the qjs Go API is not used.
//
// The guest talks to the host through one imported function, env
// jsFunctionProxy, which the wasm build calls for every JavaScript function
// created with QJS_CreateFunctionProxy. This package installs one such
// function as the global __airlock_host and hands every call to the Handler
// found in the call's context.
package quickjs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // go:linkname, see wasmBytes

	_ "github.com/fastschema/qjs" // provides the embedded QuickJS-ng wasm
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	wasi "github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/airlockrt/airlock/sandbox/internal/linmem"
)

// wasmBytes is the QuickJS-ng build embedded by github.com/fastschema/qjs
// v0.0.6 (qjs.wasm, MIT). The package keeps it unexported; linking to it by
// name is the only way to reuse it without vendoring a copy.
//
//go:linkname wasmBytes github.com/fastschema/qjs.wasmBytes
var wasmBytes []byte

// Wasm returns the embedded QuickJS-ng module. The slice must not be modified.
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

// MaxStackBytes is the largest stack a script can be given: the reserved
// stack less a margin for the C functions that run below the last checked
// frame.
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
	if _, err := wasi.Instantiate(ctx, wrt); err != nil {
		return nil, fmt.Errorf("quickjs: instantiating WASI: %w", err)
	}
	_, err := wrt.NewHostModuleBuilder("env").
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(r.hostProxy),
			[]api.ValueType{api.ValueTypeI32, api.ValueTypeI64, api.ValueTypeI32, api.ValueTypeI32},
			[]api.ValueType{api.ValueTypeI64}).
		Export("jsFunctionProxy").
		Instantiate(ctx)
	if err != nil {
		return nil, fmt.Errorf("quickjs: instantiating host module: %w", err)
	}
	compiled, err := wrt.CompileModule(ctx, cfg.Module.wasm)
	if err != nil {
		return nil, fmt.Errorf("quickjs: compiling module: %w", err)
	}
	// No FS config: the guest has no preopened directory at all. No args, no
	// environment, stdout and stderr discarded. The clock and random source
	// are set per instance (see sysState).
	r.compiled = compiled
	r.modCfg = wazero.NewModuleConfig().WithName("").WithStartFunctions()
	ok = true
	return r, nil
}

// Close closes the runtime and every instance it created.
func (r *Runtime) Close(ctx context.Context) error {
	err := r.wrt.Close(ctx)
	r.mems.Close()
	return err
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
	// reason and out-of-memory flag.
	budget, floor, reason, oom api.MutableGlobal
	stop                       atomic.Bool // set by Interrupt
	sys                        *sysState
	rt, ctx                    uint64            // QJSRuntime*, JSContext*
	undefined                  uint64            // the JSValue encoding of undefined
	compiled                   map[string]uint32 // code -> QJSEvalOptions holding its bytecode
	fns                        exports
	closed                     bool
	heapLimit                  uint64 // the QuickJS heap limit (0 = none)
}

// Headroom is how much linear memory an instance may use beyond its QuickJS
// heap limit, for the engine's static data, stack and allocator overhead.
// An instance's linear memory is capped at heap limit + Headroom, whatever
// the runtime's (larger) page limit.
const Headroom = 16 << 20

// MemLimit is the linear-memory cap of an instance with heapLimit.
func MemLimit(heapLimit uint64) uint64 { return memLimit(heapLimit) }

// memLimit is the linear-memory cap of an instance with heapLimit.
func memLimit(heapLimit uint64) uint64 {
	if heapLimit == 0 {
		return 0
	}
	return (heapLimit + Headroom + PageSize - 1) / PageSize * PageSize
}

type exports struct {
	malloc, free, eval, compile, toCString, freeCString, newString, freeValue,
	hasException, getException, getPropertyStr, setPropertyStr api.Function
}

// instantiate instantiates the module, without initialising QuickJS, with
// sys as its clock and random source and its linear memory capped for
// heapLimit (memLimit).
func (r *Runtime) instantiate(ctx context.Context, sys *sysState, heapLimit uint64) (_ *Instance, err error) {
	var lin *linmem.Memory
	ctx = experimental.WithMemoryAllocator(ctx, r.mems.Allocator(func(m *linmem.Memory) { lin = m }, memLimit(heapLimit)))
	mod, err := r.wrt.InstantiateModule(ctx, r.compiled, sys.config(r.modCfg))
	if err != nil {
		return nil, fmt.Errorf("quickjs: instantiating: %w", err)
	}
	in := &Instance{layout: r.mod.layout, rtm: r, mod: mod, mem: mod.Memory(), lin: lin, sys: sys, heapLimit: heapLimit}
	r.instances.Store(mod, in)
	if lin == nil {
		in.Close(ctx)
		return nil, errors.New("quickjs: the instance's memory was not allocated by linmem")
	}
	get := func(name string) api.Function {
		f := mod.ExportedFunction(name)
		if f == nil && err == nil {
			err = fmt.Errorf("quickjs: module lacks export %s", name)
		}
		return f
	}
	in.fns = exports{
		malloc: get("malloc"), free: get("free"), eval: get("QJS_Eval"), compile: get("QJS_Compile2"),
		toCString: get("QJS_ToCString"), freeCString: get("JS_FreeCString"),
		newString: get("QJS_NewString"), freeValue: get("JS_FreeValue"),
		hasException: get("JS_HasException"), getException: get("JS_GetException"),
		getPropertyStr: get("JS_GetPropertyStr"), setPropertyStr: get("JS_SetPropertyStr"),
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
	if err != nil {
		in.Close(ctx)
		return nil, err
	}
	return in, nil
}

// NewInstance instantiates the module and creates a QuickJS runtime whose
// heap is capped at heapLimit bytes (0 = none), with the host proxy installed
// as the global __airlock_host.
func (r *Runtime) NewInstance(ctx context.Context, heapLimit uint64) (_ *Instance, err error) {
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
	newUndef, newInt := get("JS_NewUndefined"), get("QJS_NewInt32")
	newQJS, getCtx, mkProxy, global := get("New_QJS"), get("QJS_GetContext"), get("QJS_CreateFunctionProxy"), get("JS_GetGlobalObject")
	if err != nil {
		return nil, err
	}
	if in.rt, err = in.call1(ctx, newQJS, heapLimit, 0, 0, 0); err != nil {
		return nil, err
	}
	if in.rt == 0 {
		return nil, errors.New("quickjs: New_QJS failed")
	}
	if in.ctx, err = in.call1(ctx, getCtx, in.rt); err != nil {
		return nil, err
	}
	if in.undefined, err = in.call1(ctx, newUndef); err != nil {
		return nil, err
	}
	// The host proxy returns call ids as int JSValues built without a call;
	// check that the build encodes them as expected (NaN-boxing, tag 0).
	if v, err := in.call1(ctx, newInt, in.ctx, 12345); err != nil || v != 12345 {
		return nil, fmt.Errorf("quickjs: unexpected int encoding %#x (%v)", v, err)
	}
	proxy, err := in.call1(ctx, mkProxy, in.ctx, proxyFuncID, 0, 0)
	if err != nil {
		return nil, err
	}
	g, err := in.call1(ctx, global, in.ctx)
	if err != nil {
		return nil, err
	}
	name, err := in.cString(ctx, "__airlock_host")
	if err != nil {
		return nil, err
	}
	// JS_SetPropertyStr takes ownership of proxy.
	if _, err := in.call1(ctx, in.fns.setPropertyStr, in.ctx, g, name, proxy); err != nil {
		return nil, err
	}
	if err := in.freePtr(ctx, name); err != nil {
		return nil, err
	}
	if _, err := in.call1(ctx, in.fns.freeValue, in.ctx, g); err != nil {
		return nil, err
	}
	if err := in.seal(); err != nil {
		return nil, err
	}
	return in, nil
}

// seal installs the normaliser that fails every module import (seal.go), in
// the JSRuntime New_QJS created, after checking that the runtime holds the
// loader and the default normaliser where Rewrite found New_QJS storing
// them.
func (in *Instance) seal() error {
	lay := in.layout
	rt, ok := in.mem.ReadUint32Le(uint32(in.rt)) // QJSRuntime.runtime
	if !ok {
		return errors.New("quickjs: QJSRuntime out of bounds")
	}
	loader, ok1 := in.mem.ReadUint32Le(rt + lay.LoaderOffset)
	norm, ok2 := in.mem.ReadUint32Le(rt + lay.NormalizeOffset)
	if !ok1 || !ok2 || loader != lay.LoaderSlot || norm != 0 {
		return fmt.Errorf("quickjs: the runtime's module loader is not where expected (%d, %d)", loader, norm)
	}
	in.mem.WriteUint32Le(rt+lay.NormalizeOffset, lay.DenySlot)
	return checkStackFields(in.mem, rt, lay)
}

// proxyFuncID is the function id given to QJS_CreateFunctionProxy; the
// host proxy rejects calls carrying any other.
const proxyFuncID = 0xA1

// Close releases the instance; it is safe to call more than once. No slice
// read from the instance's memory may be used afterwards.
func (in *Instance) Close(ctx context.Context) {
	if in.closed {
		return
	}
	in.closed = true
	in.rtm.instances.Delete(in.mod)
	_ = in.mod.Close(context.WithoutCancel(ctx))
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
// SoftStackMargin(n). Below that, the guest traps at the floor itself and
// StackOverflowed reports true: the last resort for C code that recurses
// without QuickJS's check, which scripts cannot catch.
//
// The floor is a global Rewrite adds, out of the guest's reach; every write
// of the stack pointer is checked against it. QuickJS's limit is a field of
// its runtime, in linear memory.
func (in *Instance) SetStackLimit(n uint32) {
	if n == 0 || n > maxStack {
		n = maxStack
	}
	floor := in.layout.StackTop - n
	in.floor.Set(uint64(floor))
	if rt, ok := in.mem.ReadUint32Le(uint32(in.rt)); ok {
		in.mem.WriteUint32Le(rt+rtStackLimit, floor+SoftStackMargin(n))
	}
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

func (in *Instance) call1(ctx context.Context, f api.Function, args ...uint64) (uint64, error) {
	if in.closed {
		return 0, fmt.Errorf("%w: instance closed", ErrGuest)
	}
	res, err := f.Call(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrGuest, err)
	}
	if len(res) == 0 {
		return 0, nil
	}
	return res[0], nil
}

// cString copies s into a fresh malloc'd, NUL-terminated guest buffer.
func (in *Instance) cString(ctx context.Context, s string) (uint64, error) {
	p, err := in.call1(ctx, in.fns.malloc, uint64(len(s)+1))
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
	_, err := in.call1(ctx, in.fns.free, p)
	return err
}

// errOutOfMemory reports a guest allocation the host asked for that failed.
var errOutOfMemory = fmt.Errorf("%w: guest out of memory", ErrGuest)

// IsOutOfMemory reports whether err is a host-requested guest allocation
// that failed.
func IsOutOfMemory(err error) bool { return errors.Is(err, errOutOfMemory) }

// Eval evaluates code as a global script named filename and runs the job
// queue and timers until both are empty. When the evaluation throws, it
// clears the exception and returns exception true with the exception
// converted to a string (empty if even that failed). A non-nil error wraps
// ErrGuest and means the wasm call itself failed. Code given to Precompile
// before is not parsed again.
func (in *Instance) Eval(ctx context.Context, code, filename string) (exception bool, text string, err error) {
	if opt, ok := in.compiled[code]; ok {
		return in.eval(ctx, uint64(opt), 0)
	}
	// One allocation holds code, filename and the 20-byte QJSEvalOptions
	// {buf, bytecode_buf, bytecode_len, filename, eval_flags}.
	opt, p, err := in.evalOptions(ctx, code, filename)
	if err != nil {
		return false, "", err
	}
	return in.eval(ctx, opt, p)
}

// evalOptions writes code, filename and a QJSEvalOptions for them into one
// fresh allocation at p, and returns the options' address.
func (in *Instance) evalOptions(ctx context.Context, code, filename string) (opt, p uint64, err error) {
	codeLen, nameLen := len(code)+1, len(filename)+1
	optOff := (codeLen + nameLen + 7) &^ 7
	total := optOff + 20
	p, err = in.call1(ctx, in.fns.malloc, uint64(total))
	if err != nil {
		return 0, 0, err
	}
	if p == 0 {
		return 0, 0, errOutOfMemory
	}
	base := uint32(p)
	buf, ok := in.mem.Read(base, uint32(total))
	if !ok {
		return 0, 0, fmt.Errorf("%w: malloc returned %#x out of bounds", ErrGuest, p)
	}
	copy(buf, code)
	buf[len(code)] = 0
	copy(buf[codeLen:], filename)
	buf[codeLen+len(filename)] = 0
	o := base + uint32(optOff)
	in.mem.WriteUint32Le(o, base)
	in.mem.WriteUint32Le(o+4, 0)
	in.mem.WriteUint32Le(o+8, 0)
	in.mem.WriteUint32Le(o+12, base+uint32(codeLen))
	in.mem.WriteUint32Le(o+16, evalFlagStrict) // JS_EVAL_TYPE_GLOBAL
	return uint64(o), p, nil
}

// eval runs QJS_Eval with the options at opt, then frees p (unless 0) and
// reports the outcome as Eval does.
func (in *Instance) eval(ctx context.Context, opt, p uint64) (exception bool, text string, err error) {
	v, err := in.call1(ctx, in.fns.eval, in.ctx, opt)
	if err != nil {
		return false, "", err
	}
	if p != 0 {
		if err := in.freePtr(ctx, p); err != nil {
			return false, "", err
		}
	}
	has, err := in.call1(ctx, in.fns.hasException, in.ctx)
	if err != nil {
		return false, "", err
	}
	if has == 0 {
		_, err = in.call1(ctx, in.fns.freeValue, in.ctx, v)
		return false, "", err
	}
	exc, err := in.call1(ctx, in.fns.getException, in.ctx)
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
	_, err = in.call1(ctx, in.fns.freeValue, in.ctx, exc)
	return true, text, err
}

// Precompile compiles code, as Eval would evaluate it, to bytecode kept in
// guest memory, so that Eval of the same code later only loads and runs it
// (about 2 µs instead of 5 for a one-line call). Instances restored from a
// Snapshot of in have it too.
func (in *Instance) Precompile(ctx context.Context, code, filename string) error {
	opt, _, err := in.evalOptions(ctx, code, filename)
	if err != nil {
		return err
	}
	packed, err := in.call1(ctx, in.fns.compile, in.ctx, opt)
	if err != nil {
		return err
	}
	if packed == 0 {
		return fmt.Errorf("%w: compiling %q failed", ErrGuest, code)
	}
	pl, ok := in.mem.ReadUint64Le(uint32(packed))
	if !ok {
		return fmt.Errorf("%w: bytecode header out of bounds", ErrGuest)
	}
	if err := in.freePtr(ctx, packed); err != nil {
		return err
	}
	// The allocation stays: the options now point at the bytecode.
	o := uint32(opt)
	in.mem.WriteUint32Le(o, 0)
	in.mem.WriteUint32Le(o+4, uint32(pl>>32))
	in.mem.WriteUint32Le(o+8, uint32(pl))
	if in.compiled == nil {
		in.compiled = map[string]uint32{}
	}
	in.compiled[code] = o
	return nil
}

const evalFlagStrict = 1 << 3

// StringRef is a string the guest holds, located but not yet copied, so that
// the host can check its length before copying it.
type StringRef struct {
	in       *Instance
	packed   uint64 // malloc'd uint64 holding ptr<<32|len
	ptr, len uint32
}

// Len returns the string's length in bytes (UTF-8, as QuickJS encodes it).
func (s *StringRef) Len() int { return int(s.len) }

// Bytes copies up to n bytes of the string out of guest memory.
func (s *StringRef) Bytes(n int) ([]byte, error) {
	n = min(n, int(s.len))
	b, ok := s.in.mem.Read(s.ptr, uint32(n))
	if !ok {
		return nil, fmt.Errorf("%w: string out of bounds", ErrGuest)
	}
	return append([]byte(nil), b...), nil
}

// Release frees the guest copy of the string.
func (s *StringRef) Release(ctx context.Context) error {
	if _, err := s.in.call1(ctx, s.in.fns.freeCString, s.in.ctx, uint64(s.ptr)); err != nil {
		return err
	}
	return s.in.freePtr(ctx, s.packed)
}

// ToString converts the JSValue v to a UTF-8 C string in guest memory. The
// string stops at its first NUL (the prelude escapes NULs before calling the
// host). A failed conversion, which in practice means the guest is out of
// memory, returns an error for which IsOutOfMemory is true.
func (in *Instance) ToString(ctx context.Context, v uint64) (*StringRef, error) {
	pp, err := in.call1(ctx, in.fns.toCString, in.ctx, v)
	if err != nil {
		return nil, err
	}
	if pp == 0 {
		return nil, errOutOfMemory
	}
	packed, ok := in.mem.ReadUint64Le(uint32(pp))
	if !ok {
		return nil, fmt.Errorf("%w: string header out of bounds", ErrGuest)
	}
	return &StringRef{in: in, packed: pp, ptr: uint32(packed >> 32), len: uint32(packed)}, nil
}

// NewString creates a JavaScript string from s, which must hold no NUL byte.
func (in *Instance) NewString(ctx context.Context, s []byte) (uint64, error) {
	p, err := in.cString(ctx, string(s))
	if err != nil {
		return 0, err
	}
	v, err := in.call1(ctx, in.fns.newString, in.ctx, p)
	if err != nil {
		return 0, err
	}
	if err := in.freePtr(ctx, p); err != nil {
		return 0, err
	}
	return v, nil
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

// hostProxy implements env.jsFunctionProxy(ctx, this, argc, argv): argv
// holds {func id, ctx id, is_async, promise, ...script arguments}. A call
// with argc 0 is the yield the rewritten loops make (see Rewrite): it
// returns 1, which makes the guest trap, when ctx has ended or the
// instance was interrupted (or is unknown), and 0 otherwise; either way the
// goroutine has passed through Go code, where the scheduler can preempt it.
func (r *Runtime) hostProxy(ctx context.Context, mod api.Module, stack []uint64) {
	argc, argv := uint32(stack[2]), uint32(stack[3])
	if argc == 0 {
		stack[0] = 0
		v, _ := r.instances.Load(mod)
		if in, _ := v.(*Instance); ctx.Err() != nil || in == nil || in.stop.Load() {
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
	if b.h == nil || b.in.mod != mod || argc < 4 || argc > 4+maxHostArgs {
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
	if id, ok := DecodeInt(vals[0]); !ok || id != proxyFuncID {
		panic(errors.New("quickjs: host call from an unknown function"))
	}
	stack[0] = b.h.HostCall(ctx, b.in, vals[4:])
}
