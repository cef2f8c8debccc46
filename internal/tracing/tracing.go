package tracing

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
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
// (nil if the run failed to start). A span in ctx, local or remote (a
// client's traceparent), becomes the chain span's parent, so the chain
// continues the caller's trace. Whether it is sampled is the tracer
// provider's choice: the sampler internal/assemble sets up ignores a remote
// parent's sampled flag and trace id, so a client cannot force spans.
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

// Traceparent returns the W3C traceparent of the span in ctx, "" when it
// has none (tracing off): what a parked chain keeps to continue its trace
// when it resumes (WithTraceparent).
func Traceparent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	m := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, m)
	return m.Get("traceparent")
}

// WithTraceparent returns ctx with the remote span context tp describes,
// for a chain span to continue; ctx itself when tp is empty or not valid.
func WithTraceparent(ctx context.Context, tp string) context.Context {
	if tp == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": tp})
}

// toolSpanKey marks a context holding a tool-call span StartCall started,
// as a *callSpanValue, for ToolEnd and Parked to end.
type toolSpanKey struct{}

// callSpanValue is the span StartCall started and the session whose call
// it is.
type callSpanValue struct {
	span    trace.Span
	session string
}

// callSpan returns the span StartCall put into ctx for a call of session
// ev.SessionID. The call's context may carry spans started after it (an
// embedder's StartCall hook): the span is found by its key, not as ctx's
// current span. A chain started inside a tool runs calls of a session of
// its own, so it never ends the outer call's span.
func callSpan(ctx context.Context, ev invoker.Event) (trace.Span, bool) {
	v, ok := ctx.Value(toolSpanKey{}).(*callSpanValue)
	if !ok || v.session != ev.SessionID {
		return nil, false
	}
	return v.span, true
}

// StartCall starts the span of one call, a child of the chain's span in
// ctx, and returns a context carrying it: the invoker's StartCall hook, so
// the tool runs under the span and sends its trace context on (HTTP tools
// as a traceparent header, MCP tools in _meta).
func (t *Tracer) StartCall(ctx context.Context, ev invoker.Event) context.Context {
	if !t.Enabled() {
		return ctx
	}
	ctx, span := t.tr.Start(ctx, ToolSpan, trace.WithAttributes(
		attribute.String("airlock.tool", ev.Tool),
		attribute.String("airlock.approval.mode", t.mode),
	))
	return context.WithValue(ctx, toolSpanKey{}, &callSpanValue{span: span, session: ev.SessionID})
}

// ToolEnd ends the span of one finished call from the invoker's ToolEnd
// event (other events are ignored), with the call's outcome and the
// policy decision's attributes. ctx is the call's context as the invoker
// passes it to hooks: the span StartCall put there ends; without one (no
// StartCall hook) a span covering the call's duration is recorded as a
// child of the chain's.
func (t *Tracer) ToolEnd(ctx context.Context, ev invoker.Event) {
	if !t.Enabled() || ev.Kind != invoker.ToolEnd {
		return
	}
	attrs := []attribute.KeyValue{
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
	}
	span, ok := callSpan(ctx, ev)
	end := time.Now()
	if !ok {
		_, span = t.tr.Start(ctx, ToolSpan, trace.WithTimestamp(end.Add(-ev.Duration)), trace.WithAttributes(attrs...))
	} else {
		span.SetAttributes(attrs...)
	}
	if ev.Status != session.StatusOK {
		span.SetStatus(codes.Error, ev.Reason)
	}
	span.End(trace.WithTimestamp(end))
}

// Parked ends the span StartCall began for a call that parked (the
// invoker's ApprovalParked event; other events are ignored): the call has
// not ended, its resumption is a span of its own.
func (t *Tracer) Parked(ctx context.Context, ev invoker.Event) {
	if !t.Enabled() || ev.Kind != invoker.ApprovalParked {
		return
	}
	span, ok := callSpan(ctx, ev)
	if !ok {
		return
	}
	span.SetAttributes(
		attribute.String("airlock.tool.risk", riskName(ev.Risk)),
		attribute.String("airlock.call.status", string(session.StatusParked)),
		attribute.String("airlock.policy.gate", ev.Gate),
		attribute.String("airlock.policy.decision_id", ev.DecisionID),
		attribute.String("airlock.policy.rule", ev.Rule),
	)
	span.End()
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
