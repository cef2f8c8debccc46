package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/sys"

	"github.com/airlockrt/airlock/sandbox/internal/admit"
	"github.com/airlockrt/airlock/sandbox/internal/wire"
)

// ModuleOptions configures a ModuleEngine. The zero value is ready to use.
type ModuleOptions struct {
	// CompilationCacheDir, when set, keeps compiled modules on disk there.
	// Empty means an in-memory cache private to the engine.
	CompilationCacheDir string
}

// ModuleEngine runs compiled WebAssembly chains through Extism: any module
// built with an Extism PDK, or a WASI command such as a Go program built
// with GOOS=wasip1, that calls the bridge through the host functions in
// guest-sdk/ABI.md. It is safe for concurrent use.
type ModuleEngine struct {
	cache  wazero.CompilationCache
	mu     sync.Mutex
	closed bool
}

// NewModuleEngine creates a module engine. ctx is not retained.
func NewModuleEngine(ctx context.Context, opts ModuleOptions) (*ModuleEngine, error) {
	e := &ModuleEngine{}
	if opts.CompilationCacheDir != "" {
		var err error
		if e.cache, err = wazero.NewCompilationCacheWithDir(opts.CompilationCacheDir); err != nil {
			return nil, fmt.Errorf("sandbox: opening compilation cache %s: %w", opts.CompilationCacheDir, err)
		}
	} else {
		e.cache = wazero.NewCompilationCache()
	}
	return e, nil
}

// Module is a compiled chain. Each Run gets a fresh instance. It is safe for
// concurrent use.
type Module struct {
	e     *ModuleEngine
	wasm  []byte
	entry string // "run" (Extism PDK) or "_start" (WASI command)
	// tableBytes is what the module's tables may hold, charged against the
	// memory limit (admit.TableEntryBytes per declared entry).
	tableBytes uint64
	mu         sync.Mutex
	byMem      map[uint32]*extism.CompiledPlugin // by memory page limit
}

// Compile validates and compiles a module for the default memory limit
// (others are compiled on first use). The module must export "run" (an
// Extism plugin function) or "_start" (a WASI command, whose main is the
// chain); it may import the extism:host/env functions, WASI, and
// extism:host/user airlock_call. ctx bounds the compilation.
func (e *ModuleEngine) Compile(ctx context.Context, wasm []byte) (*Module, error) {
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	// Admission first: the compiler never sees a module past the caps.
	info, err := admit.Check(wasm, moduleImports)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidModule, err)
	}
	probe := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(e.cache))
	defer probe.Close(ctx)
	cm, err := probe.CompileModule(ctx, info.Wasm)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidModule, err)
	}
	// The engine's compilation cache counts references per module: release
	// the probe's, or every distinct module compiled stays cached for the
	// engine's lifetime. Module.Close releases the rest.
	defer cm.Close(ctx)
	m := &Module{e: e, wasm: append([]byte(nil), info.Wasm...), tableBytes: info.TableBytes, byMem: map[uint32]*extism.CompiledPlugin{}}
	exports := cm.ExportedFunctions()
	switch {
	case exports["run"] != nil:
		m.entry = "run"
	case exports["_start"] != nil:
		m.entry = "_start"
	default:
		return nil, fmt.Errorf("%w: it exports neither \"run\" nor \"_start\"", ErrInvalidModule)
	}
	if _, err := m.compiled(ctx, DefaultMemoryBytes); err != nil {
		var xe *ExitError
		if errors.As(err, &xe) {
			return nil, fmt.Errorf("%w: %s", ErrInvalidModule, xe.Message)
		}
		return nil, err
	}
	return m, nil
}

// Close releases the engine's compilation cache and makes later Compile
// calls fail. Modules already compiled keep working until closed.
func (e *ModuleEngine) Close(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	return e.cache.Close(ctx)
}

// Close releases the compiled module.
func (m *Module) Close(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var err error
	for k, cp := range m.byMem {
		err = errors.Join(err, cp.Close(ctx))
		delete(m.byMem, k)
	}
	return err
}

func (m *Module) compiled(ctx context.Context, memBytes uint64) (*extism.CompiledPlugin, error) {
	pages, err := m.memoryPages(memBytes)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cp := m.byMem[pages]; cp != nil {
		return cp, nil
	}
	call := extism.NewHostFunctionWithStack("airlock_call", hostCall,
		[]extism.ValueType{extism.ValueTypePTR, extism.ValueTypePTR}, []extism.ValueType{extism.ValueTypePTR})
	logf := extism.NewHostFunctionWithStack("airlock_log", hostLog,
		[]extism.ValueType{extism.ValueTypeI64, extism.ValueTypePTR}, nil)
	cp, err := extism.NewCompiledPlugin(ctx, extism.Manifest{
		Wasm:   []extism.Wasm{extism.WasmData{Data: m.wasm}},
		Memory: &extism.ManifestMemory{MaxPages: pages},
	}, extism.PluginConfig{
		EnableWasi:    true,
		RuntimeConfig: wazero.NewRuntimeConfig().WithCompilationCache(m.e.cache).WithCloseOnContextDone(true),
	}, []extism.HostFunction{call, logf})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidModule, err)
	}
	m.byMem[pages] = cp
	return cp, nil
}

// moduleImports are the functions a chain module may import
// (guest-sdk/ABI.md): WASI, the Extism kernel's memory, input and output
// functions and its logging, and airlock's two. Extism's HTTP, config and
// variable functions are not among them.
var moduleImports = admit.Imports{
	"wasi_snapshot_preview1": nil,
	"extism:host/env": set("input_length", "input_load_u8", "input_load_u64", "input_offset", "alloc", "free",
		"length", "length_unsafe", "load_u8", "load_u64", "store_u8", "store_u64", "output_set", "error_set",
		"log_info", "log_warn", "log_error", "log_debug", "log_trace", "get_log_level"),
	"extism:host/user": set("airlock_call", "airlock_log"),
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// memoryPages splits a run's memory limit: the module's tables are charged
// first, then the module's linear memory and the Extism kernel's (which the
// guest grows through alloc) get half of the rest each, so the two together
// stay within the limit. It fails when not one page is left for each.
func (m *Module) memoryPages(limit uint64) (uint32, error) {
	if m.tableBytes >= limit {
		return 0, &ExitError{Kind: LimitExceeded, Limit: LimitMemory, Message: fmt.Sprintf(
			"the module's tables alone need %d MiB, more than its memory limit of %d MiB (%s)", m.tableBytes>>20, limit>>20, Limits{MemoryBytes: limit}.setting("memory"))}
	}
	pages := (limit - m.tableBytes) / 2 / 65536
	if pages < 1 {
		return 0, &ExitError{Kind: LimitExceeded, Limit: LimitMemory, Message: fmt.Sprintf(
			"a memory limit of %d bytes leaves no page for the module (%s)", limit, Limits{MemoryBytes: limit}.setting("memory"))}
	}
	return uint32(min(pages, 65536)), nil
}

type moduleRunKey struct{}

// moduleRun is the state of one Module.Run, reached by the host function
// through the call's context.
type moduleRun struct {
	bridge    Bridge
	lim       Limits
	cancel    context.CancelCauseFunc
	mu        sync.Mutex // logs are written by Extism's logger and WASI writers
	logs      []LogEntry
	logBytes  int
	truncated bool
	exit      *ExitError
	calls     int
}

// errLogLimit is the cancellation cause when the logs overflow.
var errLogLimit = errors.New("sandbox: log limit")

// log records one entry, charged its text and LogEntryOverhead against
// MaxLogBytes and counted against MaxLogEntries, as for scripts. The entry
// that crosses either is cut (or dropped) and ends the run.
func (r *moduleRun) log(level LogLevel, text []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.truncated {
		return
	}
	if len(r.logs) >= r.lim.MaxLogEntries {
		r.truncateLocked(fmt.Sprintf("output exceeds %d entries (%s)", r.lim.MaxLogEntries, r.lim.setting("max_log_entries")))
		return
	}
	budget := r.lim.MaxLogBytes - r.logBytes - LogEntryOverhead
	if budget < 0 {
		r.truncateLocked(fmt.Sprintf("output exceeds %d bytes (%s)", r.lim.MaxLogBytes, r.lim.setting("max_log_bytes")))
		return
	}
	over := len(text) > budget
	if over {
		text = text[:budget]
	}
	r.logs = append(r.logs, LogEntry{Level: level, Text: strings.ToValidUTF8(string(text), "\uFFFD")})
	r.logBytes += len(text) + LogEntryOverhead
	if over {
		r.truncateLocked(fmt.Sprintf("output exceeds %d bytes (%s)", r.lim.MaxLogBytes, r.lim.setting("max_log_bytes")))
	}
}

func (r *moduleRun) truncateLocked(msg string) {
	r.truncated = true
	if r.exit == nil {
		r.exit = &ExitError{Kind: LimitExceeded, Limit: LimitLogs, Message: msg}
	}
	r.cancel(errLogLimit)
}

// full reports whether the logs are closed: a writer stops buffering then.
func (r *moduleRun) full() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.truncated
}

// logWriter turns a WASI stream into log lines. It holds at most
// MaxLogBytes of an unfinished line and scans each byte once, however the
// guest splits its writes (fd_write may pass many iovecs, even aliasing
// one buffer: each arrives here as one Write).
type logWriter struct {
	r     *moduleRun
	level LogLevel
	buf   []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if w.r.full() {
			return n, nil // dropped: the run is ending with LimitLogs
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := w.r.lim.MaxLogBytes + 1 - len(w.buf)
			if len(p) >= room { // a line longer than all the log may hold
				w.buf = append(w.buf, p[:room]...)
				w.r.log(w.level, w.buf)
				w.buf = w.buf[:0]
				return n, nil
			}
			w.buf = append(w.buf, p...)
			return n, nil
		}
		line := p[:i]
		if len(w.buf) > 0 {
			w.buf = append(w.buf, line...)
			line = w.buf
		}
		w.r.log(w.level, line)
		w.buf = w.buf[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (w *logWriter) flush() {
	if len(w.buf) > 0 {
		w.r.log(w.level, w.buf)
		w.buf = nil
	}
}

// hostCall implements airlock_call(name, args) → envelope: all three are
// Extism memory offsets (guest-sdk/ABI.md).
func hostCall(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
	r, _ := ctx.Value(moduleRunKey{}).(*moduleRun)
	if r == nil {
		panic(errors.New("sandbox: airlock_call outside a run"))
	}
	stop := func(xe *ExitError) {
		r.mu.Lock()
		r.exit = xe
		r.mu.Unlock()
		panic(xe)
	}
	name, err := p.ReadBytes(stack[0])
	if err != nil {
		stop(&ExitError{Kind: Trap, Message: "airlock_call: bad tool name offset: " + err.Error()})
	}
	if err := wire.CheckToolName(name); err != nil {
		stop(&ExitError{Kind: ScriptError, Message: "airlock_call: " + err.Error()})
	}
	if l, err := p.Length(stack[1]); err == nil && l > uint64(r.lim.MaxArgsBytes) {
		stop(&ExitError{Kind: LimitExceeded, Limit: LimitArgs,
			Message: fmt.Sprintf("%s: arguments of %d bytes exceed %d (%s)", name, l, r.lim.MaxArgsBytes, r.lim.setting("max_args_bytes"))})
	}
	args, err := p.ReadBytes(stack[1])
	if err != nil {
		stop(&ExitError{Kind: Trap, Message: "airlock_call: bad arguments offset: " + err.Error()})
	}
	if len(args) == 0 {
		args = []byte("{}")
	}
	if !json.Valid(args) {
		stop(&ExitError{Kind: ScriptError, Message: fmt.Sprintf("airlock_call %s: arguments are not valid JSON", name)})
	}
	r.calls++
	env, err := func() (env []byte, err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("bridge panicked: %v", v)
			}
		}()
		return r.bridge(ctx, string(name), args)
	}()
	if err == nil {
		err = wire.CheckEnvelope(env)
	}
	if err != nil {
		if ctx.Err() != nil {
			panic(ctx.Err()) // the run's deadline or cancellation decides
		}
		stop(&ExitError{Kind: HostError, Message: fmt.Sprintf("bridge failed on %s: %v", name, err), Err: err})
	}
	off, err := p.WriteBytes(env)
	if err != nil {
		stop(&ExitError{Kind: LimitExceeded, Limit: LimitMemory, Message: "no room for a tool result in the guest's memory (" + r.lim.setting("memory") + ")"})
	}
	stack[0] = off
}

// hostLog implements airlock_log(level, text): level 0 debug, 1 info,
// 2 warn, 3 error; text is an Extism memory offset.
func hostLog(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
	r, _ := ctx.Value(moduleRunKey{}).(*moduleRun)
	if r == nil {
		return
	}
	// Read no more than the log may still take: the block's length is the
	// guest's to choose.
	if l, err := p.Length(stack[1]); err != nil || l > uint64(r.lim.MaxLogBytes) {
		if err == nil {
			r.mu.Lock()
			r.truncateLocked(fmt.Sprintf("a log line of %d bytes exceeds the output limit of %d bytes (%s)", l, r.lim.MaxLogBytes, r.lim.setting("max_log_bytes")))
			r.mu.Unlock()
		}
		return
	}
	text, err := p.ReadBytes(stack[1])
	if err != nil {
		return
	}
	level := LogInfo
	if stack[0] < 4 {
		level = [...]LogLevel{LogDebug, LogInfo, LogWarn, LogError}[stack[0]]
	}
	r.log(level, text)
}

// Run runs the module once in a fresh instance: input is what the guest
// reads as its input (guest-sdk/go's airlock.Input), and the guest's output
// must be one JSON value (none means null). ctx bounds the whole run;
// errors are as for ScriptEngine.Run. Modules make one call at a time, so
// MaxInFlight does not apply; MaxStackBytes does not either.
func (m *Module) Run(ctx context.Context, input json.RawMessage, bridge Bridge, lim Limits) (*Result, error) {
	start := time.Now()
	if bridge == nil {
		return nil, fmt.Errorf("%w: nil Bridge", ErrInvalidScript)
	}
	lim, err := lim.withDefaults()
	if err != nil {
		return nil, err
	}
	cp, err := m.compiled(ctx, lim.MemoryBytes)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx, cancelT := withTimeLimit(ctx, lim.Timeout, lim, "module")
	defer cancelT()
	r := &moduleRun{bridge: bridge, lim: lim, cancel: cancel}
	stdout, stderr := &logWriter{r: r, level: LogInfo}, &logWriter{r: r, level: LogError}
	inst, err := cp.Instance(ctx, extism.PluginInstanceConfig{
		// No FS, no environment, no arguments; deterministic clock and random.
		ModuleConfig: wazero.NewModuleConfig().WithStdout(stdout).WithStderr(stderr),
	})
	if err != nil {
		if ctx.Err() != nil {
			return &Result{Stats: Stats{Wall: time.Since(start)}}, ctxExit(ctx)
		}
		return nil, fmt.Errorf("sandbox: instantiating module: %w", err)
	}
	stats := Stats{Instantiate: time.Since(start)}
	if len(input) == 0 {
		input = json.RawMessage("null")
	}
	rc, out, callErr := inst.CallWithContext(context.WithValue(ctx, moduleRunKey{}, r), m.entry, input)
	if mem := inst.Memory(); mem != nil {
		stats.MemoryBytes = uint64(mem.Size())
	}
	_ = inst.Close(context.WithoutCancel(ctx))
	stdout.flush()
	stderr.flush()
	r.mu.Lock()
	defer r.mu.Unlock()
	stats.Calls = r.calls
	stats.Wall = time.Since(start)
	res := &Result{Logs: r.logs, LogsTruncated: r.truncated, Stats: stats}
	switch {
	case r.exit != nil:
		return res, r.exit
	case r.truncated:
		return res, &ExitError{Kind: LimitExceeded, Limit: LimitLogs, Message: fmt.Sprintf("output exceeds %d bytes (%s)", lim.MaxLogBytes, lim.setting("max_log_bytes"))}
	case ctx.Err() != nil:
		return res, ctxExit(ctx)
	case callErr != nil:
		return res, moduleFailure(rc, callErr)
	case rc != 0:
		return res, &ExitError{Kind: ScriptError, Message: fmt.Sprintf("the module returned %d", rc)}
	}
	if len(bytes.TrimSpace(out)) == 0 {
		out = []byte("null")
	}
	if len(out) > lim.MaxResultBytes {
		return res, &ExitError{Kind: LimitExceeded, Limit: LimitResult,
			Message: fmt.Sprintf("the result is %d bytes, more than %d (%s)", len(out), lim.MaxResultBytes, lim.setting("max_result_bytes"))}
	}
	if !json.Valid(out) {
		return res, &ExitError{Kind: ScriptError, Message: "the module's output is not valid JSON"}
	}
	res.Value = out
	return res, nil
}

// moduleFailure classifies an error from the guest call.
func moduleFailure(rc uint32, err error) *ExitError {
	msg := err.Error()
	if strings.Contains(msg, "wasm error: ") {
		msg = msg[strings.Index(msg, "wasm error: ")+len("wasm error: "):]
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return &ExitError{Kind: Trap, Message: "wasm trap: " + msg, Err: err}
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return &ExitError{Kind: ScriptError, Message: fmt.Sprintf("the module exited with code %d", exit.ExitCode()), Err: err}
	}
	if rc != 0 {
		return &ExitError{Kind: ScriptError, Message: fmt.Sprintf("the module failed (code %d): %s", rc, msg), Err: err}
	}
	return &ExitError{Kind: ScriptError, Message: msg, Err: err}
}
