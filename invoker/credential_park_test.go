package invoker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// credentialTool acts for the calling chain's identity the way a tool with
// an audience does: no identity is credential_unavailable, the subject
// token "expired" is credential_expired, "broken" is credential_unavailable
// although the chain has an identity (the token service refused the
// audience), anything else runs.
func credentialTool(ctx context.Context, _ json.RawMessage) (toolbox.Output, error) {
	id, ok := toolbox.IdentityFrom(ctx)
	switch {
	case !ok:
		return toolbox.Output{}, &toolbox.CredentialUnavailableError{Ref: `audience "crm"`, Reason: "the chain has no delegated identity"}
	case id.SubjectToken == "expired":
		return toolbox.Output{}, &toolbox.CredentialExpiredError{Audience: "crm", Reason: "the token service refused the chain's token",
			Err: errors.New("subject expired-secret-value")}
	case id.SubjectToken == "broken":
		return toolbox.Output{}, &toolbox.CredentialUnavailableError{Ref: `audience "crm"`, Reason: "invalid_target"}
	}
	return toolbox.Output{JSON: json.RawMessage(`"sent"`)}, nil
}

type credEnv struct {
	g   *govBox
	inv *invoker.Invoker
	ev  *events
}

func newCredEnv(t *testing.T) *credEnv {
	e := &credEnv{ev: &events{}}
	e.g = newGovBox(t,
		govTool{info: toolbox.Info{Name: "crm_read", Description: "reads the CRM as the user", InputSchema: objSchema("email"), Audience: "crm"}, fn: credentialTool},
		govTool{info: toolbox.Info{Name: "crm_write", Description: "writes the CRM as the user", InputSchema: objSchema("email", "note"),
			Audience: "crm", Risk: toolbox.High, Class: toolbox.LocalWrite}, fn: credentialTool},
		govTool{info: toolbox.Info{Name: "plain", Description: "a tool with no audience", InputSchema: objSchema("x")},
			fn: func(context.Context, json.RawMessage) (toolbox.Output, error) {
				return toolbox.Output{}, &toolbox.CredentialExpiredError{Audience: "crm", Reason: "refused"}
			}},
	)
	gov := govern.New(govern.Options{Outcomes: newOutcomes(t)})
	inv, err := invoker.New(e.g.box, invoker.Options{Governor: gov, Hooks: e.ev.hooks()})
	require.NoError(t, err)
	e.inv = inv
	return e
}

func (e *credEnv) session(park bool) *session.Session {
	return e.inv.NewSession(session.Options{Tenant: "acme", Governance: govern.NewChain(&govern.Profile{Name: "helper", Scopes: []string{"*"}}), ParkApprovals: park})
}

func asUser(token string) context.Context {
	if token == "" {
		return context.Background()
	}
	return toolbox.WithIdentity(context.Background(), &toolbox.Identity{SubjectToken: token})
}

func retry(p *invoker.ParkedCall) *invoker.Resumption {
	rs := &invoker.Resumption{Seq: p.Seq, Start: p.Start, Retry: true, Reason: p.Rule}
	if p.Approved {
		rs.Decision, rs.ArgsHash = invoker.Approved, p.Request.ArgsHash
	}
	return rs
}

// TestCredentialParks: in a session that parks, a call of a tool with an
// audience refused for want of a usable delegated credential (none, or
// refused as expired) parks the call for a fresh one instead of failing:
// kind credential, gate credential, the reason as its rule, the canonical
// arguments and their hash, no trace record. Run again (Resumption.Retry)
// with an identity, it runs; run again expired, it ends with the reason it
// parked with. Every other refusal, session or tool ends the call as
// before.
func TestCredentialParks(t *testing.T) {
	e := newCredEnv(t)
	canon := `{"email":"a@example.com"}`
	sum := sha256.Sum256([]byte(canon))
	for _, tc := range []struct{ token, reason string }{
		{"", invoker.ReasonCredentialUnavailable},
		{"expired", invoker.ReasonCredentialExpired},
	} {
		sess := e.session(true)
		call := invoker.Call{Tool: "crm_read", Args: json.RawMessage(`{ "email": "a@example.com" }`), Line: 3, Column: 7}
		res := e.inv.Invoke(asUser(tc.token), sess, call)
		require.Equal(t, session.StatusParked, res.Status, res.Message)
		p := res.Parked
		require.NotNil(t, p)
		require.Equal(t, invoker.ParkKindCredential, p.Kind)
		require.Equal(t, invoker.GateCredential, p.Gate)
		require.Equal(t, tc.reason, p.Rule)
		require.False(t, p.Approved)
		require.Equal(t, 1, p.Seq)
		require.Equal(t, invoker.ApprovalRequest{SessionID: sess.ID(), Tenant: "acme", Tool: "crm_read", Risk: toolbox.Safe,
			Args: json.RawMessage(canon), ArgsHash: hex.EncodeToString(sum[:]), Line: 3, Column: 7}, p.Request)
		require.Equal(t, `tool "crm_read" needs a fresh delegated credential (`+tc.reason+`); the chain parks until one is handed to it`, res.Message)
		require.NotContains(t, res.Message, "secret-value")
		require.Empty(t, sess.Trace(), "a parked call has no record yet")
		evs := e.ev.take()
		require.Equal(t, []string{"tool.before", "policy.before", "tool.call", "tool.result", "approval.parked"}, kinds(evs))
		require.Equal(t, tc.reason, evs[3].Reason, "the refusal is on the stream (credential_required comes from it)")

		// Run again with a fresh identity: it runs, under its number.
		call.Resume = retry(p)
		res = e.inv.Invoke(asUser("fresh"), sess, call)
		require.True(t, res.OK(), res.Message)
		require.Equal(t, 1, sess.Calls(), "the retry takes no new number")
		require.Len(t, sess.Trace(), 1)
		require.Equal(t, session.StatusOK, sess.Trace()[0].Status)
		e.ev.take()

		// Parked again, and expired: it ends with the reason it parked with.
		sess = e.session(true)
		call.Resume = nil
		res = e.inv.Invoke(asUser(tc.token), sess, call)
		require.Equal(t, session.StatusParked, res.Status)
		call.Resume = retry(res.Parked)
		call.Resume.Expired = true
		res = e.inv.Invoke(asUser("fresh"), sess, call)
		require.Equal(t, session.StatusError, res.Status)
		require.Equal(t, tc.reason, res.Reason)
		require.Equal(t, `tool "crm_read": no fresh delegated credential came before the chain's deadline; the call was not sent`, res.Message)
		require.Equal(t, tc.reason, sess.Trace()[0].Reason)
		e.ev.take()
	}
	runs := e.g.ran("crm_read")
	require.EqualValues(t, 6, runs, "each park ran the tool once (it sent nothing), each retry once, an expired retry not at all")

	// What does not park: a refusal a fresh identity cannot mend (the
	// chain has one), a session that does not park, a tool without an
	// audience.
	for _, tc := range []struct {
		name, tool, token, reason string
		park                      bool
	}{
		{"identity present, audience refused", "crm_read", "broken", invoker.ReasonCredentialUnavailable, true},
		{"session does not park", "crm_read", "", invoker.ReasonCredentialUnavailable, false},
		{"session does not park, expired", "crm_read", "expired", invoker.ReasonCredentialExpired, false},
		{"tool without audience", "plain", "", invoker.ReasonCredentialExpired, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := e.session(tc.park)
			res := e.inv.Invoke(asUser(tc.token), sess, invoker.Call{Tool: tc.tool, Args: json.RawMessage(`{}`)})
			require.Equal(t, session.StatusError, res.Status)
			require.Equal(t, tc.reason, res.Reason)
			require.Nil(t, res.Parked)
			require.Len(t, sess.Trace(), 1)
		})
	}
}

// TestCredentialParkAfterApproval: a call approved at its confirm gate and
// then refused for its credential parks with Approved and the hash the
// approver saw; run again with a fresh identity it runs on that approval,
// asking nobody, and its idempotency key (recorded as refused when it
// parked) is claimed anew rather than answered with the refusal. Run again
// without the approval, it meets its confirm gate as a new call does.
func TestCredentialParkAfterApproval(t *testing.T) {
	e := newCredEnv(t)
	sess := e.session(true)
	call := invoker.Call{Tool: "crm_write", Args: json.RawMessage(`{"note":"n","email":"a@example.com"}`)}
	res := e.inv.Invoke(context.Background(), sess, call)
	require.Equal(t, session.StatusParked, res.Status, res.Message)
	require.Empty(t, res.Parked.Kind, "parked first for its approval")
	approval := res.Parked
	require.Zero(t, e.g.ran("crm_write"))

	call.Resume = &invoker.Resumption{Seq: approval.Seq, Start: approval.Start, ArgsHash: approval.Request.ArgsHash, Decision: invoker.Approved}
	res = e.inv.Invoke(context.Background(), sess, call)
	require.Equal(t, session.StatusParked, res.Status, res.Message)
	p := res.Parked
	require.Equal(t, invoker.ParkKindCredential, p.Kind)
	require.True(t, p.Approved)
	require.Equal(t, approval.Request.ArgsHash, p.Request.ArgsHash, "bound to what the approver saw")
	require.Equal(t, approval.Seq, p.Seq)
	require.EqualValues(t, 1, e.g.ran("crm_write"))
	e.ev.take()

	call.Resume = retry(p)
	res = e.inv.Invoke(asUser("fresh"), sess, call)
	require.True(t, res.OK(), res.Message)
	require.False(t, res.Deduped, "the refusal recorded under its key when it parked does not answer the retry")
	require.EqualValues(t, 2, e.g.ran("crm_write"))
	rec := sess.Trace()[0]
	require.Equal(t, session.StatusOK, rec.Status)
	require.Equal(t, "confirm", rec.Gate)
	require.NotContains(t, kinds(e.ev.take()), "approval.parked", "nobody was asked again")

	// A retry whose arguments are not the approved ones is refused.
	sess = e.session(true)
	call.Resume = nil
	res = e.inv.Invoke(context.Background(), sess, call)
	call.Resume = &invoker.Resumption{Seq: res.Parked.Seq, Start: res.Parked.Start, ArgsHash: res.Parked.Request.ArgsHash, Decision: invoker.Approved}
	res = e.inv.Invoke(context.Background(), sess, call)
	require.Equal(t, invoker.ParkKindCredential, res.Parked.Kind)
	call.Resume = retry(res.Parked)
	call.Args = json.RawMessage(`{"note":"other","email":"a@example.com"}`)
	res = e.inv.Invoke(asUser("fresh"), sess, call)
	require.Equal(t, invoker.ReasonApprovalFailed, res.Reason)

	// Without its approval (Decision other than Approved), the retry
	// parks at its confirm gate again.
	sess = e.session(true)
	call.Resume, call.Args = nil, json.RawMessage(`{"note":"n","email":"a@example.com"}`)
	res = e.inv.Invoke(context.Background(), sess, call)
	call.Resume = &invoker.Resumption{Seq: res.Parked.Seq, Start: res.Parked.Start, ArgsHash: res.Parked.Request.ArgsHash, Decision: invoker.Approved}
	res = e.inv.Invoke(context.Background(), sess, call)
	require.Equal(t, invoker.ParkKindCredential, res.Parked.Kind)
	rs := retry(res.Parked)
	rs.Decision, rs.ArgsHash = invoker.Denied, ""
	call.Resume = rs
	res = e.inv.Invoke(asUser("fresh"), sess, call)
	require.Equal(t, session.StatusParked, res.Status)
	require.Empty(t, res.Parked.Kind, "asked again at its confirm gate")
}
