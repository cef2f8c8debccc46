package main_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/fsblob"
	"github.com/airlockrt/airlock/durable"
)

// TestTenantSecretsCanary runs `airlock serve` with one HTTP tool set whose
// Authorization header is "Bearer ${tenant:crm_token}", read from a
// directory of mounted Kubernetes secrets, and three tenants' chains at
// once: acme and globex each have their own token, initech has none. The
// upstream records the header each call brought: acme's calls carry acme's
// token and globex's globex's, initech's calls are refused
// credential_unavailable without reaching it while the other two finish.
// The upstreams reflect the token in every way they can (echoed headers,
// base64, an error body, a large body stored as an artifact), one call of
// each chain parks for approval (mode park), and then every sink is
// searched for either token in every encoding: chain views, console logs,
// events, approvals, artifacts, tools, metrics, the debug log and span
// output, the OTLP spans received, every file of the store, and the
// decrypted parked states.
func TestTenantSecretsCanary(t *testing.T) {
	token := func(tenant string) string {
		raw := make([]byte, 16)
		_, _ = rand.Read(raw)
		return "tnt-" + tenant + "<" + hex.EncodeToString(raw) + "&x"
	}
	tokens := map[string]string{"acme": token("acme"), "globex": token("globex")}
	secrets := t.TempDir()
	for tenant, v := range tokens {
		mountSecret(t, filepath.Join(secrets, tenant), map[string]string{"crm_token": v + "\n"})
	}
	require.NoError(t, os.MkdirAll(filepath.Join(secrets, "initech"), 0o755), "initech's directory exists, its secret does not")

	type call struct{ who, auth string }
	var mu sync.Mutex
	var calls []call
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct {
			Who string `json:"who"`
		}
		_ = json.Unmarshal(body, &in)
		if in.Who == "" {
			in.Who = r.URL.Query().Get("who")
		}
		mu.Lock()
		calls = append(calls, call{in.Who, r.Header.Get("Authorization")})
		mu.Unlock()
		auth := r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/echo", "/write":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"headers": r.Header, "body": string(body),
				"b64": base64.StdEncoding.EncodeToString([]byte(auth)), "url": url.QueryEscape(auth)})
		case "/fail":
			http.Error(w, "upstream rejected "+auth, http.StatusUnauthorized)
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, strings.Repeat("padding ", 1500)+"token="+auth+" upper="+strings.ToUpper(auth))
		}
	}))
	defer upstream.Close()

	collector, spans := spanCollector(t)

	const fleetKey = "tenant-secrets-fleet-key-0123456789abcdef"
	keys := map[string]string{"acme": "acme-tenant-key-0123456789", "globex": "globex-tenant-key-0123456789", "initech": "initech-tenant-key-0123456789"}
	storeDir := t.TempDir()
	tool := func(name, path, risk string) string {
		return fmt.Sprintf(`
    - name: %s
      description: calls the CRM
      url: %s%s
      method: POST
      risk: %s
      headers: {Authorization: "Bearer ${tenant:crm_token}"}
      input_schema: {type: object, properties: {who: {type: string}}}`, name, upstream.URL, path, risk)
	}
	cfg := fmt.Sprintf(`
store: {kind: fs, dir: %q}
tracing: {exporter: otlp, insecure: true, endpoint: %q}
approval: {mode: park}
fleet: {key: %q, allow_unlocked_store: true}
tenant_secrets: {dir: %q}
server:
  log_level: debug
  api_keys:
    - {key: %q, tenant: acme}
    - {key: %q, tenant: globex}
    - {key: %q, tenant: initech}
tools:
  builtin: []
  http:%s%s%s%s
`, storeDir, strings.TrimPrefix(collector.URL, "http://"), fleetKey, secrets, keys["acme"], keys["globex"], keys["initech"],
		tool("crm_echo", "/echo", "SAFE"), tool("crm_fail", "/fail", "SAFE"), tool("crm_big", "/big", "SAFE"), tool("crm_write", "/write", "HIGH"))
	s := serve(t, cfg)
	c := api{t: t, url: s.url}

	script := func(who string) string {
		return fmt.Sprintf(`
		const who = %q, out = {};
		try { out.echo = await tools.crm_echo({who}); console.log("echo", JSON.stringify(out.echo)); }
		catch (e) { out.echo = [e.reason, e.message]; console.error("echo", e.message, e.stack); return out; }
		try { await tools.crm_fail({who}); } catch (e) { out.fail = [e.reason, e.message]; console.error("fail", e.message, JSON.stringify(e)); }
		const big = await tools.crm_big({who});
		out.big = typeof big === "string" ? big.slice(-160) : big;
		console.log("big", JSON.stringify(out.big));
		out.write = await tools.crm_write({who});
		console.log("write", JSON.stringify(out.write));
		return out;`, who)
	}
	sinks := map[string][]byte{}
	ids := map[string]string{}
	for _, tenant := range []string{"acme", "globex", "initech"} {
		sub := c.json("POST", "/v1/chains?async=1", keys[tenant], map[string]any{"script": script(tenant)})
		require.Equal(t, http.StatusAccepted, sub.code, "%s", sub.body)
		sinks["POST /v1/chains "+tenant] = sub.body
		ids[tenant] = sub.field(t, "id").(string)
	}

	// initech ends at once, refused, while the others run on.
	done := c.waitChain(keys["initech"], ids["initech"])
	sinks["GET /v1/chains/{id} initech"] = done.body
	require.Equal(t, "ok", done.field(t, "result", "status"), "%s", done.body)
	refused := done.field(t, "result", "value", "echo").([]any)
	require.Equal(t, "credential_unavailable", refused[0], "%s", done.body)
	require.Equal(t, `tool "crm_echo": credential ${tenant:crm_token} is not available: it is not set for this tenant; the call was not sent`, refused[1])
	require.NotContains(t, string(done.body), secrets, "no host path reaches the chain")

	// acme and globex park on crm_write: their parked states, decrypted,
	// hold no token.
	blobs := blobstore.New(mustFS(t, storeDir), blobstore.Options{})
	fleet, err := durable.New(durable.Options{Blobs: blobs, Key: []byte(fleetKey), AllowUnlockedStore: true})
	require.NoError(t, err)
	for _, tenant := range []string{"acme", "globex"} {
		v := c.waitStatus(keys[tenant], ids[tenant], "parked")
		sinks["GET /v1/chains/{id} parked "+tenant] = v.body
		p, err := fleet.LoadPark(context.Background(), tenant, ids[tenant], 1)
		require.NoError(t, err, "the parked state of %s", tenant)
		require.NotEmpty(t, p.State)
		sinks["parked state "+tenant] = p.State
		list := c.do("GET", "/v1/approvals", keys[tenant], "", nil)
		sinks["GET /v1/approvals "+tenant] = list.body
		pending := v.field(t, "pending").([]any)
		require.Len(t, pending, 1)
		a := pending[0].(map[string]any)
		one := c.do("GET", "/v1/approvals/"+a["id"].(string), keys[tenant], "", nil)
		sinks["GET /v1/approvals/{id} "+tenant] = one.body
		d := c.json("POST", "/v1/approvals/"+a["id"].(string), keys[tenant], map[string]any{"decision": "approve", "args_hash": a["args_hash"]})
		require.Equal(t, http.StatusOK, d.code, "%s", d.body)
		sinks["POST /v1/approvals/{id} "+tenant] = d.body
	}
	require.NoError(t, blobs.Close())
	for _, tenant := range []string{"acme", "globex"} {
		done := c.waitStatus(keys[tenant], ids[tenant], "ok")
		sinks["GET /v1/chains/{id} "+tenant] = done.body
		require.Equal(t, "ok", done.field(t, "result", "status"), "%s", done.body)
		require.Equal(t, "tool_error", done.field(t, "result", "value", "fail").([]any)[0])
		require.NotNil(t, done.field(t, "result", "value", "write"))
		logs, _ := done.field(t, "result", "logs").([]any)
		require.NotEmpty(t, logs)
		b, err := json.Marshal(logs)
		require.NoError(t, err)
		sinks["chain console log "+tenant] = b
		arts, _ := done.field(t, "result", "artifacts").([]any)
		require.NotEmpty(t, arts, "the large body was stored as an artifact")
		for i, a := range arts {
			ref := a.(map[string]any)["$artifact"].(string)
			got := c.do("GET", "/v1/artifacts/"+ref, keys[tenant], "", nil)
			require.Equal(t, http.StatusOK, got.code)
			sinks[fmt.Sprintf("GET /v1/artifacts/%d %s", i, tenant)] = got.body
		}
	}
	for tenant, id := range ids {
		var evs bytes.Buffer
		for ev := range c.events(keys[tenant], id) {
			fmt.Fprintf(&evs, "%s %s\n", ev.name, ev.data)
		}
		sinks["GET /v1/chains/{id}/events "+tenant] = evs.Bytes()
		require.Contains(t, evs.String(), "tool.after")
	}
	require.Contains(t, string(sinks["GET /v1/chains/{id}/events initech"]), "credential_unavailable")
	for _, path := range []string{"/v1/tools", "/v1/tools.d.ts", "/metrics"} {
		got := c.do("GET", path, keys["acme"], "", nil)
		require.Equal(t, http.StatusOK, got.code, path)
		sinks["GET "+path] = got.body
	}
	require.Contains(t, string(sinks["GET /metrics"]), `reason="credential_unavailable"`, "the refusal is counted")
	require.Equal(t, 0, s.stop(t, 20*time.Second), s.logs())
	sinks["process log and span output (debug)"] = []byte(s.logs())
	sinks["OTLP spans received"] = spans()
	require.NoError(t, filepath.WalkDir(storeDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sinks["store file "+strings.TrimPrefix(p, storeDir)] = b
		return nil
	}))

	// Each tenant's calls carried its own token, and initech's none.
	mu.Lock()
	got := map[string]map[string]int{}
	for _, c := range calls {
		if got[c.who] == nil {
			got[c.who] = map[string]int{}
		}
		got[c.who][c.auth]++
	}
	mu.Unlock()
	require.Equal(t, map[string]map[string]int{
		"acme":   {"Bearer " + tokens["acme"]: 4},
		"globex": {"Bearer " + tokens["globex"]: 4},
	}, got, "each tenant's calls brought its own token; initech's reached nothing")

	for _, canary := range tokens {
		forms := map[string]string{
			"raw":         canary,
			"upper":       strings.ToUpper(canary),
			"base64":      base64.StdEncoding.EncodeToString([]byte(canary)),
			"base64url":   base64.URLEncoding.EncodeToString([]byte(canary)),
			"bearer b64":  base64.StdEncoding.EncodeToString([]byte("Bearer " + canary)),
			"hex":         hex.EncodeToString([]byte(canary)),
			"url":         url.QueryEscape(canary),
			"json":        strings.Trim(string(jsonText(t, canary)), `"`),
			"bearer json": strings.Trim(string(jsonText(t, "Bearer "+canary)), `"`),
			"fragment":    canary[4:20],
		}
		for name, data := range sinks {
			require.NotEmpty(t, data, "sink %s is empty: the capture is broken", name)
			for form, v := range forms {
				require.False(t, bytes.Contains(data, []byte(v)), "the secret (%s form) reached %s:\n%s", form, name, clipText(data))
			}
		}
	}
}

// mountSecret lays dir out as the kubelet mounts a Secret: each key a link
// to ..data/<key>, ..data a link to a timestamped directory.
func mountSecret(t *testing.T, dir string, values map[string]string) {
	t.Helper()
	ts := "..2026_11_27_21_00_00.000000001"
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ts), 0o755))
	for k, v := range values {
		require.NoError(t, os.WriteFile(filepath.Join(dir, ts, k), []byte(v), 0o600))
		require.NoError(t, os.Symlink(filepath.Join("..data", k), filepath.Join(dir, k)))
	}
	require.NoError(t, os.Symlink(ts, filepath.Join(dir, "..data")))
}

func mustFS(t *testing.T, dir string) *fsblob.Driver {
	t.Helper()
	d, err := fsblob.New(dir)
	require.NoError(t, err)
	return d
}

// waitStatus polls the chain until its status is want.
func (c api) waitStatus(key, id, want string) answer {
	c.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		a := c.do("GET", "/v1/chains/"+id, key, "", nil)
		require.Equal(c.t, http.StatusOK, a.code, "%s", a.body)
		if s := a.field(c.t, "status"); s == want {
			if p, _ := a.field(c.t, "pending").([]any); len(p) > 0 || want != "parked" {
				return a
			}
		}
	}
	c.t.Fatalf("chain %s did not become %s", id, want)
	return answer{}
}
