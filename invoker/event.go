package invoker

import (
	"context"
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
)

// String returns "TOOL_START", "TOOL_CALL", "TOOL_RESULT" or "TOOL_END".
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
	}
	return "UNKNOWN"
}

// Event describes one step of one call. It never carries argument or result
// values.
type Event struct {
	Kind      EventKind
	SessionID string
	Tenant    string
	// Tool is the name the chain asked for (registered or not), cut to 128 bytes.
	Tool string
	// Risk is the tool's risk; Safe when the tool is unknown.
	Risk toolbox.Risk
	// Status, Reason and Duration are set on ToolResult and ToolEnd.
	Status   session.Status
	Reason   string
	Duration time.Duration
	// Seq is the trace record's number; set on ToolEnd only.
	Seq int
	// Approval is the approval outcome, set on ToolCall, ToolResult and
	// ToolEnd: "" when the call needed none (or failed before the approval
	// gate), else one of the Approval* constants.
	Approval string
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
