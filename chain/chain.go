package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/toolbox"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
)

// Engines are the sandboxes a Runner can use. Either may be nil, not both.
type Engines struct {
	// Scripts runs JavaScript and TypeScript chains.
	Scripts *sandbox.ScriptEngine
	// Modules runs compiled wasm chains.
	Modules *sandbox.ModuleEngine
}

// Options configure one run. The zero value works.
type Options struct {
	// SessionID names the chain (and its pins). Default: a random id.
	SessionID string
	// Tenant scopes the blobs the chain reads and creates. Default "default".
	Tenant string
	// Grants are artifact refs the chain may read besides its own.
	Grants []string
	// Tools, when non-nil, are the only tools the chain may call; a call to
	// any other ends unknown_tool, as for a tool that does not exist. Nil
	// allows every tool of the invoker's toolbox.
	Tools []string
	// ChainTools are tools of this chain alone, beside the invoker's: a
	// caller's own tools (toolbox.External tools answered by the chain's
	// submitter, or plain Go tools). They are callable whatever Tools
	// allows, and search and describe find them. A name the invoker's
	// toolbox already has is ErrToolNameTaken.
	ChainTools []toolbox.Tool
	// Policy, when set, replaces the invoker's policy for this chain.
	Policy *invoker.Policy
	// Profile is the governance profile the chain runs under: granted
	// scopes, autonomy level, gate matrix, call policies. Nil: the zero
	// govern.Profile (no scopes, supervised, the default matrix).
	Profile *govern.Profile
	// Limits bound the sandbox. Zero fields take the sandbox defaults.
	Limits sandbox.Limits
	// Logger receives a line if releasing the chain's pins fails. Nil discards.
	Logger *slog.Logger
	// Observer, when set, receives the events of this chain's calls besides
	// the invoker's own hooks (invoker.WithObserver).
	Observer *invoker.Observer
	// Park makes a call that needs approval park the chain instead of
	// waiting for the decision (scripts only; a module's calls wait as
	// before): Run returns status parked with Parked set, and Resume
	// continues it once decisions are in, in this process or another.
	Park bool
	// Identity is the delegated identity the chain acts for: tools that
	// declare an audience exchange its subject token for one of their own
	// (toolbox.IdentityFrom, docs/identity.md). It lives only in this
	// process's memory while the chain runs: a parked chain's state never
	// holds it, and Resume takes it again (ResumeOptions.Identity). Nil:
	// the chain acts for its tenant alone.
	Identity *toolbox.Identity
}

// Runner runs chains: for each it opens a session, runs the guest in a fresh
// sandbox instance with a bridge into the invoker, and closes the session,
// releasing its pins, whatever happened.
//
// A Runner is safe for concurrent use.
type Runner struct {
	inv     *invoker.Invoker
	engines Engines
}

// New returns a Runner over inv and engines.
func New(inv *invoker.Invoker, engines Engines) (*Runner, error) {
	if inv == nil {
		return nil, ErrNilInvoker
	}
	if engines.Scripts == nil && engines.Modules == nil {
		return nil, ErrNoEngine
	}
	return &Runner{inv: inv, engines: engines}, nil
}

// Engines returns the runner's engines.
func (r *Runner) Engines() Engines { return r.engines }

// Invoker returns the invoker the runner's chains call.
func (r *Runner) Invoker() *invoker.Invoker { return r.inv }

// Check parses (and for TypeScript, transpiles) s without running it. A
// syntax error is a *sandbox.ExitError with the line and column.
func (r *Runner) Check(s sandbox.Script) error {
	if r.engines.Scripts == nil {
		return ErrNoEngine
	}
	return r.engines.Scripts.Check(s)
}

// Compile checks s and compiles it once for RunProgram (sandbox.Program):
// what Check refuses, Compile refuses with the same error. ctx bounds the
// parse (sandbox.ScriptEngine.Compile); s.Tenant is whose parse slot it
// takes.
func (r *Runner) Compile(ctx context.Context, s sandbox.Script) (*sandbox.Program, error) {
	if r.engines.Scripts == nil {
		return nil, ErrNoEngine
	}
	return r.engines.Scripts.Compile(ctx, s)
}

// RunProgram runs a compiled script chain as Run runs a script, without
// parsing or transpiling it again.
func (r *Runner) RunProgram(ctx context.Context, p *sandbox.Program, opts Options) (*RunResult, error) {
	if r.engines.Scripts == nil {
		return nil, ErrNoEngine
	}
	return r.run(ctx, opts, func(ctx context.Context, c guestCall) (*sandbox.Result, error) {
		return r.engines.Scripts.RunProgram(ctx, p.With(c.read, opts.Park), c.bridge, opts.Limits)
	})
}

// Run runs a script chain. ctx bounds the whole chain together with
// opts.Limits.Timeout. Run returns an error only for misuse (no script engine,
// an invalid policy); every outcome of the script itself, hostile or not, is
// a RunResult.
func (r *Runner) Run(ctx context.Context, s sandbox.Script, opts Options) (*RunResult, error) {
	if r.engines.Scripts == nil {
		return nil, ErrNoEngine
	}
	return r.run(ctx, opts, func(ctx context.Context, c guestCall) (*sandbox.Result, error) {
		s.Artifacts, s.Park = c.read, opts.Park
		if s.Tenant == "" {
			s.Tenant = opts.Tenant // whose parse slot it takes
		}
		return r.engines.Scripts.Run(ctx, s, c.bridge, opts.Limits)
	})
}

// RunModule runs a compiled wasm chain with input as its input document. It
// behaves like Run.
func (r *Runner) RunModule(ctx context.Context, m *sandbox.Module, input json.RawMessage, opts Options) (*RunResult, error) {
	if m == nil {
		return nil, ErrNilModule
	}
	return r.run(ctx, opts, func(ctx context.Context, c guestCall) (*sandbox.Result, error) {
		return m.Run(ctx, input, c.bridge, opts.Limits)
	})
}

// guestCall is what a guest reaches of its chain: tool calls, and reads of
// the artifacts it was handed.
type guestCall struct {
	bridge sandbox.Bridge
	read   sandbox.ArtifactReader
}

func (r *Runner) run(ctx context.Context, opts Options, guest func(context.Context, guestCall) (*sandbox.Result, error)) (*RunResult, error) {
	inv, err := r.invoker(opts)
	if err != nil {
		return nil, err
	}
	allowed := opts.Tools
	if allowed != nil {
		allowed = slices.Clip(allowed)
		for _, t := range opts.ChainTools {
			allowed = append(allowed, t.Info().Name)
		}
	}
	sess := inv.NewSession(session.Options{ID: opts.SessionID, Tenant: opts.Tenant, Grants: opts.Grants, Tools: allowed,
		Governance: govern.NewChain(opts.Profile), ParkApprovals: opts.Park})
	c := &chainRun{inv: inv, sess: sess, opts: opts, start: time.Now(), col: &collector{}}
	c.disc = &discovery{inv: inv, sess: sess}
	return c.finish(ctx, c.guest(ctx, guest))
}

// invoker returns the invoker for a chain under opts.Policy.
func (r *Runner) invoker(opts Options) (*invoker.Invoker, error) {
	inv := r.inv
	if opts.Policy != nil {
		var err error
		if inv, err = inv.WithPolicy(*opts.Policy); err != nil {
			return nil, err
		}
	}
	if len(opts.ChainTools) == 0 {
		return inv, nil
	}
	own, err := toolbox.New()
	if err != nil {
		return nil, err
	}
	for _, t := range opts.ChainTools {
		if t == nil {
			return nil, errors.New("chain: a nil tool in Options.ChainTools")
		}
		if name := t.Info().Name; inv.Toolbox().Has(name) {
			return nil, fmt.Errorf("%w: %q", ErrToolNameTaken, name)
		}
		if err := own.Add(t); err != nil {
			return nil, fmt.Errorf("chain: a tool of Options.ChainTools: %w", err)
		}
	}
	return inv.WithChainTools(own), nil
}

// chainRun is one stretch of a chain: from its start, or from a resumption,
// to its end or its park.
type chainRun struct {
	inv   *invoker.Invoker
	sess  *session.Session
	opts  Options
	start time.Time
	wall  time.Duration // the chain's run time before this stretch
	col   *collector
	disc  *discovery
}

// bridge is the chain's sandbox.Bridge: discovery, and tool calls through
// the invoker. A call parked for a decision is *sandbox.Pending.
func (c *chainRun) bridge(ctx context.Context, tool string, args []byte) ([]byte, error) {
	if tool == SearchOp || tool == DescribeOp {
		return Envelope(c.disc.answer(tool, args)), nil
	}
	call := invoker.Call{Tool: tool, Args: args}
	// The line of the script that made the call, for an approver
	// (sandbox.CallSiteOf: the sandbox hands it on the call's context, so
	// that its Bridge stays a plain function of a tool and its arguments).
	if site, ok := sandbox.CallSiteOf(ctx); ok {
		call.Line, call.Column = site.Line, site.Column
	}
	return c.outcome(c.inv.Invoke(ctx, c.sess, call), tool, args)
}

// outcome turns a call's Result into the guest's answer.
func (c *chainRun) outcome(res invoker.Result, tool string, args []byte) ([]byte, error) {
	if res.Parked != nil {
		return nil, &sandbox.Pending{Token: encodeToken(res.Parked, tool, args)}
	}
	c.col.add(&res)
	return Envelope(res), nil
}

// guest runs the guest with the chain's bridge and artifact reader.
func (c *chainRun) guest(ctx context.Context, guest func(context.Context, guestCall) (*sandbox.Result, error)) guestOutcome {
	if c.opts.Observer != nil {
		ctx = invoker.WithObserver(ctx, c.opts.Observer)
	}
	ctx = toolbox.WithIdentity(ctx, c.opts.Identity)
	read := func(ctx context.Context, ref string, max int64) ([]byte, error) {
		data, size, res := c.inv.ReadArtifact(ctx, c.sess, ref, max)
		if !res.OK() {
			return nil, &sandbox.ReadError{Reason: res.Reason, Message: res.Message, Size: size}
		}
		return data, nil
	}
	res, err := guest(ctx, guestCall{bridge: c.bridge, read: read})
	return guestOutcome{ctx: ctx, res: res, err: err}
}

type guestOutcome struct {
	ctx context.Context
	res *sandbox.Result
	err error
}

// finish builds the chain's result. A parked chain keeps its session open
// (its pins stay); any other ends it.
func (c *chainRun) finish(ctx context.Context, g guestOutcome) (*RunResult, error) {
	res, err, sess, inv := g.res, g.err, c.sess, c.inv
	out := &RunResult{ID: sess.ID()}
	if err == nil && res.Parked != nil {
		p, perr := c.park(res.Parked)
		if perr != nil {
			err = &sandbox.ExitError{Kind: sandbox.HostError, Message: "the chain could not be parked", Err: perr}
		} else {
			out.Status, out.Reason, out.Parked = StatusParked, ReasonAwaitingApproval, p
		}
	}
	var final *invoker.Artifact
	if err == nil && out.Parked == nil {
		// Shaped while the session is open: a stored value is pinned and
		// charged like an offloaded result.
		var shaped invoker.Result
		if res.Value, final, shaped = inv.ShapeFinal(ctx, sess, res.Value); !shaped.OK() && c.opts.Logger != nil {
			c.opts.Logger.Warn("chain: storing a large final value failed; it is returned as it is",
				"chain", sess.ID(), "reason", shaped.Reason)
		}
	}
	if out.Parked == nil {
		c.close(ctx)
	}

	if err != nil {
		var exit *sandbox.ExitError
		if !errors.As(err, &exit) {
			return nil, err // misuse or a host failure outside the guest
		}
		out.Status, out.Reason = classify(exit)
		out.Error, out.Line, out.Column = exit.Message, exit.Line, exit.Column
	} else if out.Parked == nil {
		out.Status = StatusOK
		out.Value = res.Value
	}
	if res != nil {
		out.Logs, out.LogsTruncated = res.Logs, res.LogsTruncated
		out.Stats.Instantiate, out.Stats.MemoryBytes = res.Stats.Instantiate, res.Stats.MemoryBytes
	}
	if out.Logs == nil {
		out.Logs = []sandbox.LogEntry{}
	}
	out.Trace, out.TraceDropped = sess.Trace(), sess.Dropped()
	out.Files, out.Artifacts = c.col.result()
	if final != nil {
		out.Artifacts = append(out.Artifacts, *final)
	}
	out.Stats.Calls = len(out.Trace) + out.TraceDropped
	for _, rec := range out.Trace {
		out.Stats.ArgBytes += int64(rec.ArgBytes)
		out.Stats.ResultBytes += int64(rec.ResultBytes)
	}
	out.Stats.Wall = c.wall + time.Since(c.start)
	return out, nil
}

// close ends the chain's session: its pins go whatever happened, with a
// context of their own, since the chain's may be cancelled already. A
// failed unpin is tried again a few times (Session.Close retries the refs
// it could not unpin): a pin nobody withdraws keeps its blob for ever.
func (c *chainRun) close(ctx context.Context) {
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	cerr := c.sess.Close(closeCtx)
	for wait := 20 * time.Millisecond; cerr != nil && wait <= 160*time.Millisecond && closeCtx.Err() == nil; wait *= 2 {
		time.Sleep(wait)
		cerr = c.sess.Close(closeCtx)
	}
	if cerr != nil && c.opts.Logger != nil {
		c.opts.Logger.Error("chain: releasing pins failed; they expire with the store's TTL once unpinned", "chain", c.sess.ID(), "err", cerr)
	}
}

func classify(e *sandbox.ExitError) (Status, string) {
	switch e.Kind {
	case sandbox.Timeout:
		return StatusTimeout, "timeout"
	case sandbox.Cancelled:
		return StatusCancelled, "cancelled"
	case sandbox.LimitExceeded:
		return StatusLimitExceeded, e.Limit
	}
	return StatusError, e.Kind.String()
}

// collector gathers the files and artifacts of a chain's calls, which may
// complete concurrently.
type collector struct {
	mu        sync.Mutex
	files     []invoker.ChainFile
	artifacts []invoker.Artifact
}

func (c *collector) add(res *invoker.Result) {
	if res.Artifact == nil && len(res.Files) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if res.Artifact != nil {
		c.artifacts = append(c.artifacts, *res.Artifact)
	}
	c.files = append(c.files, res.Files...)
}

func (c *collector) result() ([]invoker.ChainFile, []invoker.Artifact) {
	c.mu.Lock()
	defer c.mu.Unlock()
	files, arts := c.files, c.artifacts
	if files == nil {
		files = []invoker.ChainFile{}
	}
	if arts == nil {
		arts = []invoker.Artifact{}
	}
	return files, arts
}

// Envelope encodes a call's Result as the JSON the guest receives (see
// guest-sdk/ABI.md):
//
//	{"status":"ok","value":<value>}
//	{"status":"ok","value":<value>,"artifact":<Artifact>,"plain":true|false}
//	{"status":"error"|"denied","reason":"<code>","message":"<text>"}
//
// A refusal may add "preview":<JSON> (reason preview_required: what the
// tool would do) and "retry_after_ms":<n> (reasons rate_limited and
// tool_unavailable). The second form is an offloaded result: plain says whether the value is
// the tool's own JSON (stored too, so a script can pass it on by ref) or the
// Artifact envelope itself (too large to hand over as a value).
func Envelope(res invoker.Result) []byte {
	if res.Status == session.StatusOK {
		v := res.Value
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		b := make([]byte, 0, len(v)+len(`{"status":"ok","value":}`))
		b = append(b, `{"status":"ok","value":`...)
		b = append(b, v...)
		if res.Artifact != nil {
			a, _ := json.Marshal(res.Artifact)
			b = append(b, `,"artifact":`...)
			b = append(b, a...)
			b = append(b, `,"plain":`...)
			b = strconv.AppendBool(b, res.Plain)
		}
		return append(b, '}')
	}
	b := make([]byte, 0, 48+len(res.Reason)+len(res.Message))
	b = append(b, `{"status":`...)
	b = strconv.AppendQuote(b, string(res.Status))
	b = append(b, `,"reason":`...)
	b = strconv.AppendQuote(b, res.Reason)
	b = append(b, `,"message":`...)
	msg, _ := json.Marshal(res.Message)
	b = append(b, msg...)
	if len(res.Preview) > 0 {
		b = append(b, `,"preview":`...)
		b = append(b, res.Preview...)
	}
	if res.RetryAfter > 0 {
		b = append(b, `,"retry_after_ms":`...)
		b = strconv.AppendInt(b, max(res.RetryAfter.Milliseconds(), 1), 10)
	}
	return append(b, '}')
}
