package invoker

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// Store is the blob storage the invoker offloads results to and resolves
// artifact refs from. *blobstore.Store implements it.
type Store interface {
	Put(ctx context.Context, tenant string, r io.Reader, contentType string) (blobstore.Attrs, error)
	Open(ctx context.Context, tenant, ref string) (io.ReadCloser, blobstore.Attrs, error)
	Stat(ctx context.Context, tenant, ref string) (blobstore.Attrs, error)
	session.Pinner
}

// Options configure New. The zero value is a working configuration: default
// policy, every call above Safe denied, every result inline.
type Options struct {
	// Policy is the chain policy. Zero fields take their defaults.
	Policy Policy
	// Approver decides on calls above Policy.MaxRiskUnapproved. Nil denies them
	// all with no_approval_handler.
	Approver ApprovalHandler
	// Store receives offloaded results and media and resolves artifact refs.
	// Nil keeps every result inline and makes every ref artifact_not_found.
	Store Store
	// Hooks are lifecycle callbacks fired on every call.
	Hooks Hooks
	// Governor holds the process-wide governance state: tool health, rate
	// buckets, idempotency outcomes. Nil: govern.New with its defaults (no
	// rate limits, idempotency records off).
	Governor *govern.Governor
	// Progress receives ToolCall and ToolResult events. Nil disables them.
	Progress ProgressFunc
	// Logger receives one debug line per call (tool, status, reason,
	// duration; never arguments or results) and contained panics at error
	// level. Nil discards.
	Logger *slog.Logger
	// MaxResolvingBytes caps the artifact bytes all calls of the process may
	// hold resolved at once; a call that would exceed it fails with
	// host_busy. Default 256 MiB.
	MaxResolvingBytes int64
	// MaxTenantArtifactBytes caps, per tenant, the bytes of the results and
	// media this process stored that are still alive: pinned by an open
	// session, or unpinned less than the store's TTL ago. A result that
	// would exceed it is not stored and the call fails with quota_exceeded.
	// What callers store for a tenant outside the invoker (a parked
	// state) counts too: ChargeTenantBytes.
	// The count is this process's own (see quota.go); the TTL is the
	// store's TTL() when it has that method (*blobstore.Store does), else
	// blobstore.DefaultTTL. Zero means the default, 1 GiB; negative is
	// invalid.
	MaxTenantArtifactBytes int64
	// MaxTenantInFlightBytes caps, per tenant, the host memory this
	// process holds for the tenant's calls in progress (waiting for
	// approval or running): their arguments as read from the guest, what
	// decoding them may take (DecodedValueBytes per JSON value besides
	// their text), a canonical or rewritten copy of them when it differs,
	// and CallOverhead per call (see inflight.go). A call that would exceed it
	// fails at once with tenant_memory. A call whose arguments alone
	// exceed it can never run. Zero means the default, 64 MiB; negative is
	// invalid.
	MaxTenantInFlightBytes int64
}

// Defaults of Options' fields.
const (
	// DefaultMaxResolvingBytes is the default of Options.MaxResolvingBytes.
	DefaultMaxResolvingBytes = 256 << 20
	// DefaultMaxTenantArtifactBytes is the default of
	// Options.MaxTenantArtifactBytes: 1 GiB.
	DefaultMaxTenantArtifactBytes = 1 << 30
	// DefaultMaxTenantInFlightBytes is the default of
	// Options.MaxTenantInFlightBytes: 64 MiB, what one chain's guest may
	// use by default (sandbox.DefaultMemoryBytes).
	DefaultMaxTenantInFlightBytes = 64 << 20
)

// Invoker is the single gate every tool call from a chain passes through. It
// is built once per process and holds no per-chain state: that lives in the
// session.Session passed to Invoke.
//
// An Invoker is safe for concurrent use.
type Invoker struct {
	box *toolbox.Toolbox
	// own, when set, holds a chain's own tools, looked up before box
	// (WithChainTools).
	own       *toolbox.Toolbox
	policy    Policy
	approver  ApprovalHandler
	store     Store
	hooks     Hooks
	gov       *govern.Governor
	progress  ProgressFunc
	log       *slog.Logger
	abandoned *atomic.Int64
	// resolving counts the artifact bytes held by calls in progress, against
	// maxResolving; shared by the copies WithPolicy makes.
	resolving    *atomic.Int64
	maxResolving int64
	// ledger counts each tenant's live artifact bytes against
	// MaxTenantArtifactBytes; shared by the copies WithPolicy makes.
	ledger *ledger
	// inFlight counts each tenant's bytes held by calls in progress
	// against MaxTenantInFlightBytes; shared by the copies WithPolicy
	// makes.
	inFlight *inFlight
}

// New builds an Invoker over box. It fails if box is nil or the policy is
// invalid (ApprovalTimeout not shorter than CallTimeout, negative limits).
func New(box *toolbox.Toolbox, opts Options) (*Invoker, error) {
	if box == nil {
		return nil, ErrNilToolbox
	}
	if err := opts.Policy.Validate(); err != nil {
		return nil, err
	}
	if opts.MaxResolvingBytes < 0 || opts.MaxTenantArtifactBytes < 0 || opts.MaxTenantInFlightBytes < 0 {
		return nil, fmt.Errorf("%w: MaxResolvingBytes (%d), MaxTenantArtifactBytes (%d) and MaxTenantInFlightBytes (%d) must not be negative",
			ErrInvalidOptions, opts.MaxResolvingBytes, opts.MaxTenantArtifactBytes, opts.MaxTenantInFlightBytes)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Invoker{
		box:          box,
		policy:       opts.Policy.WithDefaults(),
		approver:     opts.Approver,
		store:        opts.Store,
		hooks:        opts.Hooks,
		gov:          cmp.Or(opts.Governor, govern.New(govern.Options{})),
		progress:     opts.Progress,
		log:          log,
		abandoned:    new(atomic.Int64),
		resolving:    new(atomic.Int64),
		maxResolving: cmp.Or(opts.MaxResolvingBytes, DefaultMaxResolvingBytes),
		ledger:       newLedger(cmp.Or(opts.MaxTenantArtifactBytes, DefaultMaxTenantArtifactBytes), opts.Store),
		inFlight:     newInFlight(cmp.Or(opts.MaxTenantInFlightBytes, DefaultMaxTenantInFlightBytes)),
	}, nil
}

// WithPolicy returns a copy of inv enforcing p instead (for a chain with its
// own limits). It fails like New on an invalid policy.
func (inv *Invoker) WithPolicy(p Policy) (*Invoker, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c := *inv
	c.policy = p.WithDefaults()
	return &c, nil
}

// WithChainTools returns a copy of inv that looks tools up in own first,
// then in its toolbox, live (for a chain with tools of its own:
// chain.Options.ChainTools): a configured tool withdrawn or re-registered
// while the chain runs is so for it too. Everything else is shared.
func (inv *Invoker) WithChainTools(own *toolbox.Toolbox) *Invoker {
	c := *inv
	c.own = own
	return &c
}

// lookup finds tool name: among the chain's own tools, then the toolbox.
func (inv *Invoker) lookup(name string) (*toolbox.Entry, bool) {
	if inv.own != nil {
		if e, ok := inv.own.Lookup(name); ok {
			return e, true
		}
	}
	return inv.box.Lookup(name)
}

// Policy returns the policy in force, defaults filled in.
func (inv *Invoker) Policy() Policy { return inv.policy }

// Governor returns the process-wide governance state.
func (inv *Invoker) Governor() *govern.Governor { return inv.gov }

// Toolbox returns the registry the invoker looks tools up in: with tools
// of a chain's own (WithChainTools), a snapshot of the toolbox with them.
func (inv *Invoker) Toolbox() *toolbox.Toolbox {
	if inv.own == nil {
		return inv.box
	}
	b := inv.box.Clone()
	for _, e := range inv.own.Entries() {
		b.Remove(e.Info().Name)
		_ = b.Add(e.Tool())
	}
	return b
}

// NewSession opens a session whose pins go to the invoker's store.
// opts.Pins, when set, wins. The invoker watches the session's unpins to
// count its tenant's live artifacts (Options.MaxTenantArtifactBytes).
func (inv *Invoker) NewSession(opts session.Options) *session.Session {
	return session.New(inv.sessionPins(opts))
}

// sessionPins sets opts.Pins to the invoker's store when unset and wraps
// it so the ledger sees the session's unpins.
func (inv *Invoker) sessionPins(opts session.Options) session.Options {
	if opts.Pins == nil && inv.store != nil {
		opts.Pins = inv.store
	}
	if opts.Pins != nil {
		opts.Pins = &ledgerPins{Pinner: opts.Pins, led: inv.ledger}
	}
	return opts
}

// Abandoned returns how many tool executions are still running after their
// call ended (timeout or cancellation) because the tool ignores its context.
// Their results are discarded when they return; see RATIONALE.md.
func (inv *Invoker) Abandoned() int64 { return inv.abandoned.Load() }

// Invoke runs call through every gate for the chain whose state is sess and
// returns its outcome. ctx is the chain's context: its cancellation ends the
// call with reason cancelled, and it bounds the approval wait and execution
// together with the policy timeouts.
//
// Whatever happens, Invoke fires OnToolStart and OnToolEnd, appends exactly
// one record to sess's trace, and returns a Result; it never panics. The
// one exception is a call that parks (session.Options.ParkApprovals): it
// has not ended, so Invoke returns status session.StatusParked with
// Result.Parked, fires ApprovalParked, and appends no record and fires no
// ToolEnd until the call is resumed (Call.Resume).
func (inv *Invoker) Invoke(ctx context.Context, sess *session.Session, call Call) (res Result) {
	st := callState{start: time.Now(), tool: clip(call.Tool), argBytes: len(call.Args), obs: observerFrom(ctx), line: call.Line, column: call.Column}
	if call.Resume != nil && !call.Resume.Start.IsZero() {
		st.start = call.Resume.Start
	}
	// tool.before carries the tool's declared risk, so a hook sees a High
	// tool as High before any gate ran. This lookup only reports: the
	// registry gate (step 2) looks the tool up again and decides, so the
	// gate order is unchanged. An unknown or disallowed tool stays Safe.
	if e, ok := inv.lookup(call.Tool); ok && sess.Allows(call.Tool) {
		st.risk = e.Info().Risk
	}
	inv.notify(ctx, &st, inv.event(ToolStart, sess, &st))
	ctx = inv.startCall(ctx, &st, sess)
	defer func() {
		if p := recover(); p != nil {
			inv.log.Error("invoker: contained panic", "tool", st.tool, "panic_type", fmt.Sprintf("%T", p))
			res = fail(session.StatusError, ReasonInternal, "airlock failed while handling this call; it was not retried")
		}
		if st.reserved > 0 {
			inv.resolving.Add(-st.reserved)
		}
		if st.held > 0 {
			inv.inFlight.give(sess.Tenant(), st.held)
		}
		if res.Status == session.StatusParked {
			return // the call has not ended: its record comes when it resumes
		}
		end := time.Now()
		status := traceStatus(res)
		rec := session.Record{
			Tool: st.tool, Status: status, Reason: res.Reason, Message: res.Message,
			Start: st.start, End: end, Duration: end.Sub(st.start),
			ArgBytes: st.argBytes, ResultBytes: st.resultBytes, Refs: st.refs,
		}
		if st.dec.ID != "" {
			rec.Risk, rec.Action, rec.Gate = st.risk.String(), st.action, st.dec.Gate.String()
			rec.DecisionID, rec.Rule = st.dec.ID, st.dec.Rule
			rec.IdempotencyKey, rec.Deduped, rec.Truncated = st.idemKey, res.Deduped, res.Truncated
			rec.Citations, rec.Mutations = res.Citations, res.Mutations
			res.DecisionID = st.dec.ID
		}
		rec = sess.Append(rec)
		res.Latency = rec.Duration
		ev := inv.event(ToolEnd, sess, &st)
		ev.Status, ev.Reason, ev.Duration, ev.Seq, ev.Refs = status, res.Reason, rec.Duration, rec.Seq, rec.Refs
		inv.notify(ctx, &st, ev)
	}()
	return inv.pipeline(ctx, sess, call, &st)
}

// callState is what the pipeline learns about a call for its trace record.
type callState struct {
	start       time.Time
	tool        string
	risk        toolbox.Risk
	action      string
	dec         govern.Decision
	idemKey     string
	argsHash    string // of an idempotent call's arguments as sent
	argBytes    int
	resultBytes int
	maxOutChars int
	refs        []string
	approval    string     // Event.Approval
	seq         int        // the call's number, once the budget gave it one
	caller      callCaller // what the tool sees of its call (invoker.caller)
	reserved    int64      // artifact bytes counted against maxResolving
	held        int64      // bytes counted against the tenant's MaxTenantInFlightBytes
	obs         *Observer
	line        int // Call.Line, for the ApprovalRequest
	column      int // Call.Column
}

func (inv *Invoker) pipeline(ctx context.Context, sess *session.Session, call Call, st *callState) Result {
	p := &inv.policy

	// 1. Budget. A resumed call keeps the number it was parked with.
	var seq int
	var ok bool
	if call.Resume != nil {
		var r Result
		if seq, r, ok = resumedNumber(sess, call.Resume); !ok {
			return r
		}
	} else if seq, ok = sess.AcquireNumber(p.MaxToolCalls); !ok {
		return fail(session.StatusError, ReasonBudgetExhausted,
			fmt.Sprintf("this chain used its budget of %d tool calls; no further calls will run", p.MaxToolCalls))
	}
	st.seq = seq
	// 2. Registry.
	entry, ok := inv.lookup(call.Tool)
	if !ok || !sess.Allows(call.Tool) {
		return fail(session.StatusError, ReasonUnknownTool,
			fmt.Sprintf("no tool named %q; call one of the tools declared on `tools`", st.tool))
	}
	info := entry.Info()
	st.risk, st.maxOutChars = info.Risk, info.MaxOutputChars
	// 2a. A caller tool's parked call, answered: its gates ran before it
	// was handed out.
	if call.Resume != nil && call.Resume.Answer != nil {
		return inv.answered(ctx, sess, st, entry, call, seq)
	}
	// 2b. A call run again for a fresh credential meets its gates anew,
	// on the approval it had if it had one.
	gateRs, r, stop := gateResumption(st, call.Resume)
	if stop {
		return r
	}
	// 3. Type gate.
	if info.Kind != toolbox.KindLocal {
		return fail(session.StatusError, ReasonNotCallable,
			fmt.Sprintf("tool %q is a %s tool and cannot be called from a chain; call it directly instead", st.tool, info.Kind))
	}
	// 3a. Argument size and schema. Arguments holding artifact refs are checked
	// after resolution (step 5a), when they hold the values the schema describes.
	args := call.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if len(args) > p.MaxArgumentBytes {
		return fail(session.StatusError, ReasonArgumentsTooLarge,
			fmt.Sprintf("arguments are %d bytes; the limit is %d: pass large data as an artifact ref", len(args), p.MaxArgumentBytes))
	}
	// The tenant's host memory: the arguments, what decoding them may
	// take and the call's own state, until the call ends (inflight.go).
	if r, ok := inv.hold(sess, st, CallOverhead+len(call.Args)+int(decodeCost(args))); !ok {
		return r
	}
	key := call.IdempotencyKey
	if bytes.Contains(args, idemArgKey) {
		var r Result
		var bad bool
		if args, key, r, bad = takeIdempotencyKey(args, key); bad {
			return r
		}
		if r, ok := inv.hold(sess, st, len(args)); !ok {
			return r
		}
	}
	hasRefs := bytes.Contains(args, refKey)
	if !hasRefs {
		if err := entry.Validate(args); err != nil {
			return invalidArguments(st, err)
		}
	}
	// 3b. Governance: tool health, scopes, risk, the gate.
	gc := govern.Call{Tool: info.Name, Info: info, Action: govern.ActionOf(info, args), Args: args,
		Tenant: sess.Tenant(), ChainID: sess.ID(), Seq: seq}
	st.action = clipTo(gc.Action, 64)
	ch := sess.Governance()
	prof := ch.Profile()
	inv.notify(ctx, st, inv.event(PolicyBefore, sess, st))
	st.dec = inv.decide(ch, gc)
	st.risk = st.dec.Risk
	// A caller tool (toolbox.External) is one chain's own: its name is
	// the submitter's choice, so it has no health shared between chains.
	_, external := entry.Tool().(toolbox.External)
	if ok, until := inv.gov.Health().CheckCall(gc.Tenant, info.Name); !external && !ok {
		r := fail(session.StatusError, ReasonToolUnavailable,
			fmt.Sprintf("tool %q failed repeatedly or was rate-limited upstream; it rests until %s", st.tool, until.UTC().Format(time.RFC3339)))
		r.RetryAfter = max(until.Sub(inv.gov.Now()), 0)
		return inv.refuse(ctx, sess, st, r)
	}
	if st.dec.Denied() {
		return inv.refuse(ctx, sess, st, inv.denial(st.dec))
	}
	// 3c. A resumed call whose gate no longer confirms: an expired or
	// denied decision still ends it; an approval follows the gate.
	if gateRs != nil && st.dec.Gate != govern.Confirm {
		if r, stop := undecided(st, gateRs); stop {
			return r
		}
	}
	var approved json.RawMessage // the arguments an approver saw
	switch st.dec.Gate {
	case govern.Preview:
		inv.notify(ctx, st, inv.event(GateRequired, sess, st))
		return inv.preview(ctx, sess, st, entry, args, hasRefs)
	case govern.Confirm:
		// 4. Approval. Artifact refs are first replaced by what the store
		// says of them (sha256, size, media type), so the approver binds to
		// the content, not to what the script claims about it.
		inv.notify(ctx, st, inv.event(GateRequired, sess, st))
		view := args
		if hasRefs {
			described, r, failed := inv.resolve(ctx, sess, st, args, false)
			if failed {
				return r
			}
			// The arguments with their refs described are one more copy
			// held while the call waits.
			if r, ok := inv.hold(sess, st, len(described)); !ok {
				return r
			}
			view = described
		}
		frozen, r, denied := inv.approve(ctx, sess, st, gateRs, seq, view)
		if denied {
			return r
		}
		args, approved = frozen, frozen
	}
	// 5. Artifact refs.
	if hasRefs {
		resolved, r, failed := inv.resolve(ctx, sess, st, args, true)
		if failed {
			return r
		}
		args = resolved
		// 5a. Schema check on the resolved values.
		if err := entry.Validate(args); err != nil {
			return invalidArguments(st, err)
		}
	}
	// 5b. The policy again, with the latest context: the resolved
	// arguments (an artifact ref may hold the action or an argument a rule
	// reads), a profile replaced or a tool re-registered while the call
	// waited may only make it stricter.
	sent := gc.Args // the arguments as the chain sent them, for the idempotency key
	if hasRefs {
		gc.Args, gc.Action = args, govern.ActionOf(info, args)
		st.action = clipTo(gc.Action, 64)
	}
	if latest, _ := inv.lookup(call.Tool); hasRefs || latest != entry || ch.Profile() != prof {
		if r, refused := inv.recheck(ctx, sess, st, latest, gc); refused {
			return r
		}
	}
	// 5c. Call policies, checked and the call counted in flight at once.
	if d := inv.gov.Admit(ch, gc); d != nil {
		return inv.refuse(ctx, sess, st, fail(session.StatusDenied, d.Reason, d.Message))
	}
	done := false
	defer func() { inv.gov.Done(ch, gc, done) }()
	// 6. Cancellation.
	if ctx.Err() != nil {
		return cancelled(ctx)
	}
	// 6a. The tenant's egress rate for the tool.
	if ok, after := inv.gov.Limiter().Take(gc.Tenant, info.Name); !ok {
		r := fail(session.StatusError, ReasonRateLimited,
			fmt.Sprintf("tool %q: this tenant's call rate is spent; retry in %s", st.tool, after))
		r.RetryAfter = after
		return inv.refuse(ctx, sess, st, r)
	}
	// 6b. Idempotency: a write-class call whose key has an outcome returns
	// it. A caller tool's caller keeps its own outcomes.
	idem := inv.gov.Outcomes() != nil && info.EffectiveClass().Write() && !external
	if idem {
		if r, stop := inv.beginOutcome(ctx, sess, st, gc, key, sent, call.Resume != nil && call.Resume.Retry); stop {
			// A recorded result is not a success of this chain: call
			// policies (sequential, read-before-write) do not count it.
			inv.gov.Limiter().Refund(gc.Tenant, info.Name)
			return r
		}
	}
	// 7. Progress: the call runs.
	inv.notify(ctx, st, inv.event(ToolCall, sess, st))
	// 7a. A caller tool's call is handed out in canonical form, bound to
	// its hash; in a session that parks, the chain parks until its answer.
	if external {
		frozen, req, r, failed := inv.request(sess, st, args)
		if failed {
			return r
		}
		if sess.ParksApprovals() {
			req.Args = bytes.Clone(frozen)
			if !govern.ValidKey(key) {
				key = ""
			}
			return inv.parkCall(ctx, sess, st, seq, req, key)
		}
		args = frozen
	}
	// 8. Execute.
	timeout := p.CallTimeout
	if info.LatencyBudget > 0 && info.LatencyBudget < timeout {
		timeout = info.LatencyBudget
	}
	// The tool sees the key the call runs under: the one recorded (given
	// or derived), else a valid one given for a tool that records none.
	if st.idemKey != "" {
		key = st.idemKey
	} else if !govern.ValidKey(key) {
		key = ""
	}
	out, r, failed, outcome := inv.execute(ctx, inv.caller(sess, st, key), entry.Tool(), args, timeout)
	if !external {
		inv.health(gc.Tenant, info.Name, r, failed)
	}
	// 9. Progress: the tool is done.
	ev := inv.event(ToolResult, sess, st)
	ev.Status, ev.Reason, ev.Duration = session.StatusOK, r.Reason, time.Since(st.start)
	if failed {
		ev.Status = traceStatus(r)
	}
	inv.notify(ctx, st, ev)
	if failed {
		if idem {
			inv.finishOutcome(ctx, sess, st, gc, r, outcome)
		}
		if awaitsCredential(ctx, sess, info, r) {
			// 9a. Parked for a fresh credential: the request shows the
			// arguments as approved, else as the chain sent them.
			shown := sent
			if approved != nil {
				shown = approved
			}
			_, req, rr, bad := inv.request(sess, st, shown)
			if bad {
				return rr
			}
			req.Args = bytes.Clone(req.Args)
			return inv.parkCredential(ctx, sess, st, seq, req, r)
		}
		return r
	}
	// 10. Shape.
	res := inv.shape(ctx, sess, st, out)
	if idem {
		// The tool returned: if its result could not be kept, its effects
		// stand all the same, so the outcome is unknown, not failed.
		state := govern.OutcomeOK
		if !res.OK() {
			state = govern.OutcomeUnknown
		}
		inv.finishOutcome(ctx, sess, st, gc, res, state)
	}
	done = res.OK()
	return res
}

var refKey = []byte(`"$artifact"`)

// traceStatus is the status a call's trace record and events show: the
// Result's, except timeout for a call that ran out of its CallTimeout.
func traceStatus(res Result) session.Status {
	if res.Reason == ReasonCallTimeout {
		return session.StatusTimeout
	}
	return res.Status
}

var donePool = sync.Pool{New: func() any { return make(chan outcome, 1) }}

// outcome is what a tool goroutine hands back.
type outcome struct {
	out      toolbox.Output
	err      error
	panicked bool
}

func (inv *Invoker) execute(ctx context.Context, caller *callCaller, tool toolbox.Tool, args json.RawMessage, timeout time.Duration) (toolbox.Output, Result, bool, govern.OutcomeState) {
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	toolCtx := toolbox.WithCaller(callCtx, caller)
	// done is buffered, so an abandoned tool never blocks on its send. A channel
	// that was drained goes back to the pool; one an abandoned tool still holds
	// does not.
	done := donePool.Get().(chan outcome)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				inv.log.Error("invoker: tool panicked", "tool", tool.Info().Name, "panic_type", fmt.Sprintf("%T", p))
				done <- outcome{panicked: true}
			}
		}()
		out, err := tool.Call(toolCtx, args)
		done <- outcome{out: out, err: err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-callCtx.Done():
		// A tool that finished just as the deadline passed did its work:
		// report its result, not a timeout.
		var ok bool
		if o, ok = settled(tool, done); !ok {
			inv.abandoned.Add(1)
			go func() { <-done; inv.abandoned.Add(-1) }()
			return toolbox.Output{}, inv.ended(ctx, timeout), true, govern.OutcomeUnknown
		}
	}
	donePool.Put(done)
	switch {
	case o.panicked:
		return toolbox.Output{}, fail(session.StatusError, ReasonToolPanic, "the tool crashed (panic); its effects are unknown"), true, govern.OutcomeUnknown
	case o.err != nil && callCtx.Err() != nil && !answeredError(tool, o.err):
		return toolbox.Output{}, inv.ended(ctx, timeout), true, govern.OutcomeUnknown
	case o.err != nil:
		r, state := inv.toolFailed(tool, o.err)
		return toolbox.Output{}, r, true, state
	}
	return o.out, Result{}, false, govern.OutcomeOK
}

// externalGrace bounds the wait for an External tool's Call once its
// context ended: it returns at once then, with the answer it took if one
// was (toolbox.External).
const externalGrace = time.Second

// settled takes the outcome of a tool whose call context ended, if it has
// one: at once, or, for an External tool, within externalGrace, so that
// an answer taken just as the deadline passed is the call's result.
func settled(tool toolbox.Tool, done chan outcome) (outcome, bool) {
	select {
	case o := <-done:
		return o, true
	default:
	}
	if _, ext := tool.(toolbox.External); !ext {
		return outcome{}, false
	}
	t := time.NewTimer(externalGrace)
	defer t.Stop()
	select {
	case o := <-done:
		return o, true
	case <-t.C:
		return outcome{}, false
	}
}

// answeredError reports whether err, returned by an External tool, is the
// answer it took (an error answer) rather than the end of its context.
func answeredError(tool toolbox.Tool, err error) bool {
	_, ext := tool.(toolbox.External)
	return ext && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// toolFailed classifies the error a tool returned. It is a function of
// its own so that the targets of errors.As, which escape, are allocated
// only for a call that failed.
func (inv *Invoker) toolFailed(tool toolbox.Tool, err error) (Result, govern.OutcomeState) {
	var limited *toolbox.RateLimitedError
	var unavailable *toolbox.UnavailableError
	var credential *toolbox.CredentialUnavailableError
	var expired *toolbox.CredentialExpiredError
	switch {
	case errors.As(err, &limited):
		r := fail(session.StatusError, ReasonRateLimited, fmt.Sprintf("the tool's upstream refused the call for now: %v", err))
		r.RetryAfter = max(limited.ResetAt.Sub(inv.gov.Now()), 0)
		return r, govern.OutcomeFailed
	case errors.As(err, &unavailable):
		r := fail(session.StatusError, ReasonToolUnavailable, fmt.Sprintf("tool %q is unavailable: %v", tool.Info().Name, err))
		r.RetryAfter = max(unavailable.RetryAfter, 0)
		return r, govern.OutcomeFailed
	case errors.As(err, &credential):
		// Nothing was sent: the outcome is failed, and the tool's health
		// does not suffer for one tenant's missing secret.
		return fail(session.StatusError, ReasonCredentialUnavailable,
			fmt.Sprintf("tool %q: %v; the call was not sent", tool.Info().Name, credential)), govern.OutcomeFailed
	case errors.As(err, &expired):
		// As above: nothing was sent, and only a fresh subject token helps.
		return fail(session.StatusError, ReasonCredentialExpired,
			fmt.Sprintf("tool %q: %v; the call was not sent", tool.Info().Name, expired)), govern.OutcomeFailed
	case errors.Is(err, toolbox.ErrOutcomeUnknown):
		return fail(session.StatusError, ReasonToolError, err.Error()), govern.OutcomeUnknown
	}
	return fail(session.StatusError, ReasonToolError, err.Error()), govern.OutcomeFailed
}

// ended classifies a call whose context is done: the chain's cancellation or
// the call's own timeout.
func (inv *Invoker) ended(ctx context.Context, timeout time.Duration) Result {
	if ctx.Err() != nil {
		return cancelled(ctx)
	}
	return fail(session.StatusError, ReasonCallTimeout,
		fmt.Sprintf("the tool did not finish within %s; its effects are unknown", timeout))
}

// approve is the confirm gate: it freezes the arguments and takes the
// decision from the resumption, parks the call, or asks the
// ApprovalHandler and waits. stop reports that the call does not go on
// (denied, failed or parked); otherwise it runs with the frozen arguments.
func (inv *Invoker) approve(ctx context.Context, sess *session.Session, st *callState, rs *Resumption, seq int, args json.RawMessage) (frozen json.RawMessage, r Result, stop bool) {
	parks := sess.ParksApprovals()
	if rs == nil && !parks && inv.approver == nil {
		st.approval = ApprovalNoHandler
		return nil, fail(session.StatusDenied, ReasonNoApprovalHandler,
			fmt.Sprintf("tool %q is %s risk and needs approval, and no approver is configured; call it outside the chain", st.tool, st.risk)), true
	}
	frozen, req, r, failed := inv.request(sess, st, args)
	switch {
	case failed:
		return nil, r, true
	case rs != nil:
		if r, stop := resumedApproval(st, rs, req.ArgsHash); stop {
			return nil, r, true
		}
		return frozen, Result{}, false
	case parks:
		// The parked request outlives the call: it gets a copy of its own.
		req.Args = bytes.Clone(frozen)
		return nil, inv.park(ctx, sess, st, seq, req), true
	}
	if r, stop := inv.wait(ctx, st, req); stop {
		return nil, r, true
	}
	// The handler was shown frozen itself, not a copy (a copy would be one
	// more held for as long as it decides): the decision covers these
	// bytes only if the handler left them as they were.
	if sum := sha256.Sum256(frozen); hex.EncodeToString(sum[:]) != req.ArgsHash {
		st.approval = ApprovalFailed
		return nil, fail(session.StatusDenied, ReasonApprovalFailed,
			fmt.Sprintf("the approval handler modified the arguments of %q it was shown; the call did not run", st.tool)), true
	}
	return frozen, Result{}, false
}

// request freezes args in canonical form and builds the ApprovalRequest
// on them. The request's Args are frozen itself, which may be args itself.
func (inv *Invoker) request(sess *session.Session, st *callState, args json.RawMessage) (json.RawMessage, ApprovalRequest, Result, bool) {
	frozen, err := canonical(args)
	if err != nil {
		return nil, ApprovalRequest{}, fail(session.StatusError, ReasonInvalidArguments, fmt.Sprintf("tool %q: %v", st.tool, err)), true
	}
	if len(frozen) > inv.policy.MaxArgumentBytes {
		return nil, ApprovalRequest{}, fail(session.StatusError, ReasonArgumentsTooLarge,
			fmt.Sprintf("arguments are %d bytes in canonical form; the limit is %d", len(frozen), inv.policy.MaxArgumentBytes)), true
	}
	// A canonical form other than the arguments is one more copy held
	// until the call ends; arguments already canonical are kept once.
	if !sameBytes(frozen, args) {
		if r, ok := inv.hold(sess, st, len(frozen)); !ok {
			return nil, ApprovalRequest{}, r, true
		}
	}
	sum := sha256.Sum256(frozen)
	req := ApprovalRequest{
		SessionID: sess.ID(), Tenant: sess.Tenant(), Tool: st.tool, Risk: st.risk,
		Args: frozen, ArgsHash: hex.EncodeToString(sum[:]),
	}
	if st.line > 0 {
		req.Line, req.Column = st.line, max(st.column, 0)
	}
	return frozen, req, Result{}, false
}

// wait asks the ApprovalHandler for req and waits for its answer within
// Policy.ApprovalTimeout. stop reports that the call does not run.
func (inv *Invoker) wait(ctx context.Context, st *callState, req ApprovalRequest) (Result, bool) {
	tool := st.tool
	actx, cancel := context.WithTimeout(ctx, inv.policy.ApprovalTimeout)
	defer cancel()
	type answer struct {
		d   Decision
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				inv.log.Error("invoker: approval handler panicked", "tool", tool, "panic_type", fmt.Sprintf("%T", p))
				ch <- answer{err: errors.New("approval handler panicked")}
			}
		}()
		d, err := inv.approver.Approve(actx, req)
		ch <- answer{d, err}
	}()
	var a answer
	select {
	case a = <-ch:
	case <-actx.Done():
	}
	switch {
	case ctx.Err() != nil:
		st.approval = ApprovalCancelled
		return cancelled(ctx), true
	case actx.Err() != nil && (a.err != nil || a == answer{}):
		st.approval = ApprovalTimeout
		return fail(session.StatusDenied, ReasonApprovalTimeout,
			fmt.Sprintf("no approval for %q within %s; the call did not run", tool, inv.policy.ApprovalTimeout)), true
	case a.err != nil && errors.Is(a.err, ErrApprovalRefused):
		st.approval = ApprovalFailed
		return fail(session.StatusDenied, ReasonApprovalFailed,
			fmt.Sprintf("the approval request for %q was refused (%v); the call did not run", tool, a.err)), true
	case a.err != nil:
		st.approval = ApprovalFailed
		return fail(session.StatusDenied, ReasonApprovalFailed,
			fmt.Sprintf("the approval request for %q failed; the call did not run", tool)), true
	case a.d != Approved:
		st.approval = ApprovalDenied
		return fail(session.StatusDenied, ReasonApprovalDenied,
			fmt.Sprintf("approval for %q was denied; the call did not run", tool)), true
	}
	st.approval = ApprovalApproved
	return Result{}, false
}

// canonical re-encodes a JSON object with sorted keys and no duplicates, so
// that what an approver reads is exactly what runs.
//
// Arguments already in canonical form (a script's JSON.stringify of an
// object with sorted keys, the common case) are returned as they are: the
// call then holds one copy of them while it waits, not two. Otherwise the
// result is a slice of its own, with no spare capacity. The decoded value
// is garbage once canonical returns.
func canonical(args json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object: %w", err)
	}
	if dec.More() {
		return nil, errors.New("arguments must be a single JSON object")
	}
	var buf bytes.Buffer
	buf.Grow(len(args) + 1) // the encoding ends with a newline
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep <, > and & as one byte each
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	switch {
	case bytes.Equal(out, args):
		return args, nil
	case cap(out) > len(out)+len(out)/8:
		return bytes.Clone(out), nil
	}
	return out, nil
}

// sameBytes reports whether a and b are the same memory, not merely equal.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (inv *Invoker) event(kind EventKind, sess *session.Session, st *callState) Event {
	ev := Event{Kind: kind, SessionID: sess.ID(), Tenant: sess.Tenant(), Tool: st.tool, Risk: st.risk}
	if kind != ToolStart {
		ev.Approval = st.approval
	}
	if st.dec.ID != "" {
		ev.Gate, ev.DecisionID, ev.Rule = st.dec.Gate.String(), st.dec.ID, st.dec.Rule
	}
	return ev
}

// notify fires ev at the invoker's hooks or progress function, then at the
// call's Observer, if any.
func (inv *Invoker) notify(ctx context.Context, st *callState, ev Event) {
	pick := func(h Hooks, p ProgressFunc) func(context.Context, Event) {
		switch ev.Kind {
		case ToolStart:
			return h.OnToolStart
		case ToolEnd:
			return h.OnToolEnd
		case ToolCall, ToolResult:
			return p
		}
		return nil
	}
	inv.fire(ctx, pick(inv.hooks, inv.progress), ev)
	inv.fire(ctx, inv.hooks.OnEvent, ev)
	if st.obs != nil {
		inv.fire(ctx, pick(st.obs.Hooks, st.obs.Progress), ev)
		inv.fire(ctx, st.obs.Hooks.OnEvent, ev)
	}
	if inv.log.Enabled(ctx, slog.LevelDebug) {
		inv.log.LogAttrs(ctx, slog.LevelDebug, "tool event", ev.Attrs()...)
	}
}

func (inv *Invoker) fire(ctx context.Context, f func(context.Context, Event), ev Event) {
	if f == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			inv.log.Error("invoker: hook panicked", "event", ev.Kind.String(), "tool", ev.Tool, "panic_type", fmt.Sprintf("%T", p))
		}
	}()
	f(ctx, ev)
}

// invalidArguments is the Result of arguments the tool's schema refuses:
// the ArgumentError's message, which names the argument and what the tool
// takes, never the validator's internals.
func invalidArguments(st *callState, err error) Result {
	if ae, ok := errors.AsType[*toolbox.ArgumentError](err); ok {
		return fail(session.StatusError, ReasonInvalidArguments, ae.Message())
	}
	return fail(session.StatusError, ReasonInvalidArguments, fmt.Sprintf("tool %q: %v", st.tool, err))
}

// maxMessage bounds a Result's message: tool errors and schema errors may
// quote what they were given, and the message reaches the trace.
const maxMessage = 512

func fail(status session.Status, reason, msg string) Result {
	return Result{Status: status, Reason: reason, Message: clipTo(msg, maxMessage)}
}

func cancelled(ctx context.Context) Result {
	return fail(session.StatusError, ReasonCancelled, fmt.Sprintf("the chain was cancelled (%v); the call did not complete", context.Cause(ctx)))
}

// clip bounds a guest-supplied tool name before it reaches messages, traces,
// hooks and spans.
func clip(name string) string { return clipTo(name, 128) }

// clipTo returns s as valid UTF-8 of at most max bytes (plus "…" when cut),
// never splitting a character.
func clipTo(s string, max int) string {
	if len(s) <= max && utf8.ValidString(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
