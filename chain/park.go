package chain

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// Parked is a chain that stopped to wait for approvals (Options.Park).
type Parked struct {
	// State is the whole chain: the guest's state, the session (count,
	// trace, grants, pins, policy history), the files and artifacts so
	// far. It is versioned but not sealed: whoever stores it must protect
	// its integrity.
	State []byte
	// Approvals are the calls it waits for, in the order they were made.
	Approvals []Approval
	// Wake, when set, is when the script's earliest timer falls due
	// (sandbox.Parked.Wake): resume the chain then, decided or not.
	Wake time.Time
}

// Approval is a call of a parked chain waiting for a decision.
type Approval struct {
	// Seq is the call's number in the chain.
	Seq int `json:"seq"`
	// Start is when the call began.
	Start time.Time `json:"start"`
	// Request is what an approver decides on: the tool, its risk, the
	// canonical arguments and their hash.
	Request invoker.ApprovalRequest `json:"request"`
	// DecisionID is the policy decision that asked for approval.
	DecisionID string `json:"decision_id"`
	// Kind is invoker.ParkKindCall for a caller tool's call waiting for its
	// answer (Decision.Answer), invoker.ParkKindCredential for a call
	// waiting for a fresh delegated credential; empty for a call waiting
	// for a decision.
	Kind string `json:"kind,omitempty"`
	// Approved is invoker.ParkedCall.Approved.
	Approved bool `json:"approved,omitempty"`
	// IdempotencyKey is invoker.ParkedCall.IdempotencyKey.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Gate and Rule say why the call waits (invoker.ParkedCall.Gate and
	// Rule): "confirm", and the governance rule that chose it.
	Gate string `json:"gate,omitempty"`
	Rule string `json:"rule,omitempty"`
}

// Decision is what was decided for a parked call.
type Decision struct {
	// Approved lets the call run; otherwise it is denied.
	Approved bool
	// ArgsHash is the hash the decision was taken on (Request.ArgsHash).
	ArgsHash string
	// Expired: nobody decided before the parked chain's deadline; the call
	// ends approval_expired.
	Expired bool
	// Answer answers a call of Kind invoker.ParkKindCall (a caller tool's):
	// its result or error, or Expired (call_timeout). The other fields are
	// not read for such a call, and Answer must be set for it.
	Answer *invoker.Answer
}

// ResumeOptions configure Resume.
type ResumeOptions struct {
	// Decide answers a waiting call: its decision, or ok false when it is
	// still undecided (the chain parks again if nothing else can run).
	// For a call of Kind invoker.ParkKindCredential, ok true runs it again
	// with the stretch's identity (Identity), or ends it with the reason
	// it parked with when the Decision is Expired. Required.
	Decide func(ctx context.Context, a Approval) (d Decision, ok bool, err error)
	// Profile is the governance profile the chain runs under, as at its
	// start (profiles are configuration, not state).
	Profile *govern.Profile
	// Park lets the chain park again.
	Park bool
	// ChainTools are the chain's own tools, as at its start
	// (Options.ChainTools): like profiles, tools are not state.
	ChainTools []toolbox.Tool
	// Logger and Observer as in Options.
	Logger   *slog.Logger
	Observer *invoker.Observer
	// Identity is the chain's delegated identity for this stretch
	// (Options.Identity): a state holds none, so the caller hands it in
	// again, possibly a fresh one. Nil: none.
	Identity *toolbox.Identity
}

// ErrBadState is returned by Resume and Discard for a state that is not a
// parked chain's, or that this build cannot continue.
var ErrBadState = errors.New("chain: not a parked chain state this build can resume")

// The chain state: magic, version, the JSON of parkedChain, then the
// sandbox's state.
const (
	stateMagic   = "ALCH"
	stateVersion = 1
	maxMeta      = 64 << 20
)

type parkedChain struct {
	Session     session.State       `json:"session"`
	Policy      *invoker.Policy     `json:"policy,omitempty"`
	Files       []invoker.ChainFile `json:"files"`
	Artifacts   []invoker.Artifact  `json:"artifacts"`
	Discoveries int32               `json:"discoveries"`
	Approvals   []Approval          `json:"approvals"`
	Wall        time.Duration       `json:"wall"` // the chain's run time so far
}

// token is what the sandbox keeps for a parked call: the approval, and the
// call as the script made it (the request holds the canonical arguments).
type token struct {
	Approval Approval        `json:"approval"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
}

func encodeToken(p *invoker.ParkedCall, tool string, args []byte) []byte {
	b, _ := json.Marshal(token{Approval: Approval{Seq: p.Seq, Start: p.Start, Request: p.Request, DecisionID: p.DecisionID, Kind: p.Kind,
		Approved: p.Approved, Gate: p.Gate, Rule: p.Rule, IdempotencyKey: p.IdempotencyKey},
		Tool: tool, Args: args})
	return b
}

// park records the chain's state beside the sandbox's.
func (c *chainRun) park(sp *sandbox.Parked) (*Parked, error) {
	meta := parkedChain{Session: c.sess.State(), Discoveries: c.disc.count.Load(), Wall: c.wall + time.Since(c.start)}
	if c.opts.Policy != nil {
		meta.Policy = c.opts.Policy
	}
	meta.Files, meta.Artifacts = c.col.result()
	for _, pc := range sp.Calls {
		var t token
		if err := json.Unmarshal(pc.Token, &t); err != nil {
			return nil, fmt.Errorf("chain: a parked call's token: %w", err)
		}
		meta.Approvals = append(meta.Approvals, t.Approval)
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(stateMagic) + 20 + len(js) + len(sp.State))
	buf.WriteString(stateMagic)
	buf.Write(binary.AppendUvarint(nil, stateVersion))
	buf.Write(binary.AppendUvarint(nil, uint64(len(js))))
	buf.Write(js)
	buf.Write(sp.State)
	return &Parked{State: buf.Bytes(), Approvals: meta.Approvals, Wake: sp.Wake}, nil
}

func decodeChainState(state []byte) (*parkedChain, []byte, error) {
	if len(state) < len(stateMagic) || string(state[:len(stateMagic)]) != stateMagic {
		return nil, nil, fmt.Errorf("%w: no chain state header", ErrBadState)
	}
	rest := state[len(stateMagic):]
	v, n := binary.Uvarint(rest)
	if n <= 0 || v != stateVersion {
		return nil, nil, fmt.Errorf("%w: format version %d; this build reads version %d", ErrBadState, v, stateVersion)
	}
	rest = rest[n:]
	size, n := binary.Uvarint(rest)
	if n <= 0 || size > maxMeta || size > uint64(len(rest)-n) {
		return nil, nil, fmt.Errorf("%w: bad length", ErrBadState)
	}
	rest = rest[n:]
	var meta parkedChain
	if err := json.Unmarshal(rest[:size], &meta); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrBadState, err)
	}
	return &meta, rest[size:], nil
}

// Approvals returns the calls a parked chain's state waits for.
func Approvals(state []byte) ([]Approval, error) {
	meta, _, err := decodeChainState(state)
	if err != nil {
		return nil, err
	}
	return meta.Approvals, nil
}

// restore rebuilds the chain's host half from a parked state.
func (r *Runner) restore(state []byte, profile *govern.Profile, park bool, logger *slog.Logger, observer *invoker.Observer, tools []toolbox.Tool) (*chainRun, []byte, error) {
	meta, guest, err := decodeChainState(state)
	if err != nil {
		return nil, nil, err
	}
	opts := Options{Policy: meta.Policy, Profile: profile, Logger: logger, Observer: observer, Tenant: meta.Session.Tenant,
		SessionID: meta.Session.ID, Park: park, ChainTools: tools}
	inv, err := r.invoker(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: its policy: %v", ErrBadState, err)
	}
	sess, err := inv.RestoreSession(meta.Session, session.Options{Governance: govern.NewChain(profile), ParkApprovals: park})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrBadState, err)
	}
	c := &chainRun{inv: inv, sess: sess, opts: opts, start: time.Now(), wall: meta.Wall,
		col: &collector{files: meta.Files, artifacts: meta.Artifacts}}
	c.disc = &discovery{inv: inv, sess: sess}
	c.disc.count.Store(meta.Discoveries)
	return c, guest, nil
}

// Resume continues a parked chain from its state: each waiting call gets
// opts.Decide's answer (an approved call runs now, through every gate
// again; a denied or expired one is refused), and the script goes on where
// it stopped. It returns what Run returns, parked again when calls are still
// undecided and nothing else can run.
func (r *Runner) Resume(ctx context.Context, state []byte, opts ResumeOptions) (*RunResult, error) {
	if r.engines.Scripts == nil {
		return nil, ErrNoEngine
	}
	if opts.Decide == nil {
		return nil, errors.New("chain: ResumeOptions.Decide is required")
	}
	c, guest, err := r.restore(state, opts.Profile, opts.Park, opts.Logger, opts.Observer, opts.ChainTools)
	if err != nil {
		return nil, err
	}
	c.opts.Identity = opts.Identity
	retry := func(ctx context.Context, tok []byte) ([]byte, error) {
		var t token
		if err := json.Unmarshal(tok, &t); err != nil {
			return nil, fmt.Errorf("chain: a parked call's token: %w", err)
		}
		d, ok, err := opts.Decide(ctx, t.Approval)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &sandbox.Pending{Token: tok}
		}
		if t.Approval.Kind == invoker.ParkKindCall {
			if d.Answer == nil {
				return nil, fmt.Errorf("chain: the call to %q waits for an answer, and Decide gave a decision instead", t.Tool)
			}
			return c.outcome(c.inv.Invoke(ctx, c.sess, invoker.Call{Tool: t.Tool, Args: t.Args,
				Resume: &invoker.Resumption{Seq: t.Approval.Seq, Start: t.Approval.Start, Answer: d.Answer}}), t.Tool, t.Args)
		}
		if t.Approval.Kind == invoker.ParkKindCredential {
			rs := &invoker.Resumption{Seq: t.Approval.Seq, Start: t.Approval.Start, Retry: true, Expired: d.Expired, Reason: t.Approval.Rule}
			if t.Approval.Approved {
				rs.Decision, rs.ArgsHash = invoker.Approved, t.Approval.Request.ArgsHash
			}
			return c.outcome(c.inv.Invoke(ctx, c.sess, invoker.Call{Tool: t.Tool, Args: t.Args,
				Line: t.Approval.Request.Line, Column: t.Approval.Request.Column, Resume: rs}), t.Tool, t.Args)
		}
		a := invoker.Approved
		if !d.Approved {
			a = invoker.Denied
		}
		return c.outcome(c.inv.Invoke(ctx, c.sess, invoker.Call{Tool: t.Tool, Args: t.Args,
			Line: t.Approval.Request.Line, Column: t.Approval.Request.Column,
			Resume: &invoker.Resumption{Seq: t.Approval.Seq, Start: t.Approval.Start, ArgsHash: d.ArgsHash, Decision: a, Expired: d.Expired}}),
			t.Tool, t.Args)
	}
	out, err := c.finish(ctx, c.guest(ctx, func(ctx context.Context, g guestCall) (*sandbox.Result, error) {
		return r.engines.Scripts.Resume(ctx, sandbox.Resumption{State: guest, Bridge: g.bridge, Retry: retry,
			Artifacts: g.read, Park: opts.Park, Tenant: c.opts.Tenant})
	}))
	if err != nil && (errors.Is(err, sandbox.ErrCorruptState) || errors.Is(err, sandbox.ErrIncompatibleState)) {
		c.close(ctx)
		return nil, fmt.Errorf("%w: %v", ErrBadState, err)
	}
	return out, err
}

// Discard ends a parked chain that will not resume (cancelled, or
// abandoned): it releases its pins and returns its result with status and
// reason as given and the trace so far (its waiting calls never ran, and
// have no record).
func (r *Runner) Discard(ctx context.Context, state []byte, status Status, reason, message string) (*RunResult, error) {
	c, _, err := r.restore(state, nil, false, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	c.close(ctx)
	out := &RunResult{ID: c.sess.ID(), Status: status, Reason: reason, Error: message, Logs: []sandbox.LogEntry{}}
	out.Trace, out.TraceDropped = c.sess.Trace(), c.sess.Dropped()
	out.Files, out.Artifacts = c.col.result()
	out.Stats.Calls = len(out.Trace) + out.TraceDropped
	out.Stats.Wall = c.wall
	return out, nil
}
