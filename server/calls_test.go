package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
)

// TestCallerToolsOverHTTP: a chain's caller tools reach it through the HTTP
// API: the call_pending event carries the call, each refused answer has its
// reason code (result_too_large, output_schema_mismatch, args_mismatch,
// already_answered, invalid_request, call_not_found for another tenant),
// and the answer becomes the script's value; a declaration that breaks a
// rule is invalid_caller_tools and nothing runs.
func TestCallerToolsOverHTTP(t *testing.T) {
	e := newEnv(t, func(o *setup) { o.MaxCallerResultBytes = 1 << 10 })
	tool := map[string]any{"name": "lookup", "description": "Finds a customer.",
		"input_schema":  map[string]any{"type": "object", "properties": map[string]any{"email": map[string]any{"type": "string"}}},
		"output_schema": map[string]any{"type": "object", "required": []string{"name"}}}
	v := e.submit(t, keyAcme, map[string]any{"script": `const [a, b] = await Promise.all([tools.lookup({email: "a@x"}), tools.lookup({email: "b@x"})]);
return [a.name, b.name];`, "caller_tools": []any{tool}}, true)
	events := e.stream(t, keyAcme, v.ID, "")
	pending := map[string]pendingCall{}
	for len(pending) < 2 {
		ev := next(t, events)
		if ev.name != server.EventCallPending {
			continue
		}
		var c pendingCall
		require.NoError(t, json.Unmarshal([]byte(ev.data), &c))
		require.Equal(t, v.ID, c.ChainID)
		require.Equal(t, "lookup", c.Tool)
		pending[c.Args.Email] = c
	}
	a, b := pending["a@x"], pending["b@x"]
	refused := func(code int, reason, key, id string, body any) {
		t.Helper()
		r := e.do(t, "POST", "/v1/calls/"+id, key, body)
		require.Equal(t, code, r.code, "%s", r.body)
		require.Equal(t, reason, r.reason(t), "%s", r.body)
	}
	refused(http.StatusRequestEntityTooLarge, server.ReasonResultTooLarge, keyAcme, a.ID,
		map[string]any{"args_hash": a.ArgsHash, "result": map[string]any{"name": strings.Repeat("x", 2<<10)}})
	refused(http.StatusUnprocessableEntity, server.ReasonOutputSchemaMismatch, keyAcme, a.ID, map[string]any{"args_hash": a.ArgsHash, "result": []int{1}})
	refused(http.StatusConflict, server.ReasonArgsMismatch, keyAcme, a.ID, map[string]any{"args_hash": b.ArgsHash, "result": map[string]any{"name": "A"}})
	refused(http.StatusBadRequest, server.ReasonInvalidRequest, keyAcme, a.ID, map[string]any{"args_hash": a.ArgsHash, "result": 1, "error": "x"})
	refused(http.StatusBadRequest, server.ReasonInvalidRequest, keyAcme, a.ID, map[string]any{"args_hash": a.ArgsHash, "error": ""})
	refused(http.StatusBadRequest, server.ReasonUnknownField, keyAcme, a.ID, map[string]any{"args_hash": a.ArgsHash, "result": 1, "extra": 1})
	refused(http.StatusNotFound, server.ReasonCallNotFound, keyGlobex, a.ID, map[string]any{"args_hash": a.ArgsHash, "result": map[string]any{"name": "A"}})
	refused(http.StatusNotFound, server.ReasonCallNotFound, keyAcme, v.ID+".99", map[string]any{"args_hash": a.ArgsHash, "result": map[string]any{"name": "A"}})
	refused(http.StatusUnauthorized, server.ReasonUnauthenticated, "", a.ID, map[string]any{"args_hash": a.ArgsHash, "result": map[string]any{"name": "A"}})
	r := e.do(t, "GET", "/v1/calls", keyGlobex, nil)
	require.JSONEq(t, `{"calls":[]}`, string(r.body), "another tenant lists none")
	require.Equal(t, http.StatusOK, e.do(t, "POST", "/v1/calls/"+a.ID, keyAcme, map[string]any{"args_hash": a.ArgsHash, "result": map[string]any{"name": "A"}}).code)
	refused(http.StatusConflict, server.ReasonAlreadyAnswered, keyAcme, a.ID, map[string]any{"args_hash": a.ArgsHash, "result": map[string]any{"name": "A"}})
	require.Equal(t, http.StatusOK, e.do(t, "POST", "/v1/calls/"+b.ID, keyAcme, map[string]any{"args_hash": b.ArgsHash, "result": map[string]any{"name": "B"}}).code)
	require.JSONEq(t, `["A","B"]`, string(e.wait(t, keyAcme, v.ID).Result.Value))

	r = e.do(t, "POST", "/v1/chains", keyAcme, map[string]any{"script": "return 1", "caller_tools": []any{map[string]any{"name": "kv_get", "description": "x"}}})
	require.Equal(t, http.StatusBadRequest, r.code)
	require.Equal(t, server.ReasonInvalidCallerTools, r.reason(t))
	r = e.do(t, "POST", "/v1/tools.d.ts", keyAcme, map[string]any{"tools": []string{"kv_get"}, "caller_tools": []any{tool}})
	require.Equal(t, http.StatusOK, r.code)
	require.Contains(t, string(r.body), "lookup(args: {\n    email?: string")
	require.Contains(t, string(r.body), "kv_get(")
	require.NotContains(t, string(r.body), "kv_set(", "only the tools selected")
}

// pendingCall is a pending call as the API shows it.
type pendingCall struct {
	ID       string `json:"id"`
	ChainID  string `json:"chain_id"`
	Tool     string `json:"tool"`
	ArgsHash string `json:"args_hash"`
	Args     struct {
		Email string `json:"email"`
	} `json:"args"`
}

// TestParkedAgainStreamsItsStatus: a chain that parks on a caller tool,
// is answered, resumes and parks on the next call between two reads of
// its record still sends a status event for the new park, with the call
// it now waits for, on a stream another process follows.
func TestParkedAgainStreamsItsStatus(t *testing.T) {
	f := newFleet(t, 2, nil)
	a, b := f.envs[0], f.envs[1]
	v := a.submit(t, keyAcme, map[string]any{"script": `const x = await tools.step({n: 1}); const y = await tools.step({n: 2}); return [x, y];`,
		"caller_tools": []any{map[string]any{"name": "step", "description": "One step.",
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}}}, false)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	events := b.stream(t, keyAcme, v.ID, "")
	first := next(t, events)
	require.Equal(t, server.EventStatus, first.name)
	var seen service.ChainView
	require.NoError(t, json.Unmarshal([]byte(first.data), &seen))
	require.Equal(t, "parked", seen.Status)
	call := v.Pending[0]
	r := b.do(t, "POST", "/v1/calls/"+call.ID, keyAcme, map[string]any{"args_hash": call.ArgsHash, "result": 1})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	for {
		ev := next(t, events)
		require.Equal(t, server.EventStatus, ev.name, "%s", ev.data)
		require.NoError(t, json.Unmarshal([]byte(ev.data), &seen))
		if seen.Status == "parked" {
			break
		}
	}
	require.Len(t, seen.Pending, 1)
	require.NotEqual(t, call.ID, seen.Pending[0].ID, "the new park waits for the second call")
	second := seen.Pending[0]
	r = a.do(t, "POST", "/v1/calls/"+second.ID, keyAcme, map[string]any{"args_hash": second.ArgsHash, "result": 2})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	for ev := next(t, events); ev.name != server.EventDone; ev = next(t, events) {
		require.Equal(t, server.EventStatus, ev.name)
	}
	require.JSONEq(t, `[1,2]`, string(settled(t, a, v.ID).Result.Value))
}
