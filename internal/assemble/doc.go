// Package assemble is airlock's one composition root: from a loaded
// configuration it builds the toolbox, the blob store, the engines, the one
// Invoker every chain of the process shares, the approval queue, metrics and
// tracing. The CLI's commands and the end-to-end tests use it; the faces
// (server) take what it built and never build an Invoker of their own.
//
//	cfg, err := config.Load(config.Sources{File: "airlock.yaml"})
//	p, err := assemble.Build(ctx, cfg, assemble.Options{PoolSize: 2})
//	defer p.Close(context.Background())
//	res, err := p.Runner.Run(ctx, script, chain.Options{Limits: cfg.Limits})
//
// # Concurrency
//
// Build and Close are called once; a Process's parts are safe for
// concurrent use as their own packages say.
//
// # Errors
//
// Build wraps ErrConfig for what the user must change in the configuration;
// other errors are the host's.
package assemble
