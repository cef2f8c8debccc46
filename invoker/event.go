package invoker

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// EventKind says where in the pipeline an Event was fired.
type EventKind int

const (
	// ToolStart fires first, before any gate, on every call.
	ToolStart EventKind = iota
	// ToolCall fires just before the tool executes (the call passed every gate).
	ToolCall
	// ToolResult fires after the tool returned, timed out or panicked.
	ToolResult
	// ToolEnd fires last, after the trace record was appended, on every call.
	ToolEnd
	// PolicyBefore fires before the governance checks (scopes, risk, gate)
	// of a call that passed the registry, type and argument gates.
	PolicyBefore
	// PolicyDeny fires when governance refuses a call: a missing scope, a
	// deny gate, a call policy, an unavailable tool, a rate limit, a
	// stricter gate at execute time. Reason says which.
	PolicyDeny
	// GateRequired fires when a call meets the confirm or preview gate,
	// before the approval handler or the tool's preview runs.
	GateRequired
	// Deduped fires when a call's idempotency key already has an outcome
	// and the recorded result is returned instead of running the tool.
	Deduped
	// ApprovalParked fires once when a call that needs approval parks
	// (session.Options.ParkApprovals), after GateRequired; the invocation
	// then ends without ToolEnd. Its resumption fires the events again,
	// from ToolStart to ToolEnd.
	ApprovalParked
)

// String returns the kind's lifecycle name (see Name) in upper case with
// underscores, as earlier versions did: "TOOL_START", "TOOL_CALL",
// "TOOL_RESULT", "TOOL_END", "POLICY_BEFORE", "POLICY_DENY",
// "GATE_REQUIRED", "TOOL_CALL_DEDUPED", "APPROVAL_PARKED".
func (k EventKind) String() string {
	switch k {
	case ToolStart:
		return "TOOL_START"
	case ToolCall:
		return "TOOL_CALL"
	case ToolResult:
		return "TOOL_RESULT"
	case ToolEnd:
		return "TOOL_END"
	case PolicyBefore:
		return "POLICY_BEFORE"
	case PolicyDeny:
		return "POLICY_DENY"
	case GateRequired:
		return "GATE_REQUIRED"
	case Deduped:
		return "TOOL_CALL_DEDUPED"
	case ApprovalParked:
		return "APPROVAL_PARKED"
	}
	return "UNKNOWN"
}

// Name returns the kind's name in the documented lifecycle event stream
// (docs/governance.md): "tool.before", "tool.call", "tool.result",
// "tool.after", "policy.before", "policy.deny", "gate.required",
// "tool_call.deduped", "approval.parked". Hooks, the structured log and the SSE stream use
// these names.
func (k EventKind) Name() string {
	switch k {
	case ToolStart:
		return "tool.before"
	case ToolCall:
		return "tool.call"
	case ToolResult:
		return "tool.result"
	case ToolEnd:
		return "tool.after"
	case PolicyBefore:
		return "policy.before"
	case PolicyDeny:
		return "policy.deny"
	case GateRequired:
		return "gate.required"
	case Deduped:
		return "tool_call.deduped"
	case ApprovalParked:
		return "approval.parked"
	}
	return "unknown"
}

// Event describes one step of one call. It never carries argument or result
// values.
type Event struct {
	Kind      EventKind
	SessionID string
	Tenant    string
	// Tool is the name the chain asked for (registered or not), cut to 128 bytes.
	Tool string
	// Risk is the tool's risk: on ToolStart its declared risk
	// (toolbox.Info.Risk), from PolicyBefore on the risk governance
	// assessed for the call's action once it has; Safe when the tool is
	// unknown or not allowed to the session.
	Risk toolbox.Risk
	// Status, Reason and Duration are set on ToolResult and ToolEnd.
	// Reason is also set on the ApprovalParked of a call that parks for a
	// fresh delegated credential (ParkKindCredential): the refusal's,
	// credential_expired or credential_unavailable.
	Status   session.Status
	Reason   string
	Duration time.Duration
	// Seq is the trace record's number, set on ToolEnd; on the
	// ApprovalParked of a call that parks for a credential, the call's
	// number (ParkedCall.Seq).
	Seq int
	// Approval is the approval outcome, set on ToolCall, ToolResult and
	// ToolEnd: "" when the call needed none (or failed before the approval
	// gate), else one of the Approval* constants.
	Approval string
	// Gate is the gate the call met ("allow", "confirm", "preview",
	// "deny"); "" before the governance checks ran.
	Gate string
	// DecisionID is the policy decision id (govern.Decision.ID); "" before
	// the governance checks ran.
	DecisionID string
	// Rule names the rule that decided (govern.Decision.Rule).
	Rule string
	// Refs, on ToolEnd, are the artifact refs the call stored and pinned
	// for the session (the trace record's); shared with the record, not
	// to be modified. Not part of the event's JSON or log attributes.
	Refs []string
}

// Attrs returns the event as structured-log attributes, under the same
// names as its JSON form (MarshalJSON): event, chain_id, tenant, tool,
// risk, and when set gate, decision_id, rule, approval, status, reason,
// duration_ms, seq. It never carries argument or result values.
func (ev Event) Attrs() []slog.Attr {
	a := make([]slog.Attr, 0, 13)
	a = append(a, slog.String("event", ev.Kind.Name()), slog.String("chain_id", ev.SessionID),
		slog.String("tenant", ev.Tenant), slog.String("tool", ev.Tool), slog.String("risk", ev.Risk.String()))
	add := func(k, v string) {
		if v != "" {
			a = append(a, slog.String(k, v))
		}
	}
	add("gate", ev.Gate)
	add("decision_id", ev.DecisionID)
	add("rule", ev.Rule)
	add("approval", ev.Approval)
	add("status", string(ev.Status))
	add("reason", ev.Reason)
	if ev.Kind == ToolResult || ev.Kind == ToolEnd {
		a = append(a, slog.Float64("duration_ms", float64(ev.Duration.Microseconds())/1000))
	}
	if ev.Seq > 0 {
		a = append(a, slog.Int("seq", ev.Seq))
	}
	return a
}

// MarshalJSON encodes the event as one object with the field names of
// Attrs: the form of the SSE stream's lifecycle events.
func (ev Event) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 13)
	for _, a := range ev.Attrs() {
		m[a.Key] = a.Value.Any()
	}
	return json.Marshal(m)
}

// Values of Event.Approval, which is "" for a call that needed no
// approval; metrics and traces use these values too.
const (
	// ApprovalNotRequired names the empty Event.Approval where a label
	// needs a value.
	ApprovalNotRequired = "not_required"
	ApprovalApproved    = "approved"
	ApprovalDenied      = "denied"
	ApprovalTimeout     = "timeout"
	ApprovalNoHandler   = "no_handler"
	ApprovalFailed      = "failed"
	// ApprovalCancelled: the chain was cancelled during the wait.
	ApprovalCancelled = "cancelled"
	// ApprovalPending: the call parked to wait for a decision taken
	// elsewhere (on the ApprovalParked event only).
	ApprovalPending = "pending"
	// ApprovalExpired: a parked call got no decision before its chain's
	// deadline.
	ApprovalExpired = "expired"
)

// Hooks are lifecycle callbacks run synchronously on the calling goroutine;
// they must be quick. A panicking hook is contained and logged. Nil fields are
// skipped.
type Hooks struct {
	// OnToolStart fires before the first gate of every call.
	OnToolStart func(ctx context.Context, ev Event)
	// OnToolEnd fires after the trace record of every call was appended,
	// whatever the outcome.
	OnToolEnd func(ctx context.Context, ev Event)
	// OnEvent receives every lifecycle event of every call, in order:
	// tool.before, policy.before, policy.deny, gate.required,
	// tool_call.deduped, tool.call, tool.result, tool.after (each when it
	// happens; see EventKind); a call that parks ends with approval.parked
	// instead of tool.after.
	OnEvent func(ctx context.Context, ev Event)
	// StartCall runs once per call, right after OnToolStart, and returns
	// the context the call goes on with: the tool runs under a context
	// derived from it, and the call's later hooks receive it. A tracer
	// starts the call's span here, so the tool sees its trace context
	// (internal/tracing). It must return ctx or a context derived from
	// it; nil keeps ctx.
	StartCall func(ctx context.Context, ev Event) context.Context
}

// ProgressFunc receives ToolCall and ToolResult events, for UIs that show a
// chain's progress. It runs synchronously and must be quick.
type ProgressFunc func(ctx context.Context, ev Event)

// Observer receives the events of the calls made with one context — a
// chain's own view, beside the Invoker's process-wide Options.Hooks and
// Options.Progress, which fire first. Its functions follow the same rules:
// synchronous, quick, panics contained.
type Observer struct {
	Hooks    Hooks
	Progress ProgressFunc
}

type observerKey struct{}

// WithObserver returns a context whose calls also report to o, the way a
// face follows one chain's calls without an Invoker of its own.
func WithObserver(ctx context.Context, o *Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

func observerFrom(ctx context.Context) *Observer {
	o, _ := ctx.Value(observerKey{}).(*Observer)
	return o
}
