package server

import (
	"cmp"
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
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
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/internal/metrics"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// DefaultTenant is the tenant of every request when no API keys are
// configured.
const DefaultTenant = "default"

// Role is what an API key may do for its tenant (Options.KeyRole). Every
// role may read the tenant's chains, events, approval requests, artifacts
// and tools.
type Role string

// Roles.
const (
	// RoleAll may do everything: the role of every key without KeyRole.
	RoleAll Role = ""
	// RoleSubmit may submit and cancel chains, but not decide approvals: the
	// key to give an agent loop, so it cannot approve its own calls.
	RoleSubmit Role = "submit"
	// RoleApprover may decide approval requests, but not submit or cancel
	// chains: the key of the people (or UI) who approve.
	RoleApprover Role = "approver"
)

// Defaults of Options.
const (
	DefaultMaxRequestBytes     = 1 << 20
	DefaultMaxConcurrentChains = 64
	DefaultResultTTL           = 15 * time.Minute
	DefaultMaxResults          = 1000
	DefaultMaxResultsBytes     = 256 << 20
	DefaultBodyTimeout         = 30 * time.Second
	DefaultShutdownTimeout     = 30 * time.Second
)

// Options configure New. Runner is required; every other field has a
// working zero value.
type Options struct {
	// Runner runs the chains, on the one Invoker of the process (its
	// toolbox, policy, approver and store); its engines must include the
	// script engine. Required. The server builds no Invoker of its own: a
	// request that names a subset of tools gets an allow-list on its chain's
	// session.
	Runner *chain.Runner
	// ToolSets name groups of tools a request may select with "tools", e.g.
	// {"demo": [...], "http": [...]}. Nil: requests select tools by name
	// only.
	ToolSets map[string][]string
	// Limits are the sandbox limits before a request's own. Zero fields take
	// sandbox's defaults. The policy before a request's own is the Runner's
	// invoker's.
	Limits sandbox.Limits
	// MaxPolicy and MaxLimits are the most a request may ask for (above it:
	// 400 above_operator_limit). A zero field means the server's own value,
	// so by default a request may only lower a setting, never raise it: it
	// cannot, for instance, lift max_risk_unapproved to skip approvals.
	MaxPolicy invoker.Policy
	MaxLimits sandbox.Limits
	// Guest is the clock and randomness scripts see unless a request
	// chooses its own; the zero value is the real clock and fresh
	// randomness.
	Guest sandbox.Guest
	// Store serves GET /v1/artifacts; it should be the store the Runner's
	// invoker offloads to. Nil: no artifact downloads. The server does not
	// close it.
	Store *blobstore.Store
	// Queue holds the approval requests of GET and POST /v1/approvals; it
	// should be the Runner's invoker's approver when people decide. Nil: an
	// empty queue of the server's own.
	Queue *approval.Queue
	// ApprovalMode (queue, allow or deny) is recorded on chain spans.
	// Default "queue".
	ApprovalMode string
	// Authenticate returns the tenant of a bearer API key. Nil: no keys,
	// every request acts for DefaultTenant, ListenAndServe only accepts a
	// loopback address, and the handler answers only requests whose Host
	// is a loopback name (127.0.0.0/8, [::1], localhost, any port) and whose
	// Origin, if any, is a loopback origin, so a web page can neither reach
	// the server through DNS rebinding nor post to it cross-site.
	Authenticate func(key string) (tenant string, ok bool)
	// Profile returns the governance profile of the chains submitted with
	// an API key ("" when the server has no keys). Nil, or a nil answer:
	// the zero govern.Profile (no scopes granted, supervised, the default
	// gate matrix), the server's policy and every tool.
	Profile func(key string) *Profile
	// KeyRole returns the Role of an API key that Authenticate accepted.
	// Nil: every key has RoleAll, so any key of a tenant may also decide
	// that tenant's approval requests.
	KeyRole func(key string) Role
	// Registerer receives the server's chain metrics. Nil: a registry of the
	// server's own.
	Registerer prometheus.Registerer
	// Gatherer is served on GET /metrics. Nil: the Registerer when it is
	// also a Gatherer (a *prometheus.Registry), else no /metrics.
	Gatherer prometheus.Gatherer
	// TracerProvider, when set, records a span per chain (the invoker's
	// hooks record the tool calls). Nil: no chain spans.
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
	// MaxResultsBytes caps the bytes the finished chains kept hold (their
	// results, logs, traces and event histories, as encoded); the oldest go
	// first. Default 256 MiB.
	MaxResultsBytes int64
	// BodyTimeout bounds the reading of a request body, from the moment the
	// request's headers are in: a client that sends its body slower than
	// that (or, with a key the server refuses, at all) loses the
	// connection. Default 30s.
	BodyTimeout time.Duration
	// MetricsKey, when set, is the bearer key GET /metrics requires.
	// Without it, /metrics requires any valid API key when Authenticate is
	// set, and is open (on a loopback address) when it is not.
	MetricsKey string
	// NoMetrics drops GET /metrics from the API, for an operator who serves
	// Gatherer on an address of its own.
	NoMetrics bool
	// ShutdownTimeout is how long ListenAndServe lets running chains finish
	// after its context ends before it cancels them. Default 30s.
	ShutdownTimeout time.Duration
	// Logger receives the server's log lines. Nil discards them.
	Logger *slog.Logger
	// Fleet, when set, is the store several processes share: every chain
	// has a record there that any of them serves (GET /v1/chains/{id},
	// events), a running chain's lease is renewed, and a chain whose process
	// stopped renewing it is marked interrupted by another (docs/durability.md).
	Fleet *durable.Store
	// Park makes a call that needs approval park its chain in Fleet
	// instead of waiting for the decision (approval.mode park): the chain
	// ends its stretch with status parked, and a decision taken through any
	// process resumes it there. Requires Fleet.
	Park bool
	// ParkTTL is how long a parked chain waits for its decisions; past it,
	// its waiting calls end approval_expired and it runs on. Default 24h.
	ParkTTL time.Duration
	// FleetPassive keeps this server out of the fleet's upkeep: it renews
	// no leases and reaps nothing (resuming only what it is asked to), for
	// a short-lived process such as `airlock chains`.
	FleetPassive bool
	// ProfileNamed returns a profile by its name, for resuming a parked
	// chain under the profile it was submitted with. Nil: resumed chains
	// run under the zero profile (only when no profiles are configured).
	ProfileNamed func(name string) *Profile
}

// Profile is what a profile sets for the chains of the keys bound to it.
type Profile struct {
	// Name is the profile's name, for logs and errors.
	Name string
	// Governance is enforced by the invoker for each of the chains.
	Governance *govern.Profile
	// Policy, when set, replaces the server's policy as the base of a
	// request's own. Under a profile a request may only lower the policy's
	// values (MaxPolicy does not apply).
	Policy *invoker.Policy
	// Tools, when non-nil, is the profile's tool allow-list; a request's
	// "tools" narrows it further.
	Tools []string
}

// Server is airlock's HTTP API. Build it with New; serve it with
// ListenAndServe, or mount Handler and call Shutdown yourself.
type Server struct {
	opts     Options
	log      *slog.Logger
	box      *toolbox.Toolbox
	policy   invoker.Policy // the runner's, defaults filled in
	runner   *chain.Runner
	engines  chain.Engines
	queue    *approval.Queue
	metrics  *metrics.Chains
	tracer   *tracing.Tracer
	gatherer prometheus.Gatherer
	handler  http.Handler
	slots    chan struct{}
	unsub    func()
	baseCtx  context.Context
	stopAll  context.CancelCauseFunc
	live     sync.Map // chain id → *run, while running
	draining atomic.Bool
	// stopMaintain ends the fleet's lease renewal and reaping (fleet.go).
	stopMaintain context.CancelFunc

	mu       sync.Mutex
	runs     map[string]*run // running and retained
	finished []*run          // retained, oldest first
	retained int64           // the finished runs' sizes
	running  sync.WaitGroup
	mux      *http.ServeMux
}

// New builds a Server from opts.
func New(opts Options) (*Server, error) {
	if opts.Runner == nil {
		return nil, ErrNoRunner
	}
	engines := opts.Runner.Engines()
	if engines.Scripts == nil {
		return nil, ErrNoEngine
	}
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	policy := opts.Runner.Invoker().Policy()
	if err := policy.CheckCeiling(opts.MaxPolicy); err != nil {
		return nil, fmt.Errorf("server: MaxPolicy: %w", err)
	}
	if err := opts.Limits.CheckCeiling(opts.MaxLimits); err != nil {
		return nil, fmt.Errorf("server: MaxLimits: %w", err)
	}
	opts.MaxRequestBytes = cmp.Or(opts.MaxRequestBytes, DefaultMaxRequestBytes)
	opts.MaxConcurrentChains = cmp.Or(opts.MaxConcurrentChains, DefaultMaxConcurrentChains)
	opts.ResultTTL = cmp.Or(opts.ResultTTL, DefaultResultTTL)
	opts.MaxResults = cmp.Or(opts.MaxResults, DefaultMaxResults)
	opts.MaxResultsBytes = cmp.Or(opts.MaxResultsBytes, DefaultMaxResultsBytes)
	opts.BodyTimeout = cmp.Or(opts.BodyTimeout, DefaultBodyTimeout)
	opts.ShutdownTimeout = cmp.Or(opts.ShutdownTimeout, DefaultShutdownTimeout)
	opts.ApprovalMode = cmp.Or(opts.ApprovalMode, "queue")
	opts.ParkTTL = cmp.Or(opts.ParkTTL, DefaultParkTTL)
	if opts.Park && opts.Fleet == nil {
		return nil, ErrParkNeedsFleet
	}
	s := &Server{
		opts:    opts,
		log:     opts.Logger,
		box:     opts.Runner.Invoker().Toolbox(),
		policy:  policy,
		runner:  opts.Runner,
		engines: engines,
		queue:   opts.Queue,
		slots:   make(chan struct{}, opts.MaxConcurrentChains),
		runs:    map[string]*run{},
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.queue == nil {
		s.queue = approval.NewQueue(approval.Options{})
	}
	reg := opts.Registerer
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	s.gatherer = opts.Gatherer
	if g, ok := reg.(prometheus.Gatherer); ok && s.gatherer == nil {
		s.gatherer = g
	}
	var err error
	if s.metrics, err = metrics.NewChains(reg); err != nil {
		return nil, fmt.Errorf("server: registering metrics: %w", err)
	}
	s.tracer = tracing.New(opts.TracerProvider, opts.ApprovalMode)
	s.unsub = s.queue.Subscribe(s.approvalEvent)
	s.baseCtx, s.stopAll = context.WithCancelCause(context.Background())
	s.handler = s.routes()
	if opts.Fleet != nil && !opts.FleetPassive {
		mctx, stop := context.WithCancel(s.baseCtx)
		s.stopMaintain = stop
		go s.maintain(mctx)
	}
	return s, nil
}

// Handler returns the API's handler, for mounting in a server of your own.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	s.mux = mux
	mux.HandleFunc("POST /v1/chains", s.auth(RoleSubmit, s.submit))
	mux.HandleFunc("GET /v1/chains/{id}", s.auth(RoleAll, s.getChain))
	mux.HandleFunc("DELETE /v1/chains/{id}", s.auth(RoleSubmit, s.cancelChain))
	mux.HandleFunc("GET /v1/chains/{id}/events", s.auth(RoleAll, s.events))
	mux.HandleFunc("GET /v1/approvals", s.auth(RoleAll, s.listApprovals))
	mux.HandleFunc("GET /v1/approvals/{id}", s.auth(RoleAll, s.getApproval))
	mux.HandleFunc("POST /v1/approvals/{id}", s.auth(RoleApprover, s.decide))
	mux.HandleFunc("GET /v1/artifacts/{ref}", s.auth(RoleAll, s.artifact))
	mux.HandleFunc("GET /v1/tools", s.auth(RoleAll, s.tools))
	mux.HandleFunc("GET /v1/tools.d.ts", s.auth(RoleAll, s.toolsTS))
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
	if s.gatherer != nil && !s.opts.NoMetrics {
		mux.Handle("GET /metrics", s.metricsAuth(promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{})))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Authenticate == nil && !s.localRequest(w, r) {
			return
		}
		if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			// The body must arrive within BodyTimeout; decodeBody lifts the
			// deadline once it has read it. A request refused before its body
			// is read keeps it, so the server's discard of the body ends too.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.opts.BodyTimeout))
		}
		if _, pattern := mux.Handler(r); pattern == "" {
			// ServeMux's own 404 or 405: answer in JSON.
			mux.ServeHTTP(&muxErrors{ResponseWriter: w}, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

type tenantHandler func(w http.ResponseWriter, r *http.Request, tenant string)

// metricsAuth guards /metrics: with Options.MetricsKey, that key; otherwise
// with API keys, any valid one; without keys, nothing (loopback only).
func (s *Server) metricsAuth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		key = strings.TrimSpace(key)
		switch {
		case s.opts.MetricsKey != "":
			if subtle.ConstantTimeCompare([]byte(key), []byte(s.opts.MetricsKey)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="airlock-metrics"`)
				writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "GET /metrics needs the metrics key: Authorization: Bearer <key>")
				return
			}
		case s.opts.Authenticate != nil:
			if _, ok := s.opts.Authenticate(key); key == "" || !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="airlock"`)
				writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "GET /metrics needs an API key: Authorization: Bearer <key>")
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// auth resolves the request's tenant from its bearer key, and refuses a
// key whose role is neither RoleAll nor need (RoleAll: any key).
func (s *Server) auth(need Role, h tenantHandler) http.HandlerFunc {
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
		if need != RoleAll && s.opts.KeyRole != nil {
			if role := s.opts.KeyRole(strings.TrimSpace(key)); role != RoleAll && role != need {
				writeError(w, http.StatusForbidden, ReasonForbiddenRole,
					fmt.Sprintf("this API key has role %q; this request needs a key with role %q (or one without a role)", clip(string(role)), need))
				return
			}
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
		MaxHeaderBytes:    64 << 10,
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
	if s.stopMaintain != nil {
		defer s.stopMaintain()
	}
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

// localRequest admits a request to a server without API keys only if it
// names the server by a loopback Host and comes from no web origin other
// than a loopback one: a page on another site can then neither read the
// API through a rebound DNS name nor send it requests. It answers 403 and
// returns false otherwise.
func (s *Server) localRequest(w http.ResponseWriter, r *http.Request) bool {
	if !loopbackHost(r.Host) {
		writeError(w, http.StatusForbidden, ReasonForbiddenHost,
			fmt.Sprintf("without API keys the server answers only requests to a loopback host (127.0.0.1, [::1] or localhost), not %q; configure server.api_keys to serve other names", clip(r.Host)))
		return false
	}
	if origin, sent := r.Header["Origin"]; sent && (len(origin) != 1 || !loopbackOrigin(origin[0])) {
		writeError(w, http.StatusForbidden, ReasonForbiddenOrigin,
			"without API keys the server refuses requests from web pages other than loopback ones (the Origin header); configure server.api_keys to call it from a browser")
		return false
	}
	return true
}

// loopbackOrigin reports whether origin is http or https on a loopback
// host, with any port.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	return loopbackHost(u.Host)
}

// loopbackHost reports whether host (a Host header: name, IPv4 or [IPv6],
// with an optional port) is localhost or a loopback IP.
func loopbackHost(host string) bool {
	if h, port, err := net.SplitHostPort(host); err == nil {
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return false
		}
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	} else if strings.Contains(host, ":") {
		return false // an IPv6 address needs brackets in a Host header
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
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
