package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/internal/enginetest"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/mcp"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
)

// scripts is the test binary's one script engine.
func scripts(t testing.TB) *sandbox.ScriptEngine { return enginetest.Scripts(t) }

const (
	keyAcme   = "acme-key-0123456789abcdef"
	keyGlobex = "globex-key-0123456789abcdef" // profile: kv_get only
	keyAudit  = "audit-key-0123456789abcdef"  // approver role: no chains
	keySubmit = "submit-key-0123456789abcdef" // submit role: may not decide approvals
)

// apiEnv is the HTTP API with /mcp mounted, over the demo tools, with an
// in-memory store and approval queue, as airlock serve builds it.
type apiEnv struct {
	url   string
	queue *approval.Queue
	mcp   *mcp.Server
}

func newAPI(t *testing.T, policy invoker.Policy, edit ...func(*mcp.ServerOptions)) *apiEnv {
	t.Helper()
	return newAPIWith(t, policy, nil, edit...)
}

// newAPIWith is newAPI with the server's options adjusted by serverEdit,
// which also gets the store.
func newAPIWith(t *testing.T, policy invoker.Policy, serverEdit func(*service.Options, *blobstore.Store), edit ...func(*mcp.ServerOptions)) *apiEnv {
	t.Helper()
	box, _ := demo.Toolbox()
	store := blobstore.New(memblob.New(), blobstore.Options{})
	queue := approval.NewQueue(approval.Options{Store: store})
	inv, err := invoker.New(box, invoker.Options{Policy: policy, Approver: queue, Store: store})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	kvOnly := &service.Profile{Name: "kv-reader", Governance: &govern.Profile{Name: "kv-reader"}, Tools: []string{"kv_get"}}
	so := service.Options{
		Queue: queue,
		Keys: func(key string) (service.Caller, bool) {
			switch key {
			case keyAcme:
				return service.Caller{Tenant: "acme"}, true
			case keyAudit:
				return service.Caller{Tenant: "acme", Role: service.RoleApprover}, true
			case keySubmit:
				return service.Caller{Tenant: "acme", Role: service.RoleSubmit}, true
			case keyGlobex:
				return service.Caller{Tenant: "globex", Profile: kvOnly}, true
			}
			return service.Caller{}, false
		},
	}
	if serverEdit != nil {
		serverEdit(&so, store)
	}
	svc, err := service.New(runner, so)
	require.NoError(t, err)
	svc.Start(context.Background())
	api, err := server.New(svc, server.Options{Store: store})
	require.NoError(t, err)
	mo := mcp.ServerOptions{Elicit: true, Store: store}
	for _, f := range edit {
		f(&mo)
	}
	ms, err := mcp.NewServer(svc, mo)
	require.NoError(t, err)
	api.Mount("/mcp", ms.Handler())
	hs := httptest.NewServer(api.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = api.Shutdown(ctx)
		hs.Close()
		_ = store.Close()
	})
	return &apiEnv{url: hs.URL + "/mcp", queue: queue, mcp: ms}
}

type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens a session of the Go SDK's client with key, at the
// client's default protocol version.
func (e *apiEnv) connect(t *testing.T, key string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	return e.connectAt(t, key, "", opts)
}

// connectAt opens a session of the Go SDK's client with key at protocol
// version ("" for the client's default, which is the newest).
func (e *apiEnv) connectAt(t *testing.T, key, version string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint: e.url, HTTPClient: &http.Client{Transport: bearer{key}}, MaxRetries: -1,
	}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func runChain(t *testing.T, cs *sdk.ClientSession, script string, progress any) (*sdk.CallToolResult, mcp.ChainOutput) {
	t.Helper()
	p := &sdk.CallToolParams{Name: mcp.RunChainTool, Arguments: map[string]any{"script": script}}
	if progress != nil {
		p.SetProgressToken(progress)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, p)
	require.NoError(t, err)
	var out mcp.ChainOutput
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		require.NoError(t, json.Unmarshal(b, &out))
	}
	return res, out
}

const sendScript = `
try {
  const r = await tools.send_message({to: "ops", text: "deploy done"});
  return {sent: r};
} catch (e) {
  return {reason: e.reason};
}`

// TestApprovalByElicitation: a client that supports elicitation is asked
// about the pending HIGH-risk call; its answer decides it.
func TestApprovalByElicitation(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	for _, tc := range []struct {
		name   string
		answer *sdk.ElicitResult
		want   string // the chain's value: sent, or the ToolError's reason
	}{
		{"accept", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, "sent"},
		{"accept without approving", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, "approval_denied"},
		{"decline", &sdk.ElicitResult{Action: "decline"}, "approval_denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			cs := e.connect(t, keyAcme, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				mu.Lock()
				asked = append(asked, req.Params.Message)
				mu.Unlock()
				return tc.answer, nil
			}})
			res, out := runChain(t, cs, sendScript, nil)
			require.False(t, res.IsError)
			require.Equal(t, "ok", out.Status)
			v := out.Value.(map[string]any)
			if tc.want == "sent" {
				require.Contains(t, v, "sent")
			} else {
				require.Equal(t, tc.want, v["reason"])
			}
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, asked, 1)
			require.Contains(t, asked[0], "send_message")
			require.Contains(t, asked[0], `"deploy done"`, "the user sees the arguments")
			require.Empty(t, e.queue.List("acme"), "decided, nothing left pending")
		})
	}
}

// TestApprovalWithoutElicitation: a client without elicitation leaves the
// call to the approval queue (decided here as the HTTP API would) and the
// bounded wait.
func TestApprovalWithoutElicitation(t *testing.T) {
	e := newAPI(t, invoker.Policy{CallTimeout: 3 * time.Second, ApprovalTimeout: 2 * time.Second})
	cs := e.connect(t, keyAcme, nil)

	// Nobody decides: the wait ends with approval_timeout.
	_, out := runChain(t, cs, sendScript, nil)
	require.Equal(t, "approval_timeout", out.Value.(map[string]any)["reason"])

	// Someone decides through the queue (POST /v1/approvals/{id}).
	done := make(chan struct{})
	go func() {
		defer close(done)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if p := e.queue.List("acme"); len(p) == 1 {
				_, err := e.queue.Decide("acme", p[0].ID, invoker.Approved, p[0].ArgsHash)
				if err == nil {
					return
				}
			}
		}
	}()
	_, out = runChain(t, cs, sendScript, nil)
	<-done
	require.Contains(t, out.Value.(map[string]any), "sent")
}

// TestProgressNotifications: each tool call's start and end reach a client
// that asked for progress.
func TestProgressNotifications(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	var mu sync.Mutex
	var msgs []string
	cs := e.connect(t, keyAcme, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		msgs = append(msgs, req.Params.Message)
		mu.Unlock()
	}})
	_, out := runChain(t, cs, `await tools.kv_get({key: "a"}); try { await tools.fail({message: "x"}) } catch {} return 1`, "tok-1")
	require.Equal(t, "ok", out.Status)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(msgs) == 4 }, 5*time.Second, 10*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"calling kv_get", "kv_get: ok", "calling fail", "fail: error (tool_error)"}, msgs)
}

// TestDiscoverySeesOnlyCallableTools: search_tools and describe_tool answer
// from the tools the caller's chains may call.
func TestDiscoverySeesOnlyCallableTools(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	ctx := context.Background()
	call := func(cs *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		require.NoError(t, err)
		return res
	}
	names := func(res *sdk.CallToolResult) []string {
		var out mcp.SearchOutput
		b, _ := json.Marshal(res.StructuredContent)
		require.NoError(t, json.Unmarshal(b, &out))
		var n []string
		for _, h := range out.Tools {
			n = append(n, h.Name)
		}
		return n
	}
	acme, globex := e.connect(t, keyAcme, nil), e.connect(t, keyGlobex, nil)

	require.Equal(t, []string{"kv_get", "kv_set"}, names(call(acme, mcp.SearchToolsTool, map[string]any{"query": "key-value store"}))[:2])
	require.Equal(t, []string{"kv_get"}, names(call(globex, mcp.SearchToolsTool, map[string]any{"query": "key-value store"})))
	require.Equal(t, []string{"kv_get"}, names(call(globex, mcp.SearchToolsTool, map[string]any{"query": ""})))

	res := call(acme, mcp.DescribeToolTool, map[string]any{"name": "send_message"})
	require.False(t, res.IsError)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "send_message(args: {")
	res = call(globex, mcp.DescribeToolTool, map[string]any{"name": "send_message"})
	require.True(t, res.IsError, "globex's profile does not allow send_message")
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, `unknown tool "send_message"`)

	// Inside the sandbox too.
	_, out := runChain(t, globex, `return [await tools.$search(""), await tools.$describe("kv_get")]`, nil)
	require.Equal(t, "ok", out.Status)
	v := out.Value.([]any)
	require.Equal(t, []any{map[string]any{"name": "kv_get", "description": "[demo] Read a value from the in-memory key-value store."}}, v[0])
	require.Contains(t, v[1], "kv_get(args: {")

	// run_chain's description declares the tools the caller's chains may
	// call, and no other.
	desc := func(cs *sdk.ClientSession) string {
		tools, err := cs.ListTools(ctx, nil)
		require.NoError(t, err)
		for _, tl := range tools.Tools {
			if tl.Name == mcp.RunChainTool {
				return tl.Description
			}
		}
		t.Fatal("no run_chain")
		return ""
	}
	require.Contains(t, desc(acme), "send_message(args: {")
	require.Contains(t, desc(globex), "kv_get(args: {")
	require.NotContains(t, desc(globex), "send_message")
}

// TestLargeResultIsAResource: a result too large to inline comes back as a
// resource link its tenant can read; another tenant cannot.
func TestLargeResultIsAResource(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	acme, globex := e.connect(t, keyAcme, nil), e.connect(t, keyGlobex, nil)
	res, out := runChain(t, acme, `return "x".repeat(200000)`, nil)
	require.Equal(t, "ok", out.Status)
	var link *sdk.ResourceLink
	for _, c := range res.Content {
		if l, ok := c.(*sdk.ResourceLink); ok {
			link = l
		}
	}
	require.NotNil(t, link, "a resource link to the result")
	require.True(t, strings.HasPrefix(link.URI, mcp.ArtifactScheme))
	ctx := context.Background()
	read, err := acme.ReadResource(ctx, &sdk.ReadResourceParams{URI: link.URI})
	require.NoError(t, err)
	require.Len(t, read.Contents, 1)
	text := read.Contents[0].Text
	require.Equal(t, 200000, strings.Count(text, "x"), "the whole result (%d bytes, %q…)", len(text), text[:min(len(text), 20)])

	_, err = globex.ReadResource(ctx, &sdk.ReadResourceParams{URI: link.URI})
	require.Error(t, err, "another tenant's artifact reads as not found")
	require.Contains(t, err.Error(), "not found")
	_, err = acme.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcp.ArtifactScheme + "nope"})
	require.Error(t, err)
}

// initialize is a raw MCP initialize request.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// post sends one raw MCP message to /mcp with key ("" for none), an
// optional session and Host, and returns the answer with its body closed.
func (e *apiEnv) post(t *testing.T, key, host, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", e.url, strings.NewReader(body))
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	return resp
}

// TestHTTPAuthentication: /mcp takes the API's keys; a key that may not
// submit chains is refused; a session stays with the key that opened it.
func TestHTTPAuthentication(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	post := func(key, session, body string) *http.Response { return e.post(t, key, "", session, body) }
	for _, key := range []string{"", "not-a-key-0123456789abcdef", keyAudit} {
		resp := post(key, "", initialize)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "key %q", key)
		require.Contains(t, resp.Header.Get("WWW-Authenticate"), "Bearer")
	}
	resp := post(keyAcme, "", initialize)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	session := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, session)
	resp = post(keyGlobex, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "acme's session is not globex's")
}

// TestElicitationUnanswered: a user who never answers does not hold the
// chain past its approval timeout. On the old protocol run_chain ends with
// the chain (the server withdraws its question); on the new one the
// question is the client's until it answers (the server has no request to
// withdraw), and the late answer's retry gets the chain's end: the call
// was denied when its wait ended, and the late approval runs nothing.
func TestElicitationUnanswered(t *testing.T) {
	e := newAPI(t, invoker.Policy{CallTimeout: 2 * time.Second, ApprovalTimeout: time.Second})
	t.Run("2025-11-25", func(t *testing.T) {
		asked := make(chan struct{}, 1)
		release := make(chan struct{})
		cs := e.connectAt(t, keyAcme, "2025-11-25", &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked <- struct{}{}
			select { // a user who never answers; the test lets go at its end
			case <-ctx.Done():
			case <-release:
			}
			return nil, errors.New("no answer")
		}})
		t.Cleanup(func() { close(release) }) // runs before the session's Close
		start := time.Now()
		_, out := runChain(t, cs, sendScript, nil)
		require.Equal(t, "approval_timeout", out.Value.(map[string]any)["reason"])
		require.Len(t, asked, 1)
		require.Less(t, time.Since(start), 30*time.Second, "run_chain ended with the chain, not with the elicitation's own timeout")
	})
	t.Run("2026-07-28", func(t *testing.T) {
		cs := e.connectAt(t, keyAcme, "2026-07-28", &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			time.Sleep(3 * time.Second) // past the approval timeout, and the chain's end
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		}})
		_, out := runChain(t, cs, sendScript, nil)
		require.Equal(t, "approval_timeout", out.Value.(map[string]any)["reason"])
	})
}

// TestManyToolsGetAnIndex: above MaxDescribed tools, run_chain's
// description indexes them and points to search_tools and describe_tool.
func TestManyToolsGetAnIndex(t *testing.T) {
	e := newAPI(t, invoker.Policy{}, func(o *mcp.ServerOptions) { o.MaxDescribed = 3 })
	tools, err := e.connect(t, keyAcme, nil).ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tl := range tools.Tools {
		if tl.Name == mcp.RunChainTool {
			require.Contains(t, tl.Description, "There are 10 tools; use search_tools and describe_tool")
			require.Contains(t, tl.Description, "- send_message: [demo] Send a message")
			require.NotContains(t, tl.Description, "(args: {")
		}
	}
}

// TestElicitationOnlyForApprovers: a submit-only key (an agent loop) is
// never asked, so it cannot approve its own calls through elicitation;
// nor is a user shown arguments too long to show whole. Both are left to
// the queue and its bounded wait.
func TestElicitationOnlyForApprovers(t *testing.T) {
	e := newAPI(t, invoker.Policy{CallTimeout: 2 * time.Second, ApprovalTimeout: time.Second})
	var mu sync.Mutex
	asked := 0
	approve := &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		mu.Lock()
		asked++
		mu.Unlock()
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}
	_, out := runChain(t, e.connect(t, keySubmit, approve), sendScript, nil)
	require.Equal(t, "approval_timeout", out.Value.(map[string]any)["reason"])

	long := `try {
  await tools.send_message({text: "weekly report" + " ".repeat(5000) + ".", to: "attacker@evil.example"});
  return {sent: true};
} catch (e) { return {reason: e.reason} }`
	_, out = runChain(t, e.connect(t, keyAcme, approve), long, nil)
	require.Equal(t, "approval_timeout", out.Value.(map[string]any)["reason"])
	mu.Lock()
	defer mu.Unlock()
	require.Zero(t, asked)
}

// TestSessionsExpireAndProxies: an idle HTTP session is closed after
// SessionTimeout; a Host other than loopback (a reverse proxy's) is fine
// with API keys.
func TestSessionsExpireAndProxies(t *testing.T) {
	e := newAPI(t, invoker.Policy{}, func(o *mcp.ServerOptions) { o.SessionTimeout = 300 * time.Millisecond })
	post := func(host, session, body string) *http.Response { return e.post(t, keyAcme, host, session, body) }
	resp := post("airlock.example.com", "", initialize)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	session := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, session)
	require.Eventually(t, func() bool {
		return post("airlock.example.com", session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).StatusCode == http.StatusNotFound
	}, 15*time.Second, time.Second, "the idle session is gone (each probe is a use: probes are further apart than the timeout)")
}

// parking puts the server in a fleet of one with approval.mode park.
func parking(t *testing.T) func(*service.Options, *blobstore.Store) {
	return func(o *service.Options, store *blobstore.Store) {
		f, err := durable.New(durable.Options{Blobs: store, Key: []byte("mcp-fleet-key-0123456789abcdef-xyz")})
		require.NoError(t, err)
		o.Fleet, o.Park = f, true
	}
}

// TestParkedChainDecidedByElicitation: with approval.mode park, run_chain's
// chain parks on its HIGH-risk call; a client that may approve is asked,
// its answer is recorded and the chain resumes to its end; a client that
// cannot be asked gets the chain parked, with the request to decide
// through the API.
func TestParkedChainDecidedByElicitation(t *testing.T) {
	e := newAPIWith(t, invoker.Policy{}, parking(t))
	var asked atomic.Int32
	cs := e.connect(t, keyAcme, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Add(1)
		if !strings.Contains(req.Params.Message, `"deploy done"`) {
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}})
	res, out := runChain(t, cs, sendScript, nil)
	require.False(t, res.IsError, "%+v", out)
	require.Equal(t, "ok", out.Status)
	require.Contains(t, out.Value.(map[string]any), "sent")
	require.Equal(t, int32(1), asked.Load())

	// Without elicitation: the chain stays parked.
	plain := e.connect(t, keyAcme, nil)
	res, out = runChain(t, plain, sendScript, nil)
	require.True(t, res.IsError)
	require.Equal(t, "parked", out.Status)
	require.Equal(t, "awaiting_approval", out.Reason)

	// A submit-only key is never asked, even with elicitation.
	sub := e.connect(t, keySubmit, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Add(1)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}})
	_, out = runChain(t, sub, sendScript, nil)
	require.Equal(t, "parked", out.Status)
	require.Equal(t, int32(1), asked.Load())
}

// TestUnavailableToolsAreNotOffered: once a tool fails often enough to rest
// as unavailable for a tenant, run_chain's description and search_tools
// leave it out for that tenant, and describe_tool says until when and what
// it last said.
func TestUnavailableToolsAreNotOffered(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	ctx := context.Background()
	acme := e.connect(t, keyAcme, nil)
	desc := func() string {
		tools, err := acme.ListTools(ctx, nil)
		require.NoError(t, err)
		for _, tl := range tools.Tools {
			if tl.Name == mcp.RunChainTool {
				return tl.Description
			}
		}
		t.Fatal("no run_chain")
		return ""
	}
	search := func() []string {
		res, err := acme.CallTool(ctx, &sdk.CallToolParams{Name: mcp.SearchToolsTool, Arguments: map[string]any{"query": "", "limit": 25}})
		require.NoError(t, err)
		var out mcp.SearchOutput
		b, _ := json.Marshal(res.StructuredContent)
		require.NoError(t, json.Unmarshal(b, &out))
		var n []string
		for _, h := range out.Tools {
			n = append(n, h.Name)
		}
		return n
	}
	require.Contains(t, desc(), "fail(args: {")
	require.Contains(t, search(), "fail")

	_, out := runChain(t, acme, `
const reasons = [];
for (let i = 0; i < 6; i++) { try { await tools.fail({message: "upstream said 502"}) } catch (e) { reasons.push(e.reason) } }
return reasons`, nil)
	require.Equal(t, "ok", out.Status)
	require.Equal(t, []any{"tool_error", "tool_error", "tool_error", "tool_error", "tool_error", "tool_unavailable"}, out.Value)

	require.NotContains(t, desc(), "fail(args: {")
	require.Contains(t, desc(), "kv_get(args: {")
	require.NotContains(t, search(), "fail")
	res, err := acme.CallTool(ctx, &sdk.CallToolParams{Name: mcp.DescribeToolTool, Arguments: map[string]any{"name": "fail"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	text := res.Content[0].(*sdk.TextContent).Text
	require.Regexp(t, `^// unavailable until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: .*upstream said 502\n`, text)
	require.Contains(t, text, "fail(args: {")
}
