package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
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
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/mcp"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// taskFleetKey seals the task tests' parked chains.
var taskFleetKey = []byte("mcp-task-fleet-key-0123456789abcdef")

// taskProc is one airlock process serving /mcp: the HTTP API with the MCP
// face mounted, over the demo tools and notify (HIGH risk, counting its
// runs by recipient), optionally in a fleet on a shared store with
// approval.mode park.
type taskProc struct {
	url   string
	svc   *service.Service
	mcp   *mcp.Server
	close func()
}

type procOptions struct {
	shared    *blobstore.Store // the fleet's store; nil: no fleet, calls wait in the queue
	node      string
	policy    invoker.Policy
	taskAfter time.Duration
	tools     []toolbox.Tool // besides the demo tools and notify
}

// sent counts notify's runs by recipient, across the processes of a test.
type sent struct{ m sync.Map }

func (s *sent) count(to string) int32 {
	v, _ := s.m.LoadOrStore(to, new(atomic.Int32))
	return v.(*atomic.Int32).Load()
}

type notifyArgs struct {
	To string `json:"to"`
}

func newTaskProc(t *testing.T, counts *sent, o procOptions) *taskProc {
	t.Helper()
	notify := toolbox.Func("notify", "Sends a notification", func(_ context.Context, in notifyArgs) (string, error) {
		v, _ := counts.m.LoadOrStore(in.To, new(atomic.Int32))
		v.(*atomic.Int32).Add(1)
		return "notified " + in.To, nil
	}).WithRisk(toolbox.High)
	box, err := toolbox.New(append(append(demo.New().Tools(), notify), o.tools...)...)
	require.NoError(t, err)
	store := o.shared
	if store == nil {
		store = blobstore.New(memblob.New(), blobstore.Options{})
	}
	queue := approval.NewQueue(approval.Options{Store: store})
	inv, err := invoker.New(box, invoker.Options{Policy: o.policy, Approver: queue, Store: store})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	kvOnly := &service.Profile{Name: "kv-reader", Governance: &govern.Profile{Name: "kv-reader"}, Tools: []string{"kv_get"}}
	so := service.Options{Queue: queue, Keys: func(key string) (service.Caller, bool) {
		switch key {
		case keyAcme:
			return service.Caller{Tenant: "acme"}, true
		case keySubmit:
			return service.Caller{Tenant: "acme", Role: service.RoleSubmit}, true
		case keyGlobex:
			return service.Caller{Tenant: "globex", Profile: kvOnly}, true
		}
		return service.Caller{}, false
	}}
	if o.shared != nil {
		f, err := durable.New(durable.Options{Blobs: o.shared, Key: taskFleetKey, Node: o.node, Lease: 600 * time.Millisecond})
		require.NoError(t, err)
		so.Fleet, so.Park = f, true
	}
	svc, err := service.New(runner, so)
	require.NoError(t, err)
	svc.Start(context.Background())
	api, err := server.New(svc, server.Options{Store: store})
	require.NoError(t, err)
	ms, err := mcp.NewServer(svc, mcp.ServerOptions{Store: store, TaskAfter: o.taskAfter})
	require.NoError(t, err)
	api.Mount("/mcp", ms.Handler())
	hs := httptest.NewServer(api.Handler())
	p := &taskProc{url: hs.URL + "/mcp", svc: svc, mcp: ms}
	p.close = sync.OnceFunc(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = api.Shutdown(ctx)
		hs.Close()
		if o.shared == nil {
			_ = store.Close()
		}
	})
	t.Cleanup(p.close)
	return p
}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *rpcError) reason() string {
	var d struct {
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return d.Reason
}

// rawClient speaks MCP as raw JSON-RPC over streamable HTTP: what a client
// of the tasks protocol sends, field for field, which the Go SDK's client
// cannot.
type rawClient struct {
	t       *testing.T
	url     string
	key     string
	session string
	n       int
	headers map[string]string // sent with every request
}

// Client capabilities of the test clients.
const (
	capsExtension = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	capsCore      = `{"tasks":{"cancel":{},"requests":{"elicitation":{"create":{}}}}}`
	capsNone      = `{}`
)

// dial opens a session on p with key, declaring caps.
func dial(t *testing.T, p *taskProc, key, caps string) *rawClient {
	t.Helper()
	c := &rawClient{t: t, url: p.url, key: key}
	res, rerr := c.call("initialize", json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"raw","version":"1"}}`))
	require.Nil(t, rerr)
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(res, &init))
	require.JSONEq(t, `{"cancel":{},"requests":{"tools":{"call":{}}}}`, string(init.Capabilities["tasks"]), "the server declares 2025-11-25's tasks")
	require.Contains(t, string(init.Capabilities["extensions"]), mcp.TasksExtension)
	resp := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	return c
}

func (c *rawClient) post(body string) *http.Response {
	c.t.Helper()
	return c.postCtx(context.Background(), body)
}

func (c *rawClient) postCtx(ctx context.Context, body string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", c.url, strings.NewReader(body))
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" && c.session == "" {
		c.session = s
	}
	return resp
}

// call sends one request and returns its result or error.
func (c *rawClient) call(method string, params any) (json.RawMessage, *rpcError) {
	c.t.Helper()
	c.n++
	id := fmt.Sprintf("r%d", c.n)
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	require.NoError(c.t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp := c.postCtx(ctx, string(body))
	defer resp.Body.Close()
	require.Equal(c.t, http.StatusOK, resp.StatusCode, "%s", method)
	type answer struct {
		ID     string          `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		var a answer
		require.NoError(c.t, json.NewDecoder(resp.Body).Decode(&a))
		return a.Result, a.Error
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		var a answer
		if json.Unmarshal(data, &a) == nil && a.ID == id {
			return a.Result, a.Error
		}
	}
	c.t.Fatalf("%s: no answer in the stream (%v)", method, sc.Err())
	return nil, nil
}

// taskAnswer is what the tests read of the task methods' answers.
type taskAnswer struct {
	ResultType    string `json:"resultType"`
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	TTL           int64  `json:"ttl"`
	TTLMs         int64  `json:"ttlMs"`
	PollInterval  int64  `json:"pollInterval"`
	ChainID       string `json:"chainId"`
	Task          *struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
		TTL    int64  `json:"ttl"`
	} `json:"task"`
	Approvals []struct {
		ID       string          `json:"id"`
		Tool     string          `json:"tool"`
		Risk     string          `json:"risk"`
		Args     json.RawMessage `json:"args"`
		ArgsText string          `json:"args_text"`
		ArgsHash string          `json:"args_hash"`
	} `json:"approvals"`
	InputRequests map[string]struct {
		Method string `json:"method"`
		Params struct {
			Message string `json:"message"`
		} `json:"params"`
	} `json:"inputRequests"`
	Result *callResult `json:"result"`
}

type callResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent mcp.ChainOutput `json:"structuredContent"`
	Meta              map[string]any  `json:"_meta"`
}

func decode[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
	return v
}

// runChainTask calls run_chain with script, with the 2025-11-25 task
// param when task is set.
func (c *rawClient) runChainTask(script string, task map[string]any) (json.RawMessage, *rpcError) {
	c.t.Helper()
	params := map[string]any{"name": mcp.RunChainTool, "arguments": map[string]any{"script": script}}
	if task != nil {
		params["task"] = task
	}
	return c.call("tools/call", params)
}

// startTask runs script as a task and returns the task's id.
func (c *rawClient) startTask(script string, task map[string]any) string {
	c.t.Helper()
	raw, rerr := c.runChainTask(script, task)
	require.Nil(c.t, rerr)
	a := decode[taskAnswer](c.t, raw)
	require.Equal(c.t, "task", a.ResultType, "%s", raw)
	require.NotNil(c.t, a.Task, "2025-11-25's CreateTaskResult has the task")
	require.Equal(c.t, a.TaskID, a.Task.TaskID)
	return a.TaskID
}

func (c *rawClient) get(id string) taskAnswer {
	c.t.Helper()
	raw, rerr := c.call("tasks/get", map[string]any{"taskId": id})
	require.Nil(c.t, rerr, "tasks/get")
	return decode[taskAnswer](c.t, raw)
}

// waitInput polls tasks/get until the task waits for n approvals.
func (c *rawClient) waitInput(id string, n int) taskAnswer {
	c.t.Helper()
	var a taskAnswer
	require.Eventually(c.t, func() bool {
		a = c.get(id)
		return a.Status == mcp.TaskInputRequired && len(a.Approvals) == n
	}, 20*time.Second, 20*time.Millisecond, "the task waits for %d approval(s)", n)
	return a
}

func (c *rawClient) update(id string, params map[string]any) []mcp.DecisionOutcome {
	c.t.Helper()
	params["taskId"] = id
	raw, rerr := c.call("tasks/update", params)
	require.Nil(c.t, rerr, "tasks/update")
	return decode[mcp.UpdateTaskResult](c.t, raw).Decisions
}

func (c *rawClient) result(id string) callResult {
	c.t.Helper()
	raw, rerr := c.call("tasks/result", map[string]any{"taskId": id})
	require.Nil(c.t, rerr, "tasks/result")
	return decode[callResult](c.t, raw)
}

const notifyScript = `
try {
  const r = await tools.notify({to: "ops"});
  return {sent: r};
} catch (e) {
  return {reason: e.reason};
}`

// TestTaskApproved: for a client of either generation of tasks, a
// run_chain whose call needs approval answers with a task; tasks/get shows
// the pending approval (tool, risk, exact arguments, their hash, its id,
// and as an elicitation input request); a decision through tasks/update
// (by approval id and hash, or as the extension's input response) runs the
// call once, and tasks/result returns run_chain's result. Both with the
// call waiting in the queue and with the chain parked in a fleet.
func TestTaskApproved(t *testing.T) {
	counts := &sent{}
	live := newTaskProc(t, counts, procOptions{})
	parked := newTaskProc(t, counts, procOptions{shared: blobstore.New(memblob.New(), blobstore.Options{}), node: "solo"})
	for _, tc := range []struct {
		name  string
		proc  *taskProc
		caps  string
		task  map[string]any
		input bool // decide by inputResponses
	}{
		{"extension, queue, decisions", live, capsExtension, nil, false},
		{"2025-11-25, queue, input responses", live, capsCore, map[string]any{"ttl": 600000}, true},
		{"extension, parked, input responses", parked, capsExtension, nil, true},
		{"2025-11-25, parked, decisions", parked, capsCore, map[string]any{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := counts.count("ops")
			c := dial(t, tc.proc, keyAcme, tc.caps)
			id := c.startTask(notifyScript, tc.task)
			a := c.waitInput(id, 1)
			p := a.Approvals[0]
			require.Equal(t, "notify", p.Tool)
			require.Equal(t, "HIGH", p.Risk)
			require.JSONEq(t, `{"to":"ops"}`, string(p.Args))
			require.Contains(t, p.ArgsText, `"ops"`)
			require.Len(t, p.ArgsHash, 64)
			require.Len(t, a.InputRequests, 1)
			var key string
			for k, q := range a.InputRequests {
				key = k
				require.Equal(t, "elicitation/create", q.Method)
				require.Contains(t, q.Params.Message, `"ops"`)
			}
			require.True(t, strings.HasPrefix(key, p.ID+"."))
			require.Contains(t, a.StatusMessage, "notify")

			var out []mcp.DecisionOutcome
			if tc.input {
				out = c.update(id, map[string]any{"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"approve": true}}}})
			} else {
				out = c.update(id, map[string]any{"decisions": []map[string]any{{"approvalId": p.ID, "decision": "approve", "argsHash": p.ArgsHash}}})
			}
			require.Equal(t, []mcp.DecisionOutcome{{ApprovalID: p.ID, Decision: "approved"}}, out)

			res := c.result(id)
			require.False(t, res.IsError)
			require.Equal(t, "ok", res.StructuredContent.Status)
			require.Equal(t, map[string]any{"sent": "notified ops"}, res.StructuredContent.Value)
			require.Equal(t, map[string]any{"taskId": id}, res.Meta["io.modelcontextprotocol/related-task"])
			done := c.get(id)
			require.Equal(t, mcp.TaskCompleted, done.Status)
			require.NotNil(t, done.Result)
			require.Equal(t, "ok", done.Result.StructuredContent.Status)
			require.Equal(t, before+1, counts.count("ops"), "the approved call ran once")

			// The same decision again changes nothing.
			out = c.update(id, map[string]any{"decisions": []map[string]any{{"approvalId": p.ID, "decision": "deny", "argsHash": p.ArgsHash}}})
			require.NotEqual(t, "", out[0].Reason)
		})
	}
}

// TestTaskDeniedAndArgsHash: a decision on other arguments (a wrong hash)
// is refused with args_mismatch and leaves the request pending; a denial
// ends the call approval_denied, and the call never runs.
func TestTaskDeniedAndArgsHash(t *testing.T) {
	counts := &sent{}
	p := newTaskProc(t, counts, procOptions{shared: blobstore.New(memblob.New(), blobstore.Options{}), node: "solo"})
	c := dial(t, p, keyAcme, capsExtension)
	id := c.startTask(notifyScript, nil)
	a := c.waitInput(id, 1).Approvals[0]

	wrong := strings.Repeat("0", 64)
	out := c.update(id, map[string]any{"decisions": []map[string]any{{"approvalId": a.ID, "decision": "approve", "argsHash": wrong}}})
	require.Len(t, out, 1)
	require.Equal(t, mcp.ReasonArgsMismatch, out[0].Reason)
	require.Empty(t, out[0].Decision)
	// An input response keyed for other arguments names nothing.
	out = c.update(id, map[string]any{"inputResponses": map[string]any{a.ID + "." + wrong[:16]: map[string]any{"action": "accept", "content": map[string]any{"approve": true}}}})
	require.Empty(t, out)
	require.Equal(t, mcp.TaskInputRequired, c.waitInput(id, 1).Status, "still pending")

	out = c.update(id, map[string]any{"decisions": []map[string]any{{"approvalId": a.ID, "decision": "deny", "argsHash": a.ArgsHash}}})
	require.Equal(t, []mcp.DecisionOutcome{{ApprovalID: a.ID, Decision: "denied"}}, out)
	res := c.result(id)
	require.Equal(t, "ok", res.StructuredContent.Status)
	require.Equal(t, map[string]any{"reason": "approval_denied"}, res.StructuredContent.Value)
	require.Zero(t, counts.count("ops"))
}

// TestTaskCancel: a chain running past TaskAfter answers with a working
// task; tasks/cancel ends it cancelled, tasks/result returns the cancelled
// chain, and a second cancel is refused (task_finished).
func TestTaskCancel(t *testing.T) {
	p := newTaskProc(t, &sent{}, procOptions{taskAfter: 100 * time.Millisecond})
	c := dial(t, p, keyAcme, capsCore)
	id := c.startTask(`await new Promise(r => setTimeout(r, 60000)); return "late"`, map[string]any{"ttl": 60000})
	require.Equal(t, mcp.TaskWorking, c.get(id).Status)

	raw, rerr := c.call("tasks/cancel", map[string]any{"taskId": id})
	require.Nil(t, rerr)
	require.Equal(t, mcp.TaskCancelled, decode[taskAnswer](t, raw).Status)
	res := c.result(id)
	require.True(t, res.IsError)
	require.Equal(t, "cancelled", res.StructuredContent.Status)

	_, rerr = c.call("tasks/cancel", map[string]any{"taskId": id})
	require.NotNil(t, rerr)
	require.Equal(t, int64(-32602), rerr.Code)
	require.Equal(t, mcp.ReasonTaskFinished, rerr.reason())
}

// TestTaskTTL: a task lives 1h unless asked otherwise, at most 24h (a
// larger ttl is clamped, in the answer and in the id); past its TTL it is
// a clear error, task_expired.
func TestTaskTTL(t *testing.T) {
	p := newTaskProc(t, &sent{}, procOptions{taskAfter: 50 * time.Millisecond})
	ext := dial(t, p, keyAcme, capsExtension)
	core := dial(t, p, keyAcme, capsCore)
	const wait = `await new Promise(r => setTimeout(r, 60000)); return 1`
	for _, tc := range []struct {
		name string
		c    *rawClient
		task map[string]any
		want time.Duration
	}{
		{"default", ext, nil, time.Hour},
		{"asked 10m", core, map[string]any{"ttl": 600000}, 10 * time.Minute},
		{"asked 48h", core, map[string]any{"ttl": 48 * 3600 * 1000}, 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, rerr := tc.c.runChainTask(wait, tc.task)
			require.Nil(t, rerr)
			a := decode[taskAnswer](t, raw)
			require.Equal(t, tc.want.Milliseconds(), a.TTL)
			require.Equal(t, tc.want.Milliseconds(), a.TTLMs)
			require.Equal(t, tc.want.Milliseconds(), a.Task.TTL)
			require.Positive(t, a.PollInterval)
			require.Equal(t, tc.want.Milliseconds(), tc.c.get(a.TaskID).TTL)
			// An id edited to a longer TTL is clamped like a request.
			chainID, _, _ := strings.Cut(a.TaskID, ".")
			require.LessOrEqual(t, tc.c.get(chainID+".999999999999").TTL, (24 * time.Hour).Milliseconds())
			_, rerr = tc.c.call("tasks/cancel", map[string]any{"taskId": a.TaskID})
			require.Nil(t, rerr)
		})
	}
	t.Run("expired", func(t *testing.T) {
		id := core.startTask(wait, map[string]any{"ttl": 300})
		var rerr *rpcError
		require.Eventually(t, func() bool {
			_, rerr = core.call("tasks/get", map[string]any{"taskId": id})
			return rerr != nil
		}, 10*time.Second, 50*time.Millisecond)
		require.Equal(t, int64(-32602), rerr.Code)
		require.Equal(t, mcp.ReasonTaskExpired, rerr.reason())
		require.Contains(t, rerr.Message, "expired")
		for _, m := range []string{"tasks/result", "tasks/cancel"} {
			_, rerr = core.call(m, map[string]any{"taskId": id})
			require.Equal(t, mcp.ReasonTaskExpired, rerr.reason(), m)
		}
		chainID, _, _ := strings.Cut(id, ".")
		_, err := p.svc.Cancel(context.Background(), "acme", chainID)
		require.NoError(t, err)
	})
}

// TestTaskWithoutTasks: a client that did not declare tasks gets today's
// synchronous run_chain (here: the approval's bounded wait), and the task
// methods answer Missing Required Client Capability; a client that
// declared 2025-11-25's capability without sending the task param also
// gets the synchronous answer.
func TestTaskWithoutTasks(t *testing.T) {
	p := newTaskProc(t, &sent{}, procOptions{policy: invoker.Policy{CallTimeout: 2 * time.Second, ApprovalTimeout: time.Second}, taskAfter: 50 * time.Millisecond})
	for _, caps := range []string{capsNone, capsCore} {
		c := dial(t, p, keyAcme, caps)
		raw, rerr := c.runChainTask(notifyScript, nil)
		require.Nil(t, rerr)
		res := decode[callResult](t, raw)
		require.Equal(t, "ok", res.StructuredContent.Status, "%s", raw)
		require.Equal(t, map[string]any{"reason": "approval_timeout"}, res.StructuredContent.Value)
		require.NotContains(t, string(raw), `"resultType":"task"`)
	}
	c := dial(t, p, keyAcme, capsNone)
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/update", "tasks/cancel"} {
		_, rerr := c.call(m, map[string]any{"taskId": "ch_x.1000"})
		require.NotNil(t, rerr, m)
		require.Equal(t, int64(-32021), rerr.Code, m)
	}
	// tools/list declares run_chain's task support only to a client that
	// declared tasks.
	raw, rerr := c.call("tools/list", map[string]any{})
	require.Nil(t, rerr)
	require.NotContains(t, string(raw), "taskSupport")
	raw, rerr = dial(t, p, keyAcme, capsCore).call("tools/list", map[string]any{})
	require.Nil(t, rerr)
	require.Contains(t, string(raw), `"execution":{"taskSupport":"optional"}`)
}

// TestTaskFleetAcrossRestart: a task created on process A whose chain
// parked is followed, decided and finished through process B after A is
// gone: the task id resolves on any process of the fleet.
func TestTaskFleetAcrossRestart(t *testing.T) {
	for name, open := range taskStores(t) {
		t.Run(name, func(t *testing.T) {
			counts := &sent{}
			shared := blobstore.New(open(), blobstore.Options{})
			t.Cleanup(func() { _ = shared.Close() })
			a := newTaskProc(t, counts, procOptions{shared: shared, node: "node-a"})
			b := newTaskProc(t, counts, procOptions{shared: shared, node: "node-b"})

			ca := dial(t, a, keyAcme, capsCore)
			id := ca.startTask(notifyScript, map[string]any{"ttl": 3600000})
			ca.waitInput(id, 1)
			a.close()
			require.NoError(t, a.svc.Close(context.Background()))

			cb := dial(t, b, keyAcme, capsCore)
			got := cb.waitInput(id, 1)
			require.Equal(t, "notify", got.Approvals[0].Tool)
			out := cb.update(id, map[string]any{"decisions": []map[string]any{{"approvalId": got.Approvals[0].ID, "decision": "approve", "argsHash": got.Approvals[0].ArgsHash}}})
			require.Equal(t, "approved", out[0].Decision, "%+v", out)
			res := cb.result(id)
			require.Equal(t, "ok", res.StructuredContent.Status)
			require.Equal(t, map[string]any{"sent": "notified ops"}, res.StructuredContent.Value)
			require.Equal(t, int32(1), counts.count("ops"))
		})
	}
}

// taskStores are the buckets a fleet of task processes shares: memory,
// and a fresh bucket of the MinIO scripts/minio.sh starts (required under
// CI=true).
func taskStores(t *testing.T) map[string]func() blobstore.Driver {
	out := map[string]func() blobstore.Driver{"mem": func() blobstore.Driver { return memblob.New() }}
	if os.Getenv(s3blob.EnvEndpoint) == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but " + s3blob.EnvEndpoint + " is unset: run the tests with scripts/minio.sh run -- go test ./...")
		}
		t.Log("no MinIO: the s3 half is skipped (scripts/minio.sh run -- go test ./mcp/)")
		return out
	}
	cfg, err := s3blob.ConfigFromEnv()
	require.NoError(t, err)
	var b [6]byte
	_, _ = rand.Read(b[:])
	cfg.Bucket = "airlock-mcp-" + hex.EncodeToString(b[:])
	out["s3"] = func() blobstore.Driver {
		d, err := s3blob.New(context.Background(), cfg)
		require.NoError(t, err)
		return d
	}
	return out
}

// healthy runs a chain of globex beside an attack and checks it finished.
func healthy(t *testing.T, p *taskProc) {
	t.Helper()
	c := dial(t, p, keyGlobex, capsNone)
	raw, rerr := c.runChainTask(`return (await tools.kv_get({key: "k"})) ?? "none"`, nil)
	require.Nil(t, rerr)
	require.Equal(t, "ok", decode[callResult](t, raw).StructuredContent.Status, "%s", raw)
}

// TestTaskFloodBoundedPerTenant (THREATS.md, T1): a tenant holds at most
// MaxTenantTasks chains as tasks on a process; one more is refused
// (too_many_tasks) and runs nothing; at most MaxTenantResultWaits of its
// tasks/result requests wait at once (too_many_waits); another tenant's
// chain runs meanwhile.
func TestTaskFloodBoundedPerTenant(t *testing.T) {
	p := newTaskProc(t, &sent{}, procOptions{taskAfter: 20 * time.Millisecond})
	c := dial(t, p, keyAcme, capsExtension)
	const wait = `await new Promise(r => setTimeout(r, 60000)); return 1`
	// A task that ended, whose tasks/result answers at once.
	ended := c.startTask(wait, nil)
	_, rerr := c.call("tasks/cancel", map[string]any{"taskId": ended})
	require.Nil(t, rerr)
	var ids []string
	for range mcp.MaxTenantTasks {
		ids = append(ids, c.startTask(wait, nil))
	}
	raw, rerr := c.runChainTask(wait, nil)
	require.Nil(t, rerr)
	res := decode[struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}](t, raw)
	require.True(t, res.IsError)
	require.True(t, strings.HasPrefix(res.Content[0].Text, mcp.ReasonTooManyTasks+":"), res.Content[0].Text)
	healthy(t, p)

	// Waiting tasks/result requests are bounded per tenant too.
	var waiting sync.WaitGroup
	for _, id := range ids {
		w := dial(t, p, keyAcme, capsExtension)
		waiting.Add(1)
		go func() {
			defer waiting.Done()
			body := `{"jsonrpc":"2.0","id":"w","method":"tasks/result","params":{"taskId":"` + id + `"}}`
			req, _ := http.NewRequest("POST", w.url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+w.key)
			req.Header.Set("Mcp-Session-Id", w.session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		}()
	}
	require.Eventually(t, func() bool {
		_, rerr := c.call("tasks/result", map[string]any{"taskId": ended})
		return rerr != nil && rerr.reason() == mcp.ReasonTooManyWaits
	}, 20*time.Second, 50*time.Millisecond, "the %d+1st waiting tasks/result is refused", mcp.MaxTenantResultWaits)
	healthy(t, p)
	for _, id := range ids {
		_, rerr := c.call("tasks/cancel", map[string]any{"taskId": id})
		require.Nil(t, rerr)
	}
	waiting.Wait() // each ended with its cancelled chain
	ids = nil
	for range mcp.MaxTenantTasks - 1 {
		ids = append(ids, c.startTask(wait, nil))
	}
	// Once they ended, there is room again.
	ids = append(ids, c.startTask(wait, nil))
	for _, id := range ids {
		_, _ = c.call("tasks/cancel", map[string]any{"taskId": id})
	}
}

// TestTaskOtherTenantAndUnknown (THREATS.md, T2): another tenant's key
// cannot see, decide or cancel a task, and its answer is exactly the one
// for an id that never existed; a submit-only key of the tenant cannot
// decide (forbidden_role). The call runs only once the tenant approves it,
// and a chain of the other tenant runs meanwhile.
func TestTaskOtherTenantAndUnknown(t *testing.T) {
	counts := &sent{}
	p := newTaskProc(t, counts, procOptions{shared: blobstore.New(memblob.New(), blobstore.Options{}), node: "solo"})
	acme := dial(t, p, keyAcme, capsExtension)
	id := acme.startTask(notifyScript, nil)
	a := acme.waitInput(id, 1).Approvals[0]

	globex := dial(t, p, keyGlobex, capsExtension)
	chainID, _, _ := strings.Cut(id, ".")
	unknown := "ch_" + strings.Repeat("a", len(chainID)-3) + strings.TrimPrefix(id, chainID)
	for _, m := range []struct {
		method string
		params map[string]any
	}{
		{"tasks/get", nil},
		{"tasks/result", nil},
		{"tasks/cancel", nil},
		{"tasks/update", map[string]any{"decisions": []map[string]any{{"approvalId": a.ID, "decision": "approve", "argsHash": a.ArgsHash}}}},
	} {
		ask := func(task string) *rpcError {
			params := map[string]any{"taskId": task}
			for k, v := range m.params {
				params[k] = v
			}
			_, rerr := globex.call(m.method, params)
			require.NotNil(t, rerr, m.method)
			return rerr
		}
		theirs, none := ask(id), ask(unknown)
		require.Equal(t, mcp.ReasonTaskNotFound, theirs.reason(), m.method)
		require.Equal(t, none.Code, theirs.Code)
		require.Equal(t, string(none.Data), string(theirs.Data))
		require.Equal(t, strings.ReplaceAll(none.Message, unknown, id), theirs.Message)
	}
	for _, bad := range []string{"", "nope", "ch_x", chainID, chainID + ".-5", "../" + id} {
		_, rerr := acme.call("tasks/get", map[string]any{"taskId": bad})
		require.Equal(t, mcp.ReasonTaskNotFound, rerr.reason(), "%q", bad)
	}

	// The tenant's submit-only key may follow it, not decide it.
	sub := dial(t, p, keySubmit, capsExtension)
	require.Equal(t, mcp.TaskInputRequired, sub.get(id).Status)
	_, rerr := sub.call("tasks/update", map[string]any{"taskId": id, "decisions": []map[string]any{{"approvalId": a.ID, "decision": "approve", "argsHash": a.ArgsHash}}})
	require.NotNil(t, rerr)
	require.Equal(t, mcp.ReasonForbiddenRole, rerr.reason())

	healthy(t, p)
	require.Zero(t, counts.count("ops"))
	require.Equal(t, mcp.TaskInputRequired, acme.waitInput(id, 1).Status)
	out := acme.update(id, map[string]any{"decisions": []map[string]any{{"approvalId": a.ID, "decision": "approve", "argsHash": a.ArgsHash}}})
	require.Equal(t, "approved", out[0].Decision)
	require.Equal(t, "ok", acme.result(id).StructuredContent.Status)
	require.Equal(t, int32(1), counts.count("ops"))
}

// TestTaskForgedDecisionIsNotActedOn (THREATS.md, T3): someone who writes
// the bucket without the fleet key plants a decision approving a task's
// parked call and an end reporting a result of their own. tasks/get still
// shows the call pending and no forged result, nothing runs, and the
// chain finishes with its real result once the tenant approves through
// tasks/update.
func TestTaskForgedDecisionIsNotActedOn(t *testing.T) {
	counts := &sent{}
	shared := blobstore.New(memblob.New(), blobstore.Options{})
	t.Cleanup(func() { _ = shared.Close() })
	p := newTaskProc(t, counts, procOptions{shared: shared, node: "solo"})
	c := dial(t, p, keyAcme, capsExtension)
	id := c.startTask(notifyScript, nil)
	a := c.waitInput(id, 1).Approvals[0]
	chainID, _, _ := strings.Cut(id, ".")

	ctx := context.Background()
	mac := "ALR1 " + strings.Repeat("A", 43) + "\n"
	approve := fmt.Sprintf(`{"approved":true,"args_hash":%q,"by":"t3","at":"2026-01-01T00:00:00Z"}`, a.ArgsHash)
	end := fmt.Sprintf(`{"id":%q,"tenant":"acme","status":"ok","finished":"2026-01-01T00:00:00Z","result":{"id":%q,"status":"ok","value":"forged by t3"}}`, chainID, chainID)
	require.NoError(t, shared.PutRecord(ctx, "acme", "approvals/"+a.ID+"/decision", []byte(mac+approve), true))
	require.NoError(t, shared.PutRecord(ctx, "acme", "chains/"+chainID+"/end", []byte(mac+end), true))
	_, err := p.svc.Resume(ctx, "acme", chainID)
	require.ErrorIs(t, err, service.ErrNotResumable)

	healthy(t, p)
	got := c.waitInput(id, 1)
	require.Nil(t, got.Result)
	require.NotContains(t, fmt.Sprint(got), "forged by t3")
	require.Zero(t, counts.count("ops"), "the forged approval ran nothing")

	// Its real decision is taken (the forged one does not stand in for it).
	out := c.update(id, map[string]any{"decisions": []map[string]any{{"approvalId": a.ID, "decision": "approve", "argsHash": a.ArgsHash}}})
	require.Equal(t, "approved", out[0].Decision, "%+v", out)
	res := c.result(id)
	require.Equal(t, map[string]any{"sent": "notified ops"}, res.StructuredContent.Value)
	require.Equal(t, int32(1), counts.count("ops"))
}

// TestTaskNoKey (THREATS.md, T5): without a valid key, the task methods
// are answered 401 before their body is read.
func TestTaskNoKey(t *testing.T) {
	p := newTaskProc(t, &sent{}, procOptions{})
	owner := dial(t, p, keyAcme, capsExtension)
	for _, key := range []string{"", "not-a-key-0123456789abcdef"} {
		c := &rawClient{t: t, url: p.url, key: key, session: owner.session}
		for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel", "tasks/result"} {
			resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"` + m + `","params":{"taskId":"ch_a.1000"}}`)
			_ = resp.Body.Close()
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s with key %q", m, key)
		}
	}
	healthy(t, p)
}

// TestTaskWithSDKClient: the official Go SDK's client on protocol
// 2026-07-28 (stateless HTTP, capabilities in each request's _meta),
// declaring the extension, follows, decides and reads a task through the
// task methods as custom methods (its CallTool cannot read a task handle,
// so the task is created by a raw client).
func TestTaskWithSDKClient(t *testing.T) {
	counts := &sent{}
	p := newTaskProc(t, counts, procOptions{shared: blobstore.New(memblob.New(), blobstore.Options{}), node: "solo"})
	id := dial(t, p, keyAcme, capsExtension).startTask(notifyScript, nil)

	caps := &sdk.ClientCapabilities{}
	caps.AddExtension(mcp.TasksExtension, nil)
	client := sdk.NewClient(&sdk.Implementation{Name: "sdk", Version: "1"}, &sdk.ClientOptions{Capabilities: caps})
	require.NoError(t, sdk.AddSendingCustomMethod[*mcp.TaskParams, *mcp.TaskResult](client, "tasks/get"))
	require.NoError(t, sdk.AddSendingCustomMethod[*mcp.UpdateTaskParams, *mcp.UpdateTaskResult](client, "tasks/update"))
	require.NoError(t, sdk.AddSendingCustomMethod[*mcp.TaskParams, *sdk.CallToolResult](client, "tasks/result"))
	ctx := context.Background()
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: p.url, HTTPClient: &http.Client{Transport: bearer{keyAcme}}, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })

	var got *mcp.TaskResult
	require.Eventually(t, func() bool {
		got, err = sdk.CallCustomMethod[*mcp.TaskParams, *mcp.TaskResult](ctx, cs, "tasks/get", &mcp.TaskParams{TaskID: id})
		require.NoError(t, err)
		return got.Status == mcp.TaskInputRequired && len(got.Approvals) == 1
	}, 20*time.Second, 20*time.Millisecond)
	a := got.Approvals[0]
	require.Equal(t, "notify", a.Tool)
	up, err := sdk.CallCustomMethod[*mcp.UpdateTaskParams, *mcp.UpdateTaskResult](ctx, cs, "tasks/update", &mcp.UpdateTaskParams{TaskID: id,
		Decisions: []mcp.TaskDecision{{ApprovalID: a.ID, Decision: "approve", ArgsHash: a.ArgsHash}}})
	require.NoError(t, err)
	require.Equal(t, []mcp.DecisionOutcome{{ApprovalID: a.ID, Decision: "approved"}}, up.Decisions)
	res, err := sdk.CallCustomMethod[*mcp.TaskParams, *sdk.CallToolResult](ctx, cs, "tasks/result", &mcp.TaskParams{TaskID: id})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "notified ops")
	require.Equal(t, int32(1), counts.count("ops"))

	// Without the extension declared, the same methods are refused.
	plain := sdk.NewClient(&sdk.Implementation{Name: "sdk", Version: "1"}, nil)
	require.NoError(t, sdk.AddSendingCustomMethod[*mcp.TaskParams, *mcp.TaskResult](plain, "tasks/get"))
	pcs, err := plain.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: p.url, HTTPClient: &http.Client{Transport: bearer{keyAcme}}, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = pcs.Close() })
	_, err = sdk.CallCustomMethod[*mcp.TaskParams, *mcp.TaskResult](ctx, pcs, "tasks/get", &mcp.TaskParams{TaskID: id})
	require.ErrorContains(t, err, "Missing required client capability")
}

// TestTaskOverStdio: over stdio (airlock mcp), the 2025-11-25 tasks
// capability and task param, which the SDK drops, reach run_chain: the
// chain becomes a task of the local caller, decided with tasks/update.
func TestTaskOverStdio(t *testing.T) {
	counts := &sent{}
	p := newTaskProc(t, counts, procOptions{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.mcp.ServeStdio(ctx, inR, outW) }()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		_ = outR.Close()
		<-served
	})
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 16<<20)
	n := 0
	call := func(method string, params any) json.RawMessage {
		t.Helper()
		n++
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": n, "method": method, "params": params})
		require.NoError(t, err)
		_, err = inW.Write(append(b, '\n'))
		require.NoError(t, err)
		for lines.Scan() {
			var a struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *rpcError       `json:"error"`
			}
			if json.Unmarshal(lines.Bytes(), &a) == nil && a.ID == n {
				require.Nil(t, a.Error, "%s", method)
				return a.Result
			}
		}
		t.Fatalf("%s: no answer", method)
		return nil
	}
	init := call("initialize", json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":`+capsCore+`,"clientInfo":{"name":"stdio","version":"1"}}`))
	require.Contains(t, string(init), `"tasks":{"cancel":{}`)
	_, err := inW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	require.NoError(t, err)
	a := decode[taskAnswer](t, call("tools/call", map[string]any{"name": mcp.RunChainTool, "arguments": map[string]any{"script": notifyScript}, "task": map[string]any{"ttl": 60000}}))
	require.Equal(t, "task", a.ResultType)
	require.Equal(t, int64(60000), a.Task.TTL)
	var got taskAnswer
	require.Eventually(t, func() bool {
		got = decode[taskAnswer](t, call("tasks/get", map[string]any{"taskId": a.TaskID}))
		return len(got.Approvals) == 1
	}, 20*time.Second, 20*time.Millisecond)
	ap := got.Approvals[0]
	out := decode[mcp.UpdateTaskResult](t, call("tasks/update", map[string]any{"taskId": a.TaskID,
		"decisions": []map[string]any{{"approvalId": ap.ID, "decision": "approve", "argsHash": ap.ArgsHash}}}))
	require.Equal(t, "approved", out.Decisions[0].Decision)
	res := decode[callResult](t, call("tasks/result", map[string]any{"taskId": a.TaskID}))
	require.Equal(t, map[string]any{"sent": "notified ops"}, res.StructuredContent.Value)
}
