package main

import (
	"context"
	"io"
	"time"
)

// mcp serves airlock as an MCP server on stdin and stdout: run_chain,
// search_tools and describe_tool for the local caller (the default tenant
// and profile). Logs go to stderr.
func (c *cli) mcp(ctx context.Context, args []string) error {
	fs := newFlagSet("mcp", "[flags]",
		"Serves airlock as an MCP server on stdin/stdout (run_chain, search_tools, describe_tool;\ndocs/mcp.md) until the client disconnects. Logs go to stderr.", c.stderr)
	storeFlags(fs)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := noArgs("mcp", pos); err != nil {
		return err
	}
	cfg, err := fs.load(c.env)
	if err != nil {
		return err
	}
	log := c.logger(cfg, "warn")
	p, err := c.serviceProcess(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeProcess(p)
	_, ms, err := faces(p, cfg, log)
	if err != nil {
		return err
	}
	p.Service.Start(ctx)
	defer p.RunSweeper(time.Minute)()
	in, out := io.NopCloser(c.stdin), nopWriteCloser{c.stdout}
	if err := ms.ServeStdio(ctx, in, out); err != nil && ctx.Err() == nil && err != io.EOF {
		log.Warn("mcp: session ended", "err", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
