package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
)

// cliTenant is the tenant of chains run from the command line.
const cliTenant = blobstore.DefaultTenant

func (c *cli) run(ctx context.Context, args []string) (int, error) {
	fs := newFlagSet("run", "SCRIPT.js|.ts|.wasm [flags]",
		"Runs one chain in a fresh sandbox on the embedded defaults (the demo tools, the fs store\nunder the user cache dir) and prints its result and trace. Exit 0 when the chain's\nstatus is ok, 1 for any other status, 2 for bad input, 3 when the host failed.", c.stderr)
	runFlags(fs)
	asJSON := fs.Bool("json", false, "print the whole RunResult as one JSON document")
	input := fs.String("input", "", "the input `JSON` document of a .wasm chain")
	out := fs.String("out", "", "`DIR` for media files (default: the user cache dir's airlock/out)")
	progress := fs.String("progress", "auto", "a line per tool call on stderr: auto (when stderr is a terminal), always or never")
	var servers mcpFlag
	fs.Var(&servers, "mcp", "an MCP server whose tools the chain may call, as `NAME=COMMAND ARGS...` (stdio) or NAME=URL (streamable HTTP); repeatable (docs/mcp.md)")
	pos, err := fs.parse(args)
	if err != nil {
		return 0, err
	}
	if len(pos) != 1 {
		return 0, fail(exitUsage, "run takes one script: airlock run SCRIPT.js|.ts|.wasm")
	}
	file := pos[0]
	// The --mcp servers are checked with the file's: tools.risk may name
	// their tools.
	fs.edit = func(cfg *config.Config) { cfg.MCPServers = append(cfg.MCPServers, servers...) }
	cfg, err := fs.load(c.env)
	if err != nil {
		return 0, err
	}
	kind, err := scriptKind(file)
	if err != nil {
		return 0, err
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return 0, fail(exitUsage, "%v", err)
	}
	if *input != "" && kind != "wasm" {
		return 0, fail(exitUsage, "--input is for .wasm chains; a script receives no input document")
	}
	if *input != "" && !json.Valid([]byte(*input)) {
		return 0, fail(exitUsage, "--input is not valid JSON")
	}
	showProgress := false
	switch *progress {
	case "auto":
		showProgress = c.stderrTTY && !*asJSON
	case "always":
		showProgress = true
	case "never":
	default:
		return 0, fail(exitUsage, "--progress %q must be auto, always or never", *progress)
	}
	outDir := *out
	if outDir == "" {
		if outDir = assemble.CacheDir("out"); outDir == "" {
			outDir = "airlock-out"
		}
	}

	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	approver, mode, release, err := c.runApprover(cfg.Approval.Mode)
	if err != nil {
		return 0, err
	}
	defer release()
	pr := &progressPrinter{w: c.stderr, on: showProgress}
	p, err := build(ctx, cfg, assemble.Options{
		Approver: approver, ApprovalMode: string(mode),
		Scripts: kind != "wasm", Modules: kind == "wasm", ModuleDiskCache: true,
		TraceOutput: c.stderr, Logger: log, MCPFailFast: true,
		Hooks: invoker.Hooks{OnToolEnd: func(_ context.Context, ev invoker.Event) { pr.toolEnd(ev) }},
	})
	if err != nil {
		return 0, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = p.Close(sctx)
		cancel()
	}()
	opts := chain.Options{SessionID: chain.NewID(), Tenant: cliTenant, Limits: cfg.Limits, Logger: log}
	if prof := p.DefaultProfile; prof != nil {
		opts.Profile, opts.Policy, opts.Tools = prof.Governance, prof.Policy, prof.Tools
	}
	var res *chain.RunResult
	ctx, endSpan := p.Tracer.StartChain(ctx, tracing.Chain{ID: opts.SessionID, Tenant: cliTenant, Language: kind})
	switch kind {
	case "wasm":
		mod, err := p.Engines.Modules.Compile(ctx, src)
		if err != nil {
			return 0, fail(exitUsage, "%s: %v", file, err)
		}
		defer mod.Close(context.Background())
		in := json.RawMessage(*input)
		if len(in) == 0 {
			in = nil
		}
		res, err = p.Runner.RunModule(ctx, mod, in, opts)
		if err != nil {
			return 0, fail(exitRuntime, "%v", err)
		}
	default:
		s := sandbox.Script{Source: string(src), Filename: filepath.Base(file), Lang: sandbox.LangJS, Guest: cfg.Guest}
		if kind == "ts" {
			s.Lang = sandbox.LangTS
		}
		res, err = p.Runner.Run(ctx, s, opts)
		if err != nil {
			return 0, fail(exitRuntime, "%v", err)
		}
	}
	endSpan(res)
	if res.Trace == nil {
		res.Trace = []session.Record{}
	}

	saved, saveErr := saveFiles(context.WithoutCancel(ctx), p.Store, res, filepath.Join(outDir, res.ID))
	if *asJSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(c.stdout, "%s\n", b)
		if len(saved) > 0 {
			fmt.Fprintf(c.stderr, "airlock: wrote %d media file(s) to %s\n", len(saved), filepath.Dir(saved[0]))
		}
	} else {
		report(c.stdout, res, file, saved, p.StoreWhere, cfg.Effective().Store.TTL.D())
	}
	if saveErr != nil {
		fmt.Fprintf(c.stderr, "airlock: writing media files: %v\n", saveErr)
	}
	if res.Status != chain.StatusOK {
		return exitFailed, nil
	}
	return exitOK, nil
}

// runFlags declares the flags of `airlock run` that set configuration keys.
func runFlags(fs *flagSet) {
	fs.key("tools", "tools.builtin", "built-in tool `sets`, comma-separated (demo; empty for none)")
	fs.key("timeout", "limits.timeout", "the chain's wall-clock `limit`, e.g. 30s")
	fs.key("max-calls", "policy.max_tool_calls", "the chain's tool-call budget `N`")
	fs.key("clock", "guest.clock", "the script's `clock`: real, or virtual (deterministic: timers jump)")
	fs.key("seed", "guest.seed", "a `seed` that fixes Math.random and crypto (0: fresh randomness)")
	fs.key("memory", "limits.memory", "the guest's memory `limit`, e.g. 64MiB")
	fs.key("profile", "default_profile", "the governance `profile` the chain runs under (docs/governance.md)")
	fs.key("approve", "approval.mode", "how risky calls are decided: ask, deny or allow (default ask on a terminal, else deny)")
	storeFlags(fs)
}

// scriptKind returns js, ts or wasm from the file's extension.
func scriptKind(file string) (string, error) {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".js", ".mjs", ".cjs":
		return "js", nil
	case ".ts", ".mts":
		return "ts", nil
	case ".wasm":
		return "wasm", nil
	}
	return "", fail(exitUsage, "%s: a chain is a .js, .ts or .wasm file", file)
}

// saveFiles copies the chain's media files out of the store into dir and
// returns their paths, in the order of res.Files.
func saveFiles(ctx context.Context, store *blobstore.Store, res *chain.RunResult, dir string) ([]string, error) {
	var out []string
	for _, f := range res.Files {
		name := path.Base(f.Path)
		if name == "." || name == "/" || strings.ContainsAny(name, `/\`) {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return out, err
		}
		dst := filepath.Join(dir, name)
		if err := saveFile(ctx, store, f, dst); err != nil {
			return out, err
		}
		out = append(out, dst)
	}
	return out, nil
}

func saveFile(ctx context.Context, store *blobstore.Store, f invoker.ChainFile, dst string) error {
	var r io.Reader
	if f.Ref != "" {
		rc, _, err := store.Open(ctx, cliTenant, f.Ref)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		defer rc.Close()
		r = rc
	} else {
		r = strings.NewReader(string(f.Data))
	}
	w, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

// report prints a chain's result for a person.
func report(w io.Writer, res *chain.RunResult, file string, saved []string, where string, ttl time.Duration) {
	head := fmt.Sprintf("%s: %s", file, res.Status)
	if res.Reason != "" && res.Reason != string(res.Status) {
		head += " (" + res.Reason + ")"
	}
	fmt.Fprintf(w, "%s in %s, %d tool call(s), chain %s\n", head, round(res.Stats.Wall), res.Stats.Calls, res.ID)
	if res.Status != chain.StatusOK {
		msg := res.Error
		if res.Line > 0 {
			msg = fmt.Sprintf("%s:%d:%d: %s", file, res.Line, res.Column, msg)
		}
		fmt.Fprintf(w, "\nerror:\n  %s\n", strings.ReplaceAll(msg, "\n", "\n  "))
	} else {
		fmt.Fprintln(w, "\nresult:")
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(pretty(res.Value), "\n", "\n  "))
	}
	if len(res.Logs) > 0 {
		fmt.Fprintln(w, "\nlogs:")
		for _, l := range res.Logs {
			fmt.Fprintf(w, "  %-5s %s\n", l.Level, l.Text)
		}
		if res.LogsTruncated {
			fmt.Fprintln(w, "  … (truncated at the log limit)")
		}
	}
	if len(res.Trace) > 0 {
		fmt.Fprintln(w, "\ntrace:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tTOOL\tSTATUS\tREASON\tDURATION\tARGS\tRESULT")
		for _, r := range res.Trace {
			reason := r.Reason
			if reason == "" {
				reason = "-"
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Seq, r.Tool, r.Status, reason, round(r.Duration), size(int64(r.ArgBytes)), size(int64(r.ResultBytes)))
		}
		_ = tw.Flush()
		if res.TraceDropped > 0 {
			fmt.Fprintf(w, "  … %d more call(s) past the trace cap\n", res.TraceDropped)
		}
		for _, r := range res.Trace {
			if r.Status != session.StatusOK && r.Message != "" {
				fmt.Fprintf(w, "  #%d %s: %s\n", r.Seq, r.Reason, r.Message)
			}
		}
	}
	if len(res.Artifacts) > 0 {
		fmt.Fprintf(w, "\nartifacts (results too large to return inline, stored in %s, tenant %q; unpinned when the chain ended, kept %s):\n", where, cliTenant, ttl)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, a := range res.Artifacts {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", a.Ref, a.MIME, size(a.Size))
		}
		_ = tw.Flush()
	}
	if len(res.Files) > 0 {
		fmt.Fprintln(w, "\nfiles (media the tools returned):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for i, f := range res.Files {
			dst := "(not saved)"
			if i < len(saved) {
				dst = "→ " + saved[i]
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", f.Path, f.MIME, size(f.Size), dst)
		}
		_ = tw.Flush()
	}
	fmt.Fprintf(w, "\nstats: wall %s, instantiate %s, peak guest memory %s, args %s, results %s\n",
		round(res.Stats.Wall), round(res.Stats.Instantiate), size(int64(res.Stats.MemoryBytes)),
		size(res.Stats.ArgBytes), size(res.Stats.ResultBytes))
}

func pretty(v json.RawMessage) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	var x any
	if err := json.Unmarshal(v, &x); err != nil || enc.Encode(x) != nil {
		return string(v)
	}
	return strings.TrimRight(b.String(), "\n")
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// progressPrinter writes a line per finished tool call.
type progressPrinter struct {
	mu sync.Mutex
	w  io.Writer
	on bool
}

func (p *progressPrinter) toolEnd(ev invoker.Event) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	reason := ""
	if ev.Reason != "" {
		reason = " " + ev.Reason
	}
	fmt.Fprintf(p.w, "airlock: #%d %s %s%s (%s)\n", ev.Seq, ev.Tool, ev.Status, reason, round(ev.Duration))
}

// mcpFlag collects --mcp NAME=COMMAND ARGS... and --mcp NAME=URL. The
// command is split at spaces (no quoting); use the config file's
// mcp_servers for arguments with spaces, env or headers.
type mcpFlag []config.MCPServer

func (m *mcpFlag) String() string { return "" }

func (m *mcpFlag) Set(v string) error {
	name, rest, ok := strings.Cut(v, "=")
	rest = strings.TrimSpace(rest)
	if !ok || name == "" || rest == "" {
		return fmt.Errorf("write NAME=COMMAND ARGS... or NAME=URL, e.g. everything=npx -y @modelcontextprotocol/server-everything")
	}
	s := config.MCPServer{Name: name}
	if strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://") {
		s.URL = rest
	} else {
		f := strings.Fields(rest)
		s.Command, s.Args = f[0], f[1:]
	}
	*m = append(*m, s)
	return nil
}
