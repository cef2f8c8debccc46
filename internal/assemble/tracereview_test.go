package assemble_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// recorder is an HTTP upstream that keeps the trace and idempotency
// headers of every request it gets.
type recorder struct {
	mu   sync.Mutex
	reqs []http.Header
	url  string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Header.Clone())
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

func (r *recorder) headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.reqs...)
}

// runWith runs script on a process with tracing on (ratio 1) and one HTTP
// tool, forecast, calling rec; hooks are the embedder's. It returns the
// spans exported.
func runWith(t *testing.T, rec *recorder, hooks invoker.Hooks, remote trace.SpanContext, tenant, script string) []map[string]any {
	t.Helper()
	ctx := context.Background()
	cfg := load(t, fmt.Sprintf(`
tracing:
  exporter: stdout
  sample_ratio: 1
tools:
  builtin: []
  http:
    - name: forecast
      description: the forecast
      url: %s/forecast
      method: GET
      input_schema: {type: object, properties: {city: {type: string}}}
`, rec.url))
	var spans bytes.Buffer
	p, err := assemble.Build(ctx, cfg, assemble.Options{Scripts: true, Service: true, TraceOutput: &spans, Hooks: hooks})
	require.NoError(t, err)
	defer p.Close(ctx)
	p.Service.Start(ctx)
	sctx := ctx
	if remote.IsValid() {
		sctx = trace.ContextWithRemoteSpanContext(ctx, remote)
	}
	v, err := p.Service.Submit(sctx, service.Caller{Tenant: tenant}, &service.SubmitRequest{Script: script}, service.SubmitOptions{})
	require.NoError(t, err)
	require.NotNil(t, v.Result)
	require.Equal(t, chain.StatusOK, v.Result.Status, "%+v", v.Result)
	require.NoError(t, p.Close(ctx))
	return readSpans(t, &spans)
}

// toolSpanIDs returns the span ids of the exported tool-call spans.
func toolSpanIDs(spans []map[string]any) []string {
	var ids []string
	for _, s := range spans {
		if s["name"] == tracing.ToolSpan {
			ids = append(ids, s["span_id"].(string))
		}
	}
	return ids
}

// spanIDOf is the parent-id field of a W3C traceparent.
func spanIDOf(t *testing.T, traceparent string) string {
	parts := strings.Split(traceparent, "-")
	require.Len(t, parts, 4, "traceparent %q", traceparent)
	return parts[2]
}

// TestEmbedderStartCallKeepsTheCallSpan: an embedder's own StartCall hook
// (assemble.Options.Hooks) that starts a span of its own, panics or
// returns nil does not cost the call its span: the upstream gets a
// traceparent, and exactly one tool-call span is exported, the one that
// traceparent names.
func TestEmbedderStartCallKeepsTheCallSpan(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	own := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem)) // the embedder's tracer
	t.Cleanup(func() { _ = own.Shutdown(context.Background()) })
	for _, tc := range []struct {
		name  string
		start func(context.Context, invoker.Event) context.Context
	}{
		{"own span", func(ctx context.Context, _ invoker.Event) context.Context {
			ctx, span := own.Tracer("embedder").Start(ctx, "embedder.call")
			span.End()
			return ctx
		}},
		{"panic", func(context.Context, invoker.Event) context.Context { panic("embedder hook") }},
		{"nil", func(context.Context, invoker.Event) context.Context { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder(t)
			spans := runWith(t, rec, invoker.Hooks{StartCall: tc.start}, trace.SpanContext{}, "acme",
				`await tools.forecast({city: "Oslo"}); return 1;`)
			ids := toolSpanIDs(spans)
			require.Len(t, ids, 1, "one span per call")
			hs := rec.headers()
			require.Len(t, hs, 1)
			tp := hs[0].Get("Traceparent")
			require.NotEmpty(t, tp, "the tool runs under the call's span")
			want := spanIDOf(t, tp)
			if tc.name == "own span" { // the embedder's span, a child of the call's, is the tool's parent
				got := mem.GetSpans()
				require.Len(t, got, 1)
				require.Equal(t, want, got[0].SpanContext.SpanID().String())
				want = got[0].Parent.SpanID().String()
				mem.Reset()
			}
			require.Equal(t, ids[0], want, "the span the upstream was told of is the one exported")
		})
	}
}

// TestCallSpanEndsUnderAnotherSpan: ToolEnd and Parked end the span
// StartCall began even when a later hook put a span of its own into the
// call's context; a chain started inside the tool (other session) leaves
// the outer call's span alone.
func TestCallSpanEndsUnderAnotherSpan(t *testing.T) {
	own := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = own.Shutdown(context.Background()) })
	for _, kind := range []invoker.EventKind{invoker.ToolEnd, invoker.ApprovalParked} {
		t.Run(kind.String(), func(t *testing.T) {
			var out bytes.Buffer
			tp, shutdown, err := assemble.SetupTracing(context.Background(), config.Tracing{Exporter: "stdout", SampleRatio: 1}, &out)
			require.NoError(t, err)
			tr := tracing.New(tp, "queue")
			cctx, end := tr.StartChain(context.Background(), tracing.Chain{ID: "ch_outer", Tenant: "acme", Language: "js"})
			call := tr.StartCall(cctx, invoker.Event{SessionID: "ch_outer", Tool: "send"})
			sent := toolbox.TraceContext(call)["traceparent"]
			// The embedder's hook wraps the call's context in a span of its own.
			wrapped, es := own.Tracer("embedder").Start(call, "embedder.call")
			es.End()
			// A chain the tool starts, whose invoker has no StartCall hook.
			nctx, nend := tr.StartChain(wrapped, tracing.Chain{ID: "ch_inner", Tenant: "acme", Language: "js"})
			tr.ToolEnd(nctx, invoker.Event{Kind: invoker.ToolEnd, SessionID: "ch_inner", Tool: "inner", Status: session.StatusOK, Seq: 1})
			nend(&chain.RunResult{Status: chain.StatusOK})
			tr.Parked(nctx, invoker.Event{Kind: invoker.ApprovalParked, SessionID: "ch_inner", Tool: "inner"})
			ev := invoker.Event{Kind: kind, SessionID: "ch_outer", Tool: "send", Status: session.StatusOK, Seq: 1}
			if kind == invoker.ToolEnd {
				tr.ToolEnd(wrapped, ev)
			} else {
				tr.Parked(wrapped, ev)
			}
			end(&chain.RunResult{Status: chain.StatusOK})
			require.NoError(t, shutdown(context.Background()))
			var outer []map[string]any
			for _, s := range readSpans(t, &out) {
				if s["name"] == tracing.ToolSpan && s["attributes"].(map[string]any)["airlock.tool"] == "send" {
					outer = append(outer, s)
				}
			}
			require.Len(t, outer, 1, "the outer call has one span")
			require.Equal(t, spanIDOf(t, sent), outer[0]["span_id"], "and it is the one its tool sent on")
		})
	}
}

// TestClientTraceStateIsBounded: a client's tracestate (up to 32 members
// of 512 characters each on POST /v1/chains) is cut to the 512 characters
// W3C asks a participant to propagate before it rides on every tool
// call's request and span: entries longer than 128 characters go first,
// then entries from the end.
func TestClientTraceStateIsBounded(t *testing.T) {
	long := strings.Repeat("v", 250)
	var members []string
	for i := range 32 {
		members = append(members, fmt.Sprintf("k%02d=%s", i, long))
	}
	members[3] = "small=1"
	huge, err := trace.ParseTraceState(strings.Join(members, ","))
	require.NoError(t, err)
	short := "vendor=abc,other=def"
	var fits []string
	for i := range 60 {
		fits = append(fits, fmt.Sprintf("m%02d=%s", i, strings.Repeat("x", 12)))
	}
	many, err := trace.ParseTraceState(strings.Join(fits[:32], ","))
	require.NoError(t, err)
	small, err := trace.ParseTraceState(short)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		ts   trace.TraceState
		want string
	}{
		{"small passes as it came", small, short},
		{"long entries go first", huge, "small=1"},
		{"then entries from the end", many, strings.Join(fits[:30], ",")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder(t)
			remote := trace.NewSpanContext(trace.SpanContextConfig{
				TraceID: trace.TraceID{0xa1}, SpanID: trace.SpanID{0xc1}, TraceState: tc.ts, Remote: true,
			})
			runWith(t, rec, invoker.Hooks{}, remote, "acme", `await tools.forecast({city: "Oslo"}); return 1;`)
			hs := rec.headers()
			require.Len(t, hs, 1)
			got := hs[0].Get("Tracestate")
			require.LessOrEqual(t, len(got), 512)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestParallelCallsEachHaveTheirSpan: many calls of one chain in flight
// at once (-race) each run under a span of their own: every upstream
// request names a distinct span, and each is exported exactly once.
func TestParallelCallsEachHaveTheirSpan(t *testing.T) {
	const n = 24
	rec := newRecorder(t)
	spans := runWith(t, rec, invoker.Hooks{}, trace.SpanContext{}, "acme", fmt.Sprintf(`
const calls = [];
for (let i = 0; i < %d; i++) calls.push(tools.forecast({city: "c" + i}));
await Promise.all(calls);
return 1;`, n))
	ids := toolSpanIDs(spans)
	require.Len(t, ids, n)
	hs := rec.headers()
	require.Len(t, hs, n)
	var sent []string
	for _, h := range hs {
		sent = append(sent, spanIDOf(t, h.Get("Traceparent")))
	}
	require.ElementsMatch(t, ids, sent)
}

// TestUnsampledChainStillCalls: at sample ratio 0 nothing is exported, the
// call runs, and the upstream is told the trace is not sampled.
func TestUnsampledChainStillCalls(t *testing.T) {
	rec := newRecorder(t)
	ctx := context.Background()
	cfg := load(t, fmt.Sprintf(`
tracing:
  exporter: stdout
  sample_ratio: 0
tools:
  builtin: []
  http:
    - {name: forecast, description: the forecast, url: '%s/f', method: GET}
`, rec.url))
	var spans bytes.Buffer
	p, err := assemble.Build(ctx, cfg, assemble.Options{Scripts: true, Service: true, TraceOutput: &spans})
	require.NoError(t, err)
	defer p.Close(ctx)
	p.Service.Start(ctx)
	v, err := p.Service.Submit(ctx, service.Caller{Tenant: "acme"}, &service.SubmitRequest{Script: `await tools.forecast({}); return 1;`}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, v.Result.Status, "%+v", v.Result)
	require.NoError(t, p.Close(ctx))
	require.Empty(t, readSpans(t, &spans))
	hs := rec.headers()
	require.Len(t, hs, 1)
	require.True(t, strings.HasSuffix(hs[0].Get("Traceparent"), "-00"), hs[0].Get("Traceparent"))
}

// TestParkedAndResumedCallSpans: through the invoker, a call that parks
// ends its span once (call status parked) and fires no ToolEnd; its
// resumption runs under a span of its own, which the tool sees and which
// ends once with the call's outcome.
func TestParkedAndResumedCallSpans(t *testing.T) {
	var out bytes.Buffer
	tp, shutdown, err := assemble.SetupTracing(context.Background(), config.Tracing{Exporter: "stdout", SampleRatio: 1}, &out)
	require.NoError(t, err)
	tr := tracing.New(tp, "park")
	var inTool []string
	box, err := toolbox.New(toolbox.Func("send", "sends", func(ctx context.Context, _ struct{}) (bool, error) {
		inTool = append(inTool, spanIDOf(t, toolbox.TraceContext(ctx)["traceparent"]))
		return true, nil
	}).WithRisk(toolbox.High))
	require.NoError(t, err)
	inv, err := invoker.New(box, invoker.Options{Hooks: invoker.Hooks{StartCall: tr.StartCall, OnToolEnd: tr.ToolEnd, OnEvent: tr.Parked}})
	require.NoError(t, err)
	sess := inv.NewSession(session.Options{ID: "ch_1", Tenant: "acme", ParkApprovals: true})
	defer sess.Close(context.Background())
	cctx, end := tr.StartChain(context.Background(), tracing.Chain{ID: "ch_1", Tenant: "acme", Language: "js"})
	res := inv.Invoke(cctx, sess, invoker.Call{Tool: "send"})
	require.Equal(t, session.StatusParked, res.Status, res.Message)
	p := res.Parked
	res = inv.Invoke(cctx, sess, invoker.Call{Tool: "send", Resume: &invoker.Resumption{
		Seq: p.Seq, Start: p.Start, ArgsHash: p.Request.ArgsHash, Decision: invoker.Approved}})
	require.True(t, res.OK(), res.Message)
	end(&chain.RunResult{Status: chain.StatusOK})
	require.NoError(t, shutdown(context.Background()))
	var statuses []string
	var ids []string
	for _, s := range readSpans(t, &out) {
		if s["name"] == tracing.ToolSpan {
			statuses = append(statuses, s["attributes"].(map[string]any)["airlock.call.status"].(string))
			ids = append(ids, s["span_id"].(string))
		}
	}
	require.Equal(t, []string{"parked", "ok"}, statuses)
	require.NotEqual(t, ids[0], ids[1])
	require.Equal(t, []string{ids[1]}, inTool, "the resumed call runs under its own span")
}

// spanCount counts the spans started and ended on a tracer provider.
type spanCount struct {
	mu           sync.Mutex
	start, ended map[string]int // by span id
}

func (c *spanCount) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.start[s.SpanContext().SpanID().String()]++
}

func (c *spanCount) OnEnd(s sdktrace.ReadOnlySpan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended[s.SpanContext().SpanID().String()]++
}
func (c *spanCount) Shutdown(context.Context) error   { return nil }
func (c *spanCount) ForceFlush(context.Context) error { return nil }

// TestEveryCallSpanEndsOnce: whatever ends the call (success, a tool
// panic, its timeout, the chain's cancellation, an unknown tool, a spent
// budget, a refused approval), the span StartCall began ends exactly once
// and no other tool-call span is started.
func TestEveryCallSpanEndsOnce(t *testing.T) {
	block := func(ctx context.Context, _ struct{}) (bool, error) { <-ctx.Done(); return false, ctx.Err() }
	box, err := toolbox.New(
		toolbox.Func("ok", "succeeds", func(context.Context, struct{}) (bool, error) { return true, nil }),
		toolbox.Func("boom", "panics", func(context.Context, struct{}) (bool, error) { panic("tool") }),
		toolbox.Func("slow", "waits for its context", block),
		toolbox.Func("send", "needs approval", func(context.Context, struct{}) (bool, error) { return true, nil }).WithRisk(toolbox.High),
	)
	require.NoError(t, err)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name, tool string
		ctx        context.Context
		reason     string
	}{
		{"ok", "ok", context.Background(), ""},
		{"tool panic", "boom", context.Background(), invoker.ReasonToolPanic},
		{"timeout", "slow", context.Background(), invoker.ReasonCallTimeout},
		{"cancelled", "ok", cancelled, invoker.ReasonCancelled},
		{"unknown tool", "nope", context.Background(), invoker.ReasonUnknownTool},
		{"budget", "ok", context.Background(), invoker.ReasonBudgetExhausted},
		{"no approver", "send", context.Background(), invoker.ReasonNoApprovalHandler},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cnt := &spanCount{start: map[string]int{}, ended: map[string]int{}}
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(cnt))
			defer func() { _ = tp.Shutdown(context.Background()) }()
			tr := tracing.New(tp, "ask")
			pol := invoker.Policy{CallTimeout: 50 * time.Millisecond}
			if tc.name == "budget" {
				pol.MaxToolCalls = 1
			}
			inv, err := invoker.New(box, invoker.Options{Policy: pol,
				Hooks: invoker.Hooks{StartCall: tr.StartCall, OnToolEnd: tr.ToolEnd, OnEvent: tr.Parked}})
			require.NoError(t, err)
			sess := inv.NewSession(session.Options{ID: "ch_1", Tenant: "acme"})
			defer sess.Close(context.Background())
			cctx, end := tr.StartChain(tc.ctx, tracing.Chain{ID: "ch_1", Tenant: "acme", Language: "js"})
			if tc.name == "budget" {
				require.True(t, inv.Invoke(cctx, sess, invoker.Call{Tool: "ok"}).OK())
			}
			res := inv.Invoke(cctx, sess, invoker.Call{Tool: tc.tool})
			require.Equal(t, tc.reason, res.Reason, res.Message)
			end(&chain.RunResult{Status: chain.StatusOK})
			cnt.mu.Lock()
			defer cnt.mu.Unlock()
			require.Equal(t, cnt.start, cnt.ended, "every span started ends, once")
			calls := 1
			if tc.name == "budget" {
				calls = 2
			}
			require.Len(t, cnt.start, calls+1, "one span per call and the chain's")
		})
	}
}
