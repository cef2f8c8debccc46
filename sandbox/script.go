package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"

	jsprelude "github.com/airlockrt/airlock/guest-sdk/js"
	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
)

// ScriptOptions configures a ScriptEngine. The zero value is ready to use.
type ScriptOptions struct {
	// CompilationCacheDir, when set, keeps the compiled QuickJS engine on disk
	// there, so that a new process skips the ~0.7 s compilation. Empty means
	// an in-memory cache private to the engine.
	CompilationCacheDir string
	// PoolSize is the number of pre-created, never-used instances kept ready;
	// 0 (the default) keeps none. A fresh instance is restored from a
	// snapshot of an initialised one in ~0.2 ms, so a pool matters mostly
	// when a snapshot cannot be taken. A pooled instance serves one run and is then discarded,
	// like any other.
	PoolSize int
	// PoolLimits are the limits pooled instances are prepared for: a run
	// whose Limits.MemoryBytes (after defaults) differs from
	// PoolLimits.MemoryBytes gets a fresh instance instead. Only MemoryBytes
	// is used; zero means DefaultMemoryBytes.
	PoolLimits Limits
	// Clock, when non-nil, is the real clock runs read (Guest.Clock
	// ClockReal): Date, performance.now and timers. Nil means time.Now. It
	// must be safe for concurrent use, and its readings must not go back.
	// Instances are initialised on a deterministic clock whatever Clock is,
	// so they can be restored from a snapshot; each run gets its own clock
	// when it starts.
	Clock func() time.Time
	// Rand, when non-nil, feeds the guest's WASI random_get and seeds each
	// run's Math.random; it must be safe for concurrent use
	// (crypto/rand.Reader is). Nil gives WASI a deterministic source, and
	// every run's Math.random a seed of its own from crypto/rand: no two
	// runs, pooled or restored from one snapshot, share a sequence.
	Rand io.Reader
}

// ScriptEngine runs JavaScript and TypeScript chain scripts, each in a fresh
// QuickJS-in-WebAssembly instance. It is safe for concurrent use.
type ScriptEngine struct {
	opts     ScriptOptions
	module   *quickjs.Module
	cache    wazero.CompilationCache
	poolMem  uint64
	mu       sync.Mutex
	closed   bool
	runtimes map[uint32]*quickjs.Runtime // by linear-memory page limit
	snaps    map[uint64]*snapshot        // by Limits.MemoryBytes
	active   map[*activeRun]struct{}
	bare     map[uint64]*quickjs.Base // park bases when there is no snapshot, by Limits.MemoryBytes
	runs     sync.WaitGroup
	pool     *pool
	parse    *parseBudget // processParse; tests set another before the first run
}

type activeRun struct{ cancel context.CancelCauseFunc }

// errEngineClosed is the cancellation cause of runs interrupted by Close.
var errEngineClosed = errors.New("sandbox: engine closed during the run")

// memoryHeadroom is added to Limits.MemoryBytes to get the linear memory
// cap, which is what binds (quickjs.Headroom).
const memoryHeadroom = quickjs.Headroom

// maxSnapshots bounds the distinct Limits.MemoryBytes an engine keeps a
// snapshot for; runs with other limits prepare their own instance (slower).
const maxSnapshots = 16

// NewScriptEngine compiles the QuickJS engine (or loads it from the
// compilation cache) and, if opts.PoolSize > 0, starts filling the pool in
// the background. ctx bounds the compilation only.
func NewScriptEngine(ctx context.Context, opts ScriptOptions) (*ScriptEngine, error) {
	if opts.PoolSize < 0 {
		return nil, fmt.Errorf("sandbox: ScriptOptions.PoolSize (%d) must not be negative", opts.PoolSize)
	}
	pl, err := opts.PoolLimits.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("sandbox: ScriptOptions.PoolLimits: %w", err)
	}
	e := &ScriptEngine{
		opts:     opts,
		poolMem:  pl.MemoryBytes,
		runtimes: map[uint32]*quickjs.Runtime{},
		snaps:    map[uint64]*snapshot{},
		active:   map[*activeRun]struct{}{},
		parse:    processParse,
	}
	if e.module, err = quickjs.LoadModule(); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if opts.CompilationCacheDir != "" {
		if e.cache, err = wazero.NewCompilationCacheWithDir(opts.CompilationCacheDir); err != nil {
			return nil, fmt.Errorf("sandbox: opening compilation cache %s: %w", opts.CompilationCacheDir, err)
		}
	} else {
		e.cache = wazero.NewCompilationCache()
	}
	rt, err := e.runtime(ctx, e.poolMem)
	if err != nil {
		_ = e.cache.Close(ctx)
		return nil, err
	}
	// Prepare the snapshot for the pool's limits (the default ones unless
	// set) now, so that the first run does not pay for it.
	in, err := e.newInstance(ctx, rt, e.poolMem)
	if err != nil {
		_ = e.Close(ctx)
		return nil, err
	}
	in.Close(ctx)
	if opts.PoolSize > 0 {
		e.pool = newPool(opts.PoolSize, func(ctx context.Context) (*quickjs.Instance, error) {
			in, err := e.newInstance(ctx, rt, e.poolMem)
			return in, err
		})
	}
	return e, nil
}

// runtime returns the wazero runtime whose memory cap fits memBytes.
//
// Runtimes are keyed by the linear-memory cap rounded up to a power of two
// pages, and snapshots are kept for at most maxSnapshots distinct
// Limits.MemoryBytes: every distinct limit a client asks for must not cost a
// runtime (about 1.5 MiB) and a snapshot forever. The QuickJS heap limit,
// which is what enforces Limits.MemoryBytes, stays exact.
func (e *ScriptEngine) runtime(ctx context.Context, memBytes uint64) (*quickjs.Runtime, error) {
	pages := uint32(1)
	for uint64(pages)*quickjs.PageSize < memBytes+memoryHeadroom {
		pages <<= 1
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	if rt := e.runtimes[pages]; rt != nil {
		return rt, nil
	}
	rt, err := quickjs.NewRuntime(ctx, quickjs.Config{
		Module:           e.module,
		Cache:            e.cache,
		MemoryLimitPages: pages,
		Rand:             e.opts.Rand,
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	e.runtimes[pages] = rt
	return rt, nil
}

// snapshot is the state of a prepared instance (RATIONALE.md, "Why restore
// fresh instances from a snapshot, and keep a pool?"): while it is being
// taken, s is nil and other runs prepare their own instance; when it cannot
// be taken, s stays nil and every run prepares its own.
type snapshot struct{ s *quickjs.Snapshot }

// newInstance returns a never-used instance prepared for a run with
// memBytes of memory: restored from the snapshot for memBytes, or created
// and initialised, in which case its state becomes that snapshot if there is
// none yet.
func (e *ScriptEngine) newInstance(ctx context.Context, rt *quickjs.Runtime, memBytes uint64) (*quickjs.Instance, error) {
	e.mu.Lock()
	sn := e.snaps[memBytes]
	if sn == nil && len(e.snaps) >= maxSnapshots {
		// Too many distinct limits: this one prepares its own instance.
		e.mu.Unlock()
		return newPreparedInstance(ctx, rt, memBytes)
	}
	take := sn == nil
	if take {
		sn = &snapshot{}
		e.snaps[memBytes] = sn
	}
	snap := sn.s
	e.mu.Unlock()
	if snap != nil {
		in, err := rt.Restore(ctx, snap)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		return in, nil
	}
	in, err := newPreparedInstance(ctx, rt, memBytes)
	if !take {
		return in, err
	}
	var s *quickjs.Snapshot
	if err == nil {
		// What instances restored from the snapshot allocate then comes
		// from pages of their own at the top, not from holes in the
		// shared image (quickjs.Instance.FillFreeChunks).
		if _, err = in.FillFreeChunks(ctx); err != nil {
			in.Close(ctx)
			in, err = nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	if err == nil {
		s, err = rt.Snapshot(ctx, in)
		if errors.Is(err, quickjs.ErrNoSnapshot) {
			s, err = nil, nil // not an error: every run prepares its own
		} else if err != nil {
			in.Close(ctx)
			in, err = nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	e.mu.Lock()
	if err != nil {
		delete(e.snaps, memBytes) // the next run tries again
	} else {
		sn.s = s
	}
	e.mu.Unlock()
	return in, err
}

// newPreparedInstance creates an instance and evaluates the prelude in it.
func newPreparedInstance(ctx context.Context, rt *quickjs.Runtime, heapLimit uint64) (*quickjs.Instance, error) {
	in, err := rt.NewInstance(ctx, heapLimit)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	exc, text, err := in.Eval(ctx, jsprelude.Source, jsprelude.Filename)
	if err == nil && exc {
		err = fmt.Errorf("sandbox: evaluating the prelude: %s", text)
	}
	if err == nil {
		// Looked up once here: instances restored from the prepared one's
		// snapshot have it too.
		_, err = in.GlobalFunc(ctx, pumpFunc)
	}
	if err == nil {
		_, err = in.GlobalFunc(ctx, startFunc)
	}
	for _, a := range []string{"<input>", "name"} { // for call sites (scriptRun.callSites)
		if err == nil {
			_, err = in.Atom(ctx, a)
		}
	}
	if err != nil {
		in.Close(ctx)
		return nil, err
	}
	return in, nil
}

// instance returns a never-used instance: from the pool when it fits.
func (e *ScriptEngine) instance(ctx context.Context, memBytes uint64) (*quickjs.Instance, bool, error) {
	if e.pool != nil && memBytes == e.poolMem {
		if in := e.pool.get(); in != nil {
			return in, true, nil
		}
	}
	rt, err := e.runtime(ctx, memBytes)
	if err != nil {
		return nil, false, err
	}
	in, err := e.newInstance(ctx, rt, memBytes)
	return in, false, err
}

// begin registers a run; it fails once the engine is closed.
func (e *ScriptEngine) begin(ctx context.Context) (context.Context, func(), error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, nil, ErrClosed
	}
	ctx, cancel := context.WithCancelCause(ctx)
	a := &activeRun{cancel: cancel}
	e.active[a] = struct{}{}
	e.runs.Add(1)
	return ctx, func() {
		cancel(nil)
		e.mu.Lock()
		delete(e.active, a)
		e.mu.Unlock()
		e.runs.Done()
	}, nil
}

// Run runs one script in a fresh instance, handing its tool calls to bridge.
// ctx bounds the whole run (lim.Timeout applies on top of it). It returns
// ErrInvalidScript, ErrInvalidLimits or ErrClosed (with a nil Result) when
// the run cannot start, and a *ExitError, with a Result holding the logs
// captured so far, when the guest did not finish normally. When Run
// returns, no Bridge call it made is still running.
func (e *ScriptEngine) Run(ctx context.Context, s Script, bridge Bridge, lim Limits) (*Result, error) {
	start := time.Now()
	if bridge == nil {
		return nil, fmt.Errorf("%w: nil Bridge", ErrInvalidScript)
	}
	lim, err := lim.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := s.Guest.Validate(); err != nil {
		return nil, err
	}
	prep, err := prepare(ctx, s, e.parse)
	if err != nil {
		var xe *ExitError
		if errors.As(err, &xe) {
			return &Result{Stats: Stats{Wall: time.Since(start)}}, err
		}
		return nil, err
	}
	return e.runPrepared(ctx, s, prep, bridge, lim, start)
}

// RunProgram runs a compiled program as Run runs a script, without parsing
// or transpiling it again. p.With sets the run's own artifact reader and
// park flag.
func (e *ScriptEngine) RunProgram(ctx context.Context, p *Program, bridge Bridge, lim Limits) (*Result, error) {
	start := time.Now()
	if p == nil || p.prep == nil {
		return nil, fmt.Errorf("%w: nil Program", ErrInvalidScript)
	}
	if bridge == nil {
		return nil, fmt.Errorf("%w: nil Bridge", ErrInvalidScript)
	}
	lim, err := lim.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := p.script.Guest.Validate(); err != nil {
		return nil, err
	}
	return e.runPrepared(ctx, p.script, p.prep, bridge, lim, start)
}

// runPrepared runs a prepared script; lim has its defaults.
func (e *ScriptEngine) runPrepared(ctx context.Context, s Script, prep *prepared, bridge Bridge, lim Limits, start time.Time) (*Result, error) {
	ctx, end, err := e.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	ctx, cancel := withTimeLimit(ctx, lim.Timeout, lim, "script")
	defer cancel()

	in, pooled, err := e.instance(ctx, lim.MemoryBytes)
	if err != nil {
		if ctx.Err() != nil {
			return &Result{Stats: Stats{Wall: time.Since(start)}}, ctxExit(ctx)
		}
		return nil, err
	}
	r := newScriptRun(ctx, in, prep, bridge, lim)
	r.artifacts, r.guest, r.park = s.Artifacts, s.Guest, s.Park
	r.clock = newRunClock(s.Guest.Clock == ClockVirtual, e.opts.Clock, in.MonoOrigin())
	in.SetClock(r.clock)
	src := e.opts.Rand
	if s.Guest.Seed != 0 {
		src = seeded(s.Guest.Seed, streamMathRandom)
		r.cryptoRand = seeded(s.Guest.Seed, streamCrypto)
	}
	if err := r.seed(src); err != nil {
		in.Close(ctx)
		return nil, fmt.Errorf("sandbox: seeding Math.random: %w", err)
	}
	r.stats.Pooled = pooled
	r.stats.Instantiate = time.Since(start)
	res := r.run(ctx, e, start)
	if r.exit != nil {
		return res, r.exit
	}
	return res, nil
}

// run drives r to its end or its park and releases its instance.
func (r *scriptRun) run(ctx context.Context, e *ScriptEngine, start time.Time) *Result {
	r.began = time.Now()
	r.drive(ctx)
	var parked *Parked
	if r.parking && r.exit == nil {
		var err error
		if parked, err = r.capture(ctx, e); err != nil {
			r.exit = &ExitError{Kind: HostError, Message: "the chain could not be parked", Err: err}
		}
	}
	r.finish(ctx)
	r.stats.Wall = time.Since(start)
	res := &Result{Logs: r.logs, LogsTruncated: r.truncated, Stats: r.stats, Parked: parked}
	if r.exit == nil && parked == nil {
		res.Value = r.value
	}
	return res
}

// Check parses s (and strips its types, for TypeScript) without running it.
// It returns nil, a *ExitError of Kind ScriptError with the position of the
// first syntax error in s.Source, or ErrInvalidScript for an unknown Lang.
// Module syntax (import and export declarations, import.meta) is a syntax
// error. Check uses esbuild's parser, which may accept syntax QuickJS
// rejects.
func (e *ScriptEngine) Check(s Script) error { return check(context.Background(), s, e.parse) }

// Close stops the pool, cancels the runs in progress (they end with Kind
// Cancelled), waits for them, and releases every instance and the compiled
// engine. ctx bounds the wait: if it ends first, Close returns its error
// and the runs still in progress, cancelled, release the engine when the
// last of them ends. Later calls return nil.
func (e *ScriptEngine) Close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	for a := range e.active {
		a.cancel(errEngineClosed)
	}
	e.mu.Unlock()

	done := make(chan struct{})
	go func() { e.runs.Wait(); close(done) }()
	if e.pool != nil {
		e.pool.close(ctx)
	}
	select {
	case <-done:
		return e.release(ctx)
	case <-ctx.Done():
		// The runs, cancelled, end at their guests' next yield; the
		// runtimes must not be closed under them (wazero does not support
		// closing a module whose guest is running), so the last one to end
		// releases them.
		go func() {
			<-done
			_ = e.release(context.WithoutCancel(ctx))
		}()
		return fmt.Errorf("sandbox: closing the script engine: %w (the runs still in progress release it when they end)", ctx.Err())
	}
}

// release closes the runtimes and the compilation cache once no run is in
// progress.
func (e *ScriptEngine) release(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var err error
	for _, rt := range e.runtimes {
		if cerr := rt.Close(ctx); cerr != nil && err == nil {
			err = cerr
		}
	}
	if cerr := e.cache.Close(ctx); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// pool keeps up to size prepared instances, refilled by one goroutine.
type pool struct {
	ch     chan *quickjs.Instance
	refill chan struct{}
	stop   chan struct{}
	done   chan struct{}
}

func newPool(size int, create func(context.Context) (*quickjs.Instance, error)) *pool {
	p := &pool{
		ch:     make(chan *quickjs.Instance, size),
		refill: make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	go p.fill(create)
	return p
}

// poolRetry is how long the pool waits after a failed creation before it
// tries again, unless a take asks sooner.
const poolRetry = time.Second

func (p *pool) fill(create func(context.Context) (*quickjs.Instance, error)) {
	defer close(p.done)
	ctx := context.Background()
	retry := time.NewTimer(poolRetry)
	retry.Stop()
	defer retry.Stop()
	for {
		for len(p.ch) < cap(p.ch) {
			in, err := create(ctx)
			if err != nil {
				retry.Reset(poolRetry) // try again later, or at the next take
				break
			}
			select {
			case p.ch <- in:
			case <-p.stop:
				in.Close(ctx)
				return
			}
		}
		select {
		case <-p.refill:
		case <-retry.C:
		case <-p.stop:
			return
		}
	}
}

// get takes a prepared instance, or returns nil when the pool is empty. Either
// way it asks the filler for more: an empty pool may be one whose last
// creation failed.
func (p *pool) get() *quickjs.Instance {
	defer func() {
		select {
		case p.refill <- struct{}{}:
		default:
		}
	}()
	select {
	case in := <-p.ch:
		return in
	default:
		return nil
	}
}

func (p *pool) close(ctx context.Context) {
	close(p.stop)
	<-p.done
	for {
		select {
		case in := <-p.ch:
			in.Close(ctx)
		default:
			return
		}
	}
}
