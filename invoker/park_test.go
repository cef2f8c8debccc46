package invoker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// events records the lifecycle events of an invoker.
type events struct {
	mu  sync.Mutex
	got []invoker.Event
}

func (e *events) hooks() invoker.Hooks {
	return invoker.Hooks{OnEvent: func(_ context.Context, ev invoker.Event) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.got = append(e.got, ev)
	}}
}

// take returns the events so far and forgets them.
func (e *events) take() []invoker.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	got := e.got
	e.got = nil
	return got
}

func kinds(evs []invoker.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Kind.Name()
	}
	return out
}

// parkEnv is an invoker with no approval handler, over the governance
// tools, whose sessions park approvals.
type parkEnv struct {
	g    *govBox
	inv  *invoker.Invoker
	ev   *events
	prof *govern.Profile
}

func newParkEnv(t *testing.T, opts invoker.Options) *parkEnv {
	e := &parkEnv{g: newGovBox(t, stdGovTools()...), ev: &events{}, prof: &govern.Profile{Name: "helper", Scopes: []string{"*"}}}
	opts.Hooks = e.ev.hooks()
	inv, err := invoker.New(e.g.box, opts)
	require.NoError(t, err)
	e.inv = inv
	return e
}

func (e *parkEnv) session() *session.Session {
	return e.inv.NewSession(session.Options{Tenant: "acme", Governance: govern.NewChain(e.prof), ParkApprovals: true})
}

// park makes a write_file call that parks and returns it.
func (e *parkEnv) park(t *testing.T, sess *session.Session, args string) *invoker.ParkedCall {
	t.Helper()
	res := e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(args)})
	require.Equal(t, session.StatusParked, res.Status, res.Message)
	require.NotNil(t, res.Parked)
	return res.Parked
}

func resume(p *invoker.ParkedCall, d invoker.Decision) *invoker.Resumption {
	return &invoker.Resumption{Seq: p.Seq, Start: p.Start, ArgsHash: p.Request.ArgsHash, Decision: d}
}

// TestParkReturnsTheRequest: a confirm gate in a parking session returns
// at once with the exact request, counts the call, appends no record,
// fires approval.parked and no tool.after, and needs no handler.
func TestParkReturnsTheRequest(t *testing.T) {
	e := newParkEnv(t, invoker.Options{})
	sess := e.session()
	before := time.Now()
	res := e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"text":"hi <b>","path":"a"}`)})
	require.Equal(t, session.StatusParked, res.Status, res.Message)
	require.Empty(t, res.Reason)
	require.False(t, res.OK())
	p := res.Parked
	require.NotNil(t, p)
	require.Equal(t, 1, p.Seq)
	require.False(t, p.Start.Before(before))
	canon := `{"path":"a","text":"hi <b>"}`
	sum := sha256.Sum256([]byte(canon))
	require.Equal(t, invoker.ApprovalRequest{SessionID: sess.ID(), Tenant: "acme", Tool: "write_file", Risk: toolbox.High,
		Args: json.RawMessage(canon), ArgsHash: hex.EncodeToString(sum[:])}, p.Request)
	require.NotEmpty(t, p.DecisionID)
	require.Equal(t, p.DecisionID, res.DecisionID)
	require.Empty(t, sess.Trace(), "a parked call has no record yet")
	require.Equal(t, 1, sess.Calls(), "a parked call is counted")
	require.Zero(t, e.g.ran("write_file"))
	evs := e.ev.take()
	require.Equal(t, []string{"tool.before", "policy.before", "gate.required", "approval.parked"}, kinds(evs))
	require.Equal(t, invoker.ApprovalPending, evs[3].Approval)
	require.Equal(t, p.DecisionID, evs[3].DecisionID)

	// Without ParkApprovals the same invoker still denies: no handler.
	wait := govSession(e.inv, e.prof)
	r := e.inv.Invoke(context.Background(), wait, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`)})
	require.Equal(t, invoker.ReasonNoApprovalHandler, r.Reason)
}

// TestResumeDecisions: the decision a resumed call carries decides it at
// the confirm gate; the single record starts when the call began.
func TestResumeDecisions(t *testing.T) {
	tests := []struct {
		name     string
		resume   func(*invoker.ParkedCall) *invoker.Resumption
		status   session.Status
		reason   string
		approval string
		ran      int64
	}{
		{"approved", func(p *invoker.ParkedCall) *invoker.Resumption { return resume(p, invoker.Approved) },
			session.StatusOK, "", invoker.ApprovalApproved, 1},
		{"denied", func(p *invoker.ParkedCall) *invoker.Resumption { return resume(p, invoker.Denied) },
			session.StatusDenied, invoker.ReasonApprovalDenied, invoker.ApprovalDenied, 0},
		{"expired", func(p *invoker.ParkedCall) *invoker.Resumption {
			r := resume(p, invoker.Approved)
			r.Expired = true
			return r
		}, session.StatusDenied, invoker.ReasonApprovalExpired, invoker.ApprovalExpired, 0},
		{"arguments changed", func(p *invoker.ParkedCall) *invoker.Resumption {
			r := resume(p, invoker.Approved)
			r.ArgsHash = hex.EncodeToString(make([]byte, 32))
			return r
		}, session.StatusDenied, invoker.ReasonApprovalFailed, invoker.ApprovalFailed, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newParkEnv(t, invoker.Options{})
			sess := e.session()
			p := e.park(t, sess, `{"path":"a"}`)
			e.ev.take()
			time.Sleep(5 * time.Millisecond)
			res := e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), Resume: tc.resume(p)})
			require.Equal(t, tc.status, res.Status, res.Message)
			require.Equal(t, tc.reason, res.Reason)
			require.Nil(t, res.Parked)
			require.Equal(t, tc.ran, e.g.ran("write_file"))
			require.Equal(t, 1, sess.Calls(), "a resumption takes no new number")
			tr := sess.Trace()
			require.Len(t, tr, 1)
			require.Equal(t, 1, tr[0].Seq)
			require.True(t, tr[0].Start.Equal(p.Start), "the record starts when the call began")
			require.GreaterOrEqual(t, tr[0].Duration, 5*time.Millisecond)
			require.Equal(t, p.DecisionID, tr[0].DecisionID)
			evs := e.ev.take()
			end := evs[len(evs)-1]
			require.Equal(t, invoker.ToolEnd, end.Kind)
			require.Equal(t, tc.approval, end.Approval)
			require.NotContains(t, kinds(evs), "approval.parked")
		})
	}
}

// TestResumeMeetsTheGateAsItIsNow: every other gate runs again, so a
// stricter profile or a resting tool wins; a gate that no longer confirms
// runs an approved call but never an expired one.
func TestResumeMeetsTheGateAsItIsNow(t *testing.T) {
	restricted := &govern.Profile{Name: "reviewer", Scopes: []string{"*"}, Autonomy: govern.Restricted}
	noScope := &govern.Profile{Name: "reader", Scopes: []string{"repo:read"}}
	autonomous := &govern.Profile{Name: "release", Scopes: []string{"*"}, Autonomy: govern.Autonomous}
	tests := []struct {
		name    string
		profile *govern.Profile
		expired bool
		reason  string
		ran     int64
	}{
		{"stricter gate denies", restricted, false, invoker.ReasonGateDenied, 0},
		{"scope withdrawn", noScope, false, invoker.ReasonScopeViolation, 0},
		{"gate now allows", autonomous, false, "", 1},
		{"gate now allows, but expired", autonomous, true, invoker.ReasonApprovalExpired, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newParkEnv(t, invoker.Options{})
			sess := e.session()
			p := e.park(t, sess, `{"path":"a"}`)
			sess.Governance().SetProfile(tc.profile)
			rs := resume(p, invoker.Approved)
			rs.Expired = tc.expired
			res := e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), Resume: rs})
			require.Equal(t, tc.reason, res.Reason, res.Message)
			require.Equal(t, tc.ran, e.g.ran("write_file"))
			require.Len(t, sess.Trace(), 1)
		})
	}
	t.Run("resting tool", func(t *testing.T) {
		e := newParkEnv(t, invoker.Options{})
		sess := e.session()
		p := e.park(t, sess, `{"path":"a"}`)
		e.inv.Governor().Health().RateLimited("write_file", time.Now().Add(time.Hour))
		res := e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), Resume: resume(p, invoker.Approved)})
		require.Equal(t, invoker.ReasonToolUnavailable, res.Reason)
		require.Zero(t, e.g.ran("write_file"))
	})
}

// TestResumeSeqOutOfRange: a resumption must name a call the chain made.
func TestResumeSeqOutOfRange(t *testing.T) {
	e := newParkEnv(t, invoker.Options{})
	sess := e.session()
	p := e.park(t, sess, `{"path":"a"}`)
	for _, seq := range []int{0, -1, 2} {
		rs := resume(p, invoker.Approved)
		rs.Seq = seq
		res := e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), Resume: rs})
		require.Equal(t, invoker.ReasonInternal, res.Reason, "seq %d", seq)
		require.Contains(t, res.Message, "resume a call with the Seq of its ParkedCall")
	}
	rs := resume(p, invoker.Decision(7))
	res := e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), Resume: rs})
	require.Equal(t, invoker.ReasonInternal, res.Reason)
	require.Zero(t, e.g.ran("write_file"))
	require.Equal(t, 1, sess.Calls())
	require.Len(t, sess.Trace(), 4, "a refused resumption is still one record")
}

// TestResumeInAnotherProcess: the session parks in one invoker, travels
// as JSON, and its call resumes in a fresh session of another.
func TestResumeInAnotherProcess(t *testing.T) {
	e := newParkEnv(t, invoker.Options{})
	sess := e.session()
	require.True(t, e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`)}).OK())
	p := e.park(t, sess, `{"path":"a"}`)
	b, err := json.Marshal(struct {
		Session session.State
		Parked  *invoker.ParkedCall
	}{sess.State(), p})
	require.NoError(t, err)

	other := newParkEnv(t, invoker.Options{})
	var carried struct {
		Session session.State
		Parked  *invoker.ParkedCall
	}
	require.NoError(t, json.Unmarshal(b, &carried))
	resumed, err := other.inv.RestoreSession(carried.Session, session.Options{Governance: govern.NewChain(other.prof)})
	require.NoError(t, err)
	require.True(t, resumed.ParksApprovals())
	res := other.inv.Invoke(context.Background(), resumed, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`),
		Resume: resume(carried.Parked, invoker.Approved)})
	require.True(t, res.OK(), res.Message)
	require.EqualValues(t, 1, other.g.ran("write_file"))
	require.Zero(t, e.g.ran("write_file"))
	tr := resumed.Trace()
	require.Len(t, tr, 2)
	require.Equal(t, []string{"read_file", "write_file"}, []string{tr[0].Tool, tr[1].Tool})
	require.Equal(t, 2, tr[1].Seq)
	require.True(t, tr[1].Start.Equal(p.Start))
	require.Equal(t, 2, resumed.Calls())
}

// TestParkingSpendsNoExtraBudget: three parked calls use three of three
// calls; resuming them takes nothing more.
func TestParkingSpendsNoExtraBudget(t *testing.T) {
	e := newParkEnv(t, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 3}})
	sess := e.session()
	var parked []*invoker.ParkedCall
	for _, path := range []string{"a", "b", "c"} {
		parked = append(parked, e.park(t, sess, `{"path":"`+path+`"}`))
	}
	require.Equal(t, invoker.ReasonBudgetExhausted,
		e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`)}).Reason)
	for i, path := range []string{"a", "b", "c"} {
		res := e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"` + path + `"}`),
			Resume: resume(parked[i], invoker.Approved)})
		require.True(t, res.OK(), res.Message)
	}
	require.Equal(t, 3, sess.Calls())
	require.EqualValues(t, 3, e.g.ran("write_file"))
	require.Len(t, sess.Trace(), 4)
}

// TestResumedTwiceRunsOnce: a write-class call resumed twice with the
// same decision (two processes racing, a retried resume) runs once; the
// second gets the recorded result.
func TestResumedTwiceRunsOnce(t *testing.T) {
	gov := govern.New(govern.Options{Outcomes: newOutcomes(t)})
	e := newParkEnv(t, invoker.Options{Governor: gov})
	sess := e.session()
	p := e.park(t, sess, `{"path":"a"}`)
	call := invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`), Resume: resume(p, invoker.Approved)}
	first := e.inv.Invoke(context.Background(), sess, call)
	require.True(t, first.OK(), first.Message)
	require.False(t, first.Deduped)
	second := e.inv.Invoke(context.Background(), sess, call)
	require.True(t, second.OK(), second.Message)
	require.True(t, second.Deduped)
	require.EqualValues(t, 1, e.g.ran("write_file"))
	tr := sess.Trace()
	require.Len(t, tr, 2)
	require.Equal(t, tr[0].IdempotencyKey, tr[1].IdempotencyKey, "the key derives from the parked call's number")
}

// TestParkBindsArtifactContent: a parked request describes artifact refs
// by the store's facts, as a waiting approval does, and the approved
// resumption runs with the content.
func TestParkBindsArtifactContent(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store})
	sess := inv.NewSession(session.Options{Tenant: "acme", ParkApprovals: true})
	payload := "rm -rf /"
	attrs, err := f.store.Put(ctx, "acme", strings.NewReader(payload), "text/plain")
	require.NoError(t, err)
	sess.Grant(attrs.Ref)
	args := fmt.Sprintf(`{"to":"ops","body":{"$artifact":%q,"preview":"ls","size":2,"mime":"text/plain"}}`, attrs.Ref)
	res := inv.Invoke(ctx, sess, call("send", args))
	require.Equal(t, session.StatusParked, res.Status, res.Message)
	sum := sha256.Sum256([]byte(payload))
	require.Equal(t, fmt.Sprintf(`{"body":{"$artifact":%q,"mime":"text/plain","sha256":%q,"size":%d},"to":"ops"}`,
		attrs.Ref, hex.EncodeToString(sum[:]), len(payload)), string(res.Parked.Request.Args))
	c := call("send", args)
	c.Resume = resume(res.Parked, invoker.Approved)
	res = inv.Invoke(ctx, sess, c)
	require.True(t, res.OK(), res.Message)
	require.JSONEq(t, `{"to":"ops","body":"`+payload+`"}`, f.arg("send"))
}

// TestParkHammer: many goroutines park calls on one session and resume
// them; every call runs once, the budget counts each once, and the trace
// holds one record per call.
func TestParkHammer(t *testing.T) {
	const workers, perWorker = 8, 25
	e := newParkEnv(t, invoker.Options{Policy: invoker.Policy{MaxToolCalls: workers * perWorker}})
	sess := e.session()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				args := json.RawMessage(fmt.Sprintf(`{"path":"%d-%d"}`, w, i))
				res := e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: args})
				if res.Parked == nil {
					t.Errorf("not parked: %s %s", res.Status, res.Message)
					return
				}
				if i%2 == 0 {
					_ = sess.State()
				}
				res = e.inv.Invoke(context.Background(), sess, invoker.Call{Tool: "write_file", Args: args, Resume: resume(res.Parked, invoker.Approved)})
				if !res.OK() {
					t.Errorf("resume: %s", res.Message)
				}
			}
		}()
	}
	wg.Wait()
	require.EqualValues(t, workers*perWorker, e.g.ran("write_file"))
	require.Equal(t, workers*perWorker, sess.Calls())
	require.Len(t, sess.Trace(), workers*perWorker)
	require.NoError(t, sess.State().Validate(0))
}

// TestApprovalCallSite: the line and column a Call carries reach the
// ApprovalRequest a handler is shown and a parked call's request, beside
// the gate and rule that asked for the decision; no line, no column.
func TestApprovalCallSite(t *testing.T) {
	for _, tt := range []struct {
		name              string
		line, column      int
		wantLine, wantCol int
	}{
		{"line and column", 7, 13, 7, 13},
		{"line only", 3, 0, 3, 0},
		{"unknown", 0, 0, 0, 0},
		{"a column without a line", 0, 5, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newParkEnv(t, invoker.Options{})
			res := e.inv.Invoke(context.Background(), e.session(), invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`),
				Line: tt.line, Column: tt.column})
			require.Equal(t, session.StatusParked, res.Status, res.Message)
			p := res.Parked
			require.Equal(t, tt.wantLine, p.Request.Line)
			require.Equal(t, tt.wantCol, p.Request.Column)
			evs := e.ev.take()
			require.Equal(t, "gate.required", evs[2].Kind.Name())
			require.Equal(t, "confirm", p.Gate)
			require.NotEmpty(t, p.Rule)
			require.Equal(t, evs[2].Rule, p.Rule)
			require.Equal(t, evs[2].DecisionID, p.DecisionID)

			var shown invoker.ApprovalRequest
			inv, err := invoker.New(e.g.box, invoker.Options{Approver: invoker.ApprovalFunc(func(_ context.Context, r invoker.ApprovalRequest) (invoker.Decision, error) {
				shown = r
				return invoker.Denied, nil
			})})
			require.NoError(t, err)
			r := inv.Invoke(context.Background(), govSession(inv, e.prof), invoker.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"a"}`),
				Line: tt.line, Column: tt.column})
			require.Equal(t, invoker.ReasonApprovalDenied, r.Reason)
			require.Equal(t, tt.wantLine, shown.Line)
			require.Equal(t, tt.wantCol, shown.Column)
		})
	}
}
