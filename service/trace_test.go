package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// TestResumedChainContinuesItsTrace: a chain that parks on process A and
// is decided and resumed on process B is one trace: B's chain span has
// the trace id of A's and A's chain span as its parent; its tool call's
// span is B's chain span's child.
func TestResumedChainContinuesItsTrace(t *testing.T) {
	ctx := context.Background()
	drv := memblob.New()
	proc := func(node string) (*service.Service, *tracetest.SpanRecorder) {
		bs := blobstore.New(drv, blobstore.Options{})
		fleet, err := durable.New(durable.Options{Blobs: bs, Key: faultsKey, Node: node})
		require.NoError(t, err)
		box, _ := demo.Toolbox()
		require.NoError(t, box.Add(toolbox.Func("send", "Sends a message", func(_ context.Context, in struct {
			To string `json:"to"`
		}) (string, error) {
			return "sent " + in.To, nil
		}).WithRisk(toolbox.High)))
		rec := tracetest.NewSpanRecorder()
		tr := tracing.New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), "park")
		queue := approval.NewQueue(approval.Options{})
		inv, err := invoker.New(box, invoker.Options{Approver: queue, Store: bs,
			Hooks: invoker.Hooks{StartCall: tr.StartCall, OnToolEnd: tr.ToolEnd, OnEvent: tr.Parked}})
		require.NoError(t, err)
		runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
		require.NoError(t, err)
		svc, err := service.New(runner, service.Options{Queue: queue, Fleet: fleet, Park: true, ParkTTL: time.Hour, Tracer: tr})
		require.NoError(t, err)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = svc.Close(ctx)
		})
		return svc, rec
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
