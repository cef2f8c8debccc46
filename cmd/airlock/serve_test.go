package main_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

const (
	keyAcme   = "acme-0123456789abcdef"
	keyGlobex = "globex-0123456789abcdef"
)

// serveConfig is the server of TestServe: two tenants, a small request
// limit, a ceiling above the chain values, a short grace period.
const serveConfig = `
policy:
  max_tool_calls: 20
server:
  api_keys:
    - {key: "` + keyAcme + `", tenant: acme}
    - {key: "` + keyGlobex + `", tenant: globex}
  max_request_bytes: 64KiB
  shutdown_timeout: 1s
  max:
    max_tool_calls: 40
`

type api struct {
	t   *testing.T
	url string
}

type answer struct {
	code int
	body []byte
	hdr  http.Header
}

func (a answer) field(t *testing.T, path ...string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(a.body, &v), "%s", a.body)
	for _, p := range path {
		m, ok := v.(map[string]any)
		require.True(t, ok, "%s in %s", p, a.body)
		v = m[p]
	}
	return v
}

func (a answer) reason(t *testing.T) string {
	t.Helper()
	r, _ := a.field(t, "error", "reason").(string)
	require.NotEmpty(t, a.field(t, "error", "message"))
	return r
}

func (c api) do(method, path, key, contentType string, body []byte) answer {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.url+path, rd)
	require.NoError(c.t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return answer{code: resp.StatusCode, body: b, hdr: resp.Header}
}

func (c api) json(method, path, key string, v any) answer {
	c.t.Helper()
	b, err := json.Marshal(v)
	require.NoError(c.t, err)
	return c.do(method, path, key, "application/json", b)
}

func script(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(chains + file)
	require.NoError(t, err)
	return string(b)
}

// waitChain polls the chain until it is no longer running.
func (c api) waitChain(key, id string) answer {
	c.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		a := c.do("GET", "/v1/chains/"+id, key, "", nil)
		require.Equal(c.t, http.StatusOK, a.code, "%s", a.body)
		if s := a.field(c.t, "status"); s != "running" && s != "waiting_approval" {
			return a
		}
	}
	c.t.Fatalf("chain %s did not finish", id)
	return answer{}
}

func (c api) pendingApproval(key string) map[string]any {
	c.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		a := c.do("GET", "/v1/approvals", key, "", nil)
		require.Equal(c.t, http.StatusOK, a.code)
		if list := a.field(c.t, "approvals").([]any); len(list) > 0 {
			return list[0].(map[string]any)
		}
	}
	c.t.Fatal("no approval request appeared")
	return nil
}

type event struct{ name, data string }

// events reads the chain's Server-Sent Events into a channel until the
// stream ends.
func (c api) events(key, id string) <-chan event {
	c.t.Helper()
	req, err := http.NewRequest("GET", c.url+"/v1/chains/"+id+"/events", nil)
	require.NoError(c.t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	require.Equal(c.t, http.StatusOK, resp.StatusCode)
	out := make(chan event, 32)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var ev event
		for sc.Scan() {
			switch line := sc.Text(); {
			case line == "" && ev.name != "":
				out <- ev
				ev = event{}
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[6:]
			}
		}
	}()
	return out
}

// nextEvent returns the stream's next event, skipping the governance
// lifecycle events (tool.before, policy.before, …).
func nextEvent(t *testing.T, ch <-chan event) event {
	t.Helper()
	for {
		select {
		case ev, ok := <-ch:
			require.True(t, ok, "the event stream ended")
			if strings.Contains(ev.name, ".") {
				continue
			}
			return ev
		case <-time.After(15 * time.Second):
			t.Fatal("no event within 15s")
		}
		return event{}
	}
}

// scrape returns the samples of /metrics whose name and labels start with
// prefix, e.g. `airlock_chains_total{status="ok"}`, summed.
func (c api) scrape(prefix string) float64 {
	c.t.Helper()
	a := c.do("GET", "/metrics", keyAcme, "", nil)
	require.Equal(c.t, http.StatusOK, a.code, "%s", a.body)
	sum := 0.0
	for _, line := range strings.Split(string(a.body), "\n") {
		if strings.HasPrefix(line, "#") || !strings.HasPrefix(line, prefix) {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		require.NoError(c.t, err, line)
		sum += v
	}
	return sum
}

// TestServe starts `airlock serve` as a real process and drives its API.
func TestServe(t *testing.T) {
	s := serve(t, serveConfig)
	c := api{t: t, url: s.url}

	var acmeChain string
	t.Run("sync", func(t *testing.T) {
		a := c.json("POST", "/v1/chains", keyAcme, map[string]any{"script": script(t, "quickstart.js")})
		require.Equal(t, http.StatusOK, a.code, "%s", a.body)
		require.Equal(t, "ok", a.field(t, "status"))
		require.Equal(t, 5.0, a.field(t, "result", "value", "calls"))
		require.Len(t, a.field(t, "result", "trace"), 5)
		acmeChain = a.field(t, "id").(string)
		a = c.json("POST", "/v1/chains", keyGlobex, map[string]any{"script": script(t, "report.ts"), "language": "typescript"})
		require.Equal(t, "ok", a.field(t, "status"), "%s", a.body)
	})

	t.Run("tenant isolation", func(t *testing.T) {
		require.Equal(t, http.StatusOK, c.do("GET", "/v1/chains/"+acmeChain, keyAcme, "", nil).code)
		for _, a := range []answer{
			c.do("GET", "/v1/chains/"+acmeChain, keyGlobex, "", nil),
			c.do("GET", "/v1/chains/"+acmeChain+"/events", keyGlobex, "", nil),
			c.do("DELETE", "/v1/chains/"+acmeChain, keyGlobex, "", nil),
		} {
			require.Equal(t, http.StatusNotFound, a.code)
			require.Equal(t, "chain_not_found", a.reason(t))
		}
	})

	t.Run("async, events and approval", func(t *testing.T) {
		a := c.json("POST", "/v1/chains?async=1", keyAcme, map[string]any{"script": script(t, "approval_write.js")})
		require.Equal(t, http.StatusAccepted, a.code, "%s", a.body)
		require.Equal(t, "running", a.field(t, "status"))
		id := a.field(t, "id").(string)
		events := c.events(keyAcme, id)
		ev := nextEvent(t, events)
		require.Equal(t, "approval_required", ev.name)
		var req struct {
			ID       string          `json:"id"`
			ArgsHash string          `json:"args_hash"`
			Args     json.RawMessage `json:"args"`
		}
		require.NoError(t, json.Unmarshal([]byte(ev.data), &req))
		require.JSONEq(t, `{"to":"ops@example.com","text":"nightly report is ready"}`, string(req.Args))

		// Invisible to the other tenant, refused for other arguments.
		require.Equal(t, `{"approvals":[]}`, strings.TrimSpace(string(c.do("GET", "/v1/approvals", keyGlobex, "", nil).body)))
		d := c.json("POST", "/v1/approvals/"+req.ID, keyGlobex, map[string]string{"decision": "approve", "args_hash": req.ArgsHash})
		require.Equal(t, http.StatusNotFound, d.code)
		require.Equal(t, "approval_not_found", d.reason(t))
		d = c.json("POST", "/v1/approvals/"+req.ID, keyAcme, map[string]string{"decision": "approve", "args_hash": strings.Repeat("ab", 32)})
		require.Equal(t, http.StatusConflict, d.code)
		require.Equal(t, "args_mismatch", d.reason(t))

		d = c.json("POST", "/v1/approvals/"+req.ID, keyAcme, map[string]string{"decision": "approve", "args_hash": req.ArgsHash})
		require.Equal(t, http.StatusOK, d.code, "%s", d.body)
		require.Equal(t, "approved", d.field(t, "decision"))
		d = c.json("POST", "/v1/approvals/"+req.ID, keyAcme, map[string]string{"decision": "deny", "args_hash": req.ArgsHash})
		require.Equal(t, http.StatusConflict, d.code)
		require.Equal(t, "already_decided", d.reason(t))
		require.Equal(t, "approved", d.field(t, "error", "decision"))

		require.Equal(t, "tool_call", nextEvent(t, events).name)
		ev = nextEvent(t, events)
		require.Equal(t, "tool_result", ev.name)
		require.Contains(t, ev.data, `"status":"ok"`)
		ev = nextEvent(t, events)
		require.Equal(t, "done", ev.name)
		var done struct {
			Status string
			Result struct{ Value json.RawMessage }
		}
		require.NoError(t, json.Unmarshal([]byte(ev.data), &done))
		require.Equal(t, "ok", done.Status)
		require.JSONEq(t, `{"sent":true,"to":"ops@example.com"}`, string(done.Result.Value))
	})

	t.Run("deny through the API", func(t *testing.T) {
		a := c.json("POST", "/v1/chains?async=1", keyAcme, map[string]any{"script": script(t, "approval_write.js")})
		require.Equal(t, http.StatusAccepted, a.code)
		req := c.pendingApproval(keyAcme)
		d := c.json("POST", "/v1/approvals/"+req["id"].(string), keyAcme, map[string]any{"decision": "deny", "args_hash": req["args_hash"]})
		require.Equal(t, http.StatusOK, d.code, "%s", d.body)
		got := c.waitChain(keyAcme, a.field(t, "id").(string))
		require.Equal(t, "approval_denied", got.field(t, "result", "value", "reason"))
	})

	t.Run("cancel", func(t *testing.T) {
		a := c.json("POST", "/v1/chains?async=1", keyAcme, map[string]any{"script": `await tools.slow({ms: 60000}); return 1;`})
		require.Equal(t, http.StatusAccepted, a.code)
		id := a.field(t, "id").(string)
		events := c.events(keyAcme, id)
		require.Equal(t, "tool_call", nextEvent(t, events).name)
		d := c.do("DELETE", "/v1/chains/"+id, keyAcme, "", nil)
		require.Equal(t, http.StatusOK, d.code, "%s", d.body)
		require.Equal(t, "cancelled", d.field(t, "status"))
		d = c.do("DELETE", "/v1/chains/"+id, keyAcme, "", nil)
		require.Equal(t, http.StatusConflict, d.code)
		require.Equal(t, "chain_finished", d.reason(t))
	})

	t.Run("artifact download", func(t *testing.T) {
		a := c.json("POST", "/v1/chains", keyAcme, map[string]any{"script": script(t, "artifact_pipeline.js")})
		require.Equal(t, http.StatusOK, a.code, "%s", a.body)
		arts := a.field(t, "result", "artifacts").([]any)
		require.Len(t, arts, 1)
		art := arts[0].(map[string]any)
		ref := art["$artifact"].(string)
		d := c.do("GET", "/v1/artifacts/"+ref, keyAcme, "", nil)
		require.Equal(t, http.StatusOK, d.code)
		require.Equal(t, int(art["size"].(float64)), len(d.body))
		require.True(t, strings.HasPrefix(string(d.body), "id,"))
		files := a.field(t, "result", "files").([]any)
		png := c.do("GET", "/v1/artifacts/"+files[0].(map[string]any)["$artifact"].(string), keyAcme, "", nil)
		require.Equal(t, "image/png", png.hdr.Get("Content-Type"))
		d = c.do("GET", "/v1/artifacts/"+ref, keyGlobex, "", nil)
		require.Equal(t, http.StatusNotFound, d.code)
		require.Equal(t, "artifact_not_found", d.reason(t))
	})

	t.Run("bad input", func(t *testing.T) {
		big := []byte(`{"script":"` + strings.Repeat("x", 70<<10) + `"}`)
		for _, tc := range []struct {
			name, key, ct string
			body          []byte
			code          int
			reason        string
		}{
			{"malformed json", keyAcme, "application/json", []byte(`{"script": "return 1"`), 400, "malformed_json"},
			{"oversize body", keyAcme, "application/json", big, 413, "body_too_large"},
			{"unknown field", keyAcme, "application/json", []byte(`{"script":"return 1","timeout":"1s"}`), 400, "unknown_field"},
			{"bad script", keyAcme, "application/json", []byte(`{"script":"return (;"}`), 400, "invalid_script"},
			{"unknown tool set", keyAcme, "application/json", []byte(`{"script":"return 1","tools":["kitchen_sink"]}`), 400, "unknown_tools"},
			{"policy above limits", keyAcme, "application/json", []byte(`{"script":"return 1","policy":{"max_tool_calls":41}}`), 400, "above_operator_limit"},
			{"limits above limits", keyAcme, "application/json", []byte(`{"script":"return 1","limits":{"timeout":"1h"}}`), 400, "above_operator_limit"},
			{"wrong key", "not-the-key-0123456789", "application/json", []byte(`{"script":"return 1"}`), 401, "unauthenticated"},
			{"no key", "", "application/json", []byte(`{"script":"return 1"}`), 401, "unauthenticated"},
			{"not json", keyAcme, "text/plain", []byte(`return 1`), 415, "unsupported_media_type"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				a := c.do("POST", "/v1/chains", tc.key, tc.ct, tc.body)
				require.Equal(t, tc.code, a.code, "%s", a.body)
				require.Equal(t, tc.reason, a.reason(t))
			})
		}
		// Within the ceiling is fine.
		a := c.json("POST", "/v1/chains", keyAcme, map[string]any{"script": "return 1", "policy": map[string]any{"max_tool_calls": 40}})
		require.Equal(t, http.StatusOK, a.code, "%s", a.body)
	})

	t.Run("python client", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("python3 is not installed; make test installs it (scripts/deps.sh)")
			}
			t.Skip("python3 is not installed")
		}
		dl := t.TempDir()
		cmd := exec.Command(py, "../../examples/clients/client.py", "--url", s.url, "--key", keyAcme, "--approve",
			"--download", dl, chains+"approval_write.js")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		for _, want := range []string{"submitted ch_", "approval_required", "decided approve: 200 approved", "tool_result send_message ok", "done ok", `"sent": true`} {
			require.Contains(t, string(out), want)
		}
	})

	t.Run("metrics moved", func(t *testing.T) {
		require.GreaterOrEqual(t, c.scrape(`airlock_chains_total{status="ok"}`), 7.0)
		require.Equal(t, 1.0, c.scrape(`airlock_chains_total{status="cancelled"}`))
		require.GreaterOrEqual(t, c.scrape(`airlock_tool_calls_total{reason="",status="ok",tool="search_docs"}`), 3.0)
		require.Equal(t, 2.0, c.scrape(`airlock_approvals_total{status="approved",tool="send_message"}`))
		require.Equal(t, 1.0, c.scrape(`airlock_approvals_total{status="denied",tool="send_message"}`))
		require.GreaterOrEqual(t, c.scrape(`airlock_artifacts_offloaded_total`), 2.0)
		require.Greater(t, c.scrape(`airlock_chain_duration_seconds_count`), 0.0)
		// Nothing is left running or pinned.
		require.Equal(t, 0.0, c.scrape(`airlock_chains_in_flight`))
		require.Equal(t, 0.0, c.scrape(`airlock_pins_outstanding`))
		require.Equal(t, 0.0, c.scrape(`airlock_tool_calls_in_flight`))
		require.Equal(t, http.StatusOK, c.do("GET", "/healthz", "", "", nil).code)
		require.Equal(t, http.StatusOK, c.do("GET", "/readyz", "", "", nil).code)
		require.Contains(t, string(c.do("GET", "/v1/tools.d.ts", keyAcme, "", nil).body), "send_message(args:")
	})

	t.Run("graceful shutdown cancels what outlives the grace period", func(t *testing.T) {
		a := c.json("POST", "/v1/chains?async=1", keyAcme, map[string]any{"script": `await tools.slow({ms: 60000});`})
		require.Equal(t, http.StatusAccepted, a.code)
		events := c.events(keyAcme, a.field(t, "id").(string))
		require.Equal(t, "tool_call", nextEvent(t, events).name)
		start := time.Now()
		require.Equal(t, 0, s.stop(t, 20*time.Second), s.logs())
		require.Less(t, time.Since(start), 10*time.Second)
		// The stream saw the chain end before the server went away.
		var last event
		for ev := range events {
			last = ev
		}
		require.Equal(t, "done", last.name)
		require.Contains(t, last.data, `"status":"cancelled"`)
		logs := s.logs()
		require.Contains(t, logs, "cancelling running chains")
		require.Contains(t, logs, "msg=stopped")
		require.NotContains(t, logs, keyAcme)
	})
}

func TestServeNeedsKeysOffLoopback(t *testing.T) {
	res := airlock(t, "", nil, "serve", "--addr", "0.0.0.0:0")
	require.Equal(t, 2, res.code, res.stderr)
	require.Contains(t, res.stderr, "without API keys airlock serves only on a loopback address")

	s := serve(t, "")
	require.Contains(t, s.logs(), "no API keys configured")
	a := api{t: t, url: s.url}.json("POST", "/v1/chains", "", map[string]any{"script": "return 6 * 7"})
	require.Equal(t, http.StatusOK, a.code, "%s", a.body)
	require.Equal(t, "default", a.field(t, "tenant"))
	require.Equal(t, 0, s.stop(t, 20*time.Second))
}

// TestServeTracing exports spans over OTLP/HTTP to a fake collector.
func TestServeTracing(t *testing.T) {
	var mu sync.Mutex
	var spans []map[string]string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, sp := range ss.GetSpans() {
					m := map[string]string{"name": sp.GetName()}
					for _, kv := range sp.GetAttributes() {
						m[kv.GetKey()] = anyValue(kv.GetValue())
					}
					spans = append(spans, m)
				}
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		_, _ = w.Write(b)
	}))
	defer collector.Close()

	s := serve(t, "approval: {mode: allow}\ntracing: {exporter: otlp, insecure: true, endpoint: \""+strings.TrimPrefix(collector.URL, "http://")+"\"}\n")
	a := api{t: t, url: s.url}.json("POST", "/v1/chains", "", map[string]any{"script": script(t, "approval_write.js")})
	require.Equal(t, http.StatusOK, a.code, "%s", a.body)
	id := a.field(t, "id").(string)
	require.Equal(t, 0, s.stop(t, 20*time.Second), s.logs())

	mu.Lock()
	defer mu.Unlock()
	byName := map[string]map[string]string{}
	for _, sp := range spans {
		byName[sp["name"]] = sp
	}
	require.Contains(t, byName, "airlock.chain", "%v", spans)
	require.Contains(t, byName, "airlock.tool_call")
	ch, tool := byName["airlock.chain"], byName["airlock.tool_call"]
	require.Equal(t, id, ch["airlock.chain.id"])
	require.Equal(t, "ok", ch["airlock.chain.status"])
	require.Equal(t, "send_message", tool["airlock.tool"])
	require.Equal(t, "HIGH", tool["airlock.tool.risk"])
	require.Equal(t, "ok", tool["airlock.call.status"])
	require.Equal(t, "allow", tool["airlock.approval.mode"])
	require.Equal(t, "approved", tool["airlock.approval.outcome"])
}

func anyValue(v *common.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *common.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	}
	return v.String()
}

// minimalModule is the smallest chain module: an empty _start.
var minimalModule = []byte("\x00asm\x01\x00\x00\x00" +
	"\x01\x04\x01\x60\x00\x00" + // type section: func()
	"\x03\x02\x01\x00" + // function section: one func of type 0
	"\x07\x0a\x01\x06_start\x00\x00" + // export section: _start
	"\x0a\x04\x01\x02\x00\x0b") // code section: empty body

// TestServeRolesAndModuleCache: key roles from the configuration reach the
// server, and modules submitted over HTTP are not compiled into the
// on-disk cache.
func TestServeRolesAndModuleCache(t *testing.T) {
	cache := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	metricsAddr := ln.Addr().String()
	require.NoError(t, ln.Close())
	s := serve(t, `
server:
  metrics_addr: "`+metricsAddr+`"
  api_keys:
    - {key: "`+keyAcme+`", tenant: acme, role: submit}
    - {key: "`+keyGlobex+`", tenant: acme, role: approver}
`, "XDG_CACHE_HOME="+cache, "HOME="+cache)
	c := api{t: t, url: s.url}
	files := func() []string {
		var out []string
		_ = filepath.WalkDir(cache, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.Contains(path, "wazero") {
				out = append(out, path)
			}
			return nil
		})
		return out
	}
	before := files()
	require.NotEmpty(t, before, "the script engine uses the on-disk cache")

	a := c.json("POST", "/v1/chains", keyAcme, map[string]any{"script": base64.StdEncoding.EncodeToString(minimalModule), "language": "wasm"})
	require.Equal(t, http.StatusOK, a.code, "%s", a.body)
	require.Equal(t, before, files(), "no module was compiled into the on-disk cache")

	a = c.json("POST", "/v1/chains", keyGlobex, map[string]any{"script": "return 1"})
	require.Equal(t, http.StatusForbidden, a.code, "%s", a.body)
	require.Equal(t, "forbidden_role", a.reason(t))

	// With server.metrics_addr, /metrics lives on its own address only.
	require.Equal(t, http.StatusNotFound, c.do("GET", "/metrics", keyAcme, "", nil).code)
	resp, err := http.Get("http://" + metricsAddr + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "airlock_chains_total")
	require.Equal(t, 0, s.stop(t, 20*time.Second))
}

// TestServeLargeApproval: the composition root gives the approval queue the
// process's store, so a risky call with large arguments waits for a
// decision with a preview in memory and the whole arguments downloadable by
// the tenant, and runs once approved.
func TestServeLargeApproval(t *testing.T) {
	s := serve(t, `
server:
  api_keys:
    - {key: "`+keyAcme+`", tenant: acme}
approval:
  preview_bytes: 1KiB
`)
	c := api{t: t, url: s.url}
	text := strings.Repeat("report line\n", 300) // 3.6 KB, more than the 1 KiB preview
	a := c.json("POST", "/v1/chains?async=1", keyAcme, map[string]any{"script": fmt.Sprintf(
		`const r = await tools.send_message({to: "ops@example.com", text: %q}); return r.to;`, text)})
	require.Equal(t, http.StatusAccepted, a.code, "%s", a.body)
	id := a.field(t, "id").(string)
	req := c.pendingApproval(keyAcme)
	require.Nil(t, req["args"], "large arguments are not kept whole in memory")
	require.LessOrEqual(t, len(req["args_preview"].(string)), 1<<10)
	ref := req["args_ref"].(string)
	full := c.do("GET", "/v1/artifacts/"+ref, keyAcme, "", nil)
	require.Equal(t, http.StatusOK, full.code, "%s", full.body)
	require.Contains(t, string(full.body), `"to":"ops@example.com"`)
	require.Greater(t, len(full.body), len(text))
	d := c.json("POST", "/v1/approvals/"+req["id"].(string), keyAcme, map[string]string{"decision": "approve", "args_hash": req["args_hash"].(string)})
	require.Equal(t, http.StatusOK, d.code, "%s", d.body)
	done := c.waitChain(keyAcme, id)
	require.Equal(t, "ok", done.field(t, "status"), "%s", done.body)
	require.Equal(t, "ops@example.com", done.field(t, "result", "value"))
	require.Equal(t, 0, s.stop(t, 20*time.Second))
}
