package invoker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func approveAll(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
	return invoker.Approved, nil
}

// TestGates drives one call through each gate outcome and checks the exact
// status and reason, whether the tool ran, the trace record and the hooks.
func TestGates(t *testing.T) {
	short := invoker.Policy{CallTimeout: 200 * time.Millisecond, ApprovalTimeout: 50 * time.Millisecond}
	block := make(chan struct{})
	defer close(block)
	tests := []struct {
		name     string
		policy   invoker.Policy
		approver invoker.ApprovalHandler
		ctx      func() context.Context
		tool     string
		args     string
		status   session.Status
		trace    session.Status
		reason   string
		msg      string // substring of the message
		ran      bool
		executed bool // the tool ran but is not counted by the fixture
	}{
		{name: "ok", tool: "noop", args: `{}`, status: "ok", trace: "ok", ran: true},
		{name: "empty args mean {}", tool: "noop", args: ``, status: "ok", trace: "ok", ran: true},
		{name: "unknown tool", tool: "nope", status: "error", trace: "error", reason: invoker.ReasonUnknownTool, msg: `"nope"`},
		{name: "hosted", tool: "web_search", status: "error", trace: "error", reason: invoker.ReasonNotCallable, msg: "hosted"},
		{name: "provider defined", tool: "computer", status: "error", trace: "error", reason: invoker.ReasonNotCallable, msg: "provider_defined"},
		{name: "chain tool", tool: "tool_chain", status: "error", trace: "error", reason: invoker.ReasonNotCallable, msg: "chain"},
		{name: "unknown field", tool: "echo", args: `{"text":"a","evil":1}`, status: "error", trace: "error", reason: invoker.ReasonInvalidArguments, msg: "evil"},
		{name: "not an object", tool: "echo", args: `[1]`, status: "error", trace: "error", reason: invoker.ReasonInvalidArguments},
		{name: "malformed JSON", tool: "echo", args: `{"text":`, status: "error", trace: "error", reason: invoker.ReasonInvalidArguments},
		{name: "arguments too large", policy: invoker.Policy{MaxArgumentBytes: 16}, tool: "echo", args: `{"text":"0123456789"}`,
			status: "error", trace: "error", reason: invoker.ReasonArgumentsTooLarge, msg: "16"},
		{name: "high risk, no handler", tool: "send", args: `{"to":"bob"}`, status: "denied", trace: "denied", reason: invoker.ReasonNoApprovalHandler},
		{name: "high risk, approved", approver: invoker.ApprovalFunc(approveAll), tool: "send", args: `{"to":"bob"}`, status: "ok", trace: "ok", ran: true},
		{name: "high risk, denied", tool: "send", args: `{"to":"bob"}`, status: "denied", trace: "denied", reason: invoker.ReasonApprovalDenied,
			approver: invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) { return invoker.Denied, nil })},
		{name: "high risk, handler error", tool: "send", args: `{"to":"bob"}`, status: "denied", trace: "denied", reason: invoker.ReasonApprovalFailed,
			approver: invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
				return invoker.Approved, errors.New("queue unavailable")
			}), msg: `the approval request for "send" failed; the call did not run`},
		{name: "high risk, handler refuses with a reason", tool: "send", args: `{"to":"bob"}`, status: "denied", trace: "denied", reason: invoker.ReasonApprovalFailed,
			approver: invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
				return invoker.Denied, fmt.Errorf("%w: the queue is full", invoker.ErrApprovalRefused)
			}), msg: `the approval request for "send" was refused (invoker: approval refused: the queue is full); the call did not run`},
		{name: "high risk, handler panics", tool: "send", args: `{"to":"bob"}`, status: "denied", trace: "denied", reason: invoker.ReasonApprovalFailed,
			approver: invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) { panic("handler bug") })},
		{name: "high risk, handler times out", policy: short, tool: "send", args: `{"to":"bob"}`, status: "denied", trace: "denied", reason: invoker.ReasonApprovalTimeout,
			approver: invoker.ApprovalFunc(func(ctx context.Context, _ invoker.ApprovalRequest) (invoker.Decision, error) {
				<-ctx.Done()
				return invoker.Approved, ctx.Err()
			})},
		{name: "high risk, handler ignores its context", policy: short, tool: "send", args: `{"to":"bob"}`, status: "denied", trace: "denied", reason: invoker.ReasonApprovalTimeout,
			approver: invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
				<-block
				return invoker.Approved, nil
			})},
		{name: "high allowed unapproved by policy", policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}, tool: "send", args: `{"to":"bob"}`, status: "ok", trace: "ok", ran: true},
		{name: "critical still needs approval", policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}, tool: "nuke", status: "denied", trace: "denied", reason: invoker.ReasonNoApprovalHandler},
		{name: "cancelled before execution", ctx: cancelledCtx, tool: "noop", status: "error", trace: "error", reason: invoker.ReasonCancelled},
		{name: "cancelled during approval", ctx: cancelledCtx, approver: invoker.ApprovalFunc(approveAll), tool: "send", args: `{"to":"bob"}`,
			status: "error", trace: "error", reason: invoker.ReasonCancelled},
		{name: "tool error", tool: "boom", status: "error", trace: "error", reason: invoker.ReasonToolError, msg: "disk full", ran: true},
		{name: "tool panic", tool: "panic", status: "error", trace: "error", reason: invoker.ReasonToolPanic, ran: true},
		{name: "tool timeout", policy: short, tool: "slow", status: "error", trace: "timeout", reason: invoker.ReasonCallTimeout, msg: "200ms", ran: true},
		{name: "invalid result", tool: "badjson", status: "error", trace: "error", reason: invoker.ReasonInvalidResult, executed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			var mu sync.Mutex
			var events []string
			record := func(_ context.Context, ev invoker.Event) {
				mu.Lock()
				defer mu.Unlock()
				events = append(events, ev.Kind.String()+":"+string(ev.Status)+":"+ev.Reason)
			}
			inv := f.invoker(t, invoker.Options{
				Policy: tc.policy, Approver: tc.approver,
				Hooks:    invoker.Hooks{OnToolStart: record, OnToolEnd: record},
				Progress: record,
			})
			ctx := context.Background()
			if tc.ctx != nil {
				ctx = tc.ctx()
			}
			sess := newSession(inv, "acme")
			res := inv.Invoke(ctx, sess, invoker.Call{Tool: tc.tool, Args: json.RawMessage(tc.args)})

			require.Equal(t, tc.status, res.Status, res.Message)
			require.Equal(t, tc.reason, res.Reason)
			require.Contains(t, res.Message, tc.msg)
			if tc.status == session.StatusOK {
				require.Empty(t, res.Message)
				require.NotEmpty(t, res.Value)
			} else {
				require.NotEmpty(t, res.Message)
				require.Nil(t, res.Value)
			}
			require.NotContains(t, res.Message, "secret-token-123", "panic values never reach the chain")
			require.Equal(t, tc.ran, f.ran(tc.tool) == 1, "tool ran")

			tr := sess.Trace()
			require.Len(t, tr, 1)
			require.Equal(t, tc.trace, tr[0].Status)
			require.Equal(t, tc.reason, tr[0].Reason)
			require.Equal(t, 1, tr[0].Seq)
			require.Equal(t, len(tc.args), tr[0].ArgBytes)
			require.False(t, tr[0].End.Before(tr[0].Start))

			mu.Lock()
			defer mu.Unlock()
			want := []string{"TOOL_START::"}
			switch {
			case tc.executed: // the tool returned; shaping failed afterwards
				want = append(want, "TOOL_CALL::", "TOOL_RESULT:ok:")
			case tc.ran:
				want = append(want, "TOOL_CALL::", "TOOL_RESULT:"+string(tc.trace)+":"+tc.reason)
			}
			// Events show the trace's status: timeout for a call timeout.
			want = append(want, "TOOL_END:"+string(tc.trace)+":"+tc.reason)
			require.Equal(t, want, events)
		})
	}
}

func cancelledCtx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestBudgetExhaustedAtExactlyNPlusOne(t *testing.T) {
	for _, n := range []int{1, 3, 50} {
		f := newFixture(t)
		inv := f.invoker(t, invoker.Options{Policy: invoker.Policy{MaxToolCalls: n}})
		sess := newSession(inv, "acme")
		for i := 0; i < n; i++ {
			require.True(t, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "noop"}).OK())
		}
		res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "noop"})
		require.Equal(t, session.StatusError, res.Status)
		require.Equal(t, invoker.ReasonBudgetExhausted, res.Reason)
		// A failed call counts against the budget too, and unknown tools as well.
		require.Equal(t, invoker.ReasonBudgetExhausted, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "nope"}).Reason)
		require.EqualValues(t, n, f.ran("noop"))
		require.Equal(t, n, sess.Calls())
		require.Len(t, sess.Trace(), n+2)
	}
}

func TestDefaultBudgetIs50(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{})
	sess := newSession(inv, "acme")
	for i := 0; i < 50; i++ {
		require.True(t, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "noop"}).OK())
	}
	require.Equal(t, invoker.ReasonBudgetExhausted, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "noop"}).Reason)
}

func TestApprovalSeesExactlyWhatRuns(t *testing.T) {
	f := newFixture(t)
	var seen invoker.ApprovalRequest
	inv := f.invoker(t, invoker.Options{Approver: invoker.ApprovalFunc(func(_ context.Context, req invoker.ApprovalRequest) (invoker.Decision, error) {
		seen = req
		seen.Args = append(json.RawMessage(nil), req.Args...)
		// A handler that tampers with the request fails the call
		// (TestApproverSeesTheCallsOwnArguments).
		return invoker.Approved, nil
	})})
	sess := newSession(inv, "acme")
	// Duplicate keys: a naive approver would show "alice"; Go would send "bob".
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "send", Args: json.RawMessage(`{"to":"alice","body":"hi","to":"bob"}`)})
	require.True(t, res.OK(), res.Message)
	require.Equal(t, `{"body":"hi","to":"bob"}`, string(seen.Args))
	sum := sha256.Sum256(seen.Args)
	require.Equal(t, hex.EncodeToString(sum[:]), seen.ArgsHash)
	require.Equal(t, "send", seen.Tool)
	require.Equal(t, toolbox.High, seen.Risk)
	require.Equal(t, sess.ID(), seen.SessionID)
	require.Equal(t, "acme", seen.Tenant)
	require.JSONEq(t, `{"to":"bob","body":"hi"}`, f.arg("send"))
	require.JSONEq(t, `"sent to bob"`, string(res.Value))
}

func TestToolIgnoringContextDoesNotBlockCaller(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Policy: invoker.Policy{CallTimeout: 30 * time.Millisecond, ApprovalTimeout: 10 * time.Millisecond}})
	sess := newSession(inv, "acme")
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "stubborn"})
	require.Equal(t, invoker.ReasonCallTimeout, res.Reason)
	require.Equal(t, session.StatusTimeout, sess.Trace()[0].Status)
	require.EqualValues(t, 1, inv.Abandoned())
	close(f.release) // the tool finally returns; its result is dropped
	require.Eventually(t, func() bool { return inv.Abandoned() == 0 }, 5*time.Second, time.Millisecond)
	require.Len(t, sess.Trace(), 1, "a late result adds nothing")
}

func TestCancelDuringExecution(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{})
	sess := newSession(inv, "acme")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan invoker.Result)
	go func() { done <- inv.Invoke(ctx, sess, invoker.Call{Tool: "slow"}) }()
	require.Eventually(t, func() bool { return f.ran("slow") == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	res := <-done
	require.Equal(t, session.StatusError, res.Status)
	require.Equal(t, invoker.ReasonCancelled, res.Reason)
	require.Equal(t, session.StatusError, sess.Trace()[0].Status)
}

func TestHooksThatPanicAreContained(t *testing.T) {
	f := newFixture(t)
	bad := func(context.Context, invoker.Event) { panic("hook bug") }
	inv := f.invoker(t, invoker.Options{Hooks: invoker.Hooks{OnToolStart: bad, OnToolEnd: bad}, Progress: bad})
	sess := newSession(inv, "acme")
	require.True(t, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "noop"}).OK())
	require.Len(t, sess.Trace(), 1)
}

func TestLongToolNamesAreClipped(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{})
	sess := newSession(inv, "acme")
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: strings.Repeat("a", 1<<20)})
	require.Equal(t, invoker.ReasonUnknownTool, res.Reason)
	require.Less(t, len(res.Message), 300)
	require.Less(t, len(sess.Trace()[0].Tool), 140)
}

func TestPolicyValidation(t *testing.T) {
	tests := []struct {
		name string
		p    invoker.Policy
		want string
	}{
		{"defaults", invoker.Policy{}, ""},
		{"approval equals call", invoker.Policy{CallTimeout: time.Minute, ApprovalTimeout: time.Minute},
			"chain policy: approval_timeout (1m0s) must be shorter than call_timeout (1m0s)"},
		{"approval above call", invoker.Policy{CallTimeout: time.Second, ApprovalTimeout: 2 * time.Second},
			"chain policy: approval_timeout (2s) must be shorter than call_timeout (1s)"},
		{"short call timeout keeps invariant", invoker.Policy{CallTimeout: time.Second}, ""},
		{"negative budget", invoker.Policy{MaxToolCalls: -1}, "chain policy: max_tool_calls (-1) must not be negative"},
		{"bad risk", invoker.Policy{MaxRiskUnapproved: 5}, "chain policy: max_risk_unapproved (Risk(5)) must be at most CRITICAL"},
		{"negative inline", invoker.Policy{MaxInlineResultBytes: -1}, "chain policy: max_inline_result_bytes (-1) must not be negative"},
		{"negative artifact quota", invoker.Policy{MaxArtifactBytes: -1}, "chain policy: max_artifact_bytes (-1) must not be negative"},
	}
	box, err := toolbox.New()
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := invoker.New(box, invoker.Options{Policy: tc.p})
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, invoker.ErrInvalidPolicy)
			require.EqualError(t, err, tc.want)
		})
	}
	d := invoker.Policy{}.WithDefaults()
	require.Equal(t, invoker.Policy{MaxToolCalls: 50, CallTimeout: 60 * time.Second, ApprovalTimeout: 55 * time.Second,
		MaxRiskUnapproved: toolbox.Safe, MaxInlineResultBytes: 4096, PreviewChars: 256,
		MaxGuestValueBytes: 1 << 20, MaxFinalValueBytes: 64 << 10, MaxArgumentBytes: 1 << 20, MaxResolvedBytes: 64 << 20, MaxArtifactBytes: 256 << 20}, d)

	_, err = invoker.New(nil, invoker.Options{})
	require.ErrorIs(t, err, invoker.ErrNilToolbox)
	_, err = invoker.New(box, invoker.Options{MaxTenantArtifactBytes: -1})
	require.ErrorIs(t, err, invoker.ErrInvalidOptions)
	require.EqualError(t, err, "invoker options: MaxResolvingBytes (0), MaxTenantArtifactBytes (-1) and MaxTenantInFlightBytes (0) must not be negative")
	inv, err := invoker.New(box, invoker.Options{})
	require.NoError(t, err)
	_, err = inv.WithPolicy(invoker.Policy{CallTimeout: time.Second, ApprovalTimeout: time.Second})
	require.ErrorIs(t, err, invoker.ErrInvalidPolicy)
	inv2, err := inv.WithPolicy(invoker.Policy{MaxToolCalls: 7})
	require.NoError(t, err)
	require.Equal(t, 7, inv2.Policy().MaxToolCalls)
	require.Equal(t, 50, inv.Policy().MaxToolCalls)
}
