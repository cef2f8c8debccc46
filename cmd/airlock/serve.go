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

	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/mcp"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
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
	p, err := c.serviceProcess(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeProcess(p)
	srv, ms, err := faces(p, cfg, log, nil)
	if err != nil {
		return err
	}
	p.Service.Start(ctx)
	defer p.RunSweeper(time.Minute)()
	srv.Mount("/mcp", ms.Handler())
	if addr := cfg.Server.MetricsAddr; addr != "" {
		stop, err := serveMetrics(addr, p.Registry, log)
		if err != nil {
			return fail(exitRuntime, "metrics listener: %v", err)
		}
		defer stop()
	}
	log.Info("airlock serve", "tools", p.Toolbox.Len(), "approval", string(cmp.Or(cfg.Approval.Mode, config.ApprovalQueue)), "store", p.StoreWhere,
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

// closeProcess closes p (draining its service), within 5s. A nil p
// closes nothing.
func closeProcess(p *assemble.Process) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.Close(ctx)
}

// serviceProcess builds the process with its chain service (serve, mcp,
// chains). The caller closes the process.
func (c *cli) serviceProcess(ctx context.Context, cfg *config.Config, log *slog.Logger) (*assemble.Process, error) {
	return build(ctx, cfg, assemble.Options{Service: true, PoolSize: servePool, TraceOutput: c.stderr, Logger: log})
}

// faces builds the HTTP API and the MCP face over p's service.
func faces(p *assemble.Process, cfg *config.Config, log *slog.Logger, identity func() *service.SubmitIdentity) (*server.Server, *mcp.Server, error) {
	srv, err := server.New(p.Service, server.Options{
		Store:           p.Store,
		Gatherer:        p.Registry,
		BodyTimeout:     cfg.Server.BodyTimeout.D(),
		MetricsKey:      cfg.Server.MetricsKey.Reveal(),
		NoMetrics:       cfg.Server.MetricsAddr != "",
		ShutdownTimeout: cfg.Server.ShutdownTimeout.D(),
		Logger:          log,
	})
	if err != nil {
		return nil, nil, err
	}
	ms, err := mcp.NewServer(p.Service, mcp.ServerOptions{Elicit: true, Store: p.Store, Logger: log, Version: version(),
		TaskAfter: cfg.Server.MCPTaskAfter.D(), Identity: identity})
	if err != nil {
		return nil, nil, err
	}
	return srv, ms, nil
}
