package server_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/internal/enginetest"
	"github.com/airlockrt/airlock/internal/metrics"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// scripts is the test binary's one script engine.
func scripts(t testing.TB) *sandbox.ScriptEngine { return enginetest.Scripts(t) }

const (
	keyAcme   = "acme-key-0123456789abcdef"
	keyGlobex = "globex-key-0123456789abcdef"
)

type env struct {
	srv   *server.Server
	svc   *service.Service
	http  *httptest.Server
	store *blobstore.Store
	reg   *prometheus.Registry
	spans *tracetest.SpanRecorder
	inv   *invoker.Invoker
}

// setup is what a test may adjust before newEnv builds the server: its
// options, and the parts of the process's one invoker (as internal/assemble
// builds it for airlock serve).
type setup struct {
	service.Options
	httpOptions
	// Authenticate, KeyRole and Profile make the service's Keys: the
	// tenant, role (default all) and profile of an API key. Without
	// Authenticate the service has no keys, and Profile("") is the local
	// caller's profile.
	Authenticate func(key string) (string, bool)
	KeyRole      func(key string) service.Role
	Profile      func(key string) *service.Profile
	// Store is the store of artifacts and offloaded results.
	Store *blobstore.Store
	// TracerProvider records the chain and tool spans; ApprovalMode is
	// recorded on them.
	TracerProvider trace.TracerProvider
	ApprovalMode   string
	Policy         invoker.Policy
	Approver       invoker.ApprovalHandler
	Modules        *sandbox.ModuleEngine
	// Tools are registered besides the demo tools.
	Tools []toolbox.Tool
	// MaxResolvingBytes is the invoker's process-wide cap.
	MaxResolvingBytes int64
	// MaxTenantArtifactBytes is the invoker's per-tenant artifact quota.
	MaxTenantArtifactBytes int64
	// Shared, when set, is the store instead of one of the env's own: the
	// bucket several processes share (the test closes it).
	Shared *blobstore.Store
	// Wrap, when set, wraps the server's handler (the OpenAPI check of
	// every answer, openapi_test.go).
	Wrap func(http.Handler) http.Handler
}

// httpOptions names the HTTP face's options in setup.
type httpOptions = server.Options

// newEnv starts a server over the demo tools with two API keys; edit
// adjusts its setup.
func newEnv(t *testing.T, edit func(*setup)) *env {
	t.Helper()
	e := &env{store: blobstore.New(memblob.New(), blobstore.Options{}), reg: prometheus.NewRegistry(), spans: tracetest.NewSpanRecorder()}
	box, _ := demo.Toolbox()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(e.spans))
	o := setup{Options: service.Options{
		ToolSets:        map[string][]string{"demo": demo.Names},
		Queue:           approval.NewQueue(approval.Options{}),
		Registerer:      e.reg,
		MaxRequestBytes: 64 << 10,
	}, Store: e.store, httpOptions: httpOptions{Gatherer: e.reg},
		Authenticate: func(key string) (string, bool) {
			switch key {
			case keyAcme:
				return "acme", true
			case keyGlobex:
				return "globex", true
			}
			return "", false
		},
		TracerProvider: tp,
	}
	if edit != nil {
		edit(&o)
	}
	if o.Shared != nil {
		e.store, o.Store = o.Shared, o.Shared
	}
	for _, tool := range o.Tools {
		require.NoError(t, box.Add(tool))
	}
	var err error
	approver := o.Approver
	if approver == nil {
		approver = o.Queue
	}
	m, err := metrics.New(e.reg, box, func() int64 { return e.inv.Abandoned() })
	require.NoError(t, err)
	tracer := tracing.New(o.TracerProvider, cmp.Or(o.ApprovalMode, "queue"))
	e.inv, err = invoker.New(box, invoker.Options{
		Policy: o.Policy, Approver: m.Approver(approver), Store: m.Store(e.store),
		Hooks: invoker.Hooks{OnToolEnd: func(ctx context.Context, ev invoker.Event) {
			m.ToolEnd(ev)
			tracer.ToolEnd(ctx, ev)
		}},
		Progress:               m.Progress(),
		MaxResolvingBytes:      o.MaxResolvingBytes,
		MaxTenantArtifactBytes: o.MaxTenantArtifactBytes,
	})
	require.NoError(t, err)
	require.NoError(t, metrics.NewHealth(e.reg, box, e.inv.Governor().Health()))
	runner, err := chain.New(e.inv, chain.Engines{Scripts: scripts(t), Modules: o.Modules})
	require.NoError(t, err)
	o.Tracer = tracer
	if o.Authenticate != nil {
		o.Keys = func(key string) (service.Caller, bool) {
			tenant, ok := o.Authenticate(key)
			if !ok {
				return service.Caller{}, false
			}
			c := service.Caller{Tenant: tenant, Role: service.RoleAll}
			if o.KeyRole != nil {
				c.Role = o.KeyRole(key)
			}
			if o.Profile != nil {
				c.Profile = o.Profile(key)
			}
			return c, true
		}
	} else if o.Profile != nil {
		o.DefaultProfile = o.Profile("")
	}
	e.svc, err = service.New(runner, o.Options)
	require.NoError(t, err)
	e.svc.Start(context.Background())
	o.httpOptions.Store = o.Store
	e.srv, err = server.New(e.svc, o.httpOptions)
	require.NoError(t, err)
	h := e.srv.Handler()
	if o.Wrap != nil {
		h = o.Wrap(h)
	}
	e.http = httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.srv.Shutdown(ctx)
		e.http.Close()
		if o.Shared == nil {
			_ = e.store.Close()
		}
	})
	return e
}

type reply struct {
	code int
	body []byte
	hdr  http.Header
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "%s", r.body)
	return m
}

// reason returns the error reason of an error reply.
func (r reply) reason(t *testing.T) string {
	t.Helper()
	var e struct {
		Error struct{ Reason, Message string }
	}
	require.NoError(t, json.Unmarshal(r.body, &e), "%s", r.body)
	require.NotEmpty(t, e.Error.Message, "%s", r.body)
	return e.Error.Reason
}

func (e *env) do(t *testing.T, method, path, key string, body any) reply {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.http.URL+path, rd)
	require.NoError(t, err)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return reply{code: resp.StatusCode, body: b, hdr: resp.Header}
}

func (e *env) submit(t *testing.T, key string, req map[string]any, async bool) service.ChainView {
	t.Helper()
	path := "/v1/chains"
	want := http.StatusOK
	if async {
		path, want = path+"?async=1", http.StatusAccepted
	}
	r := e.do(t, "POST", path, key, req)
	require.Equal(t, want, r.code, "%s", r.body)
	var v service.ChainView
	require.NoError(t, json.Unmarshal(r.body, &v))
	return v
}

// view reads chain id.
func (e *env) view(t *testing.T, key, id string) service.ChainView {
	t.Helper()
	r := e.do(t, "GET", "/v1/chains/"+id, key, nil)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var v service.ChainView
	require.NoError(t, json.Unmarshal(r.body, &v))
	return v
}

func (e *env) wait(t *testing.T, key, id string) service.ChainView {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		r := e.do(t, "GET", "/v1/chains/"+id, key, nil)
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		var v service.ChainView
		require.NoError(t, json.Unmarshal(r.body, &v))
		if v.Status != "running" && v.Status != "waiting_approval" {
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("chain %s still running", id)
	return service.ChainView{}
}

// pending waits for the one pending approval of key's tenant.
func (e *env) pending(t *testing.T, key string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var list struct{ Approvals []map[string]any }
		r := e.do(t, "GET", "/v1/approvals", key, nil)
		require.Equal(t, http.StatusOK, r.code)
		require.NoError(t, json.Unmarshal(r.body, &list))
		if len(list.Approvals) > 0 {
			return list.Approvals[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no approval request appeared")
	return nil
}

// metric returns the value of one sample of the registry, or 0.
func (e *env) metric(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := e.reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
					continue metrics
				}
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			}
		}
	}
	return 0
}

type sse struct {
	id   string
	name string
	data string
}

// stream reads the chain's events until done or the stream ends.
func (e *env) stream(t *testing.T, key, id, lastEventID string) <-chan sse {
	t.Helper()
	req, err := http.NewRequest("GET", e.http.URL+"/v1/chains/"+id+"/events", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	out := make(chan sse, 64)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sse
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					out <- ev
				}
				ev = sse{}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[6:]
			}
		}
	}()
	return out
}

// next returns the stream's next event, skipping the governance lifecycle
// events (tool.before, policy.before, …; TestLifecycleEventsStreamed).
func next(t *testing.T, ch <-chan sse) sse {
	t.Helper()
	for {
		select {
		case ev, ok := <-ch:
			require.True(t, ok, "the stream ended")
			if lifecycle(ev) {
				continue
			}
			return ev
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10s")
		}
		return sse{}
	}
}

// lifecycle reports whether ev is a governance lifecycle event.
func lifecycle(ev sse) bool { return strings.Contains(ev.name, ".") }

const approvalScript = `
try {
  const sent = await tools.send_message({ to: "ops@example.com", text: "hi" });
  return { sent: true, to: sent.to };
} catch (e) {
  return { sent: false, reason: e.reason };
}`

func TestSyncChainAndTenantIsolation(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `
		const r = await Promise.all(["artifact", "approval"].map(q => tools.search_docs({query: q, limit: 1})));
		console.log("two searches");
		return r.length;`}, false)
	require.Equal(t, "ok", v.Status)
	require.Equal(t, "acme", v.Tenant)
	require.Equal(t, "javascript", v.Language)
	require.JSONEq(t, `2`, string(v.Result.Value))
	require.Len(t, v.Result.Trace, 2)
	require.Equal(t, v.ID, v.Result.ID)

	got := e.do(t, "GET", "/v1/chains/"+v.ID, keyAcme, nil)
	require.Equal(t, http.StatusOK, got.code)
	require.Equal(t, "ok", got.json(t)["status"])

	// Another tenant sees nothing: 404, never 403.
	for _, r := range []reply{
		e.do(t, "GET", "/v1/chains/"+v.ID, keyGlobex, nil),
		e.do(t, "DELETE", "/v1/chains/"+v.ID, keyGlobex, nil),
	} {
		require.Equal(t, http.StatusNotFound, r.code)
		require.Equal(t, server.ReasonChainNotFound, r.reason(t))
	}
	// TypeScript.
	v = e.submit(t, keyGlobex, map[string]any{"script": `const n: number = 40; return n + 2;`, "language": "typescript"}, false)
	require.Equal(t, "ok", v.Status, v.Result)
	require.JSONEq(t, `42`, string(v.Result.Value))
	require.Equal(t, 2.0, e.metric(t, "airlock_chains_total", map[string]string{"status": "ok"}))
	require.Equal(t, 2.0, e.metric(t, "airlock_tool_calls_total", map[string]string{"tool": "search_docs", "status": "ok"}))
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, func(o *setup) {
		o.MaxPolicy = invoker.Policy{MaxToolCalls: 50}
	})
	big := `{"script":"` + strings.Repeat("a", 70<<10) + `"}`
	tests := []struct {
		name, method, path, key string
		body                    any
		contentType             string
		code                    int
		reason                  string
	}{
		{"no key", "POST", "/v1/chains", "", `{"script":"return 1"}`, "", 401, server.ReasonUnauthenticated},
		{"wrong key", "POST", "/v1/chains", "not-a-key-at-all-000000", `{"script":"return 1"}`, "", 401, server.ReasonUnauthenticated},
		{"wrong key on a read", "GET", "/v1/tools", "nope", nil, "", 401, server.ReasonUnauthenticated},
		{"malformed json", "POST", "/v1/chains", keyAcme, `{"script":`, "", 400, server.ReasonMalformedJSON},
		{"empty body", "POST", "/v1/chains", keyAcme, ``, "", 400, server.ReasonMalformedJSON},
		{"two objects", "POST", "/v1/chains", keyAcme, `{"script":"return 1"}{}`, "", 400, server.ReasonMalformedJSON},
		{"array", "POST", "/v1/chains", keyAcme, `[1]`, "", 400, server.ReasonMalformedJSON},
		{"unknown field", "POST", "/v1/chains", keyAcme, `{"script":"return 1","scrip":"x"}`, "", 400, server.ReasonUnknownField},
		{"unknown nested field", "POST", "/v1/chains", keyAcme, `{"script":"return 1","policy":{"max_calls":3}}`, "", 400, server.ReasonUnknownField},
		{"wrong type", "POST", "/v1/chains", keyAcme, `{"script":1}`, "", 400, server.ReasonInvalidRequest},
		{"bad duration", "POST", "/v1/chains", keyAcme, `{"script":"return 1","limits":{"timeout":"soon"}}`, "", 400, server.ReasonInvalidRequest},
		{"no script", "POST", "/v1/chains", keyAcme, `{}`, "", 400, server.ReasonInvalidRequest},
		{"oversize body", "POST", "/v1/chains", keyAcme, big, "", 413, server.ReasonBodyTooLarge},
		{"form body", "POST", "/v1/chains", keyAcme, `script=x`, "application/x-www-form-urlencoded", 415, server.ReasonUnsupportedMediaType},
		{"syntax error", "POST", "/v1/chains", keyAcme, `{"script":"const a = 1;\nreturn a +;"}`, "", 400, server.ReasonInvalidScript},
		{"bad language", "POST", "/v1/chains", keyAcme, `{"script":"x","language":"cobol"}`, "", 400, server.ReasonInvalidLanguage},
		{"wasm not enabled", "POST", "/v1/chains", keyAcme, `{"script":"AA==","language":"wasm"}`, "", 400, server.ReasonInvalidLanguage},
		{"input for a script", "POST", "/v1/chains", keyAcme, `{"script":"return 1","input":{"a":1}}`, "", 400, server.ReasonInvalidRequest},
		{"unknown tool set", "POST", "/v1/chains", keyAcme, `{"script":"return 1","tools":["demo","nope"]}`, "", 400, server.ReasonUnknownTools},
		{"policy above the ceiling", "POST", "/v1/chains", keyAcme, `{"script":"return 1","policy":{"max_tool_calls":51}}`, "", 400, server.ReasonAboveLimit},
		{"invalid policy", "POST", "/v1/chains", keyAcme, `{"script":"return 1","policy":{"call_timeout":"10s","approval_timeout":"20s"}}`, "", 400, server.ReasonInvalidPolicy},
		{"zero calls", "POST", "/v1/chains", keyAcme, `{"script":"return 1","policy":{"max_tool_calls":0}}`, "", 400, server.ReasonInvalidRequest},
		{"bad risk", "POST", "/v1/chains", keyAcme, `{"script":"return 1","policy":{"max_risk_unapproved":"MEDIUM"}}`, "", 400, server.ReasonInvalidRequest},
		{"other tenant", "POST", "/v1/chains", keyAcme, `{"script":"return 1","tenant":"globex"}`, "", 403, server.ReasonTenantMismatch},
		{"bad async", "POST", "/v1/chains?async=maybe", keyAcme, `{"script":"return 1"}`, "", 400, server.ReasonInvalidRequest},
		{"async true is not the documented 1", "POST", "/v1/chains?async=true", keyAcme, `{"script":"return 1"}`, "", 400, server.ReasonInvalidRequest},
		{"unknown policy key", "POST", "/v1/chains", keyAcme, `{"script":"return 1","policy":{"memory":"1MiB"}}`, "", 400, server.ReasonUnknownField},
		{"unknown limits key", "POST", "/v1/chains", keyAcme, `{"script":"return 1","limits":{"max_tool_calls":3}}`, "", 400, server.ReasonUnknownField},
		{"limit of the wrong type", "POST", "/v1/chains", keyAcme, `{"script":"return 1","limits":{"memory":true}}`, "", 400, server.ReasonInvalidRequest},

		{"unknown chain", "GET", "/v1/chains/ch_nope", keyAcme, nil, "", 404, server.ReasonChainNotFound},
		{"unknown chain events", "GET", "/v1/chains/ch_nope/events", keyAcme, nil, "", 404, server.ReasonChainNotFound},
		{"unknown approval", "POST", "/v1/approvals/NOPE", keyAcme, `{"decision":"approve","args_hash":"00"}`, "", 404, server.ReasonApprovalNotFound},
		{"bad decision", "POST", "/v1/approvals/NOPE", keyAcme, `{"decision":"maybe","args_hash":"00"}`, "", 400, server.ReasonInvalidRequest},
		{"no args hash", "POST", "/v1/approvals/NOPE", keyAcme, `{"decision":"approve"}`, "", 400, server.ReasonInvalidRequest},
		{"unknown artifact", "GET", "/v1/artifacts/blob_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", keyAcme, nil, "", 404, server.ReasonArtifactNotFound},
		{"no route", "GET", "/v2/anything", keyAcme, nil, "", 404, server.ReasonNotFound},
		{"wrong method", "PUT", "/v1/chains", keyAcme, nil, "", 405, server.ReasonMethodNotAllowed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rd io.Reader
			if tc.body != nil {
				rd = strings.NewReader(tc.body.(string))
			}
			req, err := http.NewRequest(tc.method, e.http.URL+tc.path, rd)
			require.NoError(t, err)
			ct := tc.contentType
			if ct == "" && rd != nil {
				ct = "application/json"
			}
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			if tc.key != "" {
				req.Header.Set("Authorization", "Bearer "+tc.key)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			r := reply{code: resp.StatusCode, body: b}
			require.Equal(t, tc.code, r.code, "%s", b)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			require.Equal(t, tc.reason, r.reason(t), "%s", b)
		})
	}
	r := e.do(t, "POST", "/v1/chains", keyAcme, map[string]any{"script": "const a = 1;\nreturn a +;"})
	var body struct{ Error struct{ Line, Column int } }
	require.NoError(t, json.Unmarshal(r.body, &body))
	require.Equal(t, 2, body.Error.Line)
	require.Equal(t, 11, body.Error.Column)
	// Nothing ran.
	require.Equal(t, 0.0, e.metric(t, "airlock_chains_total", nil))
}

func TestAsyncEventsAndApproval(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": approvalScript}, true)
	// The answer is the chain as it stood: on a busy machine it may
	// already wait for the decision when the 202 is written.
	require.Contains(t, []string{"running", "waiting_approval"}, v.Status)
	events := e.stream(t, keyAcme, v.ID, "")

	ev := next(t, events)
	require.Equal(t, server.EventApprovalRequired, ev.name)
	var req struct {
		ID        string          `json:"id"`
		Tool      string          `json:"tool"`
		ArgsHash  string          `json:"args_hash"`
		SessionID string          `json:"session_id"`
		Args      json.RawMessage `json:"args"`
	}
	require.NoError(t, json.Unmarshal([]byte(ev.data), &req))
	require.Equal(t, "send_message", req.Tool)
	require.Equal(t, v.ID, req.SessionID)
	require.JSONEq(t, `{"to":"ops@example.com","text":"hi"}`, string(req.Args))
	require.Equal(t, "waiting_approval", e.view(t, keyAcme, v.ID).Status, "a chain whose call waits for a decision says so")

	// The other tenant can neither see nor decide it.
	r := e.do(t, "GET", "/v1/approvals", keyGlobex, nil)
	require.JSONEq(t, `{"approvals":[]}`, string(r.body))
	r = e.do(t, "POST", "/v1/approvals/"+req.ID, keyGlobex, map[string]string{"decision": "approve", "args_hash": req.ArgsHash})
	require.Equal(t, http.StatusNotFound, r.code)
	require.Equal(t, server.ReasonApprovalNotFound, r.reason(t))
	r = e.do(t, "GET", "/v1/approvals/"+req.ID, keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code)

	// A decision made on other arguments is refused; the request waits on.
	r = e.do(t, "POST", "/v1/approvals/"+req.ID, keyAcme, map[string]string{"decision": "approve", "args_hash": strings.Repeat("0", 64)})
	require.Equal(t, http.StatusConflict, r.code)
	require.Equal(t, server.ReasonArgsMismatch, r.reason(t))

	r = e.do(t, "POST", "/v1/approvals/"+req.ID, keyAcme, map[string]string{"decision": "approve", "args_hash": req.ArgsHash})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, "approved", r.json(t)["decision"])
	// A second decision is a no-op that says so.
	r = e.do(t, "POST", "/v1/approvals/"+req.ID, keyAcme, map[string]string{"decision": "deny", "args_hash": req.ArgsHash})
	require.Equal(t, http.StatusConflict, r.code)
	require.Equal(t, server.ReasonAlreadyDecided, r.reason(t))
	require.Contains(t, string(r.body), `"decision":"approved"`)

	require.Equal(t, server.EventToolCall, next(t, events).name)
	ev = next(t, events)
	require.Equal(t, server.EventToolResult, ev.name)
	require.JSONEq(t, `{"seq":1,"tool":"send_message","risk":"HIGH","status":"ok","duration_ms":0}`,
		strings.Replace(ev.data, ev.data[strings.Index(ev.data, `"duration_ms":`):], `"duration_ms":0}`, 1))
	ev = next(t, events)
	require.Equal(t, server.EventDone, ev.name)
	require.Equal(t, "8", ev.id, "tool.before, policy.before, gate.required, approval_required, tool_call, tool_result, tool.after, done")
	var done service.ChainView
	require.NoError(t, json.Unmarshal([]byte(ev.data), &done))
	require.Equal(t, "ok", done.Status)
	require.JSONEq(t, `{"sent":true,"to":"ops@example.com"}`, string(done.Result.Value))
	_, open := <-events
	require.False(t, open, "the stream ends after done")

	// Replaying a finished chain, and resuming after an event.
	all := e.stream(t, keyAcme, v.ID, "")
	var names []string
	for ev := range all {
		names = append(names, ev.name)
	}
	require.Equal(t, []string{"tool.before", "policy.before", "gate.required", "approval_required", "tool_call", "tool_result", "tool.after", "done"}, names)
	rest := e.stream(t, keyAcme, v.ID, "5")
	require.Equal(t, "tool_result", next(t, rest).name)
	require.Equal(t, "done", next(t, rest).name)

	require.Equal(t, 1.0, e.metric(t, "airlock_approvals_total", map[string]string{"status": "approved"}))
}

// TestTimeoutEventStatus: a call that ran out of its call timeout reads
// timeout in the chain's events as in its trace.
func TestTimeoutEventStatus(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `try { await tools.slow({ms: 5000}); } catch (e) { return e.reason; }`,
		"policy": map[string]any{"call_timeout": "100ms"}}, false)
	require.JSONEq(t, `"call_timeout"`, string(v.Result.Value))
	require.Equal(t, "timeout", string(v.Result.Trace[0].Status))
	events := e.stream(t, keyAcme, v.ID, "")
	ev := next(t, events)
	for ev.name != server.EventToolResult {
		ev = next(t, events)
	}
	require.Contains(t, ev.data, `"status":"timeout"`)
	require.Contains(t, ev.data, `"reason":"call_timeout"`)
}

func TestDenyAndExpiry(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": approvalScript}, true)
	req := e.pending(t, keyAcme)
	r := e.do(t, "POST", "/v1/approvals/"+req["id"].(string), keyAcme, map[string]any{"decision": "deny", "args_hash": req["args_hash"]})
	require.Equal(t, http.StatusOK, r.code)
	done := e.wait(t, keyAcme, v.ID)
	require.JSONEq(t, `{"sent":false,"reason":"approval_denied"}`, string(done.Result.Value))
	require.Equal(t, "denied", string(done.Result.Trace[0].Status))

	// A request whose wait ends expires; a late decision says so.
	v = e.submit(t, keyAcme, map[string]any{"script": approvalScript,
		"policy": map[string]any{"approval_timeout": "300ms"}}, true)
	req = e.pending(t, keyAcme)
	done = e.wait(t, keyAcme, v.ID)
	require.JSONEq(t, `{"sent":false,"reason":"approval_timeout"}`, string(done.Result.Value))
	r = e.do(t, "POST", "/v1/approvals/"+req["id"].(string), keyAcme, map[string]any{"decision": "approve", "args_hash": req["args_hash"]})
	require.Equal(t, http.StatusGone, r.code)
	require.Equal(t, server.ReasonApprovalExpired, r.reason(t))
}

func TestCancel(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `await tools.slow({ms: 60000}); return 1;`}, true)
	events := e.stream(t, keyAcme, v.ID, "")
	require.Equal(t, server.EventToolCall, next(t, events).name)
	r := e.do(t, "DELETE", "/v1/chains/"+v.ID, keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var got service.ChainView
	require.NoError(t, json.Unmarshal(r.body, &got))
	require.Equal(t, "cancelled", got.Status)
	require.Equal(t, "cancelled", got.Result.Trace[0].Reason)
	r = e.do(t, "DELETE", "/v1/chains/"+v.ID, keyAcme, nil)
	require.Equal(t, http.StatusConflict, r.code)
	require.Equal(t, server.ReasonChainFinished, r.reason(t))
	require.Equal(t, server.EventToolResult, next(t, events).name)
	require.Equal(t, server.EventDone, next(t, events).name)
	require.Equal(t, 0.0, e.metric(t, "airlock_chains_in_flight", nil))
}

func TestArtifactDownload(t *testing.T) {
	// The strict form: the chain gets make_csv's envelope, with its ref.
	e := newEnv(t, func(o *setup) { o.Policy.MaxGuestValueBytes = invoker.DefaultMaxInlineResultBytes })
	v := e.submit(t, keyAcme, map[string]any{"script": `
		const csv = await tools.make_csv({rows: 2000, seed: 1});
		const chart = await tools.render_chart({values: [1, 2, 3]});
		return {ref: csv.$artifact, size: csv.size, png: chart.files[0].$artifact};`}, false)
	require.Equal(t, "ok", v.Status, v.Result)
	var out struct {
		Ref, Png string
		Size     int
	}
	require.NoError(t, json.Unmarshal(v.Result.Value, &out))
	require.Len(t, v.Result.Artifacts, 1)

	r := e.do(t, "GET", "/v1/artifacts/"+out.Ref, keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code)
	require.Len(t, r.body, out.Size)
	require.True(t, strings.HasPrefix(string(r.body), "id,"), "%.40s", r.body)
	require.Contains(t, r.hdr.Get("Content-Disposition"), "attachment")
	r = e.do(t, "GET", "/v1/artifacts/"+out.Png, keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code)
	require.Equal(t, "image/png", r.hdr.Get("Content-Type"))
	require.Equal(t, "\x89PNG", string(r.body[:4]))

	r = e.do(t, "GET", "/v1/artifacts/"+out.Ref, keyGlobex, nil)
	require.Equal(t, http.StatusNotFound, r.code)
	require.Equal(t, server.ReasonArtifactNotFound, r.reason(t))
	require.Equal(t, 0.0, e.metric(t, "airlock_pins_outstanding", nil), "pins are released when the chain ends")
	require.Equal(t, 2.0, e.metric(t, "airlock_artifacts_offloaded_total", nil))
}

func TestToolRestrictionAndLists(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `
		try { await tools.kv_set({key: "a", value: 1}); } catch (e) { return e.reason; }`, "tools": []string{"kv_get"}}, false)
	require.JSONEq(t, `"unknown_tool"`, string(v.Result.Value))

	r := e.do(t, "GET", "/v1/tools", keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code)
	var tools struct{ Tools []service.ToolInfo }
	require.NoError(t, json.Unmarshal(r.body, &tools))
	require.Len(t, tools.Tools, len(demo.Names))
	r = e.do(t, "GET", "/v1/tools.d.ts", keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code)
	require.Contains(t, string(r.body), "declare const tools")
	for _, p := range []string{"/healthz", "/readyz"} {
		require.Equal(t, http.StatusOK, e.do(t, "GET", p, "", nil).code, p)
	}
	require.Equal(t, http.StatusUnauthorized, e.do(t, "GET", "/metrics", "", nil).code, "with API keys, /metrics needs one")
}

func TestConcurrencyLimitAndRetention(t *testing.T) {
	e := newEnv(t, func(o *setup) { o.MaxConcurrentChains = 1; o.MaxResults = 1 })
	slow := e.submit(t, keyAcme, map[string]any{"script": `await tools.slow({ms: 60000});`}, true)
	r := e.do(t, "POST", "/v1/chains", keyAcme, map[string]any{"script": "return 1"})
	require.Equal(t, http.StatusTooManyRequests, r.code)
	require.Equal(t, server.ReasonTooManyChains, r.reason(t))
	require.Equal(t, http.StatusOK, e.do(t, "DELETE", "/v1/chains/"+slow.ID, keyAcme, nil).code)

	first := e.submit(t, keyAcme, map[string]any{"script": "return 1"}, false)
	e.submit(t, keyAcme, map[string]any{"script": "return 2"}, false)
	r = e.do(t, "GET", "/v1/chains/"+first.ID, keyAcme, nil)
	require.Equal(t, http.StatusNotFound, r.code, "only the newest result is kept")
}

func TestShutdownCancelsAndDrains(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `
		const csv = await tools.make_csv({rows: 2000});
		await tools.slow({ms: 60000});`}, true)
	events := e.stream(t, keyAcme, v.ID, "")
	for ev := next(t, events); ev.name != server.EventToolCall || !strings.Contains(ev.data, "slow"); ev = next(t, events) {
	}
	require.Equal(t, 1.0, e.metric(t, "airlock_pins_outstanding", nil))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	require.ErrorContains(t, err, "cancelled 1 running chain")
	got := e.wait(t, keyAcme, v.ID)
	require.Equal(t, "cancelled", got.Status)
	require.Equal(t, 0.0, e.metric(t, "airlock_pins_outstanding", nil))
	require.Equal(t, 0.0, e.metric(t, "airlock_chains_in_flight", nil))
	r := e.do(t, "POST", "/v1/chains", keyAcme, map[string]any{"script": "return 1"})
	require.Equal(t, http.StatusServiceUnavailable, r.code)
	require.Equal(t, server.ReasonShuttingDown, r.reason(t))
	require.Equal(t, http.StatusServiceUnavailable, e.do(t, "GET", "/readyz", "", nil).code)
}

func TestSpans(t *testing.T) {
	e := newEnv(t, func(o *setup) { o.Approver = approveAll{}; o.ApprovalMode = "allow" })
	v := e.submit(t, keyAcme, map[string]any{"script": approvalScript + "\n//"}, false)
	require.Equal(t, "ok", v.Status)
	spans := e.spans.Ended()
	require.Len(t, spans, 2)
	attrs := func(i int) map[string]string {
		m := map[string]string{}
		for _, kv := range spans[i].Attributes() {
			m[string(kv.Key)] = kv.Value.String()
		}
		return m
	}
	require.Equal(t, "airlock.tool_call", spans[0].Name())
	require.Equal(t, "airlock.chain", spans[1].Name())
	require.Equal(t, spans[1].SpanContext().SpanID(), spans[0].Parent().SpanID())
	tool := attrs(0)
	require.Equal(t, "send_message", tool["airlock.tool"])
	require.Equal(t, "HIGH", tool["airlock.tool.risk"])
	require.Equal(t, "ok", tool["airlock.call.status"])
	require.Equal(t, "allow", tool["airlock.approval.mode"])
	require.Equal(t, "approved", tool["airlock.approval.outcome"])
	ch := attrs(1)
	require.Equal(t, v.ID, ch["airlock.chain.id"])
	require.Equal(t, "ok", ch["airlock.chain.status"])
	require.Equal(t, "acme", ch["airlock.tenant"])
}

type approveAll struct{}

func (approveAll) Approve(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
	return invoker.Approved, nil
}

func TestNeedsAPIKeysOffLoopback(t *testing.T) {
	e := newEnv(t, func(o *setup) { o.Authenticate = nil })
	err := e.srv.ListenAndServe(context.Background(), "0.0.0.0:0")
	require.ErrorIs(t, err, server.ErrNeedsAPIKeys)
	// Without keys every request is the default tenant.
	v := e.submit(t, "", map[string]any{"script": "return 1"}, false)
	require.Equal(t, service.DefaultTenant, v.Tenant)
}

// TestGuestSettings: a request chooses its clock and seed; unset keys take
// the server's; bad values and unknown keys are refused.
func TestGuestSettings(t *testing.T) {
	e := newEnv(t, func(o *setup) { o.Guest = sandbox.Guest{Clock: sandbox.ClockVirtual} })
	year := "return [new Date().getUTCFullYear(), Math.random()]"
	a := e.submit(t, keyAcme, map[string]any{"script": year, "guest": map[string]any{"seed": 5}}, false)
	b := e.submit(t, keyAcme, map[string]any{"script": year, "guest": map[string]any{"seed": "5"}}, false)
	require.JSONEq(t, string(a.Result.Value), string(b.Result.Value), "one seed, one sequence")
	require.Contains(t, string(a.Result.Value), "[2022,", "the server's virtual clock")
	r := e.submit(t, keyAcme, map[string]any{"script": year, "guest": map[string]any{"clock": "real"}}, false)
	require.NotContains(t, string(r.Result.Value), "[2022,")
	for body, reason := range map[string]string{
		`{"script":"1","guest":{"clock":"sundial"}}`: server.ReasonInvalidRequest,
		`{"script":"1","guest":{"seed":-1}}`:         server.ReasonInvalidRequest,
		`{"script":"1","guest":{"speed":1}}`:         server.ReasonUnknownField,
	} {
		r := e.do(t, "POST", "/v1/chains", keyAcme, body)
		require.Equal(t, 400, r.code, "%s", r.body)
		require.Equal(t, reason, r.reason(t), body)
	}
}

// TestLifecycleEventsStreamed: every call's governance lifecycle events
// reach the chain's stream, named and shaped as in docs/governance.md.
func TestLifecycleEventsStreamed(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `await tools.kv_get({key: "k"}); try { await tools.nope({}); } catch (e) {} return 1;`}, false)
	require.Equal(t, "ok", v.Status, v.Result)
	var names []string
	var after map[string]any
	for ev := range e.stream(t, keyAcme, v.ID, "") {
		names = append(names, ev.name)
		if ev.name == "tool.after" && after == nil {
			require.NoError(t, json.Unmarshal([]byte(ev.data), &after))
		}
	}
	require.Equal(t, []string{"tool.before", "policy.before", server.EventToolCall, server.EventToolResult, "tool.after",
		"tool.before", server.EventToolResult, "tool.after", server.EventDone}, names)
	for _, k := range []string{"event", "chain_id", "tenant", "tool", "risk", "gate", "decision_id", "rule", "status", "duration_ms", "seq"} {
		require.Contains(t, after, k)
	}
	require.Equal(t, "kv_get", after["tool"])
	require.Equal(t, v.ID, after["chain_id"])
	require.Equal(t, "ok", after["status"])
}

// TestToolHealthShown: a tool that failed repeatedly reads unavailable in
// GET /v1/tools and in the airlock_tool_health metric, and its next call
// fails fast with tool_unavailable.
func TestToolHealthShown(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `
		const reasons = [];
		for (let i = 0; i < 6; i++) { try { await tools.fail({message: "down"}); } catch (e) { reasons.push(e.reason); } }
		return reasons;`}, false)
	require.Equal(t, "ok", v.Status, v.Result)
	require.JSONEq(t, `["tool_error","tool_error","tool_error","tool_error","tool_error","tool_unavailable"]`, string(v.Result.Value))
	r := e.do(t, "GET", "/v1/tools", keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code)
	var list struct{ Tools []service.ToolInfo }
	require.NoError(t, json.Unmarshal(r.body, &list))
	health, lastError := map[string]string{}, map[string]string{}
	for _, ti := range list.Tools {
		if ti.Health != nil {
			health[ti.Name] = string(ti.Health.Status)
			lastError[ti.Name] = ti.Health.LastError
		}
	}
	require.Equal(t, "unavailable", health["fail"])
	require.Contains(t, lastError["fail"], "down", "the last failure's text, as the chain was told")
	require.Empty(t, lastError["kv_get"])
	other := e.do(t, "GET", "/v1/tools", keyGlobex, nil)
	require.Equal(t, http.StatusOK, other.code)
	require.NotContains(t, string(other.body), "down", "another tenant sees neither the failure nor its text")
	require.Equal(t, "healthy", health["kv_get"])
	require.Equal(t, 1.0, e.metric(t, "airlock_tool_health", map[string]string{"tool": "fail", "status": "unavailable"}))
	require.Equal(t, 0.0, e.metric(t, "airlock_tool_health", map[string]string{"tool": "fail", "status": "healthy"}))
}

// TestProfileRequestMayOnlyLower: under a profile a request cannot lift
// the policy, even where the server's ceiling would allow it.
func TestProfileRequestMayOnlyLower(t *testing.T) {
	e := newEnv(t, func(o *setup) {
		o.MaxPolicy = invoker.Policy{MaxRiskUnapproved: toolbox.Critical}
		o.Profile = func(string) *service.Profile { return &service.Profile{Name: "p"} }
	})
	r := e.do(t, "POST", "/v1/chains", keyAcme, map[string]any{"script": "return 1", "policy": map[string]any{"max_risk_unapproved": "CRITICAL"}})
	require.Equal(t, http.StatusBadRequest, r.code, "%s", r.body)
	require.Equal(t, server.ReasonAboveLimit, r.reason(t))
	r = e.do(t, "POST", "/v1/chains", keyAcme, map[string]any{"script": "return 1", "policy": map[string]any{"max_tool_calls": 5}})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
}
