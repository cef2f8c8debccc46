package main_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
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
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/oidctest"
)

// TestDelegatedIdentityCanary runs `airlock serve` against a real RFC 8693
// token service (zitadel's op on 127.0.0.1) with HTTP tools of audience
// crm, and three tenants' chains at once, each acting for its own user:
// acme for alice, globex for bob, initech for carol with an expired token.
// The upstream accepts only tokens the service issued for crm and
// records whose they are: acme's calls act for alice, globex's for bob, no
// subject token ever reaches it; initech's first call is refused
// credential_expired and, the fleet parking (approval.mode park), parks
// the chain with a credential_required event; once the test hands it a
// fresh token (POST /v1/chains/{id}/identity) the chain resumes and the
// call runs again, acting for carol, the script never seeing a refusal.
// Each chain then parks for an approval: the parked state holds no token,
// and the resumed stretch has no identity, so its next crm call parks the
// chain again until it is handed one. The upstreams reflect the exchanged token in every way
// they can, and every sink is then searched for every subject and
// exchanged token in every encoding: chain views, console logs, events,
// approvals, artifacts, tools, metrics, the debug log and span output, the
// OTLP spans received, every file of the store, and the decrypted parked
// states.
func TestDelegatedIdentityCanary(t *testing.T) {
	op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}, "bob": {"crm"}, "carol": {"crm"}}})
	users := map[string]string{"acme": "alice", "globex": "bob", "initech": "carol"}
	subjects := map[string]string{
		"acme": op.Subject("alice", time.Hour), "globex": op.Subject("bob", time.Hour), "initech": op.Subject("carol", -time.Minute),
	}
	fresh := map[string]string{} // handed to the running chains later
	for tenant, user := range users {
		fresh[tenant] = op.Subject(user, time.Hour)
	}

	type call struct{ who, subject, auth string }
	var mu sync.Mutex
	var calls []call
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct {
			Who string `json:"who"`
		}
		_ = json.Unmarshal(body, &in)
		auth := r.Header.Get("Authorization")
		if r.URL.Path == "/plain" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `"done"`)
			return
		}
		tok, _ := strings.CutPrefix(auth, "Bearer ")
		is, err := op.Verify(tok, "crm")
		mu.Lock()
		calls = append(calls, call{in.Who, is.Subject, auth})
		mu.Unlock()
		if err != nil {
			http.Error(w, "not a crm token", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/echo":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"subject": is.Subject, "headers": r.Header,
				"b64": base64.StdEncoding.EncodeToString([]byte(auth)), "url": url.QueryEscape(auth)})
		case "/fail":
			http.Error(w, "upstream rejected "+auth, http.StatusForbidden)
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, strings.Repeat("padding ", 1500)+"token="+auth+" upper="+strings.ToUpper(auth))
		}
	}))
	defer upstream.Close()

	collector, spans := spanCollector(t)

	const fleetKey = "delegated-fleet-key-0123456789abcdef-0123"
	keys := map[string]string{"acme": "acme-tenant-key-0123456789", "globex": "globex-tenant-key-0123456789", "initech": "initech-tenant-key-0123456789"}
	storeDir := t.TempDir()
	tool := func(name, path, risk, audience string) string {
		return fmt.Sprintf(`
    - {name: %s, description: calls the CRM, url: "%s%s", method: POST, risk: %s, %s
       input_schema: {type: object, properties: {who: {type: string}}}}`, name, upstream.URL, path, risk, audience)
	}
	const aud = "audience: crm, scopes: [crm.read],"
	cfg := fmt.Sprintf(`
store: {kind: fs, dir: %q}
tracing: {exporter: otlp, insecure: true, endpoint: %q}
approval: {mode: park}
policy: {max_tool_calls: 1000}
fleet: {key: %q, allow_unlocked_store: true}
identity:
  token_exchange: {token_url: %q, client_id: %q, client_secret: "${env:CANARY_STS_SECRET}"}
server:
  log_level: debug
  api_keys:
    - {key: %q, tenant: acme}
    - {key: %q, tenant: globex}
    - {key: %q, tenant: initech}
tools:
  builtin: []
  http:%s%s%s%s
`, storeDir, strings.TrimPrefix(collector.URL, "http://"), fleetKey, op.TokenURL, op.ClientID, keys["acme"], keys["globex"], keys["initech"],
		tool("crm_echo", "/echo", "SAFE", aud), tool("crm_fail", "/fail", "SAFE", aud), tool("crm_big", "/big", "SAFE", aud), tool("approve_me", "/plain", "HIGH", ""))
	s := serve(t, cfg, "CANARY_STS_SECRET="+op.ClientSecret)
	c := api{t: t, url: s.url}

	script := func(who string) string {
		return fmt.Sprintf(`
		const who = %q, out = {refused: []};
		async function retry(f) {
		  for (let i = 0; i < 300; i++) {
		    try { return await f(); }
		    catch (e) {
		      if (e.reason !== "credential_expired" && e.reason !== "credential_unavailable") throw e;
		      if (out.refused.length < 4) { out.refused.push([e.reason, e.message]); console.error("refused", e.message, JSON.stringify(e)); }
		      await new Promise(r => setTimeout(r, 100));
		    }
		  }
		  throw new Error("no identity came");
		}
		out.echo = await retry(() => tools.crm_echo({who}));
		console.log("echo", JSON.stringify(out.echo));
		try { await tools.crm_fail({who}); } catch (e) { out.fail = [e.reason, e.message]; console.error("fail", e.message, JSON.stringify(e)); }
		const big = await tools.crm_big({who});
		out.big = typeof big === "string" ? big.slice(-160) : big;
		console.log("big", JSON.stringify(out.big));
		out.write = await tools.approve_me({who});
		out.after = await retry(() => tools.crm_echo({who}));
		console.log("after", JSON.stringify(out.after));
		return out;`, who)
	}
	sinks := map[string][]byte{}
	ids := map[string]string{}
	for _, tenant := range []string{"acme", "globex", "initech"} {
		sub := c.json("POST", "/v1/chains?async=1", keys[tenant], map[string]any{"script": script(tenant),
			"identity": map[string]string{"subject_token": subjects[tenant]}})
		require.Equal(t, http.StatusAccepted, sub.code, "%s", sub.body)
		sinks["POST /v1/chains "+tenant] = sub.body
		ids[tenant] = sub.field(t, "id").(string)
	}

	// waitRequired reads the chain's stream until a credential_required
	// event with reason, and returns its data.
	waitRequired := func(tenant, reason string) string {
		ch := c.events(keys[tenant], ids[tenant])
		defer func() {
			go func() {
				for range ch {
				}
			}()
		}()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case ev, ok := <-ch:
				require.True(t, ok, "the stream of %s ended without credential_required", tenant)
				if ev.name == "credential_required" && strings.Contains(ev.data, `"reason":"`+reason+`"`) {
					return ev.data
				}
			case <-timeout:
				t.Fatalf("no credential_required (%s) for %s", reason, tenant)
			}
		}
	}
	// handIdentity posts a fresh identity until the chain takes it (409
	// chain_parked while it is parked for its approval); a chain parked
	// for a credential resumes with it.
	handIdentity := func(tenant string) {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			r := c.json("POST", "/v1/chains/"+ids[tenant]+"/identity", keys[tenant], map[string]string{"subject_token": fresh[tenant]})
			if r.code == http.StatusNoContent {
				return
			}
			require.Equal(t, http.StatusConflict, r.code, "%s", r.body)
			sinks["POST /v1/chains/{id}/identity 409 "+tenant] = r.body
		}
		t.Fatalf("the chain of %s never took its identity", tenant)
	}

	// initech's token is refused: the chain parks for a fresh one, which
	// resumes it and runs the call again.
	data := waitRequired("initech", "credential_expired")
	require.JSONEq(t, `{"seq":1,"tool":"crm_echo","audience":"crm","reason":"credential_expired","parked":true}`, data)
	v := c.waitStatus(keys["initech"], ids["initech"], "parked")
	sinks["GET /v1/chains/{id} parked for a credential"] = v.body
	pending := v.field(t, "pending").([]any)[0].(map[string]any)
	require.Equal(t, "credential", pending["kind"], "%s", v.body)
	require.Equal(t, "credential_expired", pending["rule"], "%s", v.body)
	handIdentity("initech")

	// Each parks on approve_me: the parked states, decrypted, hold no
	// token. Approved, each resumes without an identity until handed one.
	blobs := blobstore.New(mustFS(t, storeDir), blobstore.Options{})
	fleet, err := durable.New(durable.Options{Blobs: blobs, Key: []byte(fleetKey), AllowUnlockedStore: true})
	require.NoError(t, err)
	for _, tenant := range []string{"acme", "globex", "initech"} {
		var v answer
		var rec *durable.Chain
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			require.True(t, time.Now().Before(deadline), "the chain of %s did not park on its approval", tenant)
			v = c.waitStatus(keys[tenant], ids[tenant], "parked")
			var err error
			rec, err = fleet.GetChain(context.Background(), tenant, ids[tenant])
			if err == nil && rec.Status == durable.StatusParked && len(rec.Pending) == 1 && rec.Pending[0].Kind == "" {
				break
			}
		}
		sinks["GET /v1/chains/{id} parked "+tenant] = v.body
		p, err := fleet.LoadPark(context.Background(), tenant, ids[tenant], rec.Gen)
		require.NoError(t, err, "the parked state of %s", tenant)
		require.NotEmpty(t, p.State)
		sinks["parked state "+tenant] = p.State
		r := c.json("POST", "/v1/chains/"+ids[tenant]+"/identity", keys[tenant], map[string]string{"subject_token": fresh[tenant]})
		require.Equal(t, http.StatusConflict, r.code, "%s", r.body)
		require.Contains(t, string(r.body), `"chain_parked"`)
		list := c.do("GET", "/v1/approvals", keys[tenant], "", nil)
		sinks["GET /v1/approvals "+tenant] = list.body
		a := v.field(t, "pending").([]any)[0].(map[string]any)
		one := c.do("GET", "/v1/approvals/"+a["id"].(string), keys[tenant], "", nil)
		sinks["GET /v1/approvals/{id} "+tenant] = one.body
		d := c.json("POST", "/v1/approvals/"+a["id"].(string), keys[tenant], map[string]any{"decision": "approve", "args_hash": a["args_hash"]})
		require.Equal(t, http.StatusOK, d.code, "%s", d.body)
		sinks["POST /v1/approvals/{id} "+tenant] = d.body
		// The resumed stretch has no identity: its crm call parks the chain
		// for one (a stream that follows the chain sees the park's status
		// event; the stretch's credential_required went to the streams
		// open while it ran).
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			require.True(t, time.Now().Before(deadline), "the chain of %s did not park for a credential", tenant)
			rec, err := fleet.GetChain(context.Background(), tenant, ids[tenant])
			if err == nil && rec.Status == durable.StatusParked && len(rec.Pending) == 1 && rec.Pending[0].Kind == durable.KindCredential {
				require.Equal(t, "credential_unavailable", rec.Pending[0].Rule)
				require.Equal(t, "crm_echo", rec.Pending[0].Tool)
				break
			}
		}
		handIdentity(tenant)
	}
	require.NoError(t, blobs.Close())

	for _, tenant := range []string{"acme", "globex", "initech"} {
		done := c.waitChain(keys[tenant], ids[tenant])
		sinks["GET /v1/chains/{id} "+tenant] = done.body
		require.Equal(t, "ok", done.field(t, "result", "status"), "%s", done.body)
		require.Equal(t, users[tenant], done.field(t, "result", "value", "echo", "subject"), "%s", done.body)
		require.Equal(t, users[tenant], done.field(t, "result", "value", "after", "subject"), "%s", done.body)
		require.Equal(t, "tool_error", done.field(t, "result", "value", "fail").([]any)[0])
		require.Empty(t, done.field(t, "result", "value", "refused"), "each refusal parked the chain: the script saw none: %s", done.body)
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
	}
	for _, path := range []string{"/v1/tools", "/v1/tools.d.ts", "/metrics"} {
		got := c.do("GET", path, keys["acme"], "", nil)
		require.Equal(t, http.StatusOK, got.code, path)
		sinks["GET "+path] = got.body
	}
	require.Contains(t, string(sinks["GET /metrics"]), `transition="resumed"`, "the resumes are counted")
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

	// Every crm call carried an exchanged token of its tenant's user, and
	// never a subject token.
	canaries := map[string]bool{}
	for _, v := range subjects {
		canaries[v] = true
	}
	for _, v := range fresh {
		canaries[v] = true
	}
	subjectTokens := maps.Clone(canaries)
	mu.Lock()
	for _, cl := range calls {
		require.Equal(t, users[cl.who], cl.subject, "a call of %s acted for %q", cl.who, cl.subject)
		tok := strings.TrimPrefix(cl.auth, "Bearer ")
		require.False(t, subjectTokens[tok], "a subject token reached the upstream")
		canaries[tok] = true
	}
	require.Len(t, canaries, len(subjectTokens)+5, "an exchanged token per (tenant, subject token): acme and globex before and after the park, initech its fresh one, cached across the park")
	require.Len(t, calls, 3*4, "echo, fail, big and the resumed echo of each tenant")
	mu.Unlock()

	for canary := range canaries {
		forms := map[string]string{
			"raw":        canary,
			"upper":      strings.ToUpper(canary),
			"base64":     base64.StdEncoding.EncodeToString([]byte(canary)),
			"base64url":  base64.URLEncoding.EncodeToString([]byte(canary)),
			"bearer b64": base64.StdEncoding.EncodeToString([]byte("Bearer " + canary)),
			"hex":        hex.EncodeToString([]byte(canary)),
			"url":        url.QueryEscape(canary),
			"json":       strings.Trim(string(jsonText(t, canary)), `"`),
			"fragment":   canary[4:20],
		}
		for name, data := range sinks {
			require.NotEmpty(t, data, "sink %s is empty: the capture is broken", name)
			for form, v := range forms {
				require.False(t, bytes.Contains(data, []byte(v)), "a token (%s form) reached %s:\n%s", form, name, clipText(data))
			}
		}
	}
}
