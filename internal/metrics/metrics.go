package metrics

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

const namespace = "airlock"

// Label values for the bounded label sets.
const (
	// UnknownTool is the tool label of a name that is not registered.
	UnknownTool = "unknown"
	// Other is the status or reason label of a value outside airlock's sets.
	Other = "other"
)

// Chain statuses accepted as the status label of the chain metrics; any
// other value is counted as Other.
// A chain's stretch ends with a final status or parked (chain.Statuses).
var chainStatuses = func() map[string]struct{} {
	var vs []string
	for _, s := range chain.Statuses() {
		if s.Final() || s == chain.StatusParked {
			vs = append(vs, string(s))
		}
	}
	return set(vs...)
}()

var callStatuses = set(string(session.StatusOK), string(session.StatusError),
	string(session.StatusDenied), string(session.StatusTimeout))

var reasons = set(append([]string{""}, invoker.Reasons()...)...)

// maxBridgeReasons bounds the distinct reason labels of bridge errors.
const maxBridgeReasons = 32

// Metrics holds the collectors of tool calls: the invoker's side, built
// once per process with the one Invoker. Build it with New.
type Metrics struct {
	box *toolbox.Toolbox

	toolCalls     *prometheus.CounterVec
	toolDuration  *prometheus.HistogramVec
	toolsInFlight *prometheus.GaugeVec
	approvals     *prometheus.CounterVec
	approvalWait  *prometheus.HistogramVec
	artifacts     prometheus.Counter
	artifactBytes prometheus.Counter
	pins          prometheus.Gauge
}

// Chains holds the collectors of whole chains: the side of the face that
// runs them. Build it with NewChains.
type Chains struct {
	chains         *prometheus.CounterVec
	chainsInFlight prometheus.Gauge
	chainDuration  *prometheus.HistogramVec
	guestMemory    prometheus.Histogram
	bridgeErrors   *prometheus.CounterVec
	durable        *prometheus.CounterVec

	mu            sync.Mutex
	bridgeReasons map[string]struct{}
}

var errNilRegisterer = errors.New("metrics: nil Registerer: pass prometheus.NewRegistry() or another registry")

// New registers the tool-call collectors on reg and returns them. box is
// the toolbox whose tool names may appear as the tool label; names it does
// not hold (now, at observation time) read "unknown". A nil box makes every
// tool label "unknown". abandoned, when set, reports the tool executions
// still running after their call ended (invoker.Invoker.Abandoned).
func New(reg prometheus.Registerer, box *toolbox.Toolbox, abandoned func() int64) (*Metrics, error) {
	if reg == nil {
		return nil, errNilRegisterer
	}
	m := &Metrics{
		box: box,
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "tool_calls_total",
			Help: "Tool calls from chains, by tool, status (ok, error, denied) and reason code.",
		}, []string{"tool", "status", "reason"}),
		toolDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "tool_call_duration_seconds",
			Help:    "Duration of tool calls from chains, approval wait included, by tool and status.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10), // 1ms … 262s
		}, []string{"tool", "status"}),
		toolsInFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Name: "tool_calls_in_flight",
			Help: "Tool calls waiting for their tool to return, by tool. A call abandoned on timeout or cancellation leaves the gauge even if its tool still runs.",
		}, []string{"tool"}),
		approvals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "approvals_total",
			Help: "Approval requests by tool and outcome (approved, denied, timeout, error).",
		}, []string{"tool", "status"}),
		approvalWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "approval_wait_seconds",
			Help:    "Time tool calls waited for an approval decision, by tool and outcome.",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 11), // 0.1s … 102s
		}, []string{"tool", "status"}),
		artifacts: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "artifacts_offloaded_total",
			Help: "Results and media stored in the blob store instead of being returned inline.",
		}),
		artifactBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "artifacts_offloaded_bytes_total",
			Help: "Bytes of results and media stored in the blob store.",
		}),
		pins: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Name: "pins_outstanding",
			Help: "Blob pins taken by sessions of this process and not yet released.",
		}),
	}
	cs := []prometheus.Collector{
		m.toolCalls, m.toolDuration, m.toolsInFlight, m.approvals, m.approvalWait,
		m.artifacts, m.artifactBytes, m.pins,
	}
	if abandoned != nil {
		cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: namespace, Name: "tool_executions_abandoned",
			Help: "Tool executions still running after their call ended (timeout or cancellation) because the tool ignores its context.",
		}, func() float64 { return float64(abandoned()) }))
	}
	return m, register(reg, cs)
}

// NewChains registers the chain collectors on reg and returns them.
func NewChains(reg prometheus.Registerer) (*Chains, error) {
	if reg == nil {
		return nil, errNilRegisterer
	}
	m := &Chains{
		bridgeReasons: make(map[string]struct{}),
		chains: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "chains_total",
			Help: "Chains run, by final status.",
		}, []string{"status"}),
		chainsInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Name: "chains_in_flight",
			Help: "Chains running now.",
		}),
		chainDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "chain_duration_seconds",
			Help:    "Wall-clock duration of chains, by final status.",
			Buckets: prometheus.ExponentialBuckets(0.01, 4, 9), // 10ms … 655s
		}, []string{"status"}),
		guestMemory: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Name: "guest_memory_bytes",
			Help:    "Peak guest memory of each chain.",
			Buckets: prometheus.ExponentialBuckets(1<<20, 2, 12), // 1 MiB … 2 GiB
		}),
		bridgeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "bridge_errors_total",
			Help: "Malformed or failed host-guest bridge calls, by reason.",
		}, []string{"reason"}),
		durable: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "chain_transitions_total",
			Help: "Durable chain transitions taken by this process: parked, resumed, expired (resumed with its approvals expired), interrupted (a lapsed lease), state_refused (a parked state that failed its checks).",
		}, []string{"transition"}),
	}
	for _, t := range []string{"parked", "resumed", "expired", "interrupted", "state_refused"} {
		m.durable.WithLabelValues(t) // every series exists from the start
	}
	return m, register(reg, []prometheus.Collector{m.chains, m.chainsInFlight, m.chainDuration, m.guestMemory, m.bridgeErrors, m.durable})
}

func register(reg prometheus.Registerer, cs []prometheus.Collector) error {
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// tool returns the tool label of name.
func (m *Metrics) tool(name string) string {
	if m.box != nil && m.box.Has(name) {
		return name
	}
	return UnknownTool
}

// Hooks returns invoker hooks that count every call (OnToolEnd). To combine
// them with other hooks, call ToolEnd from your own.
func (m *Metrics) Hooks() invoker.Hooks {
	return invoker.Hooks{OnToolEnd: func(_ context.Context, ev invoker.Event) { m.ToolEnd(ev) }}
}

// ToolEnd records one finished call from its ToolEnd event: the call
// counter and the duration histogram. Other event kinds are ignored.
func (m *Metrics) ToolEnd(ev invoker.Event) {
	if ev.Kind != invoker.ToolEnd {
		return
	}
	tool, status := m.tool(ev.Tool), bounded(string(ev.Status), callStatuses)
	m.toolCalls.WithLabelValues(tool, status, bounded(ev.Reason, reasons)).Inc()
	m.toolDuration.WithLabelValues(tool, status).Observe(ev.Duration.Seconds())
}

// Progress returns a progress func that tracks the calls waiting for their
// tool now (airlock_tool_calls_in_flight). A call that ends on its timeout
// or the chain's cancellation leaves the gauge at once, even if its tool
// ignores the context and keeps running (invoker.Invoker.Abandoned counts
// those). To combine it with another progress func,
// call ToolProgress from yours.
func (m *Metrics) Progress() invoker.ProgressFunc {
	return func(_ context.Context, ev invoker.Event) { m.ToolProgress(ev) }
}

// ToolProgress records a ToolCall (a tool starts executing) or ToolResult
// (the call stopped waiting for it: the tool returned, or the call timed out
// or was cancelled) event. Other event kinds are ignored.
func (m *Metrics) ToolProgress(ev invoker.Event) {
	switch ev.Kind {
	case invoker.ToolCall:
		m.toolsInFlight.WithLabelValues(m.tool(ev.Tool)).Inc()
	case invoker.ToolResult:
		m.toolsInFlight.WithLabelValues(m.tool(ev.Tool)).Dec()
	}
}

// Approver wraps h so that every request's wait and outcome are recorded:
// approved, denied, timeout (the context ended first) or failed
// (invoker's Approval* values). A nil h
// returns nil, so the invoker still denies with no_approval_handler.
func (m *Metrics) Approver(h invoker.ApprovalHandler) invoker.ApprovalHandler {
	if h == nil {
		return nil
	}
	return invoker.ApprovalFunc(func(ctx context.Context, req invoker.ApprovalRequest) (invoker.Decision, error) {
		start := time.Now()
		d, err := h.Approve(ctx, req)
		status := invoker.ApprovalDenied
		switch {
		case ctx.Err() != nil && (err != nil || d != invoker.Approved):
			status = invoker.ApprovalTimeout
		case err != nil:
			status = invoker.ApprovalFailed
		case d == invoker.Approved:
			status = invoker.ApprovalApproved
		}
		tool := m.tool(req.Tool)
		m.approvals.WithLabelValues(tool, status).Inc()
		m.approvalWait.WithLabelValues(tool, status).Observe(time.Since(start).Seconds())
		return d, err
	})
}

// StartChain counts a chain in flight and returns the function to call once
// when it ends, with its final status (ok, error, timeout, cancelled,
// limit_exceeded) and its peak guest memory in bytes (0 if unknown: not
// observed). The duration is measured between the two calls.
func (m *Chains) StartChain() (end func(status string, guestMemoryBytes uint64)) {
	start := time.Now()
	m.chainsInFlight.Inc()
	var once sync.Once
	return func(status string, mem uint64) {
		once.Do(func() {
			m.chainsInFlight.Dec()
			m.ObserveChain(status, time.Since(start), mem)
		})
	}
}

// ObserveChain records a finished chain without touching the in-flight
// gauge, for callers that time chains themselves. A guestMemoryBytes of 0 is
// not observed.
func (m *Chains) ObserveChain(status string, d time.Duration, guestMemoryBytes uint64) {
	status = bounded(status, chainStatuses)
	m.chains.WithLabelValues(status).Inc()
	m.chainDuration.WithLabelValues(status).Observe(d.Seconds())
	if guestMemoryBytes > 0 {
		m.guestMemory.Observe(float64(guestMemoryBytes))
	}
}

// Parked counts a chain parked by this process.
func (m *Chains) Parked() { m.durable.WithLabelValues("parked").Inc() }

// Resumed counts a parked chain this process resumed after a decision.
func (m *Chains) Resumed() { m.durable.WithLabelValues("resumed").Inc() }

// Expired counts a parked chain this process resumed with its approvals
// expired.
func (m *Chains) Expired() { m.durable.WithLabelValues("expired").Inc() }

// Interrupted counts a chain this process marked interrupted.
func (m *Chains) Interrupted() { m.durable.WithLabelValues("interrupted").Inc() }

// StateRefused counts a parked state refused when resuming it.
func (m *Chains) StateRefused() { m.durable.WithLabelValues("state_refused").Inc() }

// BridgeError counts one malformed or failed bridge call. reason should be
// a short code (such as "decode" or "too_large"); codes that are not
// lower-case identifiers of at most 32 bytes, and codes beyond the first 32
// distinct ones, are counted as "other".
func (m *Chains) BridgeError(reason string) {
	m.bridgeErrors.WithLabelValues(m.bridgeReason(reason)).Inc()
}

func (m *Chains) bridgeReason(r string) string {
	if !isCode(r) {
		return Other
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.bridgeReasons[r]; ok {
		return r
	}
	if len(m.bridgeReasons) >= maxBridgeReasons {
		return Other
	}
	m.bridgeReasons[r] = struct{}{}
	return r
}

// Offloaded counts one result or media file stored instead of returned
// inline. Store calls it for every Put; call it yourself when storing by
// other means.
func (m *Metrics) Offloaded(bytes int64) {
	m.artifacts.Inc()
	if bytes > 0 {
		m.artifactBytes.Add(float64(bytes))
	}
}

// Store wraps s so that every Put counts as an offloaded artifact and every
// successful Pin and Unpin moves airlock_pins_outstanding. Give the wrapper
// to the invoker; keep s for everything else. A nil s returns nil.
func (m *Metrics) Store(s invoker.Store) invoker.Store {
	if s == nil {
		return nil
	}
	return &store{Store: s, m: m}
}

type store struct {
	invoker.Store
	m *Metrics
}

func (s *store) Put(ctx context.Context, tenant string, r io.Reader, contentType string) (blobstore.Attrs, error) {
	a, err := s.Store.Put(ctx, tenant, r, contentType)
	if err == nil {
		s.m.Offloaded(a.Size)
	}
	return a, err
}

func (s *store) Pin(ctx context.Context, tenant, ref, owner string) error {
	err := s.Store.Pin(ctx, tenant, ref, owner)
	if err == nil {
		s.m.pins.Inc()
	}
	return err
}

func (s *store) Unpin(ctx context.Context, tenant, ref, owner string) error {
	err := s.Store.Unpin(ctx, tenant, ref, owner)
	if err == nil {
		s.m.pins.Dec()
	}
	return err
}

func bounded(v string, known map[string]struct{}) string {
	if _, ok := known[v]; ok {
		return v
	}
	return Other
}

func isCode(s string) bool {
	if len(s) < 1 || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func set(vs ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(vs))
	for _, v := range vs {
		m[v] = struct{}{}
	}
	return m
}
