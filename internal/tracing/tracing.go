package tracing

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// InstrumentationName is the name of the tracer airlock's spans come from.
const InstrumentationName = "github.com/airlockrt/airlock"

// Span names.
const (
	ChainSpan = "airlock.chain"
	ToolSpan  = "airlock.tool_call"
)

// Tracer records chain and tool-call spans. Build it with New; the zero
// value records nothing.
type Tracer struct {
	tr   trace.Tracer
	mode string
}

// New returns a Tracer over tp. approvalMode (ask, deny, allow or queue) is
// recorded on every span as airlock.approval.mode. A nil tp returns a Tracer
// that records nothing.
func New(tp trace.TracerProvider, approvalMode string) *Tracer {
	if tp == nil {
		return &Tracer{}
	}
	return &Tracer{tr: tp.Tracer(InstrumentationName), mode: approvalMode}
}

// Enabled reports whether t records spans.
func (t *Tracer) Enabled() bool { return t != nil && t.tr != nil }

// Chain describes a chain for its span.
type Chain struct {
	// ID is the chain's (session's) id.
	ID string
	// Tenant is the tenant it runs for.
	Tenant string
	// Language is js, ts or wasm.
	Language string
}

// StartChain starts the chain's span and returns a context carrying it, to
// run the chain with, and the function to call once with the chain's result
// (nil if the run failed to start). A local span in ctx becomes the chain
// span's parent. A remote one (a client's traceparent) does not: the chain
// span starts a new trace, linked to the remote span, so the sampler decides
// on a trace id of airlock's own and a client cannot force sampling (or
// pick the trace id the ratio sampler looks at).
func (t *Tracer) StartChain(ctx context.Context, c Chain) (context.Context, func(*chain.RunResult)) {
	if !t.Enabled() {
		return ctx, func(*chain.RunResult) {}
	}
	opts := []trace.SpanStartOption{trace.WithAttributes(
		attribute.String("airlock.chain.id", c.ID),
		attribute.String("airlock.tenant", c.Tenant),
		attribute.String("airlock.chain.language", c.Language),
		attribute.String("airlock.approval.mode", t.mode),
	)}
	if remote := trace.SpanContextFromContext(ctx); remote.IsValid() && remote.IsRemote() {
		opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: remote}))
	}
	ctx, span := t.tr.Start(ctx, ChainSpan, opts...)
	return ctx, func(res *chain.RunResult) {
		if res == nil {
			span.SetStatus(codes.Error, "host_error")
			span.End()
			return
		}
		span.SetAttributes(
			attribute.String("airlock.chain.status", string(res.Status)),
			attribute.String("airlock.chain.reason", res.Reason),
			attribute.Int("airlock.chain.calls", res.Stats.Calls),
			attribute.Int64("airlock.guest.memory_bytes", int64(res.Stats.MemoryBytes)),
		)
		if res.Status != chain.StatusOK {
			span.SetStatus(codes.Error, res.Reason)
		}
		span.End()
	}
}

// ToolEnd records the span of one finished call from the invoker's ToolEnd
// event; other events are ignored. ctx is the chain's context as the
// invoker passes it to hooks, so the span is a child of the chain's.
func (t *Tracer) ToolEnd(ctx context.Context, ev invoker.Event) {
	if !t.Enabled() || ev.Kind != invoker.ToolEnd {
		return
	}
	end := time.Now()
	_, span := t.tr.Start(ctx, ToolSpan, trace.WithTimestamp(end.Add(-ev.Duration)), trace.WithAttributes(
		attribute.String("airlock.tool", ev.Tool),
		attribute.String("airlock.tool.risk", riskName(ev.Risk)),
		attribute.String("airlock.call.status", string(ev.Status)),
		attribute.String("airlock.call.reason", ev.Reason),
		attribute.Int("airlock.call.seq", ev.Seq),
		attribute.String("airlock.approval.mode", t.mode),
		attribute.String("airlock.approval.outcome", ApprovalOutcome(ev)),
		attribute.String("airlock.policy.gate", ev.Gate),
		attribute.String("airlock.policy.decision_id", ev.DecisionID),
		attribute.String("airlock.policy.rule", ev.Rule),
	))
	if ev.Status != session.StatusOK {
		span.SetStatus(codes.Error, ev.Reason)
	}
	span.End(trace.WithTimestamp(end))
}

// ApprovalOutcome says what approval did for the call ev ended, from
// ev.Approval as the invoker recorded it: not_required (the call needed no
// approval, or was refused before the approval gate), approved, denied,
// timeout, no_handler, failed (the handler failed) or cancelled (the chain
// ended during the wait).
func ApprovalOutcome(ev invoker.Event) string {
	switch ev.Approval {
	case "":
		return invoker.ApprovalNotRequired
	case invoker.ApprovalApproved, invoker.ApprovalDenied, invoker.ApprovalTimeout,
		invoker.ApprovalNoHandler, invoker.ApprovalFailed, invoker.ApprovalCancelled:
		return ev.Approval
	}
	return invoker.ApprovalFailed
}

func riskName(r toolbox.Risk) string {
	if !r.Valid() {
		return "UNKNOWN"
	}
	return r.String()
}
