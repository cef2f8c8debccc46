package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/airlockrt/airlock/internal/config"
)

// SetupTracing builds the tracer provider cfg asks for: nil (tracing off) when
// cfg.Exporter is empty; OTLP over HTTP to cfg.Endpoint for "otlp"; one
// JSON document per span on stdout (the writer given, normally stderr) for
// "stdout". Spans are sampled per chain at cfg.SampleRatio (a tool call
// follows its chain's decision); a remote parent's sampled flag (a client's
// traceparent) plays no part. The returned shutdown flushes pending spans
// and must be called once; ctx bounds it. It is a no-op when tracing is off.
func SetupTracing(ctx context.Context, cfg config.Tracing, stdout io.Writer) (trace.TracerProvider, func(context.Context) error, error) {
	noop := func(context.Context) error { return nil }
	var opt sdktrace.TracerProviderOption
	switch cfg.Exporter {
	case "":
		return nil, noop, nil
	case "stdout":
		opt = sdktrace.WithSyncer(&jsonExporter{w: stdout})
	case "otlp":
		opts := []otlptracehttp.Option{}
		if strings.Contains(cfg.Endpoint, "://") {
			opts = append(opts, otlptracehttp.WithEndpointURL(cfg.Endpoint))
		} else {
			opts = append(opts, otlptracehttp.WithEndpoint(cfg.Endpoint))
		}
		if cfg.Insecure {
			opts = append(opts, otlptracehttp.WithInsecure())
		}
		exp, err := otlptracehttp.New(ctx, opts...)
		if err != nil {
			return nil, noop, fmt.Errorf("tracing: building the OTLP exporter for %s: %w", cfg.Endpoint, err)
		}
		opt = sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(2*time.Second))
	default:
		return nil, noop, fmt.Errorf("tracing: unknown exporter %q (want otlp, stdout or empty)", cfg.Exporter)
	}
	name := cfg.ServiceName
	if name == "" {
		name = "airlock"
	}
	// A tool call follows its chain (a local parent). A chain continuing a
	// client's trace (a remote parent) is sampled at the same ratio, by a
	// draw of its own: neither the client's sampled flag nor its trace id
	// (which it may pick to pass the ratio sampler) can force spans.
	root := sdktrace.TraceIDRatioBased(cfg.SampleRatio)
	remote := drawRatio(cfg.SampleRatio)
	tp := sdktrace.NewTracerProvider(opt,
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", name))),
		sdktrace.WithSampler(sdktrace.ParentBased(root,
			sdktrace.WithRemoteParentSampled(remote), sdktrace.WithRemoteParentNotSampled(remote))),
	)
	return tp, tp.Shutdown, nil
}

// drawRatio samples a fraction of spans by a random draw per span, not by
// the trace id: for spans whose trace id a client chose.
type drawRatio float64

func (r drawRatio) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	res := sdktrace.SamplingResult{Decision: sdktrace.Drop,
		Tracestate: boundTraceState(trace.SpanContextFromContext(p.ParentContext).TraceState())}
	if r >= 1 || (r > 0 && rand.Float64() < float64(r)) {
		res.Decision = sdktrace.RecordAndSample
	}
	return res
}

// maxTraceState is how much of a client's tracestate a chain carries on
// (to every tool call's span and request): the 512 characters W3C Trace
// Context asks every participant to propagate.
const maxTraceState = 512

// boundTraceState cuts a client's tracestate to maxTraceState characters
// as W3C Trace Context says: entries longer than 128 characters go first,
// then entries from the end.
func boundTraceState(ts trace.TraceState) trace.TraceState {
	if len(ts.String()) <= maxTraceState {
		return ts
	}
	type member struct{ k, v string }
	var keep []member
	n := -1 // no comma before the first entry
	ts.Walk(func(k, v string) bool {
		m := len(k) + 1 + len(v)
		if m > 128 {
			return true
		}
		if n+1+m > maxTraceState {
			return false
		}
		n += 1 + m
		keep = append(keep, member{k, v})
		return true
	})
	var out trace.TraceState
	for i := len(keep) - 1; i >= 0; i-- { // Insert puts a member first
		out, _ = out.Insert(keep[i].k, keep[i].v)
	}
	return out
}

func (r drawRatio) Description() string { return fmt.Sprintf("DrawRatio{%g}", float64(r)) }

// jsonExporter writes each span as one line of JSON: a debugging aid, not a
// stable format.
type jsonExporter struct {
	mu sync.Mutex
	w  io.Writer
}

type jsonSpan struct {
	Name       string         `json:"name"`
	TraceID    string         `json:"trace_id"`
	SpanID     string         `json:"span_id"`
	ParentID   string         `json:"parent_span_id,omitempty"`
	Start      time.Time      `json:"start"`
	End        time.Time      `json:"end"`
	Status     string         `json:"status"`
	StatusText string         `json:"status_description,omitempty"`
	Attributes map[string]any `json:"attributes"`
	Links      []jsonLink     `json:"links,omitempty"`
}

type jsonLink struct {
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
}

func (e *jsonExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	enc := json.NewEncoder(e.w)
	for _, s := range spans {
		js := jsonSpan{
			Name: s.Name(), TraceID: s.SpanContext().TraceID().String(), SpanID: s.SpanContext().SpanID().String(),
			Start: s.StartTime(), End: s.EndTime(), Status: s.Status().Code.String(), StatusText: s.Status().Description,
			Attributes: make(map[string]any, len(s.Attributes())),
		}
		if p := s.Parent(); p.IsValid() {
			js.ParentID = p.SpanID().String()
		}
		for _, kv := range s.Attributes() {
			js.Attributes[string(kv.Key)] = kv.Value.AsInterface()
		}
		for _, l := range s.Links() {
			js.Links = append(js.Links, jsonLink{TraceID: l.SpanContext.TraceID().String(), SpanID: l.SpanContext.SpanID().String()})
		}
		if err := enc.Encode(js); err != nil {
			return err
		}
	}
	return nil
}

func (e *jsonExporter) Shutdown(context.Context) error { return nil }
