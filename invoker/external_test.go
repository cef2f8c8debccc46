package invoker_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// asked is an External tool: its calls are answered by the chain's caller.
type asked struct{}

func (asked) Info() toolbox.Info {
	return toolbox.Info{Name: "check", Description: "Answered by the chain's caller.", InputSchema: &jsonschema.Schema{Type: "object",
		Properties: map[string]*jsonschema.Schema{"a": {Type: "integer"}, "b": {Type: "integer"}}}}
}
func (asked) External() {}
func (asked) Call(context.Context, json.RawMessage) (toolbox.Output, error) {
	panic("a parking session never calls an External tool")
}

// TestExternalCallParksAndCountsItsAnswer: in a session that parks, a call
// of an External tool parks (kind call, canonical arguments, the script's
// idempotency key) without calling the tool; resumed with its answer it
// ends with that result, and counts as a success for the call policies
// (a tool that must follow it may now run); an error answer fails it
// tool_error, and no answer by the park's expiry call_timeout.
func TestExternalCallParksAndCountsItsAnswer(t *testing.T) {
	deploy := toolbox.Func("deploy", "Deploys", func(context.Context, struct{}) (string, error) { return "deployed", nil })
	box, err := toolbox.New(asked{}, deploy)
	require.NoError(t, err)
	inv, err := invoker.New(box, invoker.Options{})
	require.NoError(t, err)
	after, err := govern.Sequential("deploy", "check")
	require.NoError(t, err)
	sess := inv.NewSession(session.Options{Tenant: "acme", ParkApprovals: true,
		Governance: govern.NewChain(&govern.Profile{Policies: []govern.CallPolicy{after}})})
	ctx := context.Background()

	res := inv.Invoke(ctx, sess, invoker.Call{Tool: "check", Args: json.RawMessage(`{"b":1,"a":2,"$idempotency_key":"k-1"}`)})
	require.Equal(t, session.StatusParked, res.Status, "%+v", res)
	p := res.Parked
	require.Equal(t, invoker.ParkKindCall, p.Kind)
	require.Equal(t, "k-1", p.IdempotencyKey)
	require.Equal(t, `{"a":2,"b":1}`, string(p.Request.Args))

	res = inv.Invoke(ctx, sess, invoker.Call{Tool: "deploy"})
	require.Equal(t, govern.ReasonDependencyUnmet, res.Reason, "no answer yet: check has not succeeded")

	res = inv.Invoke(ctx, sess, invoker.Call{Tool: "check", Args: json.RawMessage(`{"b":1,"a":2}`),
		Resume: &invoker.Resumption{Seq: p.Seq, Start: p.Start, Answer: &invoker.Answer{Result: json.RawMessage(`{"passed":true}`)}}})
	require.True(t, res.OK(), "%+v", res)
	require.JSONEq(t, `{"passed":true}`, string(res.Value))
	res = inv.Invoke(ctx, sess, invoker.Call{Tool: "deploy"})
	require.True(t, res.OK(), "the answered call counts as check's success: %+v", res)

	for _, tc := range []struct {
		answer invoker.Answer
		reason string
	}{{invoker.Answer{Error: "no"}, invoker.ReasonToolError}, {invoker.Answer{Expired: true}, invoker.ReasonCallTimeout}} {
		res := inv.Invoke(ctx, sess, invoker.Call{Tool: "check"})
		require.Equal(t, session.StatusParked, res.Status)
		res = inv.Invoke(ctx, sess, invoker.Call{Tool: "check", Resume: &invoker.Resumption{Seq: res.Parked.Seq, Answer: &tc.answer}})
		require.Equal(t, tc.reason, res.Reason, "%+v", res)
	}
	require.Len(t, sess.Trace(), 5, "every call that ended has its record; the parked ones had none until answered")
}
