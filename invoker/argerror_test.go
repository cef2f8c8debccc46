package invoker_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// TestInvalidArgumentsMessage checks that a call refused by the schema
// gate says which argument is wrong and what the tool takes, with the
// reason code unchanged, and no validator internals.
func TestInvalidArgumentsMessage(t *testing.T) {
	tests := []struct {
		name, tool, args, want string
	}{
		{"unknown", "send", `{"to":"bob","town":"x"}`, `unknown argument "town"; send takes {to: string; body?: string}`},
		{"missing", "send", `{"body":"hi"}`, `missing argument "to"; send takes {to: string; body?: string}`},
		{"wrong type", "send", `{"to":7}`, `argument "to" must be a string, not a number; send takes {to: string; body?: string}`},
		{"no arguments taken", "noop", `{"x":1}`, `unknown argument "x"; noop takes no arguments`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			inv := f.invoker(t, invoker.Options{Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
			sess := newSession(inv, "acme")
			res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: tc.tool, Args: json.RawMessage(tc.args)})
			require.Equal(t, session.StatusError, res.Status)
			require.Equal(t, invoker.ReasonInvalidArguments, res.Reason)
			require.Equal(t, tc.want, res.Message)
			require.Equal(t, tc.want, sess.Trace()[0].Message)
			require.Zero(t, f.ran(tc.tool))
		})
	}
}

// TestInvalidArgumentsMessageAfterRefs checks the same message for
// arguments checked after their artifact refs were resolved (step 5a).
func TestInvalidArgumentsMessageAfterRefs(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, Policy: invoker.Policy{MaxInlineResultBytes: 64, MaxRiskUnapproved: toolbox.High}})
	sess := newSession(inv, "acme")
	ctx := context.Background()
	big := inv.Invoke(ctx, sess, invoker.Call{Tool: "big", Args: json.RawMessage(`{"n":200,"object":true}`)})
	require.True(t, big.OK(), big.Message)
	require.NotNil(t, big.Artifact)
	// The ref resolves to an object where "to" expects a string.
	res := inv.Invoke(ctx, sess, invoker.Call{Tool: "send", Args: json.RawMessage(`{"to":{"$artifact":"` + big.Artifact.Ref + `"}}`)})
	require.Equal(t, invoker.ReasonInvalidArguments, res.Reason)
	require.Equal(t, `argument "to" must be a string, not an object; send takes {to: string; body?: string}`, res.Message)
}
