package invoker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// ParkedCall is a call that met the confirm gate in a session that parks
// approvals (session.Options.ParkApprovals): Invoke returned it in
// Result.Parked, with status session.StatusParked, instead of asking the
// ApprovalHandler. The call has not ended: it has no trace record and
// fired no ToolEnd. Show Request to an approver, and resume the call with
// a Call carrying the same tool and arguments and a Resumption built from
// Seq, Start and Request.ArgsHash.
type ParkedCall struct {
	// Seq is the call's number in the chain, from 1; it was counted
	// against Policy.MaxToolCalls when the call began.
	Seq int `json:"seq"`
	// Start is when the call began; its trace record starts there.
	Start time.Time `json:"start"`
	// Request is exactly what an approver must see: the canonical
	// arguments, artifact refs described by the store, and their hash.
	Request ApprovalRequest `json:"request"`
	// DecisionID is the policy decision id of the confirm gate.
	DecisionID string `json:"decision_id"`
	// Gate and Rule say why the call waits: the gate it met ("confirm")
	// and the governance rule that chose it ("matrix[supervised][HIGH]",
	// govern.Decision.Rule).
	Gate string `json:"gate,omitempty"`
	Rule string `json:"rule,omitempty"`
	// Kind is what the call waits for: empty for a decision on it,
	// ParkKindCall for the answer of a caller tool (toolbox.External),
	// which comes as Resumption.Answer (Request then holds the canonical
	// arguments the answer is bound to), ParkKindCredential for a fresh
	// delegated credential (Gate is then "credential" and Rule the reason
	// the call was refused: credential_expired or credential_unavailable).
	Kind string `json:"kind,omitempty"`
	// Approved, for a call of Kind ParkKindCredential, says it was
	// approved at its confirm gate before it parked: run again, it runs on
	// that approval, bound to Request.ArgsHash (the hash of the arguments
	// the approver saw), rather than asking again.
	Approved bool `json:"approved,omitempty"`
	// IdempotencyKey, for a call of Kind ParkKindCall, is the key the
	// script gave the call ($idempotency_key), for its caller to keep its
	// own outcomes by; empty when it gave none.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// ParkKindCall is ParkedCall.Kind for a call to a toolbox.External tool
// that waits for its answer.
const ParkKindCall = "call"

// ParkKindCredential is ParkedCall.Kind for a call of a tool with an
// audience (toolbox.Info.Audience) whose delegated credential was refused
// (credential_expired) or missing (credential_unavailable, the chain
// having no identity), in a session that parks: nothing was sent, and the
// call waits for a fresh identity, then runs again (Resumption.Retry).
const ParkKindCredential = "credential"

// GateCredential is ParkedCall.Gate for a call of Kind
// ParkKindCredential.
const GateCredential = "credential"

// Answer is the answer to a parked call of a toolbox.External tool
// (Resumption.Answer): its result, an error the script sees, or none
// before the chain's park expired.
type Answer struct {
	// Result is the tool's JSON result, when it succeeded.
	Result json.RawMessage `json:"result,omitempty"`
	// Error, when set, fails the call with tool_error and this message.
	Error string `json:"error,omitempty"`
	// Expired: nobody answered before the parked chain's deadline; the
	// call ends call_timeout.
	Expired bool `json:"expired,omitempty"`
}

// Resumption is the decision on a parked call (Call.Resume). Invoke then
// takes no new number from the budget, runs every other gate again (so a
// stricter profile or a resting tool still refuses the call) and, at the
// confirm gate, uses the decision instead of asking:
//
//   - Expired: denied / approval_expired, whatever the gate is now;
//   - Denied: denied / approval_denied, whatever the gate is now;
//   - Approved: the call runs only if the hash of its canonical arguments
//     is still ArgsHash (else denied / approval_failed); at a gate that is
//     no longer confirm, the gate as it is now decides (allow runs it,
//     preview returns preview_required).
//
// A gate that now refuses the call (deny, a scope, a call policy) refuses
// it with its own reason, whatever the decision.
type Resumption struct {
	// Seq is ParkedCall.Seq: from 1 to the session's Calls().
	Seq int `json:"seq"`
	// Start is ParkedCall.Start. Zero: the time of the resumption.
	Start time.Time `json:"start"`
	// ArgsHash is the hash the decision was taken on
	// (ParkedCall.Request.ArgsHash).
	ArgsHash string `json:"args_hash"`
	// Decision is Approved or Denied; ignored when Expired.
	Decision Decision `json:"decision"`
	// Expired says no decision came before the parked chain's deadline:
	// the call ends with approval_expired and does not run.
	Expired bool `json:"expired,omitempty"`
	// Answer, when set, ends a call parked with Kind ParkKindCall: no gate
	// runs again (they ran before the call was handed out) and Decision,
	// Expired and ArgsHash are not read; the answer was bound to the
	// request's hash when it was taken.
	Answer *Answer `json:"answer,omitempty"`
	// Retry, for a call parked with Kind ParkKindCredential, runs it again
	// from its gates, acting for the identity its context carries now
	// (toolbox.IdentityFrom). Decision and ArgsHash are the approval it had
	// (ParkedCall.Approved), zero when it had none: its confirm gate, if it
	// meets one now, asks as for a new call. Expired ends it instead, with
	// Reason, the reason it parked with (ParkedCall.Rule).
	Retry  bool   `json:"retry,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// resumedNumber is the budget gate of a resumed call: it takes no new
// number but checks the one the call was parked with.
func resumedNumber(sess *session.Session, rs *Resumption) (int, Result, bool) {
	if n := sess.Calls(); rs.Seq < 1 || rs.Seq > n {
		return 0, fail(session.StatusError, ReasonInternal,
			fmt.Sprintf("the resumption names call %d, but this chain made %d calls; resume a call with the Seq of its ParkedCall", rs.Seq, n)), false
	}
	if rs.Answer == nil && !rs.Expired && !rs.Retry && rs.Decision != Approved && rs.Decision != Denied {
		return 0, fail(session.StatusError, ReasonInternal,
			fmt.Sprintf("the resumption's decision (%d) is neither Approved nor Denied; the call did not run", int(rs.Decision))), false
	}
	return rs.Seq, Result{}, true
}

// undecided ends a resumed call whose decision was not an approval:
// expired or denied. It reports false for an approval.
func undecided(st *callState, rs *Resumption) (Result, bool) {
	switch {
	case rs.Expired:
		st.approval = ApprovalExpired
		return fail(session.StatusDenied, ReasonApprovalExpired,
			fmt.Sprintf("no decision on %q came before the chain's deadline; the call did not run", st.tool)), true
	case rs.Decision != Approved:
		st.approval = ApprovalDenied
		return fail(session.StatusDenied, ReasonApprovalDenied,
			fmt.Sprintf("approval for %q was denied; the call did not run", st.tool)), true
	}
	st.approval = ApprovalApproved
	return Result{}, false
}

// resumedApproval is the confirm gate of a resumed call: the decision,
// bound to the hash of the arguments as they are now.
func resumedApproval(st *callState, rs *Resumption, argsHash string) (Result, bool) {
	if r, stop := undecided(st, rs); stop {
		return r, true
	}
	if rs.ArgsHash != argsHash {
		st.approval = ApprovalFailed
		return fail(session.StatusDenied, ReasonApprovalFailed,
			fmt.Sprintf("the arguments of %q changed since the decision (it was taken on hash %.16s…); the call did not run", st.tool, rs.ArgsHash)), true
	}
	return Result{}, false
}

// park ends the invocation of a call that waits for a decision taken
// elsewhere: it fires ApprovalParked and returns the parked Result.
func (inv *Invoker) park(ctx context.Context, sess *session.Session, st *callState, seq int, req ApprovalRequest) Result {
	st.approval = ApprovalPending
	inv.notify(ctx, st, inv.event(ApprovalParked, sess, st))
	return Result{
		Status: session.StatusParked,
		Message: fmt.Sprintf("tool %q is %s risk and needs approval; the chain parks until a decision comes (decision %s)",
			st.tool, st.risk, st.dec.ID),
		DecisionID: st.dec.ID,
		Parked: &ParkedCall{Seq: seq, Start: st.start, Request: req, DecisionID: st.dec.ID,
			Gate: st.dec.Gate.String(), Rule: st.dec.Rule},
	}
}

// parkCall ends the invocation of a call to an External tool in a session
// that parks: the call waits for its answer elsewhere.
func (inv *Invoker) parkCall(ctx context.Context, sess *session.Session, st *callState, seq int, req ApprovalRequest, key string) Result {
	inv.notify(ctx, st, inv.event(ApprovalParked, sess, st))
	return Result{
		Status:     session.StatusParked,
		Message:    fmt.Sprintf("tool %q is answered by the chain's caller; the chain parks until the answer comes", st.tool),
		DecisionID: st.dec.ID,
		Parked:     &ParkedCall{Seq: seq, Start: st.start, Request: req, DecisionID: st.dec.ID, Kind: ParkKindCall, IdempotencyKey: key},
	}
}

// gateResumption is the resumption a call's gates read: rs, except for a
// call run again for a fresh credential that had no approval (it meets
// its gates as a new call does). stop reports a retry whose park expired:
// it ends with r, the reason it parked with.
func gateResumption(st *callState, rs *Resumption) (gate *Resumption, r Result, stop bool) {
	if rs == nil || !rs.Retry {
		return rs, Result{}, false
	}
	if rs.Expired {
		reason := rs.Reason
		if reason != ReasonCredentialExpired {
			reason = ReasonCredentialUnavailable
		}
		return nil, fail(session.StatusError, reason,
			fmt.Sprintf("tool %q: no fresh delegated credential came before the chain's deadline; the call was not sent", st.tool)), true
	}
	if rs.Decision != Approved {
		return nil, Result{}, false
	}
	return rs, Result{}, false
}

// awaitsCredential reports whether a call refused r parks for a fresh
// delegated credential: a tool with an audience in a session that parks,
// refused credential_expired, or credential_unavailable while the chain
// has no identity. Every other refusal ends the call.
func awaitsCredential(ctx context.Context, sess *session.Session, info toolbox.Info, r Result) bool {
	if !sess.ParksApprovals() || info.Audience == "" {
		return false
	}
	if r.Reason == ReasonCredentialExpired {
		return true
	}
	_, has := toolbox.IdentityFrom(ctx)
	return r.Reason == ReasonCredentialUnavailable && !has
}

// parkCredential ends the invocation of a call refused r for want of a
// usable delegated credential (awaitsCredential): the chain parks until a
// fresh identity comes, then runs it again. Nothing was sent.
func (inv *Invoker) parkCredential(ctx context.Context, sess *session.Session, st *callState, seq int, req ApprovalRequest, r Result) Result {
	approved := st.approval == ApprovalApproved
	ev := inv.event(ApprovalParked, sess, st)
	ev.Reason, ev.Seq = r.Reason, seq
	inv.notify(ctx, st, ev)
	return Result{
		Status: session.StatusParked,
		Message: fmt.Sprintf("tool %q needs a fresh delegated credential (%s); the chain parks until one is handed to it",
			st.tool, r.Reason),
		DecisionID: st.dec.ID,
		Parked: &ParkedCall{Seq: seq, Start: st.start, Request: req, DecisionID: st.dec.ID,
			Gate: GateCredential, Rule: r.Reason, Kind: ParkKindCredential, Approved: approved},
	}
}

// answered ends a resumed call of an External tool with its answer. The
// gates ran before the call was handed out; the answer is shaped like
// any tool's result.
func (inv *Invoker) answered(ctx context.Context, sess *session.Session, st *callState, entry *toolbox.Entry, call Call, seq int) Result {
	a := call.Resume.Answer
	if _, ok := entry.Tool().(toolbox.External); !ok {
		return fail(session.StatusError, ReasonInternal,
			fmt.Sprintf("the resumption answers a call to %q, which is not a caller tool; the call did not run", st.tool))
	}
	var r Result
	failed := true
	switch {
	case a.Expired:
		r = fail(session.StatusError, ReasonCallTimeout,
			fmt.Sprintf("nobody answered the call to %q before the parked chain's deadline; its effects are unknown", st.tool))
	case a.Error != "":
		r = fail(session.StatusError, ReasonToolError, a.Error)
	default:
		failed = false
	}
	ev := inv.event(ToolResult, sess, st)
	ev.Status, ev.Reason, ev.Duration = session.StatusOK, r.Reason, time.Since(st.start)
	if failed {
		ev.Status = traceStatus(r)
	}
	inv.notify(ctx, st, ev)
	if failed {
		return r
	}
	res := inv.shape(ctx, sess, st, toolbox.Output{JSON: a.Result})
	if res.OK() {
		// A success, as the call policies (sequential, read_before_write)
		// count it: the call was admitted before it parked.
		info := entry.Info()
		inv.gov.Done(sess.Governance(), govern.Call{Tool: info.Name, Info: info, Action: govern.ActionOf(info, call.Args), Args: call.Args,
			Tenant: sess.Tenant(), ChainID: sess.ID(), Seq: seq}, true)
	}
	return res
}

// RestoreSession is session.Restore with the pins NewSession gives: the
// invoker's store unless opts.Pins is set, watched for the tenant quota.
// It fails like session.Restore.
func (inv *Invoker) RestoreSession(st session.State, opts session.Options) (*session.Session, error) {
	return session.Restore(st, inv.sessionPins(opts))
}
