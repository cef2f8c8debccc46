package toolbox

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Caller is what a tool may learn about the call it serves and the chain
// that makes it. The invoker puts one into the context of every Call: a
// read-only view, never the session itself, so a tool cannot change the
// chain's trace, budget or grants.
//
// The call's trace context is in the same context: TraceContext gives it
// in its W3C form, for a tool to send on.
type Caller interface {
	// ID is the session id of the calling chain.
	ID() string
	// Tenant is the tenant the chain acts for.
	Tenant() string
	// Seq is the call's number in its chain, from 1: the number of its
	// trace record and of its place in the call budget. A resumed call
	// keeps the number it parked with.
	Seq() int
	// IdempotencyKey is the key the call runs under: the one the chain
	// gave, or the one derived for a write-class call; "" if none. Keys
	// are per tenant: a tool that hands the key to a service every tenant
	// shares binds it to Tenant first, as HTTP tools do for their
	// Idempotency-Key header.
	IdempotencyKey() string
	// Autonomy is the chain's autonomy level (restricted, supervised or
	// autonomous), "" when the chain has no profile.
	Autonomy() string
	// Scopes are the scopes the chain's profile grants; the slice is the
	// caller's own copy.
	Scopes() []string
}

type callerKey struct{}

// WithCaller returns a context carrying c, for CallerFrom.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller the invoker put into ctx, if any. A tool
// holding per-tenant state should key it by CallerFrom(ctx).Tenant().
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok && c != nil
}

// StaticCaller is a Caller holding fixed values: for testing a tool, or
// calling one outside a chain.
type StaticCaller struct {
	ChainID       string
	TenantID      string
	CallSeq       int
	Key           string
	AutonomyLevel string
	GrantedScopes []string
}

func (c StaticCaller) ID() string             { return c.ChainID }
func (c StaticCaller) Tenant() string         { return c.TenantID }
func (c StaticCaller) Seq() int               { return c.CallSeq }
func (c StaticCaller) IdempotencyKey() string { return c.Key }
func (c StaticCaller) Autonomy() string       { return c.AutonomyLevel }
func (c StaticCaller) Scopes() []string       { return append([]string(nil), c.GrantedScopes...) }

// TraceContext returns the W3C trace context of the call's span in ctx, to
// send with what the tool asks of an upstream: "traceparent" and, when it
// has one, "tracestate" (HTTP tools send them as headers, MCP tools in a
// call's _meta). It is empty when tracing is off, and for a span that is
// not airlock's own: a client's traceparent is continued by the chain's
// span, never passed on as it came.
func TraceContext(ctx context.Context) map[string]string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() || sc.IsRemote() {
		return nil
	}
	m := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, m)
	return m
}
