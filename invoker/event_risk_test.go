package invoker_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// TestToolBeforeCarriesRisk checks that tool.before (ToolStart), fired
// before any gate, reports the tool's declared risk, and that an unknown or
// disallowed tool reports Safe, while every call still gets its one trace
// record and its tool.after.
func TestToolBeforeCarriesRisk(t *testing.T) {
	tests := []struct {
		name    string
		tool    string
		args    string
		allow   []string
		budget  int
		want    toolbox.Risk
		reason  string
		records int
	}{
		{name: "high tool", tool: "send", args: `{"to":"bob"}`, want: toolbox.High, reason: invoker.ReasonNoApprovalHandler},
		{name: "critical tool", tool: "nuke", want: toolbox.Critical, reason: invoker.ReasonNoApprovalHandler},
		{name: "safe tool", tool: "noop", want: toolbox.Safe},
		{name: "high tool, bad arguments", tool: "send", args: `{"town":1}`, want: toolbox.High, reason: invoker.ReasonInvalidArguments},
		{name: "unknown tool", tool: "nope", want: toolbox.Safe, reason: invoker.ReasonUnknownTool},
		{name: "tool the session may not call", tool: "send", args: `{"to":"bob"}`, allow: []string{"noop"}, want: toolbox.Safe, reason: invoker.ReasonUnknownTool},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			var mu sync.Mutex
			var kinds []invoker.EventKind
			var risks []toolbox.Risk
			record := func(_ context.Context, ev invoker.Event) {
				mu.Lock()
				defer mu.Unlock()
				kinds = append(kinds, ev.Kind)
				risks = append(risks, ev.Risk)
			}
			inv := f.invoker(t, invoker.Options{Hooks: invoker.Hooks{OnToolStart: record}})
			sess := inv.NewSession(session.Options{Tenant: "acme", Tools: tc.allow})
			res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: tc.tool, Args: json.RawMessage(tc.args)})
			require.Equal(t, tc.reason, res.Reason, res.Message)
			require.Equal(t, []invoker.EventKind{invoker.ToolStart}, kinds)
			require.Equal(t, []toolbox.Risk{tc.want}, risks, "tool.before's risk")
			require.Len(t, sess.Trace(), 1, "every call still gets one trace record")
		})
	}
}

// TestToolBeforeRiskOnBudgetExhausted checks that a call refused by the
// first gate (budget) still reports its tool's risk on tool.before and
// tool.after.
func TestToolBeforeRiskOnBudgetExhausted(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var seen []string
	record := func(_ context.Context, ev invoker.Event) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, ev.Kind.Name()+":"+ev.Risk.String()+":"+ev.Reason)
	}
	inv := f.invoker(t, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 1, MaxRiskUnapproved: toolbox.High},
		Hooks: invoker.Hooks{OnEvent: record}})
	sess := newSession(inv, "acme")
	require.True(t, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "noop"}).OK())
	seen = nil
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "send", Args: json.RawMessage(`{"to":"bob"}`)})
	require.Equal(t, invoker.ReasonBudgetExhausted, res.Reason)
	require.Equal(t, []string{"tool.before:HIGH:", "tool.after:HIGH:" + invoker.ReasonBudgetExhausted}, seen)
}
