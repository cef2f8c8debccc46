package main_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCanarySecretReachesNoSink plants a secret that HTTP tools send as a
// header, makes upstreams echo it back in every way they can (a body
// echoing the headers, an error body, a large body stored as an artifact),
// runs a chain through `airlock serve` with debug logs, OTLP tracing, the
// fs store and an approval, and then searches every sink for the secret:
// every HTTP response (chain, events, approvals, artifacts, tools,
// metrics), the process's log and span output, the spans the collector
// received, and every file of the store.
func TestCanarySecretReachesNoSink(t *testing.T) {
	raw := make([]byte, 16)
	_, _ = rand.Read(raw)
	canary := "cnry<" + hex.EncodeToString(raw) + "&x"

	var received atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+canary {
			received.Add(1)
		}
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/echo", "/write":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"headers": r.Header, "body": string(body),
				"b64": base64.StdEncoding.EncodeToString([]byte(r.Header.Get("Authorization")))})
		case "/fail":
			http.Error(w, "upstream rejected "+r.Header.Get("Authorization"), http.StatusInternalServerError)
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, strings.Repeat("padding ", 1500)+"token="+canary+" upper="+strings.ToUpper(canary))
		}
	}))
	defer upstream.Close()

	collector, spans := spanCollector(t)

	const key = "canary-key-0123456789"
	storeDir := t.TempDir()
	tool := func(name, path, risk string) string {
		return fmt.Sprintf(`
    - name: %s
      description: calls the upstream
      url: %s%s
      method: POST
      risk: %s
      headers: {Authorization: "Bearer ${env:CANARY_TOKEN}"}
      input_schema: {type: object, properties: {text: {type: string}}}`, name, upstream.URL, path, risk)
	}
	cfg := fmt.Sprintf(`
store: {kind: fs, dir: %q}
tracing: {exporter: otlp, insecure: true, endpoint: %q}
server:
  log_level: debug
  api_keys: [{key: %q, tenant: acme}]
tools:
  builtin: [demo]
  http:%s%s%s%s
`, storeDir, strings.TrimPrefix(collector.URL, "http://"), key,
		tool("up_echo", "/echo", "SAFE"), tool("up_fail", "/fail", "SAFE"), tool("up_big", "/big", "SAFE"), tool("up_write", "/write", "HIGH"))
	s := serve(t, cfg, "CANARY_TOKEN="+canary)
	c := api{t: t, url: s.url}

	script := `
		const out = {};
		out.echo = await tools.up_echo({text: "${env:CANARY_TOKEN} $CANARY_TOKEN"});
		console.log("echo", JSON.stringify(out.echo));
		try { await tools.up_fail({text: "x"}); } catch (e) { out.fail = [e.reason, e.message]; console.error("fail", e.message, e.stack); }
		const big = await tools.up_big({});
		out.big = typeof big === "string" ? big.slice(-120) : big;
		console.log("big", JSON.stringify(out.big));
		try { await tools.nope({token: "CANARY_TOKEN"}); } catch (e) { out.nope = e.reason; }
		try { out.guess = await tools.up_echo({text: "${env:CANARY_TOKEN}", "${env:CANARY_TOKEN}": "$` + `{CANARY_TOKEN}"}); console.log("guess", JSON.stringify(out.guess)); } catch (e) { out.guess = [e.reason, e.message]; }
		try { await tools.up_fail({text: "${env:CANARY_TOKEN}"}); } catch (e) { out.fail2 = JSON.stringify(e); console.log("fail2", e.message, JSON.stringify(e)); }
		out.write = await tools.up_write({text: "ship it"});
		console.log("write", JSON.stringify(out.write));
		return out;`
	var sinks = map[string][]byte{}
	sub := c.json("POST", "/v1/chains?async=1", key, map[string]any{"script": script})
	require.Equal(t, http.StatusAccepted, sub.code, "%s", sub.body)
	sinks["POST /v1/chains"] = sub.body
	id := sub.field(t, "id").(string)
	req := c.pendingApproval(key)
	list := c.do("GET", "/v1/approvals", key, "", nil)
	sinks["GET /v1/approvals"] = list.body
	one := c.do("GET", "/v1/approvals/"+req["id"].(string), key, "", nil)
	sinks["GET /v1/approvals/{id}"] = one.body
	d := c.json("POST", "/v1/approvals/"+req["id"].(string), key, map[string]any{"decision": "approve", "args_hash": req["args_hash"]})
	require.Equal(t, http.StatusOK, d.code, "%s", d.body)
	sinks["POST /v1/approvals/{id}"] = d.body
	done := c.waitChain(key, id)
	sinks["GET /v1/chains/{id}"] = done.body
	require.Equal(t, "ok", done.field(t, "result", "status"), "%s", done.body)
	require.Equal(t, "tool_error", done.field(t, "result", "value", "fail").([]any)[0])
	logs, _ := done.field(t, "result", "logs").([]any)
	require.NotEmpty(t, logs, "the chain's console log is in the result")
	consoleLog, err := json.Marshal(logs)
	require.NoError(t, err)
	require.Contains(t, string(consoleLog), "echo", "the console log holds what the tool returned")
	sinks["chain console log"] = consoleLog

	var evs bytes.Buffer
	for ev := range c.events(key, id) {
		fmt.Fprintf(&evs, "%s %s\n", ev.name, ev.data)
	}
	sinks["GET /v1/chains/{id}/events"] = evs.Bytes()
	require.Contains(t, evs.String(), "tool.after", "the lifecycle events are streamed")

	arts, _ := done.field(t, "result", "artifacts").([]any)
	require.NotEmpty(t, arts, "the large body was stored as an artifact")
	for i, a := range arts {
		ref := a.(map[string]any)["$artifact"].(string)
		got := c.do("GET", "/v1/artifacts/"+ref, key, "", nil)
		require.Equal(t, http.StatusOK, got.code)
		sinks[fmt.Sprintf("GET /v1/artifacts/%d", i)] = got.body
	}
	for _, path := range []string{"/v1/tools", "/v1/tools.d.ts", "/metrics"} {
		got := c.do("GET", path, key, "", nil)
		require.Equal(t, http.StatusOK, got.code, path)
		sinks["GET "+path] = got.body
	}
	require.Equal(t, 0, s.stop(t, 20*time.Second), s.logs())
	sinks["process log and span output (debug)"] = []byte(s.logs())
	require.Contains(t, s.logs(), "event=policy.before", "the log has the lifecycle events")
	sinks["OTLP spans received"] = spans()
	var files int
	require.NoError(t, filepath.WalkDir(storeDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		sinks["store file "+strings.TrimPrefix(p, storeDir)] = b
		return nil
	}))
	require.Positive(t, files, "the store holds files")
	require.Positive(t, received.Load(), "the upstream received the secret: the test exercised it")

	forms := map[string]string{
		"raw":         canary,
		"upper":       strings.ToUpper(canary),
		"base64":      base64.StdEncoding.EncodeToString([]byte(canary)),
		"base64url":   base64.URLEncoding.EncodeToString([]byte(canary)),
		"bearer b64":  base64.StdEncoding.EncodeToString([]byte("Bearer " + canary)),
		"hex":         hex.EncodeToString([]byte(canary)),
		"json":        strings.Trim(string(jsonText(t, canary)), `"`),
		"bearer json": strings.Trim(string(jsonText(t, "Bearer "+canary)), `"`),
	}
	for name, data := range sinks {
		require.NotEmpty(t, data, "sink %s is empty: the capture is broken", name)
		for form, v := range forms {
			require.False(t, bytes.Contains(data, []byte(v)), "the secret (%s form) reached %s:\n%s", form, name, clipText(data))
		}
	}
}

func jsonText(t *testing.T, s string) []byte {
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return b
}

func clipText(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// spanCollector is an OTLP/HTTP endpoint that keeps every span export it
// receives, for the canary tests to search: spans returns a copy of all
// of them so far.
func spanCollector(t *testing.T) (collector *httptest.Server, spans func() []byte) {
	var mu sync.Mutex
	var got bytes.Buffer
	collector = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got.Write(b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(collector.Close)
	return collector, func() []byte {
		mu.Lock()
		defer mu.Unlock()
		return bytes.Clone(got.Bytes())
	}
}
