package mcp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/mcp"
	"github.com/airlockrt/airlock/service"
)

// TestTaskDecidedParkedCallIsNotAskedAgain: a parked chain's call that was
// decided (here held, as an elicitation answer or a process killed before
// it resumed leaves it) is no longer input_required: tasks/get offers no
// approval or input request for it, and an input response to its key, or
// a repeated one once the task finished, is ignored, as docs/mcp.md says
// of a key that names no request waiting now.
func TestTaskDecidedParkedCallIsNotAskedAgain(t *testing.T) {
	counts := &sent{}
	p := newTaskProc(t, counts, procOptions{shared: blobstore.New(memblob.New(), blobstore.Options{}), node: "solo"})
	c := dial(t, p, keyAcme, capsExtension)
	id := c.startTask(notifyScript, nil)
	got := c.waitInput(id, 1)
	a := got.Approvals[0]
	var key string
	for k := range got.InputRequests {
		key = k
	}
	_, err := p.svc.Decide(context.Background(), "acme", a.ID, service.Decision{Approve: true, ArgsHash: a.ArgsHash, Hold: true})
	require.NoError(t, err)

	now := c.get(id)
	require.Equal(t, mcp.TaskWorking, now.Status, "decided, not yet running on: %s", now.StatusMessage)
	require.Empty(t, now.Approvals)
	require.Empty(t, now.InputRequests)
	deny := map[string]any{"inputResponses": map[string]any{key: map[string]any{"action": "decline"}}}
	require.Empty(t, c.update(id, deny), "an answered key is ignored")

	chainID := now.ChainID
	_, err = p.svc.Resume(context.Background(), "acme", chainID)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"sent": "notified ops"}, c.result(id).StructuredContent.Value)
	require.Empty(t, c.update(id, deny), "an answered key is ignored once the task finished too")
	require.Equal(t, int32(1), counts.count("ops"))
}

// TestTaskReplayedDecisionIsAlreadyDecided (THREATS.md, T2): a decision
// sent again through tasks/update, with the call waiting in the queue as
// with it parked, answers already_decided with the first decision in
// force (docs/mcp.md), and changes nothing.
func TestTaskReplayedDecisionIsAlreadyDecided(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    procOptions
	}{
		{"queue", procOptions{}},
		{"parked", procOptions{shared: blobstore.New(memblob.New(), blobstore.Options{}), node: "solo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counts := &sent{}
			p := newTaskProc(t, counts, tc.o)
			c := dial(t, p, keyAcme, capsExtension)
			id := c.startTask(notifyScript, nil)
			a := c.waitInput(id, 1).Approvals[0]
			decide := func(verdict string) []mcp.DecisionOutcome {
				return c.update(id, map[string]any{"decisions": []map[string]any{{"approvalId": a.ID, "decision": verdict, "argsHash": a.ArgsHash}}})
			}
			require.Equal(t, []mcp.DecisionOutcome{{ApprovalID: a.ID, Decision: "approved"}}, decide("approve"))
			require.Equal(t, "ok", c.result(id).StructuredContent.Status)
			again := decide("deny")
			require.Len(t, again, 1)
			require.Equal(t, mcp.ReasonAlreadyDecided, again[0].Reason, "%+v", again)
			require.Equal(t, "approved", again[0].Decision)
			require.Equal(t, int32(1), counts.count("ops"))
		})
	}
}

// flaky is a bucket whose reads fail while fail is set (THREATS.md, T6).
type flaky struct {
	blobstore.Driver
	fail atomic.Bool
}

func (f *flaky) Get(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	if f.fail.Load() {
		return nil, errors.New("flaky: the bucket is unreachable")
	}
	return f.Driver.Get(ctx, key, off, n)
}

// TestTaskStoreFailureIsNotTaskNotFound (THREATS.md, T6): while the
// fleet's store fails, a task of a chain another process parked answers
// store_unavailable (-32603, retry), as docs/mcp.md's error table says,
// not task_not_found, which tells a client the task is gone for good.
func TestTaskStoreFailureIsNotTaskNotFound(t *testing.T) {
	drv := &flaky{Driver: memblob.New()}
	shared := blobstore.New(drv, blobstore.Options{})
	t.Cleanup(func() { _ = shared.Close() })
	a := newTaskProc(t, &sent{}, procOptions{shared: shared, node: "node-a"})
	b := newTaskProc(t, &sent{}, procOptions{shared: shared, node: "node-b"})
	id := dial(t, a, keyAcme, capsExtension).startTask(notifyScript, nil)
	cb := dial(t, b, keyAcme, capsExtension)
	cb.waitInput(id, 1)

	drv.fail.Store(true)
	_, rerr := cb.call("tasks/get", map[string]any{"taskId": id})
	drv.fail.Store(false)
	require.NotNil(t, rerr)
	require.Equal(t, mcp.ReasonStoreUnavailable, rerr.reason(), "%s", rerr.Message)
	require.Equal(t, int64(-32603), rerr.Code)
	require.Equal(t, mcp.TaskInputRequired, cb.get(id).Status)
}

// TestTaskOwnTaskCannotReachAnotherTenantsApproval (THREATS.md, T2): a
// tenant that names another tenant's approval in tasks/update of its own
// task (a decision, or an input response keyed for it) decides nothing
// and learns nothing: approval_not_found while it waits, and still once
// its tenant decided it (not already_decided with the decision).
func TestTaskOwnTaskCannotReachAnotherTenantsApproval(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    procOptions
	}{
		{"queue", procOptions{taskAfter: 50 * time.Millisecond}},
		{"parked", procOptions{taskAfter: 50 * time.Millisecond, shared: blobstore.New(memblob.New(), blobstore.Options{}), node: "solo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counts := &sent{}
			p := newTaskProc(t, counts, tc.o)
			acme := dial(t, p, keyAcme, capsExtension)
			id := acme.startTask(notifyScript, nil)
			got := acme.waitInput(id, 1)
			a := got.Approvals[0]
			var key string
			for k := range got.InputRequests {
				key = k
			}
			globex := dial(t, p, keyGlobex, capsExtension)
			own := globex.startTask(`await new Promise(r => setTimeout(r, 60000)); return 1`, nil)
			try := func() []mcp.DecisionOutcome {
				return globex.update(own, map[string]any{
					"decisions":      []map[string]any{{"approvalId": a.ID, "decision": "approve", "argsHash": a.ArgsHash}},
					"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"approve": true}}},
				})
			}
			out := try()
			require.Len(t, out, 1, "the input response is ignored: %+v", out)
			require.Equal(t, mcp.ReasonApprovalNotFound, out[0].Reason)
			require.Empty(t, out[0].Decision)
			require.Equal(t, mcp.TaskInputRequired, acme.waitInput(id, 1).Status)

			require.Equal(t, "approved", acme.update(id, map[string]any{"decisions": []map[string]any{{"approvalId": a.ID, "decision": "approve", "argsHash": a.ArgsHash}}})[0].Decision)
			require.Equal(t, "ok", acme.result(id).StructuredContent.Status)
			out = try()
			require.Len(t, out, 1, "%+v", out)
			require.Equal(t, mcp.ReasonApprovalNotFound, out[0].Reason, "%+v", out)
			require.Empty(t, out[0].Decision, "another tenant's decision is not shown")
			require.Equal(t, int32(1), counts.count("ops"))
			_, rerr := globex.call("tasks/cancel", map[string]any{"taskId": own})
			require.Nil(t, rerr)
		})
	}
}

// TestTaskHandlerRefusesNoKey (THREATS.md, T5): mcp.Server.Handler on its
// own (a library user's mux, not server.Mount, which checks keys itself
// and so answers TestTaskNoKey before the MCP face sees the request)
// refuses task requests without a valid key with 401.
func TestTaskHandlerRefusesNoKey(t *testing.T) {
	p := newTaskProc(t, &sent{}, procOptions{})
	hs := httptest.NewServer(p.mcp.Handler())
	t.Cleanup(hs.Close)
	for _, key := range []string{"", "not-a-key-0123456789abcdef"} {
		for _, m := range []string{"initialize", "tasks/get", "tasks/update", "tasks/cancel", "tasks/result"} {
			req, err := http.NewRequest("POST", hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":{"taskId":"ch_a.1000"}}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if key != "" {
				req.Header.Set("Authorization", "Bearer "+key)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s with key %q", m, key)
		}
	}
}
