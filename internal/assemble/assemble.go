package assemble

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/trace"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/fsblob"
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/internal/metrics"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// ErrConfig is wrapped by Build when the configuration cannot be used as it
// is (a tool definition, an exporter, a store kind): the user must change it.
// Other errors are the host's (a directory that cannot be opened, an engine
// that does not start).
var ErrConfig = errors.New("configuration")

// Options are what a face decides beyond the configuration. The zero value
// builds a process with both engines, no pool, the approval queue as the
// approver and a registry of its own.
type Options struct {
	// Service builds the chain service too (Process.Service), for the
	// faces that serve chains (serve, mcp, chains); the approver then
	// follows approval.mode (queue, park, allow or deny) and Approver
	// must be nil.
	Service bool
	// Approver decides calls above the policy's MaxRiskUnapproved. Nil: the
	// Process's Queue, where people decide through the HTTP API.
	Approver invoker.ApprovalHandler
	// ApprovalMode (ask, deny, allow or queue) is recorded on trace spans.
	ApprovalMode string
	// Scripts and Modules choose the engines to start; both false starts
	// both.
	Scripts, Modules bool
	// PoolSize is how many fresh script instances to keep ready. Default 0.
	PoolSize int
	// ModuleDiskCache keeps compiled modules in the on-disk compilation
	// cache: for `airlock run`, where the modules are the user's own. A
	// server compiling what clients send keeps them in memory.
	ModuleDiskCache bool
	// Registerer receives the tool-call metrics. Nil: Process.Registry.
	Registerer prometheus.Registerer
	// TraceOutput receives the spans of the stdout exporter. Default
	// os.Stderr.
	TraceOutput io.Writer
	// Hooks fire on every call besides the metrics and trace hooks, for a
	// face's own display (the CLI's progress lines).
	Hooks invoker.Hooks
	// Logger receives the process's log lines. Nil discards.
	Logger *slog.Logger
	// LookupEnv resolves ${env:NAME} in HTTP tool headers at call time.
	// Default os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// MCPFailFast makes Build fail when an MCP server's first start fails,
	// for one-shot commands (`airlock run`). Default false: a server that
	// is down is retried in the background (serve, mcp).
	MCPFailFast bool
}

// Process is everything one airlock process runs chains with, built once
// from a loaded configuration: the tools, the store, the engines, the one
// Invoker every chain shares, the approval queue, metrics and tracing.
type Process struct {
	// Config is the configuration the process was built from.
	Config *config.Config
	// Toolbox holds every configured tool; ToolSets names groups of them a
	// request may select ("demo", "http").
	Toolbox  *toolbox.Toolbox
	ToolSets map[string][]string
	// MCP keeps the configured MCP servers' sessions and tools; nil when
	// none is configured.
	MCP *mcptool.Manager
	// Store keeps offloaded results; StoreWhere describes it for people.
	Store      *blobstore.Store
	StoreWhere string
	// Engines are the started sandboxes.
	Engines chain.Engines
	// Invoker is the one invoker of the process; Runner runs chains on it.
	Invoker *invoker.Invoker
	Runner  *chain.Runner
	// Queue holds approval requests when it is the approver.
	Queue *approval.Queue
	// Registry is the process's own metrics registry when Options.Registerer
	// was nil; it then holds the Go and process collectors too.
	Registry *prometheus.Registry
	// TracerProvider is nil when tracing is off; Tracer records on it.
	TracerProvider trace.TracerProvider
	Tracer         *tracing.Tracer
	// Profiles are the configured profiles by name; DefaultProfile is the
	// one of `airlock run` and of keys naming none (nil: none).
	Profiles       map[string]*service.Profile
	DefaultProfile *service.Profile
	// Service runs and keeps chains for the faces (Options.Service); nil
	// otherwise. It is built but not started: a face that serves calls
	// Start; Close drains it.
	Service *service.Service

	registerer prometheus.Registerer
	closers    []func(context.Context) error
}

// Build builds a Process from cfg. ctx bounds the start (engine compilation,
// the store's first contact); Close releases what Build started.
func Build(ctx context.Context, cfg *config.Config, opts Options) (p *Process, err error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p = &Process{Config: cfg}
	built := p // p is nil once a return statement sets it
	defer func() {
		if err != nil {
			_ = built.Close(context.Background())
			p = nil
		}
	}()

	out := opts.TraceOutput
	if out == nil {
		out = os.Stderr
	}
	tp, shutdown, err := SetupTracing(ctx, cfg.Tracing, out)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.closers = append(p.closers, shutdown)
	p.TracerProvider = tp
	if opts.Service {
		if opts.Approver != nil {
			return nil, errors.New("assemble: Options.Approver is set by approval.mode when Options.Service is")
		}
		if opts.Approver, err = approverFor(cfg.Approval.Mode); err != nil {
			return nil, err
		}
		opts.ApprovalMode = string(cmp.Or(cfg.Approval.Mode, config.ApprovalQueue))
	}
	p.Tracer = tracing.New(tp, opts.ApprovalMode)

	if p.Toolbox, p.ToolSets, _, err = tools(cfg, opts.LookupEnv); err != nil {
		return nil, err
	}
	if p.MCP, err = startMCP(ctx, cfg, p.Toolbox, opts.LookupEnv, log, opts.MCPFailFast); err != nil {
		return nil, err
	}
	if p.MCP != nil {
		p.closers = append(p.closers, func(context.Context) error { return p.MCP.Close() })
	}
	if p.Store, p.StoreWhere, err = openStore(ctx, cfg, log); err != nil {
		return nil, err
	}
	p.closers = append(p.closers, func(context.Context) error { return p.Store.Close() })

	reg := opts.Registerer
	if reg == nil {
		p.Registry = prometheus.NewRegistry()
		p.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		reg = p.Registry
	}
	p.registerer = reg
	p.Queue = approval.NewQueue(approval.Options{
		Store: p.Store, PreviewBytes: int(cfg.Approval.PreviewBytes), MaxPendingBytes: int64(cfg.Approval.MaxPendingBytes),
	})
	approver := opts.Approver
	if approver == nil {
		approver = p.Queue
	}
	var inv *invoker.Invoker
	m, err := metrics.New(reg, p.Toolbox, func() int64 { return inv.Abandoned() })
	if err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	hooks := opts.Hooks
	if p.Profiles, err = profiles(cfg, p.Toolbox, p.ToolSets); err != nil {
		return nil, err
	}
	p.DefaultProfile = p.Profiles[cfg.DefaultProfile]
	outcomes, err := storeOutcomes(cfg, p.Store, log, reg)
	if err != nil {
		return nil, err
	}
	inv, err = invoker.New(p.Toolbox, invoker.Options{
		Governor: governor(cfg, outcomes),
		Policy:   cfg.Policy,
		Approver: m.Approver(approver),
		Store:    m.Store(p.Store),
		Hooks: invoker.Hooks{
			OnToolStart: hooks.OnToolStart,
			StartCall:   p.startCall(hooks.StartCall, log),
			OnEvent: func(ctx context.Context, ev invoker.Event) {
				p.Tracer.Parked(ctx, ev)
				if hooks.OnEvent != nil {
					hooks.OnEvent(ctx, ev)
				}
			},
			OnToolEnd: func(ctx context.Context, ev invoker.Event) {
				m.ToolEnd(ev)
				p.Tracer.ToolEnd(ctx, ev)
				if hooks.OnToolEnd != nil {
					hooks.OnToolEnd(ctx, ev)
				}
			},
		},
		Progress:               m.Progress(),
		Logger:                 log,
		MaxTenantArtifactBytes: int64(cfg.Store.MaxTenantArtifactBytes),
		MaxResolvingBytes:      int64(cfg.Store.MaxResolvingBytes),
		MaxTenantInFlightBytes: int64(cfg.Approval.MaxTenantInFlightBytes),
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.Invoker = inv
	if err := metrics.NewHealth(reg, p.Toolbox, inv.Governor().Health()); err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}

	both := !opts.Scripts && !opts.Modules
	if opts.Scripts || both {
		if p.Engines.Scripts, err = scriptEngine(ctx, opts.PoolSize, cfg.Limits); err != nil {
			return nil, err
		}
		p.closers = append(p.closers, p.Engines.Scripts.Close)
	}
	if opts.Modules || both {
		if p.Engines.Modules, err = moduleEngine(ctx, opts.ModuleDiskCache); err != nil {
			return nil, err
		}
		p.closers = append(p.closers, p.Engines.Modules.Close)
	}
	if p.Runner, err = chain.New(inv, p.Engines); err != nil {
		return nil, err
	}
	if opts.Service {
		if p.Service, err = p.buildService(ctx, cfg, opts); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Close releases what Build started, last first: the service (draining
// its chains until ctx ends), engines, the store, then tracing (flushing
// spans, bounded by ctx). It returns the first error. A nil Process closes
// nothing.
func (p *Process) Close(ctx context.Context) error {
	if p == nil {
		return nil
	}
	var first error
	for i := len(p.closers) - 1; i >= 0; i-- {
		if err := p.closers[i](ctx); err != nil && first == nil {
			first = err
		}
	}
	p.closers = nil
	return first
}

// RunSweeper removes expired artifacts from the store every interval until
// the returned stop is called; stop waits for the sweeper to end.
func (p *Process) RunSweeper(interval time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Store.RunSweeper(ctx, interval); close(done) }()
	return func() { cancel(); <-done }
}

// CacheDir returns os.UserCacheDir()/airlock/sub, or "" when there is no
// user cache directory.
func CacheDir(sub string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "airlock", sub)
}

// openStore opens the configured blob store and describes where it keeps
// artifacts.
func openStore(ctx context.Context, cfg *config.Config, log *slog.Logger) (*blobstore.Store, string, error) {
	var (
		d     blobstore.Driver
		where string
	)
	switch cfg.Store.Kind {
	case "", "fs":
		dir := cfg.Store.Dir
		if dir == "" {
			var err error
			if dir, err = fsblob.DefaultDir(); err != nil {
				return nil, "", err
			}
		}
		fd, err := fsblob.New(dir)
		if err != nil {
			return nil, "", fmt.Errorf("opening the blob store: %w", err)
		}
		d, where = fd, "the fs store at "+fd.Dir()
	case "s3":
		s3 := cfg.Store.S3
		sd, err := s3blob.New(ctx, s3blob.Config{
			Endpoint: s3.Endpoint, Bucket: s3.Bucket, AccessKey: s3.AccessKey, SecretKey: s3.SecretKey.Reveal(),
			UseTLS: s3.UseTLS, Region: s3.Region, Prefix: s3.Prefix,
		})
		if err != nil {
			return nil, "", fmt.Errorf("opening the S3 blob store: %w", err)
		}
		d, where = sd, fmt.Sprintf("the s3 store, bucket %s at %s", s3.Bucket, s3.Endpoint)
	default:
		return nil, "", fmt.Errorf("%w: store.kind %q must be fs or s3", ErrConfig, cfg.Store.Kind)
	}
	return blobstore.New(d, blobstore.Options{TTL: cfg.Store.TTL.D(), MaxBlobBytes: int64(cfg.Store.MaxBlobBytes), Logger: log}), where, nil
}

// scriptEngine starts the script engine with the on-disk compilation
// cache, so only the first run on a machine compiles QuickJS (~0.7 s).
func scriptEngine(ctx context.Context, poolSize int, limits sandbox.Limits) (*sandbox.ScriptEngine, error) {
	opts := sandbox.ScriptOptions{CompilationCacheDir: CacheDir("wazero"), PoolSize: poolSize, PoolLimits: limits}
	e, err := sandbox.NewScriptEngine(ctx, opts)
	if err != nil && opts.CompilationCacheDir != "" {
		// An unusable cache directory costs time, not correctness.
		opts.CompilationCacheDir = ""
		e, err = sandbox.NewScriptEngine(ctx, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("starting the script engine: %w", err)
	}
	return e, nil
}

// moduleEngine starts the module engine. A diskCache engine keeps compiled
// modules in the on-disk compilation cache; otherwise they stay in memory
// and end with the process, so modules clients submit never pile up on disk.
func moduleEngine(ctx context.Context, diskCache bool) (*sandbox.ModuleEngine, error) {
	var opts sandbox.ModuleOptions
	if diskCache {
		opts.CompilationCacheDir = CacheDir("wazero")
	}
	e, err := sandbox.NewModuleEngine(ctx, opts)
	if err != nil && opts.CompilationCacheDir != "" {
		e, err = sandbox.NewModuleEngine(ctx, sandbox.ModuleOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("starting the module engine: %w", err)
	}
	return e, nil
}

// startCall is the invoker's StartCall hook: the call's span (so tools
// send the chain's trace context on), then the embedder's own hook, if any.
// A panic in the embedder's hook is contained here, after the span
// started: the call keeps its span, which ToolEnd or Parked ends.
func (p *Process) startCall(next func(context.Context, invoker.Event) context.Context, log *slog.Logger) func(context.Context, invoker.Event) context.Context {
	if !p.Tracer.Enabled() {
		return next
	}
	return func(ctx context.Context, ev invoker.Event) (out context.Context) {
		out = p.Tracer.StartCall(ctx, ev)
		if next == nil {
			return out
		}
		defer func() {
			if v := recover(); v != nil {
				log.Error("invoker: hook panicked", "event", "START_CALL", "tool", ev.Tool, "panic_type", fmt.Sprintf("%T", v))
			}
		}()
		if c := next(out, ev); c != nil {
			out = c
		}
		return out
	}
}
