package toolbox

import "context"

// Caller is what a tool may learn about the chain that calls it: the
// session id and the tenant. The invoker puts the calling session into the
// context of every Call: a read-only view of the session, never the session
// itself, so a tool cannot change the chain's trace, budget or grants.
type Caller interface {
	// ID is the session id of the calling chain.
	ID() string
	// Tenant is the tenant the chain acts for.
	Tenant() string
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
