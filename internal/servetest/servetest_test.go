package servetest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/airlockrt/airlock/internal/servetest"
)

func TestMain(m *testing.M) { os.Exit(servetest.Main(m)) }

type answer struct {
	code int
	body map[string]any
}

func call(t *testing.T, method, url, key string, body any) answer {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
	return answer{code: resp.StatusCode, body: v}
}

func reason(a answer) any {
	e, _ := a.body["error"].(map[string]any)
	return e["reason"]
}

// TestSingleProcess: the keys of both tenants and their roles are
// configured, tenants are apart, and extra config reaches the process.
func TestSingleProcess(t *testing.T) {
	s := servetest.Start(t, servetest.Options{Config: "policy: {max_tool_calls: 1}"})
	require.Len(t, s.Processes, 1)
	require.False(t, s.S3)
	url := s.URL()

	a := call(t, "POST", url+"/v1/chains", servetest.Acme.Submit, map[string]any{
		"script": `await tools.kv_get({key: "a"}); try { await tools.kv_get({key: "b"}); } catch (e) { return e.reason; }`})
	require.Equal(t, http.StatusOK, a.code, "%v", a.body)
	require.Equal(t, "ok", a.body["status"])
	require.Equal(t, "budget_exhausted", a.body["result"].(map[string]any)["value"], "Options.Config set max_tool_calls")
	id := a.body["id"].(string)

	require.Equal(t, http.StatusOK, call(t, "GET", url+"/v1/chains/"+id, servetest.Acme.Approver, nil).code)
	other := call(t, "GET", url+"/v1/chains/"+id, servetest.Globex.All, nil)
	require.Equal(t, http.StatusNotFound, other.code)
	require.Equal(t, "chain_not_found", reason(other))
	approver := call(t, "POST", url+"/v1/chains", servetest.Acme.Approver, map[string]any{"script": "return 1"})
	require.Equal(t, http.StatusForbidden, approver.code)
	require.Equal(t, "forbidden_role", reason(approver))
	none := call(t, "GET", url+"/v1/chains", "", nil)
	require.Equal(t, http.StatusUnauthorized, none.code)
	require.Equal(t, "unauthenticated", reason(none))
	require.Contains(t, s.Env(), "AIRLOCK_TEST_APPROVAL_MODE=queue")
}

// TestParkedFleet: a chain parks on one process of a fleet of two and is
// decided, and so resumed, on the other.
func TestParkedFleet(t *testing.T) {
	s := servetest.Start(t, servetest.Options{Processes: 2, ApprovalMode: "park"})
	require.Len(t, s.Processes, 2)
	require.Equal(t, os.Getenv("AIRLOCK_S3_ENDPOINT") != "", s.S3)
	a, b := s.Processes[0].URL, s.Processes[1].URL
	require.NotEqual(t, a, b)

	r := call(t, "POST", a+"/v1/chains", servetest.Acme.All, map[string]any{
		"script": `return await tools.send_message({to: "ops@example.com", text: "hi"});`})
	require.Equal(t, http.StatusOK, r.code, "%v", r.body)
	require.Equal(t, "parked", r.body["status"], "%v", r.body)
	id := r.body["id"].(string)

	var pending []any
	for deadline := time.Now().Add(15 * time.Second); len(pending) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		pending, _ = call(t, "GET", b+"/v1/chains/"+id, servetest.Acme.Approver, nil).body["pending"].([]any)
	}
	require.Len(t, pending, 1)
	p := pending[0].(map[string]any)
	d := call(t, "POST", b+"/v1/approvals/"+p["id"].(string), servetest.Acme.Approver,
		map[string]any{"decision": "approve", "args_hash": p["args_hash"]})
	require.Equal(t, http.StatusOK, d.code, "%v", d.body)

	var v answer
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		v = call(t, "GET", a+"/v1/chains/"+id, servetest.Acme.All, nil)
		if v.body["status"] == "ok" || v.body["status"] == "error" {
			break
		}
	}
	require.Equal(t, "ok", v.body["status"], "%v", v.body)
	require.Contains(t, s.Env(), "AIRLOCK_TEST_APPROVAL_MODE=park")
	require.Contains(t, s.Env(), "AIRLOCK_TEST_URLS="+a+","+b)
}

// TestConfigMerge: extra YAML merges into the generated configuration
// key by key, lists replaced.
func TestConfigMerge(t *testing.T) {
	s := servetest.Start(t, servetest.Options{Config: "server: {max_results: 7}\napproval: {mode: deny}"})
	var c map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(s.Config), &c))
	server := c["server"].(map[string]any)
	require.Equal(t, 7, server["max_results"])
	require.Len(t, server["api_keys"], 6, "the generated keys stay beside the merged key")
	require.Equal(t, "deny", c["approval"].(map[string]any)["mode"])
	require.Contains(t, s.Env(), "AIRLOCK_TEST_APPROVAL_MODE=deny")
	require.False(t, strings.Contains(s.Config, "fleet"), "one process in queue mode is no fleet")

	r := call(t, "POST", s.URL()+"/v1/chains", servetest.Acme.All, map[string]any{
		"script": `try { await tools.send_message({to: "a@example.com", text: "x"}); } catch (e) { return e.reason; }`})
	require.Equal(t, http.StatusOK, r.code, "%v", r.body)
	require.Equal(t, "approval_denied", r.body["result"].(map[string]any)["value"])
}
