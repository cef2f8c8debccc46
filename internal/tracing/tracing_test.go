package tracing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

func TestApprovalOutcome(t *testing.T) {
	tests := []struct {
		risk   toolbox.Risk
		reason string
		want   string
	}{
		{toolbox.Safe, "", tracing.ApprovalNotRequired},
		{toolbox.High, "", tracing.ApprovalApproved},
		{toolbox.High, invoker.ReasonToolError, tracing.ApprovalApproved},
		{toolbox.High, invoker.ReasonApprovalDenied, tracing.ApprovalDenied},
		{toolbox.High, invoker.ReasonApprovalTimeout, tracing.ApprovalTimeout},
		{toolbox.High, invoker.ReasonNoApprovalHandler, tracing.ApprovalNoHandler},
		{toolbox.High, invoker.ReasonApprovalFailed, tracing.ApprovalError},
		{toolbox.High, invoker.ReasonCancelled, tracing.ApprovalCancelled},
		{toolbox.High, invoker.ReasonInvalidArguments, tracing.ApprovalNotRequired},
		{toolbox.Safe, invoker.ReasonBudgetExhausted, tracing.ApprovalNotRequired},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			got := tracing.ApprovalOutcome(invoker.Event{Risk: tc.risk, Reason: tc.reason}, toolbox.Safe)
			require.Equal(t, tc.want, got)
		})
	}
	require.Equal(t, tracing.ApprovalNotRequired, tracing.ApprovalOutcome(invoker.Event{Risk: toolbox.High}, toolbox.High))
}

// TestStdoutExporter runs a chain span and a tool span through Setup's
// stdout exporter and reads them back.
func TestStdoutExporter(t *testing.T) {
	var out bytes.Buffer
	tp, shutdown, err := tracing.Setup(context.Background(), config.Tracing{Exporter: "stdout", SampleRatio: 1}, &out)
	require.NoError(t, err)
	tr := tracing.New(tp, "deny")
	require.True(t, tr.Enabled())
	ctx, end := tr.StartChain(context.Background(), tracing.Chain{ID: "ch_1", Tenant: "acme", Language: "js"})
	tr.ToolEnd(ctx, invoker.Event{Kind: invoker.ToolEnd, Tool: "send_message", Risk: toolbox.High,
		Status: session.StatusDenied, Reason: invoker.ReasonApprovalDenied, Duration: time.Millisecond, Seq: 1})
	end(&chain.RunResult{Status: chain.StatusOK, Stats: chain.Stats{Calls: 1}})
	require.NoError(t, shutdown(context.Background()))

	dec := json.NewDecoder(&out)
	var spans []map[string]any
	for dec.More() {
		var s map[string]any
		require.NoError(t, dec.Decode(&s))
		spans = append(spans, s)
	}
	require.Len(t, spans, 2)
	require.Equal(t, tracing.ToolSpan, spans[0]["name"])
	require.Equal(t, "Error", spans[0]["status"])
	attrs := spans[0]["attributes"].(map[string]any)
	require.Equal(t, "denied", attrs["airlock.approval.outcome"])
	require.Equal(t, "deny", attrs["airlock.approval.mode"])
	require.Equal(t, "approval_denied", attrs["airlock.call.reason"])
	require.Equal(t, spans[1]["span_id"], spans[0]["parent_span_id"])
	require.Equal(t, tracing.ChainSpan, spans[1]["name"])
}

func TestOff(t *testing.T) {
	tp, shutdown, err := tracing.Setup(context.Background(), config.Tracing{}, nil)
	require.NoError(t, err)
	require.Nil(t, tp)
	require.NoError(t, shutdown(context.Background()))
	tr := tracing.New(nil, "queue")
	require.False(t, tr.Enabled())
	ctx, end := tr.StartChain(context.Background(), tracing.Chain{})
	tr.ToolEnd(ctx, invoker.Event{Kind: invoker.ToolEnd})
	end(nil)
	_, _, err = tracing.Setup(context.Background(), config.Tracing{Exporter: "zipkin"}, nil)
	require.Error(t, err)
}
