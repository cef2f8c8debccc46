package invoker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// govTool is a hand-written tool with a full Info, counting its runs and
// returning what its function says.
type govTool struct {
	info toolbox.Info
	runs *atomic.Int64
	fn   func(ctx context.Context, args json.RawMessage) (toolbox.Output, error)
	pv   func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)
}

func (g govTool) Info() toolbox.Info { return g.info }

func (g govTool) Call(ctx context.Context, args json.RawMessage) (toolbox.Output, error) {
	g.runs.Add(1)
	if g.fn == nil {
		return toolbox.Output{JSON: json.RawMessage(`"done"`)}, nil
	}
	return g.fn(ctx, args)
}

// previewing is a govTool with a Preview method.
type previewing struct{ govTool }

func (p previewing) Preview(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	return p.pv(ctx, args)
}

// objSchema is an object schema with the given string properties.
func objSchema(props ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, p := range props {
		s.Properties[p] = &jsonschema.Schema{Type: "string"}
	}
	return s
}

// govBox is a toolbox for the governance tests: its tools by name and
// their run counters.
type govBox struct {
	box  *toolbox.Toolbox
	runs map[string]*atomic.Int64
}

func (g *govBox) ran(name string) int64 { return g.runs[name].Load() }

func newGovBox(t *testing.T, tools ...govTool) *govBox {
	t.Helper()
	g := &govBox{box: &toolbox.Toolbox{}, runs: map[string]*atomic.Int64{}}
	for _, tool := range tools {
		tool.runs = new(atomic.Int64)
		g.runs[tool.info.Name] = tool.runs
		var t2 toolbox.Tool = tool
		if tool.pv != nil {
			t2 = previewing{tool}
		}
		require.NoError(t, g.box.Add(t2))
	}
	return g
}

// stdGovTools are the tools most governance tests use.
func stdGovTools() []govTool {
	return []govTool{
		{info: toolbox.Info{Name: "read_file", Description: "reads a file", InputSchema: objSchema("path"), Scopes: []string{"repo:read"}}},
		{info: toolbox.Info{Name: "write_file", Description: "writes a file", InputSchema: objSchema("path", "text"),
			Scopes: []string{"repo:write"}, Risk: toolbox.High, Class: toolbox.LocalWrite}},
		{info: toolbox.Info{Name: "git", Description: "runs git", InputSchema: objSchema("action", "branch"),
			Risk: toolbox.Safe, ActionRisk: map[string]toolbox.Risk{"push": toolbox.High, "force_push": toolbox.Critical}}},
		{info: toolbox.Info{Name: "deploy", Description: "deploys", Risk: toolbox.Critical, Class: toolbox.Network}},
		{info: toolbox.Info{Name: "run_tests", Description: "runs the tests"}},
	}
}

func govSession(inv *invoker.Invoker, p *govern.Profile) *session.Session {
	return inv.NewSession(session.Options{Tenant: "acme", Governance: govern.NewChain(p)})
}

// TestGovernanceGates: every governance gate through Invoke, with the exact
// status and reason, whether the tool ran, and the trace's gate.
func TestGovernanceGates(t *testing.T) {
	restricted := &govern.Profile{Name: "reviewer", Scopes: []string{"repo:read"}, Autonomy: govern.Restricted}
	supervised := &govern.Profile{Name: "helper", Scopes: []string{"repo:read", "repo:write"}}
	autonomous := &govern.Profile{Name: "release", Scopes: []string{"*"}, Autonomy: govern.Autonomous}
	previewAll := &govern.Profile{Name: "preview", Scopes: []string{"*"}, Matrix: govern.Matrix{
		govern.Supervised: {govern.Allow, govern.Preview, govern.Preview}}}
	tests := []struct {
		name     string
		profile  *govern.Profile
		approver invoker.ApprovalHandler
		tool     string
		args     string
		status   session.Status
		reason   string
		gate     string
		ran      bool
	}{
		{"read in scope", restricted, nil, "read_file", `{"path":"a"}`, session.StatusOK, "", "allow", true},
		{"write out of scope", restricted, nil, "write_file", `{"path":"a"}`, session.StatusDenied, invoker.ReasonScopeViolation, "deny", false},
		{"no scopes at all", nil, nil, "read_file", `{"path":"a"}`, session.StatusDenied, invoker.ReasonScopeViolation, "deny", false},
		{"restricted high risk", restricted, nil, "git", `{"action":"push"}`, session.StatusDenied, invoker.ReasonGateDenied, "deny", false},
		{"restricted safe action", restricted, nil, "git", `{"action":"status"}`, session.StatusOK, "", "allow", true},
		{"supervised high needs approval, none", supervised, nil, "write_file", `{"path":"a"}`, session.StatusDenied, invoker.ReasonNoApprovalHandler, "confirm", false},
		{"supervised high approved", supervised, invoker.ApprovalFunc(approveAll), "write_file", `{"path":"a"}`, session.StatusOK, "", "confirm", true},
		{"autonomous high runs", autonomous, nil, "git", `{"action":"push"}`, session.StatusOK, "", "allow", true},
		{"autonomous critical action confirms", autonomous, nil, "git", `{"action":"force_push"}`, session.StatusDenied, invoker.ReasonNoApprovalHandler, "confirm", false},
		{"autonomous critical tool approved", autonomous, invoker.ApprovalFunc(approveAll), "deploy", `{}`, session.StatusOK, "", "confirm", true},
		{"preview gate, generic preview", previewAll, nil, "git", `{"action":"push"}`, session.StatusDenied, invoker.ReasonPreviewRequired, "preview", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGovBox(t, stdGovTools()...)
			inv, err := invoker.New(g.box, invoker.Options{Approver: tt.approver})
			require.NoError(t, err)
			sess := govSession(inv, tt.profile)
			res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: tt.tool, Args: json.RawMessage(tt.args)})
			require.Equal(t, tt.status, res.Status, res.Message)
			require.Equal(t, tt.reason, res.Reason, res.Message)
			require.Equal(t, tt.ran, g.ran(tt.tool) == 1)
			rec := sess.Trace()[0]
			require.Equal(t, tt.gate, rec.Gate)
			require.NotEmpty(t, rec.DecisionID)
			require.Equal(t, rec.DecisionID, res.DecisionID)
			require.NotEmpty(t, rec.Rule)
			if tt.reason == invoker.ReasonPreviewRequired {
				require.JSONEq(t, `{"tool":"git","action":"push","risk":"HIGH","executed":false}`, string(res.Preview))
			}
		})
	}
}

func TestPreviewRunsThePreviewNotTheTool(t *testing.T) {
	var seen atomic.Value
	tool := govTool{info: toolbox.Info{Name: "rm", Description: "removes a path", InputSchema: objSchema("path"), Risk: toolbox.High},
		pv: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			seen.Store(string(args))
			return json.RawMessage(`{"would_remove":["/w/a","/w/b"]}`), nil
		}}
	g := newGovBox(t, tool)
	inv, err := invoker.New(g.box, invoker.Options{})
	require.NoError(t, err)
	p := &govern.Profile{Matrix: govern.Matrix{govern.Supervised: {govern.Allow, govern.Preview, govern.Deny}}}
	res := inv.Invoke(context.Background(), govSession(inv, p), invoker.Call{Tool: "rm", Args: json.RawMessage(`{"path":"/w"}`)})
	require.Equal(t, session.StatusDenied, res.Status)
	require.Equal(t, invoker.ReasonPreviewRequired, res.Reason)
	require.JSONEq(t, `{"would_remove":["/w/a","/w/b"]}`, string(res.Preview))
	require.Equal(t, `{"path":"/w"}`, seen.Load())
	require.Zero(t, g.ran("rm"))
}

func TestMaxRiskUnapprovedStillLiftsConfirm(t *testing.T) {
	g := newGovBox(t, stdGovTools()...)
	inv, err := invoker.New(g.box, invoker.Options{Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
	require.NoError(t, err)
	sess := govSession(inv, &govern.Profile{Scopes: []string{"*"}})
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`)})
	require.True(t, res.OK(), res.Message)
	require.Equal(t, "allow", sess.Trace()[0].Gate)
	require.Equal(t, "policy.max_risk_unapproved", sess.Trace()[0].Rule)
	// It never lifts a deny.
	sess = govSession(inv, &govern.Profile{Scopes: []string{"*"}, Autonomy: govern.Restricted})
	res = inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`)})
	require.Equal(t, invoker.ReasonGateDenied, res.Reason)
}

// TestProfileChangedDuringApprovalIsRefused: the operator narrows the
// chain's profile while a call waits for approval; the approved call meets
// a stricter gate at execute time and does not run.
func TestProfileChangedDuringApprovalIsRefused(t *testing.T) {
	for _, tt := range []struct {
		name   string
		now    *govern.Profile
		reason string
	}{
		{"gate now deny", &govern.Profile{Scopes: []string{"*"}, Autonomy: govern.Restricted}, invoker.ReasonGateDenied},
		{"gate now preview", &govern.Profile{Scopes: []string{"*"}, Matrix: govern.Matrix{govern.Supervised: {govern.Allow, govern.Preview, govern.Preview}}}, invoker.ReasonApprovalModeUpgraded},
		{"scope withdrawn", &govern.Profile{Scopes: []string{"repo:read"}}, invoker.ReasonScopeViolation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newGovBox(t, stdGovTools()...)
			var sess *session.Session
			approver := invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
				sess.Governance().SetProfile(tt.now)
				return invoker.Approved, nil
			})
			inv, err := invoker.New(g.box, invoker.Options{Approver: approver})
			require.NoError(t, err)
			sess = govSession(inv, &govern.Profile{Scopes: []string{"*"}})
			res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`)})
			require.Equal(t, session.StatusDenied, res.Status)
			require.Equal(t, tt.reason, res.Reason, res.Message)
			require.Zero(t, g.ran("write_file"))
		})
	}
	// A profile that loosens mid-wait changes nothing: the call runs.
	g := newGovBox(t, stdGovTools()...)
	var sess *session.Session
	inv, err := invoker.New(g.box, invoker.Options{Approver: invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
		sess.Governance().SetProfile(&govern.Profile{Scopes: []string{"*"}, Autonomy: govern.Autonomous})
		return invoker.Approved, nil
	})})
	require.NoError(t, err)
	sess = govSession(inv, &govern.Profile{Scopes: []string{"*"}})
	require.True(t, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`)}).OK())
}

// denyPolicy is a call policy written in a test: it refuses tool once the
// chain has made n successful calls of it, and counts what it observed.
type denyPolicy struct {
	tool     string
	n        int
	observed atomic.Int64
}

func (d *denyPolicy) Name() string { return "test_limit" }
func (d *denyPolicy) Check(c govern.Call, h *govern.HistoryView) *govern.Denial {
	if c.Tool == d.tool && h.Count("ok:"+d.tool)+h.InFlight(d.tool) >= d.n {
		return &govern.Denial{Reason: invoker.ReasonCallLimit, Message: "enough"}
	}
	return nil
}
func (d *denyPolicy) Observe(govern.Call, *govern.HistoryView) { d.observed.Add(1) }

func TestCallPoliciesFailClosedAndFailedCallsLeaveNoTrace(t *testing.T) {
	fail := atomic.Bool{}
	tools := stdGovTools()
	tools[4].fn = func(context.Context, json.RawMessage) (toolbox.Output, error) {
		if fail.Load() {
			return toolbox.Output{}, errors.New("red")
		}
		return toolbox.Output{JSON: json.RawMessage(`"green"`)}, nil
	}
	g := newGovBox(t, tools...)
	inv, err := invoker.New(g.box, invoker.Options{})
	require.NoError(t, err)
	pol := &denyPolicy{tool: "run_tests", n: 2}
	sess := govSession(inv, &govern.Profile{Scopes: []string{"*"}, Policies: []govern.CallPolicy{pol}})
	call := invoker.Call{Tool: "run_tests"}
	fail.Store(true)
	require.Equal(t, invoker.ReasonToolError, inv.Invoke(context.Background(), sess, call).Reason)
	require.Equal(t, invoker.ReasonToolError, inv.Invoke(context.Background(), sess, call).Reason)
	require.Zero(t, pol.observed.Load(), "a failed call is not observed")
	fail.Store(false)
	require.True(t, inv.Invoke(context.Background(), sess, call).OK())
	require.True(t, inv.Invoke(context.Background(), sess, call).OK())
	res := inv.Invoke(context.Background(), sess, call)
	require.Equal(t, session.StatusDenied, res.Status)
	require.Equal(t, invoker.ReasonCallLimit, res.Reason)
	require.EqualValues(t, 2, pol.observed.Load())
	require.EqualValues(t, 4, g.ran("run_tests"))
}

// TestCallLimitHoldsUnderConcurrency: calls in flight count against a
// limit, so many concurrent calls cannot all pass it.
func TestCallLimitHoldsUnderConcurrency(t *testing.T) {
	release := make(chan struct{})
	tools := stdGovTools()
	tools[4].fn = func(context.Context, json.RawMessage) (toolbox.Output, error) {
		<-release
		return toolbox.Output{JSON: json.RawMessage(`1`)}, nil
	}
	g := newGovBox(t, tools...)
	inv, err := invoker.New(g.box, invoker.Options{})
	require.NoError(t, err)
	sess := govSession(inv, &govern.Profile{Scopes: []string{"*"}, Policies: []govern.CallPolicy{&denyPolicy{tool: "run_tests", n: 3}}})
	var wg sync.WaitGroup
	var ok, denied atomic.Int64
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "run_tests"})
			if res.OK() {
				ok.Add(1)
			} else if res.Reason == invoker.ReasonCallLimit {
				denied.Add(1)
			}
		}()
	}
	require.Eventually(t, func() bool { return denied.Load() == 17 }, 10*time.Second, time.Millisecond)
	close(release)
	wg.Wait()
	require.EqualValues(t, 3, ok.Load())
	require.EqualValues(t, 3, g.ran("run_tests"))
}

func TestToolHealthFailsFastAndRecoversAfterQuiet(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	fail := atomic.Bool{}
	fail.Store(true)
	tools := stdGovTools()
	tools[4].fn = func(context.Context, json.RawMessage) (toolbox.Output, error) {
		if fail.Load() {
			return toolbox.Output{}, errors.New("upstream down")
		}
		return toolbox.Output{JSON: json.RawMessage(`"green"`)}, nil
	}
	g := newGovBox(t, tools...)
	gov := govern.New(govern.Options{Clock: clock.Now, Health: govern.HealthOptions{DegradedAfter: 2, UnavailableAfter: 3, Quiet: time.Minute}})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov})
	require.NoError(t, err)
	sess := govSession(inv, &govern.Profile{Scopes: []string{"*"}})
	call := invoker.Call{Tool: "run_tests"}
	for i := 0; i < 3; i++ {
		require.Equal(t, invoker.ReasonToolError, inv.Invoke(context.Background(), sess, call).Reason)
	}
	require.Equal(t, govern.Unavailable, gov.Health().For("acme", "run_tests").Status)
	require.Equal(t, govern.Unavailable, gov.Health().Worst("run_tests").Status)
	res := inv.Invoke(context.Background(), sess, call)
	require.Equal(t, session.StatusError, res.Status)
	require.Equal(t, invoker.ReasonToolUnavailable, res.Reason)
	require.Equal(t, time.Minute, res.RetryAfter)
	require.EqualValues(t, 3, g.ran("run_tests"), "an unavailable tool is not called")
	// Another tenant is not hurt by acme's failures.
	require.Equal(t, govern.Healthy, gov.Health().For("globex", "run_tests").Status)
	fail.Store(false)
	require.True(t, inv.Invoke(context.Background(), inv.NewSession(session.Options{Tenant: "globex"}), call).OK())
	clock.Advance(time.Minute)
	require.True(t, inv.Invoke(context.Background(), sess, call).OK())
	require.Equal(t, govern.Healthy, gov.Health().For("acme", "run_tests").Status)
}

func TestUpstreamRateLimitMakesToolUnavailableUntilReset(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	tools := stdGovTools()
	tools[4].fn = func(context.Context, json.RawMessage) (toolbox.Output, error) {
		return toolbox.Output{}, &toolbox.RateLimitedError{ResetAt: clock.Now().Add(30 * time.Second)}
	}
	g := newGovBox(t, tools...)
	gov := govern.New(govern.Options{Clock: clock.Now})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov})
	require.NoError(t, err)
	sess := govSession(inv, &govern.Profile{Scopes: []string{"*"}})
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "run_tests"})
	require.Equal(t, invoker.ReasonRateLimited, res.Reason)
	require.Equal(t, 30*time.Second, res.RetryAfter)
	res = inv.Invoke(context.Background(), sess, invoker.Call{Tool: "run_tests"})
	require.Equal(t, invoker.ReasonToolUnavailable, res.Reason)
	require.Equal(t, 30*time.Second, res.RetryAfter)
	// An upstream's rate limit rests the tool for every tenant.
	res = inv.Invoke(context.Background(), inv.NewSession(session.Options{Tenant: "globex"}), invoker.Call{Tool: "run_tests"})
	require.Equal(t, invoker.ReasonToolUnavailable, res.Reason)
	require.EqualValues(t, 1, g.ran("run_tests"))
}

func TestEgressRatePerTenantAndTool(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	g := newGovBox(t, stdGovTools()...)
	gov := govern.New(govern.Options{Clock: clock.Now, Rates: map[string]govern.Rate{"run_tests": {N: 2, Per: time.Second}}})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov})
	require.NoError(t, err)
	acme := govSession(inv, &govern.Profile{Scopes: []string{"*"}})
	other := inv.NewSession(session.Options{Tenant: "other"})
	call := invoker.Call{Tool: "run_tests"}
	require.True(t, inv.Invoke(context.Background(), acme, call).OK())
	require.True(t, inv.Invoke(context.Background(), acme, call).OK())
	res := inv.Invoke(context.Background(), acme, call)
	require.Equal(t, session.StatusError, res.Status)
	require.Equal(t, invoker.ReasonRateLimited, res.Reason)
	require.Equal(t, 500*time.Millisecond, res.RetryAfter)
	require.True(t, inv.Invoke(context.Background(), other, call).OK(), "another tenant has its own bucket")
	require.True(t, inv.Invoke(context.Background(), acme, invoker.Call{Tool: "read_file", Args: json.RawMessage(`{"path":"x"}`)}).OK(), "another tool has no rate")
	clock.Advance(500 * time.Millisecond)
	require.True(t, inv.Invoke(context.Background(), acme, call).OK())
	require.EqualValues(t, 4, g.ran("run_tests"))
}

func TestLatencyBudgetTightensTheCallTimeout(t *testing.T) {
	tools := stdGovTools()
	tools[4].info.LatencyBudget = 20 * time.Millisecond
	tools[4].fn = func(ctx context.Context, _ json.RawMessage) (toolbox.Output, error) {
		<-ctx.Done()
		return toolbox.Output{}, ctx.Err()
	}
	g := newGovBox(t, tools...)
	inv, err := invoker.New(g.box, invoker.Options{})
	require.NoError(t, err)
	sess := govSession(inv, nil)
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "run_tests"})
	require.Equal(t, invoker.ReasonCallTimeout, res.Reason)
	require.Contains(t, res.Message, "20ms")
	require.Equal(t, session.StatusTimeout, sess.Trace()[0].Status)
}

func TestMaxOutputCharsTruncatesInlineStrings(t *testing.T) {
	tools := stdGovTools()
	tools[4].info.MaxOutputChars = 5
	tools[4].fn = func(context.Context, json.RawMessage) (toolbox.Output, error) {
		return toolbox.Output{JSON: json.RawMessage(`{"log":"héllo world","lines":["abcdefgh","ok"],"n":12345678,"deep":[[{"k":"<&>0123"}]]}`),
			Citations: []toolbox.Citation{{Source: "ci://run/7", Title: "CI run"}}, Mutations: []string{"ref:abc"}}, nil
	}
	g := newGovBox(t, tools...)
	inv, err := invoker.New(g.box, invoker.Options{})
	require.NoError(t, err)
	sess := govSession(inv, nil)
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "run_tests"})
	require.True(t, res.OK(), res.Message)
	require.JSONEq(t, `{"log":"héllo","lines":["abcde","ok"],"n":12345678,"deep":[[{"k":"<&>01"}]]}`, string(res.Value))
	require.True(t, res.Truncated)
	rec := sess.Trace()[0]
	require.True(t, rec.Truncated)
	require.Equal(t, []toolbox.Citation{{Source: "ci://run/7", Title: "CI run"}}, rec.Citations)
	require.Equal(t, []string{"ref:abc"}, rec.Mutations)
	require.Equal(t, res.Citations, rec.Citations)
	// A result within the limit is not marked.
	tools[4].fn = func(context.Context, json.RawMessage) (toolbox.Output, error) {
		return toolbox.Output{JSON: json.RawMessage(`{"log":"short"}`)}, nil
	}
	g = newGovBox(t, tools...)
	inv, err = invoker.New(g.box, invoker.Options{})
	require.NoError(t, err)
	res = inv.Invoke(context.Background(), govSession(inv, nil), invoker.Call{Tool: "run_tests"})
	require.False(t, res.Truncated)
	require.Equal(t, `{"log":"short"}`, string(res.Value))
}

// TestAuditBounds: a tool reporting thousands of citations cannot grow the
// trace without bound.
func TestAuditBounds(t *testing.T) {
	tools := stdGovTools()
	tools[4].fn = func(context.Context, json.RawMessage) (toolbox.Output, error) {
		out := toolbox.Output{JSON: json.RawMessage(`1`)}
		for i := 0; i < 10000; i++ {
			out.Citations = append(out.Citations, toolbox.Citation{Source: strings.Repeat("s", 4096)})
			out.Mutations = append(out.Mutations, strings.Repeat("m", 4096))
		}
		return out, nil
	}
	g := newGovBox(t, tools...)
	inv, err := invoker.New(g.box, invoker.Options{})
	require.NoError(t, err)
	sess := govSession(inv, nil)
	require.True(t, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "run_tests"}).OK())
	rec := sess.Trace()[0]
	require.Len(t, rec.Citations, 16)
	require.Len(t, rec.Mutations, 32)
	require.LessOrEqual(t, len(rec.Citations[0].Source), 515)
}

// TestLifecycleEvents: the documented event stream of one call, in order,
// with the same fields in the hook and the log.
func TestLifecycleEvents(t *testing.T) {
	g := newGovBox(t, stdGovTools()...)
	var mu sync.Mutex
	var names []string
	var last invoker.Event
	inv, err := invoker.New(g.box, invoker.Options{Hooks: invoker.Hooks{OnEvent: func(_ context.Context, ev invoker.Event) {
		mu.Lock()
		names = append(names, ev.Kind.Name())
		last = ev
		mu.Unlock()
	}}})
	require.NoError(t, err)
	run := func(p *govern.Profile, tool, args string) []string {
		names = nil
		inv.Invoke(context.Background(), govSession(inv, p), invoker.Call{Tool: tool, Args: json.RawMessage(args)})
		return names
	}
	all := &govern.Profile{Scopes: []string{"*"}}
	require.Equal(t, []string{"tool.before", "policy.before", "tool.call", "tool.result", "tool.after"}, run(all, "read_file", `{"path":"a"}`))
	require.Equal(t, "ok", string(last.Status))
	require.NotEmpty(t, last.DecisionID)
	require.Equal(t, []string{"tool.before", "policy.before", "policy.deny", "tool.after"}, run(nil, "read_file", `{"path":"a"}`))
	require.Equal(t, invoker.ReasonScopeViolation, last.Reason)
	require.Equal(t, []string{"tool.before", "policy.before", "gate.required", "tool.after"}, run(all, "write_file", `{"path":"a"}`))
	require.Equal(t, invoker.ReasonNoApprovalHandler, last.Reason)
	require.Equal(t, []string{"tool.before", "tool.after"}, run(all, "nope", `{}`))

	b, err := json.Marshal(last)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, "tool.after", m["event"])
	require.Equal(t, "unknown_tool", m["reason"])
	for _, k := range []string{"event", "chain_id", "tenant", "tool", "risk", "status", "reason", "duration_ms", "seq"} {
		require.Contains(t, m, k)
	}
}

// memOutcomes is a test Outcomes that counts its writes.
func newOutcomes(t *testing.T) govern.Outcomes {
	t.Helper()
	return govern.NewMemOutcomes(nil)
}

func TestIdempotencyDedupsWriteClassCalls(t *testing.T) {
	tools := stdGovTools()
	tools[1].fn = func(_ context.Context, args json.RawMessage) (toolbox.Output, error) {
		return toolbox.Output{JSON: json.RawMessage(fmt.Sprintf(`{"wrote":%s}`, args))}, nil
	}
	g := newGovBox(t, tools...)
	gov := govern.New(govern.Options{Outcomes: newOutcomes(t)})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov, Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
	require.NoError(t, err)
	prof := &govern.Profile{Scopes: []string{"*"}}
	sess := govSession(inv, prof)
	args := json.RawMessage(`{"path":"a","$idempotency_key":"deploy-42"}`)
	first := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: args})
	require.True(t, first.OK(), first.Message)
	require.False(t, first.Deduped)
	require.JSONEq(t, `{"wrote":{"path":"a"}}`, string(first.Value), "the key is taken out of the arguments")
	// Another chain, same key: the recorded result, the tool does not run.
	other := govSession(inv, prof)
	again := inv.Invoke(context.Background(), other, invoker.Call{Tool: "write_file", Args: args})
	require.True(t, again.OK(), again.Message)
	require.True(t, again.Deduped)
	require.Equal(t, string(first.Value), string(again.Value))
	require.EqualValues(t, 1, g.ran("write_file"))
	rec := other.Trace()[0]
	require.True(t, rec.Deduped)
	require.Equal(t, "deploy-42", rec.IdempotencyKey)
	// A read-only tool gets no key.
	require.True(t, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`)}).OK())
	require.Empty(t, sess.Trace()[1].IdempotencyKey)
	// Derived keys differ per call, so one chain's two writes both run.
	require.True(t, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"b"}`)}).OK())
	require.True(t, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"b"}`)}).OK())
	require.EqualValues(t, 3, g.ran("write_file"))
	require.NotEqual(t, sess.Trace()[2].IdempotencyKey, sess.Trace()[3].IdempotencyKey)
}

func TestIdempotencyUnknownOutcomeIsNeverRetried(t *testing.T) {
	for _, tt := range []struct {
		name string
		fn   func(ctx context.Context, _ json.RawMessage) (toolbox.Output, error)
		why  string
	}{
		{"timeout", func(ctx context.Context, _ json.RawMessage) (toolbox.Output, error) {
			<-ctx.Done()
			return toolbox.Output{}, ctx.Err()
		}, invoker.ReasonCallTimeout},
		{"marked unknown", func(context.Context, json.RawMessage) (toolbox.Output, error) {
			return toolbox.Output{}, fmt.Errorf("connection reset after send: %w", toolbox.ErrOutcomeUnknown)
		}, invoker.ReasonToolError},
		{"panic", func(context.Context, json.RawMessage) (toolbox.Output, error) { panic("half done") }, invoker.ReasonToolPanic},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tools := stdGovTools()
			tools[1].info.LatencyBudget = 10 * time.Millisecond
			if tt.why != invoker.ReasonCallTimeout {
				// Only the timeout case runs out of time: on a loaded
				// machine a panic can take longer than 10ms to reach us.
				tools[1].info.LatencyBudget = time.Minute
			}
			tools[1].fn = tt.fn
			g := newGovBox(t, tools...)
			gov := govern.New(govern.Options{Outcomes: newOutcomes(t)})
			inv, err := invoker.New(g.box, invoker.Options{Governor: gov, Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
			require.NoError(t, err)
			prof := &govern.Profile{Scopes: []string{"*"}}
			call := invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), IdempotencyKey: "k1"}
			require.Equal(t, tt.why, inv.Invoke(context.Background(), govSession(inv, prof), call).Reason)
			res := inv.Invoke(context.Background(), govSession(inv, prof), call)
			require.Equal(t, session.StatusError, res.Status)
			require.Equal(t, invoker.ReasonOutcomeUnknown, res.Reason)
			require.EqualValues(t, 1, g.ran("write_file"))
		})
	}
}

func TestIdempotencyPendingAndDefiniteFailure(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	tools := stdGovTools()
	tools[1].fn = func(context.Context, json.RawMessage) (toolbox.Output, error) {
		started <- struct{}{}
		<-release
		return toolbox.Output{}, errors.New("disk full")
	}
	g := newGovBox(t, tools...)
	gov := govern.New(govern.Options{Outcomes: newOutcomes(t)})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov, Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
	require.NoError(t, err)
	prof := &govern.Profile{Scopes: []string{"*"}}
	call := invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), IdempotencyKey: "k2"}
	done := make(chan invoker.Result)
	go func() { done <- inv.Invoke(context.Background(), govSession(inv, prof), call) }()
	<-started
	res := inv.Invoke(context.Background(), govSession(inv, prof), call)
	require.Equal(t, invoker.ReasonIdempotencyPending, res.Reason)
	close(release)
	require.Equal(t, invoker.ReasonToolError, (<-done).Reason)
	// A definite failure is recorded and returned as it was.
	res = inv.Invoke(context.Background(), govSession(inv, prof), call)
	require.Equal(t, invoker.ReasonToolError, res.Reason)
	require.Equal(t, "disk full", res.Message)
	require.True(t, res.Deduped)
	require.EqualValues(t, 1, g.ran("write_file"))
}

func TestIdempotencyKeyArgumentIsChecked(t *testing.T) {
	g := newGovBox(t, stdGovTools()...)
	inv, err := invoker.New(g.box, invoker.Options{})
	require.NoError(t, err)
	for _, args := range []string{`{"path":"a","$idempotency_key":7}`, `{"path":"a","$idempotency_key":"has space"}`, `{"path":"a","$idempotency_key":""}`} {
		res := inv.Invoke(context.Background(), govSession(inv, &govern.Profile{Scopes: []string{"*"}}), invoker.Call{Tool: "read_file", Args: json.RawMessage(args)})
		require.Equal(t, invoker.ReasonInvalidArguments, res.Reason, args)
	}
	res := inv.Invoke(context.Background(), govSession(inv, &govern.Profile{Scopes: []string{"*"}}),
		invoker.Call{Tool: "read_file", Args: json.RawMessage(`{"path":"a","$idempotency_key":"x"}`), IdempotencyKey: "y"})
	require.Equal(t, invoker.ReasonInvalidArguments, res.Reason)
}

// TestReasonsListsEveryCode: Reasons() is the list metrics and docs use.
func TestReasonsListsEveryCode(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range invoker.Reasons() {
		require.False(t, seen[r], "duplicate %q", r)
		seen[r] = true
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "reasons.go", nil, 0)
	require.NoError(t, err)
	consts := 0
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, spec := range g.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if strings.HasPrefix(n.Name, "Reason") {
						consts++
					}
				}
			}
		}
	}
	require.Equal(t, consts, len(seen), "Reasons() must list every Reason constant of reasons.go")
	for _, r := range []string{invoker.ReasonScopeViolation, invoker.ReasonIdempotencyPending, invoker.ReasonInternal, invoker.ReasonPolicyFailed} {
		require.True(t, seen[r], r)
	}
}

// TestGovernanceDocCoversReasons: docs/governance.md names every
// governance reason code and lifecycle event.
func TestGovernanceDocCoversReasons(t *testing.T) {
	b, err := os.ReadFile("../docs/governance.md")
	require.NoError(t, err)
	doc := string(b)
	all := invoker.Reasons()
	for _, r := range append(all[slices.Index(all, invoker.ReasonScopeViolation):], invoker.ReasonTenantMemory) {
		require.Contains(t, doc, "`"+r+"`", "docs/governance.md documents %s", r)
	}
	for k := invoker.ToolStart; k <= invoker.Deduped; k++ {
		require.Contains(t, doc, "`"+k.Name()+"`")
	}
}

// TestIdempotencyRecordIsBounded: a result too large to record leaves a
// record that refuses to run the call again, rather than none.
func TestIdempotencyRecordIsBounded(t *testing.T) {
	tools := stdGovTools()
	tools[1].fn = func(context.Context, json.RawMessage) (toolbox.Output, error) {
		return toolbox.Output{JSON: json.RawMessage(`"` + strings.Repeat("x", 300<<10) + `"`)}, nil
	}
	g := newGovBox(t, tools...)
	gov := govern.New(govern.Options{Outcomes: newOutcomes(t)})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov, Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
	require.NoError(t, err)
	prof := &govern.Profile{Scopes: []string{"*"}}
	call := invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), IdempotencyKey: "big"}
	require.True(t, inv.Invoke(context.Background(), govSession(inv, prof), call).OK())
	res := inv.Invoke(context.Background(), govSession(inv, prof), call)
	require.Equal(t, invoker.ReasonOutcomeUnknown, res.Reason)
	require.True(t, res.Deduped)
	require.EqualValues(t, 1, g.ran("write_file"))
}

// TestArtifactRefsMeetTheSameRules: an action or an argument hidden in an
// artifact ref is decided and checked once resolved, like the value
// written out.
func TestArtifactRefsMeetTheSameRules(t *testing.T) {
	f := newFixture(t)
	g := newGovBox(t, stdGovTools()...)
	inv, err := invoker.New(g.box, invoker.Options{Store: f.store})
	require.NoError(t, err)
	ctx := context.Background()
	put := func(sess *session.Session, content, mime string) string {
		a, err := f.store.Put(ctx, "acme", strings.NewReader(content), mime)
		require.NoError(t, err)
		sess.Grant(a.Ref)
		return a.Ref
	}
	branchRule, err := govern.ArgConstraint(govern.ArgRule{Tool: "git", Arg: "branch", Allow: []string{"feature"}})
	require.NoError(t, err)
	prof := &govern.Profile{Scopes: []string{"*"}, Autonomy: govern.Restricted, Policies: []govern.CallPolicy{branchRule}}
	for _, tt := range []struct {
		name   string
		args   func(sess *session.Session) string
		reason string
	}{
		{"whole arguments in a ref", func(s *session.Session) string {
			return fmt.Sprintf(`{"$artifact":%q}`, put(s, `{"action":"push","branch":"feature"}`, "application/json"))
		}, invoker.ReasonGateDenied},
		{"the action in a text ref", func(s *session.Session) string {
			return fmt.Sprintf(`{"action":{"$artifact":%q},"branch":"feature"}`, put(s, "push", "text/plain"))
		}, invoker.ReasonGateDenied},
		{"a constrained argument in a parent ref", func(s *session.Session) string {
			return fmt.Sprintf(`{"$artifact":%q}`, put(s, `{"action":"status","branch":"main"}`, "application/json"))
		}, invoker.ReasonArgumentNotAllowed},
		{"allowed once resolved", func(s *session.Session) string {
			return fmt.Sprintf(`{"$artifact":%q}`, put(s, `{"action":"status","branch":"feature"}`, "application/json"))
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sess := govSession(inv, prof)
			res := inv.Invoke(ctx, sess, invoker.Call{Tool: "git", Args: json.RawMessage(tt.args(sess))})
			require.Equal(t, tt.reason, res.Reason, res.Message)
			if tt.reason != "" {
				require.Equal(t, session.StatusDenied, res.Status)
			}
		})
	}
	require.EqualValues(t, 1, g.ran("git"), "only the allowed call ran")
}

// TestIdempotencyKeyBoundToArguments: a key reused with other arguments is
// refused, and a recorded result does not satisfy a sequential policy.
func TestIdempotencyKeyBoundToArguments(t *testing.T) {
	g := newGovBox(t, stdGovTools()...)
	gov := govern.New(govern.Options{Outcomes: newOutcomes(t)})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov, Policy: invoker.Policy{MaxRiskUnapproved: toolbox.Critical}})
	require.NoError(t, err)
	seq, err := govern.Sequential("deploy", "write_file")
	require.NoError(t, err)
	prof := &govern.Profile{Scopes: []string{"*"}, Autonomy: govern.Autonomous, Policies: []govern.CallPolicy{seq}}
	ctx := context.Background()
	require.True(t, inv.Invoke(ctx, govSession(inv, prof), invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), IdempotencyKey: "K"}).OK())
	res := inv.Invoke(ctx, govSession(inv, prof), invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"b"}`), IdempotencyKey: "K"})
	require.Equal(t, session.StatusError, res.Status)
	require.Equal(t, invoker.ReasonIdempotencyKeyReused, res.Reason)
	// Same arguments: the recorded result, which is not this chain's success.
	sess := govSession(inv, prof)
	res = inv.Invoke(ctx, sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), IdempotencyKey: "K"})
	require.True(t, res.Deduped)
	res = inv.Invoke(ctx, sess, invoker.Call{Tool: "deploy"})
	require.Equal(t, invoker.ReasonDependencyUnmet, res.Reason)
	require.EqualValues(t, 1, g.ran("write_file"))
	// A caller cannot pass a derived key.
	res = inv.Invoke(ctx, sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), IdempotencyKey: "d:abc"})
	require.Equal(t, invoker.ReasonInvalidArguments, res.Reason)
}

// TestProfileConfirmIsNotLifted: max_risk_unapproved never lifts a confirm
// the profile's own matrix row set.
func TestProfileConfirmIsNotLifted(t *testing.T) {
	g := newGovBox(t, stdGovTools()...)
	inv, err := invoker.New(g.box, invoker.Options{})
	require.NoError(t, err)
	prof := &govern.Profile{Scopes: []string{"*"}, Autonomy: govern.Autonomous,
		Matrix: govern.Matrix{govern.Autonomous: {govern.Confirm, govern.Allow, govern.Allow}}}
	res := inv.Invoke(context.Background(), govSession(inv, prof), invoker.Call{Tool: "run_tests"})
	require.Equal(t, session.StatusDenied, res.Status)
	require.Equal(t, invoker.ReasonNoApprovalHandler, res.Reason)
	require.Zero(t, g.ran("run_tests"))
}

// TestIdempotencyRecordsAuthenticated: in a store a fleet shares, an
// idempotency record a bucket writer made without the fleet key (here as a
// keyless process writes it, its result "forged") does not answer a
// re-sent write call: the tool runs and the chain gets its real result. A
// genuine record still answers; one moved to another key or tenant is
// refused, and the call runs.
func TestIdempotencyRecordsAuthenticated(t *testing.T) {
	ctx := context.Background()
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()
	newInv := func(keys [][]byte, value string) (*invoker.Invoker, *govBox) {
		tools := stdGovTools()
		tools[1].fn = func(context.Context, json.RawMessage) (toolbox.Output, error) {
			return toolbox.Output{JSON: json.RawMessage(`"` + value + `"`)}, nil
		}
		g := newGovBox(t, tools...)
		outcomes, err := govern.NewStoreOutcomes(store, govern.StoreOutcomesOptions{Keys: keys})
		require.NoError(t, err)
		inv, err := invoker.New(g.box, invoker.Options{Governor: govern.New(govern.Options{Outcomes: outcomes}),
			Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
		require.NoError(t, err)
		return inv, g
	}
	fleetKey := [][]byte{[]byte(strings.Repeat("f", 32))}
	inv, g := newInv(fleetKey, "real")
	forger, _ := newInv(nil, "forged")
	prof := &govern.Profile{Scopes: []string{"*"}}
	send := func(inv *invoker.Invoker, tenant, key string) invoker.Result {
		sess := inv.NewSession(session.Options{Tenant: tenant, Governance: govern.NewChain(prof)})
		defer sess.Close(ctx)
		return inv.Invoke(ctx, sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), IdempotencyKey: key})
	}

	require.Equal(t, `"forged"`, string(send(forger, "acme", "K").Value))
	res := send(inv, "acme", "K")
	require.True(t, res.OK(), res.Message)
	require.False(t, res.Deduped, "a forged record does not answer")
	require.Equal(t, `"real"`, string(res.Value))
	require.EqualValues(t, 1, g.ran("write_file"))

	res = send(inv, "acme", "K")
	require.True(t, res.Deduped, "the genuine record answers")
	require.Equal(t, `"real"`, string(res.Value))
	require.EqualValues(t, 1, g.ran("write_file"))

	// The genuine record of K, moved to key L and to tenant globex.
	name := func(key string) string {
		sum := sha256.Sum256([]byte(key))
		return "idem/write_file/" + hex.EncodeToString(sum[:])
	}
	rec, _, err := store.GetRecord(ctx, "acme", name("K"))
	require.NoError(t, err)
	require.NoError(t, store.PutRecord(ctx, "acme", name("L"), rec, true))
	require.NoError(t, store.PutRecord(ctx, "globex", name("K"), rec, true))
	for _, c := range [][2]string{{"acme", "L"}, {"globex", "K"}} {
		res = send(inv, c[0], c[1])
		require.True(t, res.OK(), res.Message)
		require.False(t, res.Deduped, "%s/%s: a swapped record does not answer", c[0], c[1])
	}
	require.EqualValues(t, 3, g.ran("write_file"))
}
