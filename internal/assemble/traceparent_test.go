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

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/service"
)

// upstream records the trace and idempotency headers an HTTP tool sends
// and the _meta an MCP tool sends.
type upstream struct {
	mu    sync.Mutex
	http  map[string]http.Header // by path
	meta  map[string]any         // of the MCP call
	hsURL string
	mcp   string
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{http: map[string]http.Header{}}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.http[r.URL.Path] = r.Header.Clone()
		u.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	}))
	t.Cleanup(hs.Close)
	u.hsURL = hs.URL
	srv := sdk.NewServer(&sdk.Implementation{Name: "gosrv", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echoes."},
		func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			u.mu.Lock()
			u.meta = map[string]any(req.Params.Meta)
			u.mu.Unlock()
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo"}}}, nil, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ms := httptest.NewServer(h)
	t.Cleanup(ms.Close)
	u.mcp = ms.URL
	return u
}

const traceScript = `
await tools.forecast({city: "Oslo"});
await tools.notify({text: "hi", $idempotency_key: "notify-42"});
await tools.go_echo({});
return 1;`

// runTraced runs traceScript on a process built with tracing as given,
// under a submission carrying remote (if valid), and returns the spans
// the stdout exporter wrote.
func runTraced(t *testing.T, u *upstream, tracingYAML string, remote trace.SpanContext) []map[string]any {
	t.Helper()
	ctx := context.Background()
	cfg := load(t, fmt.Sprintf(`
%s
tools:
  builtin: []
  risk:
    notify: SAFE
  http:
    - name: forecast
      description: the forecast
      url: %s/forecast
      method: GET
      input_schema: {type: object, properties: {city: {type: string}}}
    - name: notify
      description: notify someone
      url: %s/notify
      input_schema: {type: object, properties: {text: {type: string}}}
mcp_servers:
  - name: go
    url: %s
    risk: {"*": SAFE}
`, tracingYAML, u.hsURL, u.hsURL, u.mcp))
	var spans bytes.Buffer
	p, err := assemble.Build(ctx, cfg, assemble.Options{Scripts: true, Service: true, TraceOutput: &spans})
	require.NoError(t, err)
	defer p.Close(ctx)
	p.Service.Start(ctx)
	sctx := ctx
	if remote.IsValid() {
		sctx = trace.ContextWithRemoteSpanContext(ctx, remote)
	}
	v, err := p.Service.Submit(sctx, service.Caller{Tenant: "acme"}, &service.SubmitRequest{Script: traceScript}, service.SubmitOptions{})
	require.NoError(t, err)
	require.NotNil(t, v.Result)
	require.Equal(t, chain.StatusOK, v.Result.Status, "%+v", v.Result)
	require.NoError(t, p.Close(ctx)) // flushes the spans
	return readSpans(t, &spans)
}

// TestToolsReceiveTraceContext: with tracing on, a submission's
// traceparent is continued by the chain's span (same trace id, the
// client's span as parent); each tool call is a span of its own under the
// chain's, started before the tool runs, and its traceparent reaches the
// HTTP upstream (header) and the MCP server (_meta), together with the
// call's Idempotency-Key for the call that has one.
func TestToolsReceiveTraceContext(t *testing.T) {
	u := newUpstream(t)
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0},
		SpanID:  trace.SpanID{0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8},
		Remote:  true, // not sampled: the chain's own draw (ratio 1) decides
	})
	spans := runTraced(t, u, "tracing:\n  exporter: stdout\n  sample_ratio: 1\n", remote)
	byName := map[string][]map[string]any{}
	for _, s := range spans {
		byName[s["name"].(string)] = append(byName[s["name"].(string)], s)
	}
	require.Len(t, byName[tracing.ChainSpan], 1)
	ch := byName[tracing.ChainSpan][0]
	require.Equal(t, remote.TraceID().String(), ch["trace_id"], "the chain continues the client's trace")
	require.Equal(t, remote.SpanID().String(), ch["parent_span_id"])
	tools := byName[tracing.ToolSpan]
	require.Len(t, tools, 3)
	toolSpan := map[string]string{} // tool name -> span id
	for _, s := range tools {
		require.Equal(t, ch["trace_id"], s["trace_id"])
		require.Equal(t, ch["span_id"], s["parent_span_id"])
		attrs := s["attributes"].(map[string]any)
		require.Equal(t, "ok", attrs["airlock.call.status"])
		require.NotEmpty(t, attrs["airlock.policy.decision_id"], "the policy decision's attributes are on the span")
		toolSpan[attrs["airlock.tool"].(string)] = s["span_id"].(string)
	}
	want := func(tool string) string { return "00-" + remote.TraceID().String() + "-" + toolSpan[tool] + "-01" }
	u.mu.Lock()
	defer u.mu.Unlock()
	require.Equal(t, want("forecast"), u.http["/forecast"].Get("Traceparent"))
	require.Empty(t, u.http["/forecast"].Get("Idempotency-Key"), "a read has no key")
	require.Equal(t, want("notify"), u.http["/notify"].Get("Traceparent"))
	require.Equal(t, httptool.IdempotencyKey("acme", "notify-42"), u.http["/notify"].Get("Idempotency-Key"), "the key, bound to the tenant")
	require.Equal(t, want("go_echo"), u.meta["traceparent"], "MCP carries it in _meta")
}

// TestNoTraceContextWhenTracingIsOff: with tracing off nothing is sent,
// and a client's traceparent is not passed through to upstreams.
func TestNoTraceContextWhenTracingIsOff(t *testing.T) {
	u := newUpstream(t)
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled, Remote: true,
	})
	require.Empty(t, runTraced(t, u, "", remote))
	u.mu.Lock()
	defer u.mu.Unlock()
	for path, h := range u.http {
		require.Empty(t, h.Get("Traceparent"), path)
		require.Empty(t, h.Get("Tracestate"), path)
	}
	require.Equal(t, httptool.IdempotencyKey("acme", "notify-42"), u.http["/notify"].Get("Idempotency-Key"), "the key, bound to the tenant")
	for k := range u.meta {
		require.False(t, strings.HasPrefix(k, "trace"), "no trace context in _meta: %v", u.meta)
	}
}
