package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/oidctest"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/mcp"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// withIdentity is a transport that sends the API key and the headers of a
// delegated identity, as an MCP client's host would set them.
type withIdentity struct {
	key     string
	headers map[string]string
}

func (w withIdentity) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.key)
	for k, v := range w.headers {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// whoamiServer is airlock's MCP server over HTTP and stdio with one tool
// that reports the identity its chain acts for (never the token itself).
func whoamiServer(t *testing.T, stdio func() *service.SubmitIdentity) (string, *mcp.Server) {
	t.Helper()
	type seen struct {
		Subject string `json:"subject"`
		Type    string `json:"type"`
		Actor   string `json:"actor"`
	}
	whoami := toolbox.Func("whoami", "the chain's identity, as a tool sees it", func(ctx context.Context, _ struct{}) (seen, error) {
		id, ok := toolbox.IdentityFrom(ctx)
		if !ok {
			return seen{Subject: "none"}, nil
		}
		// The test's tokens name their user after a dot: report that part.
		_, user, _ := strings.Cut(id.SubjectToken, ".")
		_, actor, _ := strings.Cut(id.Actor, ".")
		return seen{Subject: user, Type: id.TokenType(), Actor: actor}, nil
	})
	box, err := toolbox.New(whoami)
	require.NoError(t, err)
	store := blobstore.New(memblob.New(), blobstore.Options{})
	inv, err := invoker.New(box, invoker.Options{Store: store})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	svc, err := service.New(runner, service.Options{Keys: func(key string) (service.Caller, bool) {
		switch key {
		case keyAcme:
			return service.Caller{Tenant: "acme"}, true
		case keyGlobex:
			return service.Caller{Tenant: "globex"}, true
		}
		return service.Caller{}, false
	}})
	require.NoError(t, err)
	svc.Start(context.Background())
	api, err := server.New(svc, server.Options{Store: store})
	require.NoError(t, err)
	ms, err := mcp.NewServer(svc, mcp.ServerOptions{Store: store, Identity: stdio})
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
	return hs.URL + "/mcp", ms
}

// TestIdentityOverMCP: a run_chain over HTTP acts for the delegated
// identity its request's headers carry (Airlock-Subject-Token and
// friends, set by the client's host, never a tool argument), on the
// SDK's default protocol and on the session protocol; a request without
// them acts for none, and each request for its own (two users of one
// tenant at once). A malformed one refuses the chain naming the field,
// never the value. Over stdio the identity comes from
// ServerOptions.Identity, asked at each run_chain. No token reaches the
// result the model reads.
func TestIdentityOverMCP(t *testing.T) {
	var current atomic.Value
	current.Store("stdio-token.carol")
	url, ms := whoamiServer(t, func() *service.SubmitIdentity { return &service.SubmitIdentity{SubjectToken: current.Load().(string)} })
	connect := func(t *testing.T, version string, headers map[string]string) *sdk.ClientSession {
		c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{
			Endpoint: url, HTTPClient: &http.Client{Transport: withIdentity{keyAcme, headers}}, MaxRetries: -1,
		}, &sdk.ClientSessionOptions{ProtocolVersion: version})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	const script = `return await tools.whoami({})`
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			alice := connect(t, version, map[string]string{mcp.HeaderSubjectToken: "SECRET-alice-token.alice",
				mcp.HeaderSubjectTokenType: "jwt", mcp.HeaderActorToken: "SECRET-agent-token.agent-7"})
			bob := connect(t, version, map[string]string{mcp.HeaderSubjectToken: "SECRET-bob-token.bob"})
			none := connect(t, version, nil)
			type result struct {
				res *sdk.CallToolResult
				out mcp.ChainOutput
			}
			done := make(chan result, 2)
			for _, cs := range []*sdk.ClientSession{alice, bob} {
				go func() {
					res, out := runChain(t, cs, script, nil)
					done <- result{res, out}
				}()
			}
			seen := map[string]any{}
			for range 2 {
				r := <-done
				require.Equal(t, "ok", r.out.Status, "%+v", r.out)
				v := r.out.Value.(map[string]any)
				seen[v["subject"].(string)] = v
				b, _ := json.Marshal(r.res)
				require.NotContains(t, string(b), "SECRET")
			}
			require.Equal(t, map[string]any{
				"alice": map[string]any{"subject": "alice", "type": "urn:ietf:params:oauth:token-type:jwt", "actor": "agent-7"},
				"bob":   map[string]any{"subject": "bob", "type": "urn:ietf:params:oauth:token-type:access_token", "actor": ""},
			}, seen)
			_, out := runChain(t, none, script, nil)
			require.Equal(t, map[string]any{"subject": "none", "type": "", "actor": ""}, out.Value)

			bad := connect(t, version, map[string]string{mcp.HeaderSubjectToken: "SECRET-x", mcp.HeaderSubjectTokenType: "password"})
			res, _ := runChain(t, bad, script, nil)
			require.True(t, res.IsError)
			b, _ := json.Marshal(res)
			require.Contains(t, string(b), `identity.subject_token_type \"password\" is not access_token, id_token, jwt or refresh_token`)
			require.NotContains(t, string(b), "SECRET")
		})
	}
	t.Run("stdio", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		toServer, fromClient := io.Pipe()
		toClient, fromServer := io.Pipe()
		go func() { _ = ms.ServeStdio(ctx, toServer, fromServer) }()
		c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: toClient, Writer: fromClient}, nil)
		require.NoError(t, err)
		defer cs.Close()
		_, out := runChain(t, cs, script, nil)
		require.Equal(t, "carol", out.Value.(map[string]any)["subject"])
		current.Store("stdio-token.dave") // refreshed by the host: the next chain acts for it
		_, out = runChain(t, cs, script, nil)
		require.Equal(t, "dave", out.Value.(map[string]any)["subject"])
	})
}

// TestTaskWaitsForCredential: in a fleet, a run_chain task submitted with
// an expired token (Airlock-Subject-Token) whose call parks the chain for
// a fresh credential is input_required and says what it waits for and
// how to hand it one; the token posted to the other process's API resumes
// the chain there, and tasks/result has the call's result. On memory and
// MinIO.
func TestTaskWaitsForCredential(t *testing.T) {
	for name, open := range taskStores(t) {
		t.Run(name, func(t *testing.T) {
			counts := &sent{}
			shared := blobstore.New(open(), blobstore.Options{})
			t.Cleanup(func() { _ = shared.Close() })
			a := newTaskProc(t, counts, procOptions{shared: shared, node: "node-a", tools: []toolbox.Tool{oidctest.AsUser{}}})
			b := newTaskProc(t, counts, procOptions{shared: shared, node: "node-b", tools: []toolbox.Tool{oidctest.AsUser{}}})
			ca := dial(t, a, keyAcme, capsCore)
			ca.headers = map[string]string{mcp.HeaderSubjectToken: "expired-SECRET.alice"}
			id := ca.startTask(`return await tools.crm({})`, map[string]any{"ttl": 3600000})
			var got taskAnswer
			require.Eventually(t, func() bool {
				got = ca.get(id)
				return got.Status == mcp.TaskInputRequired
			}, 20*time.Second, 20*time.Millisecond)
			require.Equal(t, `the chain is parked, waiting for a fresh delegated credential for crm (credential_expired): the submitter sends the user's token with POST /v1/chains/{id}/identity (docs/identity.md)`, got.StatusMessage)
			require.Empty(t, got.Approvals)

			body := strings.NewReader(`{"subject_token": "fresh.alice"}`)
			req, err := http.NewRequest("POST", strings.TrimSuffix(b.url, "/mcp")+"/v1/chains/"+got.ChainID+"/identity", body)
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+keyAcme)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusNoContent, resp.StatusCode)
			cb := dial(t, b, keyAcme, capsCore)
			res := cb.result(id)
			require.Equal(t, "ok", res.StructuredContent.Status)
			require.Equal(t, "alice", res.StructuredContent.Value)
			raw, _ := json.Marshal(res)
			require.NotContains(t, string(raw), "SECRET")
		})
	}
}
