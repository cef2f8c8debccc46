package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/fsblob"
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// cacheDir returns os.UserCacheDir()/airlock/sub, or "" when there is no
// user cache directory.
func cacheDir(sub string) string {
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
				return nil, "", fail(exitRuntime, "%v", err)
			}
		}
		fd, err := fsblob.New(dir)
		if err != nil {
			return nil, "", fail(exitRuntime, "opening the blob store: %v", err)
		}
		d, where = fd, "the fs store at "+fd.Dir()
	case "s3":
		s3 := cfg.Store.S3
		sd, err := s3blob.New(ctx, s3blob.Config{
			Endpoint: s3.Endpoint, Bucket: s3.Bucket, AccessKey: s3.AccessKey, SecretKey: s3.SecretKey.Reveal(),
			UseTLS: s3.UseTLS, Region: s3.Region, Prefix: s3.Prefix,
		})
		if err != nil {
			return nil, "", fail(exitRuntime, "opening the S3 blob store: %v", err)
		}
		d, where = sd, fmt.Sprintf("the s3 store, bucket %s at %s", s3.Bucket, s3.Endpoint)
	default:
		return nil, "", fail(exitUsage, "store.kind %q must be fs or s3", cfg.Store.Kind)
	}
	return blobstore.New(d, blobstore.Options{TTL: cfg.Store.TTL.D(), MaxBlobBytes: int64(cfg.Store.MaxBlobBytes), Logger: log}), where, nil
}

// tools builds the configured toolbox and the tool sets a request may name.
func tools(cfg *config.Config) (*toolbox.Toolbox, map[string][]string, error) {
	box, _, err := cfg.Toolbox(httptool.Options{LookupEnv: os.LookupEnv})
	if err != nil {
		return nil, nil, fail(exitUsage, "configuration: %v", err)
	}
	sets := map[string][]string{}
	if slices.Contains(cfg.Tools.Builtin, "demo") {
		sets["demo"] = slices.Clone(demo.Names)
	}
	if len(cfg.Tools.HTTP) > 0 {
		for _, h := range cfg.Tools.HTTP {
			sets["http"] = append(sets["http"], h.Name)
		}
	}
	return box, sets, nil
}

// scriptEngine starts the script engine with the on-disk compilation
// cache, so only the first run on a machine compiles QuickJS (~0.7 s).
func scriptEngine(ctx context.Context, poolSize int, limits sandbox.Limits) (*sandbox.ScriptEngine, error) {
	opts := sandbox.ScriptOptions{CompilationCacheDir: cacheDir("wazero"), PoolSize: poolSize, PoolLimits: limits}
	e, err := sandbox.NewScriptEngine(ctx, opts)
	if err != nil && opts.CompilationCacheDir != "" {
		// An unusable cache directory costs time, not correctness.
		opts.CompilationCacheDir = ""
		e, err = sandbox.NewScriptEngine(ctx, opts)
	}
	if err != nil {
		return nil, fail(exitRuntime, "starting the script engine: %v", err)
	}
	return e, nil
}

// moduleEngine starts the module engine. A diskCache engine keeps compiled
// modules in the on-disk compilation cache, for `airlock run` and `info`
// where the modules are the user's own; `serve` compiles modules that
// clients submit, which must not pile up on disk, so it passes false for an
// in-memory cache that ends with the process.
func moduleEngine(ctx context.Context, diskCache bool) (*sandbox.ModuleEngine, error) {
	var opts sandbox.ModuleOptions
	if diskCache {
		opts.CompilationCacheDir = cacheDir("wazero")
	}
	e, err := sandbox.NewModuleEngine(ctx, opts)
	if err != nil && opts.CompilationCacheDir != "" {
		e, err = sandbox.NewModuleEngine(ctx, sandbox.ModuleOptions{})
	}
	if err != nil {
		return nil, fail(exitRuntime, "starting the module engine: %v", err)
	}
	return e, nil
}

// decide is an approver that always answers d.
func decide(d invoker.Decision) invoker.ApprovalHandler {
	return invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) { return d, nil })
}

// runApprover returns the approver of `airlock run` for mode, and a
// function that releases it.
func (c *cli) runApprover(mode config.ApprovalMode) (invoker.ApprovalHandler, config.ApprovalMode, func(), error) {
	if mode == "" {
		mode = config.ApprovalDeny
		if c.stdinTTY {
			mode = config.ApprovalAsk
		}
	}
	switch mode {
	case config.ApprovalAsk:
		t := approval.Terminal(c.stdin, c.stderr)
		return t, mode, func() { _ = t.Close() }, nil
	case config.ApprovalAllow:
		return decide(invoker.Approved), mode, func() {}, nil
	case config.ApprovalDeny:
		return decide(invoker.Denied), mode, func() {}, nil
	}
	return nil, mode, nil, fail(exitUsage, "approval mode %q is for `airlock serve`; `airlock run` takes --approve ask, allow or deny", mode)
}
