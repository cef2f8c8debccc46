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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/server/console"
	"github.com/airlockrt/airlock/service"
)

// Defaults of Options.
const (
	DefaultBodyTimeout     = 30 * time.Second
	DefaultShutdownTimeout = 30 * time.Second
)

// Options configure New. Every field has a working zero value.
type Options struct {
	// Store serves GET /v1/artifacts; it should be the store the service's
	// invoker offloads to. Nil: no artifact downloads. The server does not
	// close it.
	Store *blobstore.Store
	// Gatherer is served on GET /metrics. Nil: no /metrics.
	Gatherer prometheus.Gatherer
	// BodyTimeout bounds the reading of a request body, from the moment the
	// request's headers are in: a client that sends its body slower than
	// that (or, with a key the server refuses, at all) loses the
	// connection. Default 30s.
	BodyTimeout time.Duration
	// MetricsKey, when set, is the bearer key GET /metrics requires.
	// Without it, /metrics requires any valid API key when the service has
	// keys, and is open (on a loopback address) when it has none.
	MetricsKey string
	// NoMetrics drops GET /metrics from the API, for an operator who serves
	// Gatherer on an address of its own.
	NoMetrics bool
	// ShutdownTimeout is how long Serve lets running chains finish after
	// its context ends before it cancels them. Default 30s.
	ShutdownTimeout time.Duration
	// Logger receives the server's log lines. Nil discards them.
	Logger *slog.Logger
	// Console configures the approval console served at /ui
	// (docs/console.md); its zero value works.
	Console console.Options
	// NoConsole drops the console: /ui answers 404.
	NoConsole bool
}

// Server is airlock's HTTP API over a service. Build it with New; serve it
// with ListenAndServe, or mount Handler yourself.
type Server struct {
	opts    Options
	svc     *service.Service
	log     *slog.Logger
	handler http.Handler
	mux     *http.ServeMux
}

// New builds the HTTP API of svc. It starts nothing.
func New(svc *service.Service, opts Options) (*Server, error) {
	if svc == nil {
		return nil, ErrNoService
	}
	opts.BodyTimeout = cmp.Or(opts.BodyTimeout, DefaultBodyTimeout)
	opts.ShutdownTimeout = cmp.Or(opts.ShutdownTimeout, DefaultShutdownTimeout)
	s := &Server{opts: opts, svc: svc, log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.handler = s.routes()
	return s, nil
}

// Handler returns the API's handler, for mounting in a server of your own.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	s.mux = mux
	mux.HandleFunc("POST /v1/chains", s.auth(service.RoleSubmit, s.submit))
	mux.HandleFunc("GET /v1/chains", s.auth(service.RoleAll, s.listChains))
	mux.HandleFunc("GET /v1/chains/{id}", s.auth(service.RoleAll, s.getChain))
	mux.HandleFunc("DELETE /v1/chains/{id}", s.auth(service.RoleSubmit, s.cancelChain))
	mux.HandleFunc("GET /v1/chains/{id}/events", s.auth(service.RoleAll, s.events))
	mux.HandleFunc("POST /v1/chains/{id}/identity", s.auth(service.RoleSubmit, s.setIdentity))
	mux.HandleFunc("GET /v1/approvals", s.auth(service.RoleAll, s.listApprovals))
	mux.HandleFunc("GET /v1/approvals/{id}", s.auth(service.RoleAll, s.getApproval))
	mux.HandleFunc("GET /v1/approvals/{id}/context", s.auth(service.RoleAll, s.approvalContext))
	mux.HandleFunc("POST /v1/approvals/{id}", s.auth(service.RoleApprover, s.decide))
	mux.HandleFunc("GET /v1/chains/{id}/calls", s.auth(service.RoleAll, s.chainCalls))
	mux.HandleFunc("GET /v1/calls", s.auth(service.RoleAll, s.listCalls))
	mux.HandleFunc("GET /v1/calls/{id}", s.auth(service.RoleAll, s.getCall))
	mux.HandleFunc("POST /v1/calls/{id}", s.auth(service.RoleSubmit, s.answerCall))
	mux.HandleFunc("POST /v1/tools.d.ts", s.auth(service.RoleAll, s.declarations))
	mux.HandleFunc("GET /v1/artifacts/{ref}", s.auth(service.RoleAll, s.artifact))
	mux.HandleFunc("GET /v1/tools", s.auth(service.RoleAll, s.tools))
	mux.HandleFunc("GET /v1/tools.d.ts", s.auth(service.RoleAll, s.toolsTS))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if s.svc.Draining() {
			writeError(w, http.StatusServiceUnavailable, ReasonShuttingDown, "the server is shutting down")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	if s.opts.Gatherer != nil && !s.opts.NoMetrics {
		mux.Handle("GET /metrics", s.metricsAuth(promhttp.HandlerFor(s.opts.Gatherer, promhttp.HandlerOpts{})))
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			// ServeMux's own 404 or 405: answer in JSON.
			mux.ServeHTTP(&muxErrors{ResponseWriter: w}, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
	var ui http.Handler
	if !s.opts.NoConsole {
		ui = console.New(s.svc, s.opts.Console).Handler(api)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.svc.NeedsKeys() && !s.localRequest(w, r) {
			return
		}
		if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			// The body must arrive within BodyTimeout; decodeBody lifts the
			// deadline once it has read it. A request refused before its body
			// is read keeps it, so the server's discard of the body ends too.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.opts.BodyTimeout))
		}
		if ui != nil && (r.URL.Path == "/ui" || strings.HasPrefix(r.URL.Path, "/ui/")) {
			ui.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

type callerHandler func(w http.ResponseWriter, r *http.Request, c service.Caller)

// bearer returns the request's bearer key, false when it sent none.
func bearer(r *http.Request) (string, bool) {
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	key = strings.TrimSpace(key)
	return key, ok && key != ""
}

// metricsAuth guards /metrics: with Options.MetricsKey, that key; otherwise
// with API keys, any valid one; without keys, nothing (loopback only).
func (s *Server) metricsAuth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, _ := bearer(r)
		switch {
		case s.opts.MetricsKey != "":
			if subtle.ConstantTimeCompare([]byte(key), []byte(s.opts.MetricsKey)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="airlock-metrics"`)
				writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "GET /metrics needs the metrics key: Authorization: Bearer <key>")
				return
			}
		case s.svc.NeedsKeys():
			if _, ok := s.svc.CallerOf(key); key == "" || !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="airlock"`)
				writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "GET /metrics needs an API key: Authorization: Bearer <key>")
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// auth resolves the request's caller from its bearer key, and refuses a
// key whose role does not allow what need names.
func (s *Server) auth(need service.Role, h callerHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if c, ok := console.CallerFrom(r.Context()); ok {
			// A request of the console, signed in with a key it checked.
			if !c.Role.Allows(need) {
				writeError(w, http.StatusForbidden, ReasonForbiddenRole,
					fmt.Sprintf("this console session's key has role %q; this request needs a key with role %q", clip(string(c.Role)), need))
				return
			}
			h(w, r, c)
			return
		}
		if !s.svc.NeedsKeys() {
			h(w, r, s.svc.LocalCaller())
			return
		}
		key, ok := bearer(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="airlock"`)
			writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "send an API key: Authorization: Bearer <key>")
			return
		}
		c, ok := s.svc.CallerOf(key)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="airlock", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "the API key is not valid")
			return
		}
		if !c.Role.Allows(need) {
			writeError(w, http.StatusForbidden, ReasonForbiddenRole,
				fmt.Sprintf("this API key has role %q; this request needs a key with role %q (or one without a role)", clip(string(c.Role)), need))
			return
		}
		h(w, r, c)
	}
}

// ListenAndServe listens on addr and serves until ctx ends, then shuts
// down gracefully (see Serve).
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	if !s.svc.NeedsKeys() && !loopback(addr) {
		return fmt.Errorf("%w (address %q)", ErrNeedsAPIKeys, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx ends. Then it drains the service: it stops taking chains (POST
// /v1/chains answers 503 and /readyz fails), lets running chains finish for
// up to Options.ShutdownTimeout while the rest of the API (approvals,
// results, events) keeps working, cancels the chains still running, and
// closes the listener. Every chain's session is closed and its pins released
// before Serve returns. Serve closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if !s.svc.NeedsKeys() && !loopback(ln.Addr().String()) {
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
	if !s.svc.NeedsKeys() {
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

// Shutdown drains the service (service.Service.Close): no new chains,
// running ones get until ctx ends, then are cancelled. The HTTP endpoints
// other than POST /v1/chains keep working.
func (s *Server) Shutdown(ctx context.Context) error { return s.svc.Close(ctx) }

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
