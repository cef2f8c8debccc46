package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/airlockrt/airlock/service"
)

// mcp serves airlock as an MCP server on stdin and stdout: run_chain,
// search_tools and describe_tool for the local caller (the default tenant
// and profile). Logs go to stderr.
func (c *cli) mcp(ctx context.Context, args []string) error {
	fs := newFlagSet("mcp", "[flags]",
		"Serves airlock as an MCP server on stdin/stdout (run_chain, search_tools, describe_tool;\ndocs/mcp.md) until the client disconnects. Logs go to stderr.", c.stderr)
	storeFlags(fs)
	tokenFile := fs.String("subject-token-file", "", "a `FILE` holding the token of the user the chains act for (their delegated identity, docs/identity.md), read again at each run_chain so that it may be replaced; one trailing line break is ignored")
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
	var identity func() *service.SubmitIdentity
	if *tokenFile != "" {
		identity = subjectTokenFile(*tokenFile, log)
	}
	_, ms, err := faces(p, cfg, log, identity)
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

// subjectTokenFile reads the delegated identity of airlock mcp's chains
// from path at each run_chain: the file's content, less one trailing line
// break, as the subject token, at most service.MaxSubjectTokenBytes (a
// larger one reaches the service, which refuses the chain naming its
// size). A file that cannot be read gives no identity, and a warning that
// names the error, never the content.
func subjectTokenFile(path string, log *slog.Logger) func() *service.SubmitIdentity {
	return func() *service.SubmitIdentity {
		f, err := os.Open(path)
		if err != nil {
			log.Warn("mcp: the subject token file cannot be read; the chain acts for no identity", "err", err)
			return nil
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, service.MaxSubjectTokenBytes+3))
		if err != nil {
			log.Warn("mcp: the subject token file cannot be read; the chain acts for no identity", "err", err)
			return nil
		}
		tok := string(b)
		if t, ok := strings.CutSuffix(tok, "\n"); ok {
			tok = strings.TrimSuffix(t, "\r")
		}
		if tok == "" {
			return nil
		}
		return &service.SubmitIdentity{SubjectToken: tok}
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
