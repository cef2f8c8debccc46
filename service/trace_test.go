package service_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/service"
)

// TestResumedChainContinuesItsTrace: a chain that parks on process A and
// is decided and resumed on process B is one trace: B's chain span has
// the trace id of A's and A's chain span as its parent; its tool call's
// span is B's chain span's child.
func TestResumedChainContinuesItsTrace(t *testing.T) {
	ctx := context.Background()
	drv := memblob.New()
	var sent atomic.Int32
	proc := func(node string) (*service.Service, *tracetest.SpanRecorder) {
		rec := tracetest.NewSpanRecorder()
		tr := tracing.New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), "park")
		return newTracedProc(t, drv, node, 256<<20, &sent, tr).svc, rec
	}
	a, recA := proc("node-a")
	b, recB := proc("node-b")
	v, err := a.Submit(ctx, service.Caller{Tenant: "acme", Role: service.RoleAll},
		&service.SubmitRequest{Script: `return await tools.send({to: "ops"})`}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	req, err := b.Approval(ctx, "acme", v.Pending[0].ID)
	require.NoError(t, err)
	_, err = b.Decide(ctx, "acme", req.ID, service.Decision{Approve: true, ArgsHash: req.ArgsHash, Hold: true})
	require.NoError(t, err)
	out, err := b.Resume(ctx, "acme", v.ID)
	require.NoError(t, err)
	require.Equal(t, "ok", out.Status)

	spanNamed := func(spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
		for _, s := range spans {
			if s.Name() == name {
				return s
			}
		}
		t.Fatalf("no span %s among %d", name, len(spans))
		return nil
	}
	chainA := spanNamed(recA.Ended(), tracing.ChainSpan)
	parked := spanNamed(recA.Ended(), tracing.ToolSpan)
	require.Equal(t, chainA.SpanContext().SpanID(), parked.Parent().SpanID())
	require.Eventually(t, func() bool { return len(recB.Ended()) >= 2 }, 10*time.Second, 10*time.Millisecond)
	chainB := spanNamed(recB.Ended(), tracing.ChainSpan)
	callB := spanNamed(recB.Ended(), tracing.ToolSpan)
	require.Equal(t, chainA.SpanContext().TraceID(), chainB.SpanContext().TraceID(), "the resumed stretch continues the chain's trace")
	require.Equal(t, chainA.SpanContext().SpanID(), chainB.Parent().SpanID())
	require.Equal(t, chainB.SpanContext().SpanID(), callB.Parent().SpanID())
	require.Equal(t, chainA.SpanContext().TraceID(), callB.SpanContext().TraceID())
}
