package main

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/mcp"
	"github.com/airlockrt/airlock/server"
)

// servePool is how many fresh script instances serve keeps ready.
const servePool = 2

func (c *cli) serve(ctx context.Context, args []string) error {
	fs := newFlagSet("serve", "[flags]",
		"Serves the HTTP API (docs/http-api.md) until SIGINT or SIGTERM, then drains running chains.", c.stderr)
	fs.key("addr", "server.addr", "listen `address` host:port; without API keys only a loopback address is accepted")
	storeFlags(fs)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := noArgs("serve", pos); err != nil {
		return err
	}
	cfg, err := fs.load(c.env)
	if err != nil {
		return err
	}
	if len(cfg.Server.APIKeys) == 0 && !isLoopback(cfg.Server.Addr) {
		return fail(exitUsage, "%v (address %q)", server.ErrNeedsAPIKeys, cfg.Server.Addr)
	}
	log := c.logger(cfg, "info")
	p, srv, ms, mode, err := c.apiServer(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeProcess(p, nil)
	defer p.RunSweeper(time.Minute)()
	srv.Mount("/mcp", ms.Handler())
	if addr := cfg.Server.MetricsAddr; addr != "" {
		stop, err := serveMetrics(addr, p.Registry, log)
		if err != nil {
			return fail(exitRuntime, "metrics listener: %v", err)
		}
		defer stop()
	}
	log.Info("airlock serve", "tools", p.Toolbox.Len(), "approval", string(mode), "store", p.StoreWhere,
		"api_keys", len(cfg.Server.APIKeys), "tracing", cmpOr(cfg.Tracing.Exporter, "off"))
	err = srv.ListenAndServe(ctx, cfg.Server.Addr)
	if errors.Is(err, server.ErrNeedsAPIKeys) {
		return fail(exitUsage, "%v", err)
	}
	if err != nil {
		log.Warn("shutdown", "err", err)
		if ctx.Err() != nil {
			return nil // chains were cancelled at the end of the grace period
		}
	}
	return err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// serveMetrics serves /metrics on an address of its own (server.metrics_addr)
// until stop is called.
func serveMetrics(addr string, g prometheus.Gatherer, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	log.Info("metrics", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}, nil
}

// logger is the log of serve and mcp: text on stderr at
// server.log_level, def when unset.
func (c *cli) logger(cfg *config.Config, def string) *slog.Logger {
	level := slog.LevelInfo
	_ = level.UnmarshalText([]byte(cmp.Or(cfg.Server.LogLevel, def)))
	return slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: level}))
}

// closeProcess shuts srv down (when set) and closes p, within 5s.
func closeProcess(p *assemble.Process, srv *server.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if srv != nil {
		_ = srv.Shutdown(ctx)
	}
	_ = p.Close(ctx)
}

// apiServer builds the process, the API server and the MCP server the
// configuration describes (serve and mcp). The caller closes the process.
func (c *cli) apiServer(ctx context.Context, cfg *config.Config, log *slog.Logger, edit ...func(*server.Options)) (p *assemble.Process, srv *server.Server, ms *mcp.Server, mode config.ApprovalMode, err error) {
	mode = cfg.Approval.Mode
	var approver invoker.ApprovalHandler
	switch mode {
	case "", config.ApprovalQueue:
		mode = config.ApprovalQueue
	case config.ApprovalPark:
		// Script chains park; a module's calls wait in the queue.
	case config.ApprovalAllow:
		approver = decide(invoker.Approved)
	case config.ApprovalDeny:
		approver = decide(invoker.Denied)
	default:
		return nil, nil, nil, "", fail(exitUsage, "approval mode %q is for `airlock run`; `airlock serve` and `airlock mcp` take queue (people decide through the API or MCP elicitation), park (the chain waits in the fleet's store), allow or deny", mode)
	}

	p, err = build(ctx, cfg, assemble.Options{
		Approver: approver, ApprovalMode: string(mode), PoolSize: servePool,
		TraceOutput: c.stderr, Logger: log,
	})
	if err != nil {
		return nil, nil, nil, "", err
	}
	built := p // p is nil once a failing return sets it
	defer func() {
		if err != nil {
			_ = built.Close(context.Background())
		}
	}()

	opts := server.Options{
		Runner:              p.Runner,
		ToolSets:            p.ToolSets,
		Limits:              cfg.Limits,
		MaxPolicy:           cfg.Server.Max.Policy,
		MaxLimits:           cfg.Server.Max.Limits,
		Guest:               cfg.Guest,
		Store:               p.Store,
		Queue:               p.Queue,
		ApprovalMode:        string(mode),
		Registerer:          p.Registry,
		TracerProvider:      p.TracerProvider,
		MaxRequestBytes:     int64(cfg.Server.MaxRequestBytes),
		MaxConcurrentChains: cfg.Server.MaxConcurrentChains,
		ResultTTL:           cfg.Server.ResultTTL.D(),
		MaxResults:          cfg.Server.MaxResults,
		MaxResultsBytes:     int64(cfg.Server.MaxResultsBytes),
		BodyTimeout:         cfg.Server.BodyTimeout.D(),
		MetricsKey:          cfg.Server.MetricsKey.Reveal(),
		NoMetrics:           cfg.Server.MetricsAddr != "",
		ShutdownTimeout:     cfg.Server.ShutdownTimeout.D(),
		Logger:              log,
	}
	if len(cfg.Server.APIKeys) > 0 {
		opts.Authenticate = cfg.Server.TenantFor
		opts.KeyRole = func(key string) server.Role {
			switch cfg.Server.RoleFor(key) {
			case config.RoleSubmit:
				return server.RoleSubmit
			case config.RoleApprover:
				return server.RoleApprover
			}
			return server.RoleAll
		}
	}
	profiles := map[string]*server.Profile{}
	for name, prof := range p.Profiles {
		sp := &server.Profile{Name: name, Governance: prof.Governance, Tools: prof.Tools}
		if cfg.Profiles[name].Limits != (invoker.Policy{}) {
			sp.Policy = &prof.Policy
		}
		profiles[name] = sp
	}
	opts.Profile = func(key string) *server.Profile { return profiles[cfg.ProfileFor(key)] }
	if key := cfg.Fleet.Key.Reveal(); key != "" {
		if opts.Fleet, err = durable.New(durable.Options{Blobs: p.Store, Key: []byte(key), Node: cfg.Fleet.Node,
			Lease: cfg.Fleet.Lease.D()}); err != nil {
			return nil, nil, nil, "", err
		}
		opts.Park, opts.ParkTTL = mode == config.ApprovalPark, cfg.Approval.ParkTTL.D()
		opts.ProfileNamed = func(name string) *server.Profile { return profiles[name] }
		if err = opts.Fleet.CheckStore(ctx); err != nil {
			return nil, nil, nil, "", fail(exitRuntime, "%v", err)
		}
	}
	for _, f := range edit {
		f(&opts)
	}
	if srv, err = server.New(opts); err != nil {
		return nil, nil, nil, "", err
	}
	ms, err = mcp.NewServer(mcp.ServerOptions{API: srv, Toolbox: p.Toolbox, Queue: p.Queue, Store: p.Store, Logger: log, Version: version()})
	if err != nil {
		return nil, nil, nil, "", err
	}
	return p, srv, ms, mode, nil
}
