package server

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/metrics"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// DefaultTenant is the tenant of every request when no API keys are
// configured.
const DefaultTenant = "default"

// Defaults of Options.
const (
	DefaultMaxRequestBytes     = 1 << 20
	DefaultMaxConcurrentChains = 64
	DefaultResultTTL           = 15 * time.Minute
	DefaultMaxResults          = 1000
	DefaultShutdownTimeout     = 30 * time.Second
)

// Options configure New. Toolbox and Engines.Scripts are required; every
// other field has a working zero value.
type Options struct {
	// Toolbox holds the tools chains may call. Required.
	Toolbox *toolbox.Toolbox
	// ToolSets name groups of tools a request may select with "tools", e.g.
	// {"demo": [...], "http": [...]}. Nil: requests select tools by name
	// only.
	ToolSets map[string][]string
	// Engines run the chains. Scripts is required; Modules, when set,
	// enables language wasm.
	Engines chain.Engines
	// Policy is the chain policy before a request's overrides. Zero fields
	// take invoker's defaults.
	Policy invoker.Policy
	// Limits are the sandbox limits before a request's overrides. Zero
	// fields take sandbox's defaults.
	Limits sandbox.Limits
	// Ceiling, when set, checks the policy and limits of every request after
	// its overrides and returns an error naming the first value above the
	// operator's limit (config.Ceiling.Check). Nil accepts every valid value.
	Ceiling func(invoker.Policy, sandbox.Limits) error
	// Store keeps offloaded results and media, and serves
	// GET /v1/artifacts. Nil keeps every result inline. The server does not
	// close it.
	Store *blobstore.Store
	// Queue holds the approval requests of GET and POST /v1/approvals. Nil:
	// an empty queue of the server's own.
	Queue *approval.Queue
	// Approver decides risky calls. Nil: the Queue, so people decide
	// through the API.
	Approver invoker.ApprovalHandler
	// ApprovalMode (queue, allow or deny) is recorded on trace spans.
	// Default "queue".
	ApprovalMode string
	// Authenticate returns the tenant of a bearer API key. Nil: no keys,
	// every request acts for DefaultTenant, and ListenAndServe only accepts
	// a loopback address.
	Authenticate func(key string) (tenant string, ok bool)
	// Registry receives airlock's collectors and is served on /metrics.
	// Nil: a registry of the server's own.
	Registry *prometheus.Registry
	// TracerProvider, when set, records a span per chain and per tool call.
	// Nil: no tracing.
	TracerProvider trace.TracerProvider
	// MaxRequestBytes caps a request body. Default 1 MiB.
	MaxRequestBytes int64
	// MaxConcurrentChains caps the chains running at once; more are refused
	// with 429. Default 64.
	MaxConcurrentChains int
	// ResultTTL is how long a finished chain stays readable. Default 15m.
	ResultTTL time.Duration
	// MaxResults caps the finished chains kept; the oldest go first.
	// Default 1000.
	MaxResults int
	// ShutdownTimeout is how long ListenAndServe lets running chains finish
	// after its context ends before it cancels them. Default 30s.
	ShutdownTimeout time.Duration
	// Logger receives the server's log lines. Nil discards them.
	Logger *slog.Logger
}

// Server is airlock's HTTP API. Build it with New; serve it with
// ListenAndServe, or mount Handler and call Shutdown yourself.
type Server struct {
	opts     Options
	log      *slog.Logger
	box      *toolbox.Toolbox
	invOpts  invoker.Options
	runner   *chain.Runner
	queue    *approval.Queue
	metrics  *metrics.Metrics
	tracer   *tracing.Tracer
	reg      *prometheus.Registry
	handler  http.Handler
	slots    chan struct{}
	unsub    func()
	baseCtx  context.Context
	stopAll  context.CancelCauseFunc
	live     sync.Map // chain id → *run, while running
	draining atomic.Bool

	mu       sync.Mutex
	runs     map[string]*run // running and retained
	finished []*run          // retained, oldest first
	running  sync.WaitGroup
}

// New builds a Server from opts.
func New(opts Options) (*Server, error) {
	if opts.Toolbox == nil {
		return nil, ErrNoToolbox
	}
	if opts.Engines.Scripts == nil {
		return nil, ErrNoEngine
	}
	if err := opts.Policy.Validate(); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	opts.MaxRequestBytes = cmp.Or(opts.MaxRequestBytes, DefaultMaxRequestBytes)
	opts.MaxConcurrentChains = cmp.Or(opts.MaxConcurrentChains, DefaultMaxConcurrentChains)
	opts.ResultTTL = cmp.Or(opts.ResultTTL, DefaultResultTTL)
	opts.MaxResults = cmp.Or(opts.MaxResults, DefaultMaxResults)
	opts.ShutdownTimeout = cmp.Or(opts.ShutdownTimeout, DefaultShutdownTimeout)
	opts.ApprovalMode = cmp.Or(opts.ApprovalMode, "queue")
	s := &Server{
		opts:  opts,
		log:   opts.Logger,
		box:   opts.Toolbox,
		queue: opts.Queue,
		reg:   opts.Registry,
		slots: make(chan struct{}, opts.MaxConcurrentChains),
		runs:  map[string]*run{},
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.queue == nil {
		s.queue = approval.NewQueue(approval.Options{})
	}
	if s.reg == nil {
		s.reg = prometheus.NewRegistry()
	}
	var err error
	if s.metrics, err = metrics.New(s.reg, s.box); err != nil {
		return nil, fmt.Errorf("server: registering metrics: %w", err)
	}
	s.tracer = tracing.New(opts.TracerProvider, opts.ApprovalMode)
	approver := opts.Approver
	if approver == nil {
		approver = s.queue
	}
	s.invOpts = invoker.Options{
		Policy:   opts.Policy,
		Approver: s.metrics.Approver(approver),
		Hooks:    invoker.Hooks{OnToolEnd: s.toolEnd},
		Progress: s.progress,
		Logger:   s.log,
	}
	if opts.Store != nil {
		s.invOpts.Store = s.metrics.Store(opts.Store)
	}
	inv, err := invoker.New(s.box, s.invOpts)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if s.runner, err = chain.New(inv, opts.Engines); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.unsub = s.queue.Subscribe(s.approvalEvent)
	s.baseCtx, s.stopAll = context.WithCancelCause(context.Background())
	s.handler = s.routes()
	return s, nil
}

// Handler returns the API's handler, for mounting in a server of your own.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chains", s.auth(s.submit))
	mux.HandleFunc("GET /v1/chains/{id}", s.auth(s.getChain))
	mux.HandleFunc("DELETE /v1/chains/{id}", s.auth(s.cancelChain))
	mux.HandleFunc("GET /v1/chains/{id}/events", s.auth(s.events))
	mux.HandleFunc("GET /v1/approvals", s.auth(s.listApprovals))
	mux.HandleFunc("GET /v1/approvals/{id}", s.auth(s.getApproval))
	mux.HandleFunc("POST /v1/approvals/{id}", s.auth(s.decide))
	mux.HandleFunc("GET /v1/artifacts/{ref}", s.auth(s.artifact))
	mux.HandleFunc("GET /v1/tools", s.auth(s.tools))
	mux.HandleFunc("GET /v1/tools.d.ts", s.auth(s.toolsTS))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			writeError(w, http.StatusServiceUnavailable, ReasonShuttingDown, "the server is shutting down")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			// ServeMux's own 404 or 405: answer in JSON.
			mux.ServeHTTP(&muxErrors{ResponseWriter: w}, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

type tenantHandler func(w http.ResponseWriter, r *http.Request, tenant string)

// auth resolves the request's tenant from its bearer key.
func (s *Server) auth(h tenantHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Authenticate == nil {
			h(w, r, DefaultTenant)
			return
		}
		key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || strings.TrimSpace(key) == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="airlock"`)
			writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "send an API key: Authorization: Bearer <key>")
			return
		}
		tenant, ok := s.opts.Authenticate(strings.TrimSpace(key))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="airlock", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "the API key is not valid")
			return
		}
		h(w, r, tenant)
	}
}

// ListenAndServe listens on addr and serves until ctx ends, then shuts
// down gracefully (see Serve).
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	if s.opts.Authenticate == nil && !loopback(addr) {
		return fmt.Errorf("%w (address %q)", ErrNeedsAPIKeys, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx ends. Then it stops taking chains (POST
// /v1/chains answers 503 and /readyz fails), lets running chains finish for
// up to Options.ShutdownTimeout while the rest of the API (approvals,
// results, events) keeps working, cancels the chains still running, and
// closes the listener. Every chain's session is closed and its pins released
// before Serve returns. Serve closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.opts.Authenticate == nil && !loopback(ln.Addr().String()) {
		_ = ln.Close()
		return fmt.Errorf("%w (address %q)", ErrNeedsAPIKeys, ln.Addr())
	}
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	if s.opts.Authenticate == nil {
		s.log.Warn("no API keys configured: accepting unauthenticated requests as tenant \"default\", on this loopback address only", "addr", ln.Addr().String())
	}
	s.log.Info("listening", "addr", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down: no new chains; waiting for running ones", "grace", s.opts.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	err := s.Shutdown(sctx)
	cancel()
	hctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if herr := hs.Shutdown(hctx); herr != nil {
		_ = hs.Close()
	}
	cancel()
	<-errc
	s.log.Info("stopped")
	return err
}

// Shutdown stops taking chains, waits for the running ones until ctx ends,
// then cancels those still running and waits for them to end (their
// sessions closed, pins released). It returns nil if every chain finished
// on its own, and an error saying how many were cancelled otherwise. The
// HTTP endpoints other than POST /v1/chains keep working.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.draining.Store(true)
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.running.Wait(); close(done) }()
	defer s.unsub()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	n := 0
	s.live.Range(func(any, any) bool { n++; return true })
	s.log.Warn("grace period over: cancelling running chains", "chains", n)
	s.stopAll(errShuttingDown)
	<-done
	return fmt.Errorf("server: shutdown cancelled %d running chain(s)", n)
}

// loopback reports whether addr's host is a loopback IP or "localhost".
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
