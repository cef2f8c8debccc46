package assemble_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// TestApprovalOutcome maps the invoker's recorded approval outcome, not a
// guess from the reason code: a HIGH call that ended in tool_error after an
// approval is approved, one refused before the gate needed none.
func TestApprovalOutcome(t *testing.T) {
	tests := []struct {
		approval, reason string
		want             string
	}{
		{"", "", invoker.ApprovalNotRequired},
		{"", invoker.ReasonInvalidArguments, invoker.ApprovalNotRequired},
		{"", invoker.ReasonCancelled, invoker.ApprovalNotRequired},
		{invoker.ApprovalApproved, "", invoker.ApprovalApproved},
		{invoker.ApprovalApproved, invoker.ReasonToolError, invoker.ApprovalApproved},
		{invoker.ApprovalApproved, invoker.ReasonCancelled, invoker.ApprovalApproved},
		{invoker.ApprovalDenied, invoker.ReasonApprovalDenied, invoker.ApprovalDenied},
		{invoker.ApprovalTimeout, invoker.ReasonApprovalTimeout, invoker.ApprovalTimeout},
		{invoker.ApprovalNoHandler, invoker.ReasonNoApprovalHandler, invoker.ApprovalNoHandler},
		{invoker.ApprovalFailed, invoker.ReasonApprovalFailed, invoker.ApprovalFailed},
		{invoker.ApprovalCancelled, invoker.ReasonCancelled, invoker.ApprovalCancelled},
	}
	for _, tc := range tests {
		t.Run(tc.approval+"/"+tc.reason, func(t *testing.T) {
			got := tracing.ApprovalOutcome(invoker.Event{Risk: toolbox.High, Reason: tc.reason, Approval: tc.approval})
			require.Equal(t, tc.want, got)
		})
	}
}

// readSpans decodes the spans the stdout exporter wrote to r.
func readSpans(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var spans []map[string]any
	for dec := json.NewDecoder(r); dec.More(); {
		var s map[string]any
		require.NoError(t, dec.Decode(&s))
		spans = append(spans, s)
	}
	return spans
}

// TestRemoteParentCannotForceSampling: a chain continues a client's
// traceparent (its trace id, the client's span as parent), but neither the
// client's sampled flag nor a trace id it picked to pass the ratio sampler
// forces spans: at ratio 0 nothing is recorded, at ratio 0.5 a chain under
// the same remote parent is sometimes sampled and sometimes not.
func TestRemoteParentCannotForceSampling(t *testing.T) {
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		// The low half zero: TraceIDRatioBased samples this id at any ratio above 0.
		TraceID:    trace.TraceID{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08},
		SpanID:     trace.SpanID{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08},
		TraceFlags: trace.FlagsSampled,
		Remote:     true,
	})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), remote)
	run := func(ratio float64, chains int) []map[string]any {
		var out bytes.Buffer
		tp, shutdown, err := assemble.SetupTracing(context.Background(), config.Tracing{Exporter: "stdout", SampleRatio: ratio}, &out)
		require.NoError(t, err)
		tr := tracing.New(tp, "queue")
		for range chains {
			cctx, end := tr.StartChain(ctx, tracing.Chain{ID: "ch_1", Tenant: "acme", Language: "js"})
			tr.ToolEnd(tr.StartCall(cctx, invoker.Event{Tool: "kv_get"}), invoker.Event{Kind: invoker.ToolEnd, Tool: "kv_get", Status: session.StatusOK, Seq: 1})
			end(&chain.RunResult{Status: chain.StatusOK})
		}
		require.NoError(t, shutdown(context.Background()))
		return readSpans(t, &out)
	}
	require.Empty(t, run(0, 20), "the remote parent's sampled flag does not force sampling")
	half := len(run(0.5, 200)) / 2 // two spans per sampled chain
	require.Greater(t, half, 0, "some chains are sampled at ratio 0.5")
	require.Less(t, half, 200, "a trace id picked to pass the ratio sampler does not force sampling")
	spans := run(1, 1)
	require.Len(t, spans, 2)
	for _, s := range spans {
		require.Equal(t, remote.TraceID().String(), s["trace_id"], "the chain continues the client's trace")
	}
	require.Equal(t, tracing.ToolSpan, spans[0]["name"])
	require.Equal(t, tracing.ChainSpan, spans[1]["name"])
	require.Equal(t, spans[1]["span_id"], spans[0]["parent_span_id"], "the tool call follows its chain")
	require.Equal(t, remote.SpanID().String(), spans[1]["parent_span_id"])
	require.Empty(t, spans[1]["links"])
}

// TestParkedCallSpanEnds: a call that parks ends its span (call status
// parked); its resumption is a span of its own.
func TestParkedCallSpanEnds(t *testing.T) {
	var out bytes.Buffer
	tp, shutdown, err := assemble.SetupTracing(context.Background(), config.Tracing{Exporter: "stdout", SampleRatio: 1}, &out)
	require.NoError(t, err)
	tr := tracing.New(tp, "park")
	cctx, end := tr.StartChain(context.Background(), tracing.Chain{ID: "ch_1", Tenant: "acme", Language: "js"})
	call := tr.StartCall(cctx, invoker.Event{Tool: "send"})
	tr.Parked(call, invoker.Event{Kind: invoker.ApprovalParked, Tool: "send", Risk: toolbox.High, Gate: "confirm"})
	tr.Parked(cctx, invoker.Event{Kind: invoker.ApprovalParked, Tool: "send"}) // no call span: nothing ends
	end(&chain.RunResult{Status: chain.StatusOK})
	require.NoError(t, shutdown(context.Background()))
	spans := readSpans(t, &out)
	require.Len(t, spans, 2)
	require.Equal(t, tracing.ToolSpan, spans[0]["name"])
	attrs := spans[0]["attributes"].(map[string]any)
	require.Equal(t, "parked", attrs["airlock.call.status"])
	require.Equal(t, "confirm", attrs["airlock.policy.gate"])
	require.Equal(t, tracing.ChainSpan, spans[1]["name"])
}

// TestStdoutExporter runs a chain span and a tool span through Setup's
// stdout exporter and reads them back.
func TestStdoutExporter(t *testing.T) {
	var out bytes.Buffer
	tp, shutdown, err := assemble.SetupTracing(context.Background(), config.Tracing{Exporter: "stdout", SampleRatio: 1}, &out)
	require.NoError(t, err)
	tr := tracing.New(tp, "deny")
	require.True(t, tr.Enabled())
	ctx, end := tr.StartChain(context.Background(), tracing.Chain{ID: "ch_1", Tenant: "acme", Language: "js"})
	tr.ToolEnd(ctx, invoker.Event{Kind: invoker.ToolEnd, Tool: "send_message", Risk: toolbox.High,
		Status: session.StatusDenied, Reason: invoker.ReasonApprovalDenied, Approval: invoker.ApprovalDenied, Duration: time.Millisecond, Seq: 1})
	end(&chain.RunResult{Status: chain.StatusOK, Stats: chain.Stats{Calls: 1}})
	require.NoError(t, shutdown(context.Background()))

	spans := readSpans(t, &out)
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
	tp, shutdown, err := assemble.SetupTracing(context.Background(), config.Tracing{}, nil)
	require.NoError(t, err)
	require.Nil(t, tp)
	require.NoError(t, shutdown(context.Background()))
	tr := tracing.New(nil, "queue")
	require.False(t, tr.Enabled())
	ctx, end := tr.StartChain(context.Background(), tracing.Chain{})
	tr.ToolEnd(ctx, invoker.Event{Kind: invoker.ToolEnd})
	end(nil)
	_, _, err = assemble.SetupTracing(context.Background(), config.Tracing{Exporter: "zipkin"}, nil)
	require.Error(t, err)
}
