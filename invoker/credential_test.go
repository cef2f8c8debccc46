package invoker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// TestCredentialUnavailable: a tool that cannot obtain the calling
// tenant's credential fails the call credential_unavailable, status error,
// with a message naming the reference and neither the source's error nor
// a value. Nothing was sent, so the tool's health does not suffer, the
// other tenant's calls run alongside, and the idempotency key is free to
// run once the secret exists.
func TestCredentialUnavailable(t *testing.T) {
	var acmeHasSecret atomic.Bool
	tools := stdGovTools()
	tools[1].fn = func(ctx context.Context, args json.RawMessage) (toolbox.Output, error) {
		c, _ := toolbox.CallerFrom(ctx)
		if c.Tenant() == "acme" && !acmeHasSecret.Load() {
			return toolbox.Output{}, fmt.Errorf("http tool %q: header Authorization: %w", "write_file",
				&toolbox.CredentialUnavailableError{Ref: "${tenant:crm_token}", Reason: "it is not set for this tenant",
					Err: errors.New("source said: /var/run/secrets/acme/crm_token holds sk-value-0123456789")})
		}
		return toolbox.Output{JSON: json.RawMessage(`"written"`)}, nil
	}
	g := newGovBox(t, tools...)
	gov := govern.New(govern.Options{Outcomes: newOutcomes(t)})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov, Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
	require.NoError(t, err)
	prof := &govern.Profile{Scopes: []string{"*"}}
	acme := govSession(inv, prof)
	globex := inv.NewSession(session.Options{Tenant: "globex", Governance: govern.NewChain(prof)})
	call := invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), IdempotencyKey: "crm-1"}
	for i := range 8 {
		if i > 0 {
			call.IdempotencyKey = fmt.Sprintf("crm-1-%d", i) // each refusal its own key: none is replayed
		}
		res := inv.Invoke(context.Background(), acme, call)
		require.Equal(t, session.StatusError, res.Status)
		require.Equal(t, invoker.ReasonCredentialUnavailable, res.Reason)
		require.Equal(t, `tool "write_file": credential ${tenant:crm_token} is not available: it is not set for this tenant; the call was not sent`, res.Message)
		require.NotContains(t, res.Message, "sk-value")
		require.NotContains(t, res.Message, "/var/run")
		require.True(t, inv.Invoke(context.Background(), globex, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`)}).OK(), "the other tenant's calls run alongside")
	}
	call.IdempotencyKey = "crm-1"
	rec := acme.Trace()[0]
	require.Equal(t, session.StatusError, rec.Status)
	require.Equal(t, invoker.ReasonCredentialUnavailable, rec.Reason)
	require.Equal(t, govern.Healthy, gov.Health().For("acme", "write_file").Status, "a missing secret is not the tool's failure")
	require.Equal(t, govern.Healthy, gov.Health().Worst("write_file").Status)
	// A refusal is a definite failure: under its idempotency key it is
	// answered as it was for the dedup window (docs/identity.md), and a
	// new key runs once the secret exists.
	acmeHasSecret.Store(true)
	res := inv.Invoke(context.Background(), acme, call)
	require.Equal(t, invoker.ReasonCredentialUnavailable, res.Reason)
	require.True(t, res.Deduped)
	call.IdempotencyKey = "crm-2"
	res = inv.Invoke(context.Background(), acme, call)
	require.True(t, res.OK(), res.Message)
	require.False(t, res.Deduped)
	require.EqualValues(t, 8+8+1, g.ran("write_file"), "acme's refused calls (8) ran the tool, which sent nothing; the replay did not")
	require.Contains(t, invoker.Reasons(), invoker.ReasonCredentialUnavailable)
}

// TestCredentialExpired: a tool whose delegated credential was refused as
// expired fails the call credential_expired, status error, with a message
// naming the audience and neither the token nor the underlying error; the
// tool's health does not count it.
func TestCredentialExpired(t *testing.T) {
	tools := stdGovTools()
	tools[1].fn = func(ctx context.Context, args json.RawMessage) (toolbox.Output, error) {
		return toolbox.Output{}, fmt.Errorf("http tool %q: %w", "write_file",
			&toolbox.CredentialExpiredError{Audience: "crm", Reason: "the token service refused the subject token",
				Err: errors.New("token service said: subject eyJ-secret-subject-token is expired")})
	}
	g := newGovBox(t, tools...)
	gov := govern.New(govern.Options{Outcomes: newOutcomes(t)})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov, Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
	require.NoError(t, err)
	prof := &govern.Profile{Scopes: []string{"*"}}
	for i := range 8 { // more than the health threshold: the tool never rests
		sess := govSession(inv, prof)
		res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), IdempotencyKey: fmt.Sprintf("k-%d", i)})
		require.Equal(t, session.StatusError, res.Status)
		require.Equal(t, invoker.ReasonCredentialExpired, res.Reason)
		require.Equal(t, `tool "write_file": the delegated credential for audience crm is expired or was refused: the token service refused the subject token; the call was not sent`, res.Message)
		require.NotContains(t, res.Message, "eyJ")
	}
	require.Contains(t, invoker.Reasons(), invoker.ReasonCredentialExpired)
}
