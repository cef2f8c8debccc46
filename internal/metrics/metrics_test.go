package metrics_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/internal/metrics"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

type echoIn struct {
	N int `json:"n"`
}

func fixture(t *testing.T) (*toolbox.Toolbox, *prometheus.Registry, both) {
	t.Helper()
	echo := toolbox.Func("echo", "echo n copies of x", func(ctx context.Context, in echoIn) (string, error) {
		return strings.Repeat("x", in.N), nil
	})
	boom := toolbox.Func("boom", "always fails", func(ctx context.Context, in struct{}) (string, error) {
		return "", errors.New("boom")
	})
	send := toolbox.Func("send", "high risk", func(ctx context.Context, in struct{}) (string, error) {
		return "sent", nil
	}).WithRisk(toolbox.High)
	box, err := toolbox.New(echo, boom, send)
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, box, nil)
	require.NoError(t, err)
	c, err := metrics.NewChains(reg)
	require.NoError(t, err)
	return box, reg, both{m, c}
}

// both is the process's tool-call metrics and a face's chain metrics on one
// registry, as `airlock serve` has them.
type both struct {
	*metrics.Metrics
	*metrics.Chains
}

func count(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, mt := range mf.GetMetric() {
			got := map[string]string{}
			for _, lp := range mt.GetLabel() {
				got[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue next
				}
			}
			switch {
			case mt.Counter != nil:
				return mt.Counter.GetValue()
			case mt.Gauge != nil:
				return mt.Gauge.GetValue()
			case mt.Histogram != nil:
				return float64(mt.Histogram.GetSampleCount())
			}
		}
	}
	return 0
}

func TestToolCallsThroughInvoker(t *testing.T) {
	ctx := context.Background()
	box, reg, m := fixture(t)
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()
	approveAll := invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
		return invoker.Approved, nil
	})
	inv, err := invoker.New(box, invoker.Options{
		Hooks: m.Hooks(), Progress: m.Progress(), Approver: m.Approver(approveAll), Store: m.Store(store),
	})
	require.NoError(t, err)
	sess := inv.NewSession(session.Options{Tenant: "acme"})

	for _, c := range []invoker.Call{
		{Tool: "echo", Args: json.RawMessage(`{"n":3}`)},
		{Tool: "echo", Args: json.RawMessage(`{"n":10000}`)}, // offloaded
		{Tool: "boom"},
		{Tool: "send"},
		{Tool: "no_such_tool_" + strings.Repeat("z", 40)},
		{Tool: "echo", Args: json.RawMessage(`{"bad":1}`)},
	} {
		inv.Invoke(ctx, sess, c)
	}

	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"airlock_tool_calls_total", map[string]string{"tool": "echo", "status": "ok", "reason": ""}, 2},
		{"airlock_tool_calls_total", map[string]string{"tool": "boom", "status": "error", "reason": "tool_error"}, 1},
		{"airlock_tool_calls_total", map[string]string{"tool": "send", "status": "ok", "reason": ""}, 1},
		{"airlock_tool_calls_total", map[string]string{"tool": "unknown", "status": "error", "reason": "unknown_tool"}, 1},
		{"airlock_tool_calls_total", map[string]string{"tool": "echo", "status": "error", "reason": "invalid_arguments"}, 1},
		{"airlock_tool_call_duration_seconds", map[string]string{"tool": "echo", "status": "ok"}, 2},
		{"airlock_tool_calls_in_flight", map[string]string{"tool": "echo"}, 0},
		{"airlock_approvals_total", map[string]string{"tool": "send", "status": "approved"}, 1},
		{"airlock_approval_wait_seconds", map[string]string{"tool": "send", "status": "approved"}, 1},
		{"airlock_artifacts_offloaded_total", nil, 1},
		{"airlock_pins_outstanding", nil, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, count(t, reg, tc.name, tc.labels), "%v", tc.labels)
		})
	}
	require.GreaterOrEqual(t, count(t, reg, "airlock_artifacts_offloaded_bytes_total", nil), 10000.0)

	require.NoError(t, sess.Close(ctx))
	require.Equal(t, 0.0, count(t, reg, "airlock_pins_outstanding", nil), "closing the session released the pin")
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(""), "airlock_chains_total"))
}

func TestNoIDsInLabels(t *testing.T) {
	box, reg, m := fixture(t)
	inv, err := invoker.New(box, invoker.Options{Hooks: m.Hooks(), Progress: m.Progress()})
	require.NoError(t, err)
	sess := inv.NewSession(session.Options{Tenant: "tenant-secret", ID: "s_session-id"})
	defer sess.Close(context.Background())
	inv.Invoke(context.Background(), sess, invoker.Call{Tool: "echo", Args: json.RawMessage(`{"n":1}`)})
	inv.Invoke(context.Background(), sess, invoker.Call{Tool: "send"})
	m.ObserveChain("ok", time.Second, 1<<20)

	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		require.True(t, strings.HasPrefix(mf.GetName(), "airlock_"), mf.GetName())
		for _, mt := range mf.GetMetric() {
			for _, lp := range mt.GetLabel() {
				require.Contains(t, []string{"tool", "status", "reason", "transition"}, lp.GetName())
				require.NotContains(t, lp.GetValue(), "secret")
				require.NotContains(t, lp.GetValue(), "session")
			}
		}
	}
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	require.Empty(t, problems)
}

func TestBoundedLabels(t *testing.T) {
	_, reg, m := fixture(t)
	m.ToolEnd(invoker.Event{Kind: invoker.ToolEnd, Tool: "echo", Status: "weird", Reason: "made_up"})
	m.ToolEnd(invoker.Event{Kind: invoker.ToolStart, Tool: "echo"}) // ignored
	require.Equal(t, 1.0, count(t, reg, "airlock_tool_calls_total", map[string]string{"tool": "echo", "status": "other", "reason": "other"}))
	require.Equal(t, 1, testutil.CollectAndCount(reg, "airlock_tool_calls_total"))

	m.ObserveChain("exploded", time.Millisecond, 0)
	require.Equal(t, 1.0, count(t, reg, "airlock_chains_total", map[string]string{"status": "other"}))

	for i := range 40 {
		m.BridgeError("reason_" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
	}
	m.BridgeError("Not A Code!")
	m.BridgeError(strings.Repeat("x", 33))
	require.Equal(t, 33, testutil.CollectAndCount(reg, "airlock_bridge_errors_total"), "32 codes and other")
	require.Equal(t, 10.0, count(t, reg, "airlock_bridge_errors_total", map[string]string{"reason": "other"}))
	m.BridgeError("reason_aa")
	require.Equal(t, 2.0, count(t, reg, "airlock_bridge_errors_total", map[string]string{"reason": "reason_aa"}))
}

func TestNilToolboxLabelsUnknown(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, nil, nil)
	require.NoError(t, err)
	m.ToolEnd(invoker.Event{Kind: invoker.ToolEnd, Tool: "anything", Status: session.StatusOK})
	require.Equal(t, 1.0, count(t, reg, "airlock_tool_calls_total", map[string]string{"tool": "unknown"}))
}

func TestChains(t *testing.T) {
	_, reg, m := fixture(t)
	end := m.StartChain()
	require.Equal(t, 1.0, count(t, reg, "airlock_chains_in_flight", nil))
	end("ok", 8<<20)
	end("error", 0) // a second call is ignored
	require.Equal(t, 0.0, count(t, reg, "airlock_chains_in_flight", nil))
	m.StartChain()("limit_exceeded", 0)
	m.StartChain()("parked", 0)
	m.StartChain()("waiting_approval", 0) // not how a stretch ends: other

	expected := `
# HELP airlock_chains_total Chains run, by final status.
# TYPE airlock_chains_total counter
airlock_chains_total{status="limit_exceeded"} 1
airlock_chains_total{status="ok"} 1
airlock_chains_total{status="other"} 1
airlock_chains_total{status="parked"} 1
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(expected), "airlock_chains_total"))
	require.Equal(t, 1.0, count(t, reg, "airlock_chain_duration_seconds", map[string]string{"status": "ok"}))
	require.Equal(t, 1.0, count(t, reg, "airlock_chain_duration_seconds", map[string]string{"status": "limit_exceeded"}))
	require.Equal(t, 1.0, count(t, reg, "airlock_guest_memory_bytes", nil), "0 bytes is not observed")
}

func TestApproverOutcomes(t *testing.T) {
	_, reg, m := fixture(t)
	req := invoker.ApprovalRequest{Tool: "send"}
	tests := []struct {
		name    string
		h       invoker.ApprovalFunc
		timeout bool
		status  string
	}{
		{"approved", func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) { return invoker.Approved, nil }, false, "approved"},
		{"denied", func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) { return invoker.Denied, nil }, false, "denied"},
		{"failed", func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
			return invoker.Denied, errors.New("x")
		}, false, "failed"},
		{"timeout", func(ctx context.Context, _ invoker.ApprovalRequest) (invoker.Decision, error) {
			<-ctx.Done()
			return invoker.Denied, ctx.Err()
		}, true, "timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.timeout {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Millisecond)
				defer cancel()
			}
			_, _ = m.Approver(tc.h).Approve(ctx, req)
			require.Equal(t, 1.0, count(t, reg, "airlock_approvals_total", map[string]string{"tool": "send", "status": tc.status}))
		})
	}
	require.Nil(t, m.Approver(nil))
	require.Nil(t, m.Store(nil))
}

func TestRegisterTwiceFails(t *testing.T) {
	reg := prometheus.NewRegistry()
	_, err := metrics.New(reg, nil, nil)
	require.NoError(t, err)
	_, err = metrics.New(reg, nil, nil)
	require.Error(t, err)
	_, err = metrics.New(nil, nil, nil)
	require.Error(t, err)
	_, err = metrics.NewChains(reg)
	require.NoError(t, err)
	_, err = metrics.NewChains(reg)
	require.Error(t, err)
	_, err = metrics.NewChains(nil)
	require.Error(t, err)
}

// TestAbandonedAndHostBusy: tool executions abandoned by their call are a
// gauge read from the invoker, and host_busy is a reason label of its own.
func TestAbandonedAndHostBusy(t *testing.T) {
	reg := prometheus.NewRegistry()
	n := int64(3)
	m, err := metrics.New(reg, nil, func() int64 { return n })
	require.NoError(t, err)
	require.Equal(t, 3.0, count(t, reg, "airlock_tool_executions_abandoned", nil))
	n = 1
	require.Equal(t, 1.0, count(t, reg, "airlock_tool_executions_abandoned", nil))
	m.ToolEnd(invoker.Event{Kind: invoker.ToolEnd, Tool: "x", Status: session.StatusError, Reason: invoker.ReasonHostBusy})
	require.Equal(t, 1.0, count(t, reg, "airlock_tool_calls_total", map[string]string{"reason": "host_busy"}))
}

// TestInFlightHelp: the gauge counts calls waiting for their tool, which an
// abandoned call leaves while its tool may still run; its help says so
// rather than claim to count running tools.
func TestInFlightHelp(t *testing.T) {
	_, reg, m := fixture(t)
	m.ToolProgress(invoker.Event{Kind: invoker.ToolCall, Tool: "echo"})
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == "airlock_tool_calls_in_flight" {
			require.Equal(t, "Tool calls waiting for their tool to return, by tool. A call abandoned on timeout or cancellation leaves the gauge even if its tool still runs.", mf.GetHelp())
			return
		}
	}
	t.Fatal("airlock_tool_calls_in_flight not gathered")
}
