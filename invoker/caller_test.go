package invoker_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// seen is what a tool learned from its Caller.
type seen struct {
	seq      int
	key      string
	autonomy string
	scopes   []string
}

// TestToolsSeeTheirCall: a tool's Caller carries the call's number, the
// idempotency key it runs under (given, derived for a write-class call, or
// none), the chain's autonomy level and a copy of its granted scopes.
func TestToolsSeeTheirCall(t *testing.T) {
	var got []seen
	record := func(ctx context.Context, _ json.RawMessage) (toolbox.Output, error) {
		c, ok := toolbox.CallerFrom(ctx)
		require.True(t, ok)
		got = append(got, seen{c.Seq(), c.IdempotencyKey(), c.Autonomy(), c.Scopes()})
		c.Scopes()[0] = "tampered"
		return toolbox.Output{JSON: json.RawMessage(`"done"`)}, nil
	}
	tools := stdGovTools()
	tools[0].fn, tools[1].fn = record, record // read_file, write_file (write-class)
	g := newGovBox(t, tools...)
	gov := govern.New(govern.Options{Outcomes: newOutcomes(t)})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov, Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
	require.NoError(t, err)
	prof := &govern.Profile{Scopes: []string{"repo:read", "repo:write"}, Autonomy: govern.Autonomous}
	sess := govSession(inv, prof)
	calls := []invoker.Call{
		{Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`)},
		{Tool: "read_file", Args: json.RawMessage(`{"path":"a","$idempotency_key":"read-1"}`)},
		{Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`), IdempotencyKey: "bad key\r\nX-Evil: 1"},
		{Tool: "write_file", Args: json.RawMessage(`{"path":"a","$idempotency_key":"deploy-42"}`)},
		{Tool: "write_file", Args: json.RawMessage(`{"path":"b"}`)},
	}
	for _, c := range calls {
		res := inv.Invoke(context.Background(), sess, c)
		require.True(t, res.OK(), res.Message)
	}
	scopes := []string{"repo:read", "repo:write"}
	require.Len(t, got, 5)
	require.Equal(t, []seen{
		{1, "", "autonomous", scopes},
		{2, "read-1", "autonomous", scopes},
		{3, "", "autonomous", scopes}, // a read-class call records no key: an invalid one never reaches the tool
		{4, "deploy-42", "autonomous", scopes},
	}, got[:4])
	require.Equal(t, 5, got[4].seq)
	require.True(t, strings.HasPrefix(got[4].key, "d:"), "a write-class call without a key runs under its derived key, got %q", got[4].key)
	require.Equal(t, []string{"repo:read", "repo:write"}, prof.Scopes, "a tool cannot change the profile's scopes")
}

type startKey struct{}

// TestStartCallContextReachesTheTool: the context StartCall returns is the
// one the tool runs under and the one ToolEnd receives; a panicking or nil
// StartCall leaves the call's context as it was and the call runs.
func TestStartCallContextReachesTheTool(t *testing.T) {
	var inTool, atEnd any
	box, err := toolbox.New(toolbox.Func("who", "reads the context", func(ctx context.Context, _ struct{}) (bool, error) {
		inTool = ctx.Value(startKey{})
		return true, nil
	}))
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		start func(context.Context, invoker.Event) context.Context
		want  any
	}{
		{"value", func(ctx context.Context, ev invoker.Event) context.Context {
			return context.WithValue(ctx, startKey{}, ev.Tool)
		}, "who"},
		{"nil", func(context.Context, invoker.Event) context.Context { return nil }, nil},
		{"panic", func(context.Context, invoker.Event) context.Context { panic("boom") }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inTool, atEnd = "unset", "unset"
			inv, err := invoker.New(box, invoker.Options{Hooks: invoker.Hooks{
				StartCall: tc.start,
				OnToolEnd: func(ctx context.Context, _ invoker.Event) { atEnd = ctx.Value(startKey{}) },
			}})
			require.NoError(t, err)
			sess := govSession(inv, nil)
			res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "who"})
			require.True(t, res.OK(), res.Message)
			require.Equal(t, tc.want, inTool)
			require.Equal(t, tc.want, atEnd)
		})
	}
}
