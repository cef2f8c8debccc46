package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/oidctest"
)

// TestSetIdentityRoute: POST /v1/chains/{id}/identity answers 204 for a
// running chain of the key's tenant, 400 invalid_request for a malformed
// identity (without echoing it), 404 chain_not_found for another tenant's
// chain, 409 chain_finished once it ended, and in a fleet 409 chain_parked
// for a parked chain, from any process.
func TestSetIdentityRoute(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `await new Promise(r => setTimeout(r, 1500)); return 1`,
		"identity": map[string]string{"subject_token": "first-SECRET-token"}}, true)
	path := "/v1/chains/" + v.ID + "/identity"
	r := e.do(t, "POST", path, keyAcme, map[string]string{"subject_token": "fresh-SECRET-token", "subject_token_type": "access_token"})
	require.Equal(t, http.StatusNoContent, r.code, "%s", r.body)
	r = e.do(t, "POST", path, keyAcme, map[string]string{"subject_token": "bad SECRET token"})
	require.Equal(t, http.StatusBadRequest, r.code)
	require.Equal(t, "invalid_request", r.reason(t))
	require.NotContains(t, string(r.body), "SECRET")
	r = e.do(t, "POST", path, keyAcme, map[string]any{"subject_token": "t", "extra": 1})
	require.Equal(t, http.StatusBadRequest, r.code)
	require.Equal(t, "unknown_field", r.reason(t))
	r = e.do(t, "POST", path, keyGlobex, map[string]string{"subject_token": "globex-token"})
	require.Equal(t, http.StatusNotFound, r.code)
	require.Equal(t, "chain_not_found", r.reason(t))
	e.do(t, "DELETE", "/v1/chains/"+v.ID, keyAcme, nil)
	r = e.do(t, "POST", path, keyAcme, map[string]string{"subject_token": "late-token"})
	require.Equal(t, http.StatusConflict, r.code, "%s", r.body)
	require.Equal(t, "chain_finished", r.reason(t))

	f := newFleet(t, 2, nil)
	v = f.envs[0].submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "c"})`,
		"identity": map[string]string{"subject_token": "parked-SECRET-token"}}, false)
	require.Equal(t, "parked", v.Status)
	for _, env := range f.envs {
		r = env.do(t, "POST", "/v1/chains/"+v.ID+"/identity", keyAcme, map[string]string{"subject_token": "fresh-token"})
		require.Equal(t, http.StatusConflict, r.code, "%s", r.body)
		require.Equal(t, "chain_parked", r.reason(t))
	}
}

// TestSetIdentityResumesParkedRoute: in a fleet, a chain whose call was
// refused for its credential parks waiting for one (pending kind
// credential, gate credential, the reason as its rule), and POST
// /v1/chains/{id}/identity to the other process answers 204 and resumes
// it there: the call runs for the fresh token. The console's chain page
// says what it waits for.
func TestSetIdentityResumesParkedRoute(t *testing.T) {
	f := newFleet(t, 2, func(o *setup) { o.Tools = append(o.Tools, oidctest.AsUser{}) })
	a, b := f.envs[0], f.envs[1]
	v := a.submit(t, keyAcme, map[string]any{"script": "// as the user:\nreturn await tools.crm({})",
		"identity": map[string]string{"subject_token": "expired-SECRET.alice"}}, false)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	require.Len(t, v.Pending, 1)
	p := v.Pending[0]
	require.Equal(t, "credential", p.Kind)
	require.Equal(t, "credential", p.Gate)
	require.Equal(t, "credential_expired", p.Rule)
	require.Equal(t, "crm", p.Audience)
	require.Equal(t, 2, p.Line)
	require.True(t, strings.HasPrefix(p.ID, durable.CredentialPrefix))
	r := b.do(t, "GET", "/v1/approvals/"+p.ID, keyAcme, nil)
	require.Equal(t, http.StatusNotFound, r.code, "not an approval")
	r = b.do(t, "GET", "/v1/calls/"+p.ID, keyAcme, nil)
	require.Equal(t, http.StatusNotFound, r.code, "not a caller's call")

	r = b.do(t, "POST", "/v1/chains/"+v.ID+"/identity", keyGlobex, map[string]string{"subject_token": "fresh.mallory"})
	require.Equal(t, http.StatusNotFound, r.code)
	r = b.do(t, "POST", "/v1/chains/"+v.ID+"/identity", keyAcme, map[string]string{"subject_token": "fresh-SECRET.alice"})
	require.Equal(t, http.StatusNoContent, r.code, "%s", r.body)
	end := settled(t, b, v.ID)
	require.Equal(t, "ok", end.Status, "%+v", end.Result)
	require.JSONEq(t, `"alice"`, string(end.Result.Value))
	body, _ := json.Marshal(end)
	require.NotContains(t, string(body), "SECRET")
	r = a.do(t, "POST", "/v1/chains/"+v.ID+"/identity", keyAcme, map[string]string{"subject_token": "late.alice"})
	require.Equal(t, http.StatusConflict, r.code)
	require.Equal(t, "chain_finished", r.reason(t))
}
