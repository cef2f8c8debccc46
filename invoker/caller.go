package invoker

import (
	"context"
	"fmt"
	"slices"

	"github.com/airlockrt/airlock/session"
)

// callCaller is the toolbox.Caller a tool sees: the chain's read-only
// session view and what the pipeline decided about this one call.
type callCaller struct {
	*session.View
	seq      int
	key      string
	autonomy string
	scopes   []string
}

func (c *callCaller) Seq() int               { return c.seq }
func (c *callCaller) IdempotencyKey() string { return c.key }
func (c *callCaller) Autonomy() string       { return c.autonomy }
func (c *callCaller) Scopes() []string       { return slices.Clone(c.scopes) }

// caller builds the Caller of the call st describes, running under key.
// The scopes are the profile's as the call was decided; Scopes hands out
// copies, so a tool cannot change what the next call sees.
func (inv *Invoker) caller(sess *session.Session, st *callState, key string) *callCaller {
	// Kept in the call's state, which lives on the heap already: no
	// allocation of its own on every call.
	c := &st.caller
	*c = callCaller{View: sess.View(), seq: st.seq, key: key}
	if p := sess.Governance().Profile(); p != nil {
		c.autonomy, c.scopes = p.Autonomy.String(), p.Scopes
	}
	return c
}

// startCall runs the StartCall hooks (the invoker's, then the call's
// Observer's) and returns the context the call continues with. A hook
// that panics or returns nil leaves the context as it was.
func (inv *Invoker) startCall(ctx context.Context, st *callState, sess *session.Session) context.Context {
	hooks := [2]func(context.Context, Event) context.Context{inv.hooks.StartCall}
	if st.obs != nil {
		hooks[1] = st.obs.Hooks.StartCall
	}
	for _, h := range hooks {
		if h != nil {
			ctx = inv.runStart(ctx, h, inv.event(ToolStart, sess, st))
		}
	}
	return ctx
}

func (inv *Invoker) runStart(ctx context.Context, h func(context.Context, Event) context.Context, ev Event) (out context.Context) {
	out = ctx
	defer func() {
		if p := recover(); p != nil {
			inv.log.Error("invoker: hook panicked", "event", "START_CALL", "tool", ev.Tool, "panic_type", fmt.Sprintf("%T", p))
			out = ctx
		}
	}()
	if c := h(ctx, ev); c != nil {
		out = c
	}
	return out
}
