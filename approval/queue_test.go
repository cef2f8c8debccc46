package approval_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func request(tenant, args string) invoker.ApprovalRequest {
	sum := sha256.Sum256([]byte(args))
	return invoker.ApprovalRequest{
		SessionID: "s_1", Tenant: tenant, Tool: "send_message", Risk: toolbox.High,
		Args: json.RawMessage(args), ArgsHash: hex.EncodeToString(sum[:]),
	}
}

type answer struct {
	d   invoker.Decision
	err error
}

// park starts Approve in a goroutine and returns the queued request and the
// channel its answer arrives on.
func park(t *testing.T, ctx context.Context, q *approval.Queue, r invoker.ApprovalRequest) (approval.Request, <-chan answer) {
	t.Helper()
	ch := make(chan answer, 1)
	before := q.Len()
	go func() {
		d, err := q.Approve(ctx, r)
		ch <- answer{d, err}
	}()
	require.Eventually(t, func() bool { return q.Len() > before }, 5*time.Second, time.Millisecond)
	for _, p := range q.List(r.Tenant) {
		if p.ArgsHash == r.ArgsHash {
			return p, ch
		}
	}
	t.Fatal("request not listed")
	return approval.Request{}, nil
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name     string
		decision invoker.Decision
	}{
		{"approve", invoker.Approved},
		{"deny", invoker.Denied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := approval.NewQueue(approval.Options{})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r := request("acme", `{"text":"hi","to":"ops"}`)
			req, ch := park(t, ctx, q, r)

			require.Len(t, req.ID, 26)
			require.Equal(t, "acme", req.Tenant)
			require.Equal(t, "s_1", req.SessionID)
			require.Equal(t, "send_message", req.Tool)
			require.Equal(t, toolbox.High, req.Risk)
			require.Equal(t, r.Args, req.Args)
			require.Equal(t, r.ArgsHash, req.ArgsHash)
			require.False(t, req.Created.IsZero())
			dl, _ := ctx.Deadline()
			require.Equal(t, dl, req.Expires)
			got, err := q.Get("acme", req.ID)
			require.NoError(t, err)
			require.Equal(t, req, got)

			out, err := q.Decide("acme", req.ID, tc.decision, strings.ToUpper(req.ArgsHash))
			require.NoError(t, err)
			require.Equal(t, tc.decision, out.Decision)
			require.Equal(t, req, out.Request)
			a := <-ch
			require.NoError(t, a.err)
			require.Equal(t, tc.decision, a.d)

			_, err = q.Get("acme", req.ID)
			require.ErrorIs(t, err, approval.ErrNotFound)
			require.Empty(t, q.List("acme"))

			// A second decision is a no-op that says so and reports the first.
			other := invoker.Approved + invoker.Denied - tc.decision
			out, err = q.Decide("acme", req.ID, other, req.ArgsHash)
			require.ErrorIs(t, err, approval.ErrAlreadyDecided)
			require.Equal(t, tc.decision, out.Decision)
		})
	}
}

func TestDecideRefusals(t *testing.T) {
	q := approval.NewQueue(approval.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := request("acme", `{"to":"ops"}`)
	req, ch := park(t, ctx, q, r)
	changed := request("acme", `{"to":"everyone"}`)

	tests := []struct {
		name, tenant, id, hash string
		decision               invoker.Decision
		err                    error
	}{
		{"other arguments", "acme", req.ID, changed.ArgsHash, invoker.Approved, approval.ErrArgsMismatch},
		{"empty hash", "acme", req.ID, "", invoker.Approved, approval.ErrArgsMismatch},
		{"denial with other arguments", "acme", req.ID, changed.ArgsHash, invoker.Denied, approval.ErrArgsMismatch},
		{"other tenant", "globex", req.ID, req.ArgsHash, invoker.Approved, approval.ErrNotFound},
		{"unknown id", "acme", "nope", req.ArgsHash, invoker.Approved, approval.ErrNotFound},
		{"unknown decision", "acme", req.ID, req.ArgsHash, invoker.Decision(7), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := q.Decide(tc.tenant, tc.id, tc.decision, tc.hash)
			require.Error(t, err)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
			}
			// The request is still pending and undecided.
			_, err = q.Get("acme", req.ID)
			require.NoError(t, err)
			select {
			case a := <-ch:
				t.Fatalf("request decided: %v", a)
			default:
			}
		})
	}
	_, err := q.Get("globex", req.ID)
	require.ErrorIs(t, err, approval.ErrNotFound, "another tenant cannot see it")
	require.Empty(t, q.List("globex"))

	_, err = q.Decide("acme", req.ID, invoker.Approved, req.ArgsHash)
	require.NoError(t, err)
	require.Equal(t, invoker.Approved, (<-ch).d)
}

func TestExpiry(t *testing.T) {
	q := approval.NewQueue(approval.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	req, ch := park(t, ctx, q, request("acme", `{}`))
	cancel()
	a := <-ch
	require.Equal(t, invoker.Denied, a.d)
	require.ErrorIs(t, a.err, context.Canceled)
	require.Zero(t, q.Len())

	_, err := q.Decide("acme", req.ID, invoker.Approved, req.ArgsHash)
	require.ErrorIs(t, err, approval.ErrExpired)
	require.ErrorIs(t, err, approval.ErrNotFound)
	_, err = q.Decide("globex", req.ID, invoker.Approved, req.ArgsHash)
	require.ErrorIs(t, err, approval.ErrNotFound)
	require.NotErrorIs(t, err, approval.ErrExpired, "another tenant learns nothing")

	d, err := q.Approve(ctx, request("acme", `{}`))
	require.ErrorIs(t, err, context.Canceled, "an ended context is refused at once")
	require.Equal(t, invoker.Denied, d)
	require.Zero(t, q.Len())
}

func TestRememberIsBounded(t *testing.T) {
	q := approval.NewQueue(approval.Options{Remember: 2})
	ctx := context.Background()
	var ids []approval.Request
	for i := range 3 {
		req, ch := park(t, ctx, q, request("acme", fmt.Sprintf(`{"n":%d}`, i)))
		_, err := q.Decide("acme", req.ID, invoker.Approved, req.ArgsHash)
		require.NoError(t, err)
		<-ch
		ids = append(ids, req)
	}
	_, err := q.Decide("acme", ids[0].ID, invoker.Approved, ids[0].ArgsHash)
	require.ErrorIs(t, err, approval.ErrNotFound, "the oldest was forgotten")
	require.NotErrorIs(t, err, approval.ErrAlreadyDecided)
	_, err = q.Decide("acme", ids[2].ID, invoker.Approved, ids[2].ArgsHash)
	require.ErrorIs(t, err, approval.ErrAlreadyDecided)
}

func TestQueueFull(t *testing.T) {
	q := approval.NewQueue(approval.Options{MaxPending: 1})
	ctx, cancel := context.WithCancel(context.Background())
	_, ch := park(t, ctx, q, request("acme", `{}`))
	_, err := q.Approve(ctx, request("acme", `{"a":1}`))
	require.ErrorIs(t, err, approval.ErrQueueFull)
	require.ErrorIs(t, err, invoker.ErrApprovalRefused)
	require.EqualError(t, err, "approval: too many requests are waiting for a decision: the queue holds as many requests as it may (MaxPending 1)")
	cancel()
	<-ch
}

// TestPerTenantLimit: one tenant cannot fill the queue; beyond its own
// limit its requests fail like a full queue, and other tenants still queue.
func TestPerTenantLimit(t *testing.T) {
	q := approval.NewQueue(approval.Options{MaxPending: 10, MaxPendingPerTenant: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, ch1 := park(t, ctx, q, request("acme", `{"n":1}`))
	_, ch2 := park(t, ctx, q, request("acme", `{"n":2}`))
	d, err := q.Approve(ctx, request("acme", `{"n":3}`))
	require.ErrorIs(t, err, approval.ErrQueueFull)
	require.EqualError(t, err, "approval: too many requests are waiting for a decision: this tenant has as many requests waiting as it may (MaxPendingPerTenant 2)")
	require.Equal(t, invoker.Denied, d)
	require.Equal(t, 2, q.Len())

	_, ch3 := park(t, ctx, q, request("globex", `{"n":1}`))
	require.Equal(t, 3, q.Len())

	// A settled request frees its tenant's place.
	_, err = q.Decide("acme", first.ID, invoker.Approved, first.ArgsHash)
	require.NoError(t, err)
	require.Equal(t, invoker.Approved, (<-ch1).d)
	_, ch4 := park(t, ctx, q, request("acme", `{"n":4}`))
	cancel()
	for _, ch := range []<-chan answer{ch2, ch3, ch4} {
		<-ch
	}
}

// TestSettledKeepsNoArgs: a decided or expired request is remembered with
// its hash and size, not its arguments.
func TestSettledKeepsNoArgs(t *testing.T) {
	q := approval.NewQueue(approval.Options{})
	args := `{"secret":"s3cr3t-value","to":"ops"}`
	req, ch := park(t, context.Background(), q, request("acme", args))
	out, err := q.Decide("acme", req.ID, invoker.Approved, req.ArgsHash)
	require.NoError(t, err)
	require.JSONEq(t, args, string(out.Request.Args), "the deciding call sees what it approved")
	<-ch
	out, err = q.Decide("acme", req.ID, invoker.Denied, req.ArgsHash)
	require.ErrorIs(t, err, approval.ErrAlreadyDecided)
	require.Nil(t, out.Request.Args)
	require.Equal(t, req.ArgsHash, out.Request.ArgsHash)
	require.Equal(t, len(args), out.Request.ArgsSize)
	b, err := json.Marshal(out)
	require.NoError(t, err)
	require.NotContains(t, string(b), "s3cr3t")
	require.NotContains(t, string(b), `"args":`)

	ctx, cancel := context.WithCancel(context.Background())
	req, ch = park(t, ctx, q, request("acme", args))
	cancel()
	<-ch
	out, err = q.Decide("acme", req.ID, invoker.Approved, req.ArgsHash)
	require.ErrorIs(t, err, approval.ErrExpired)
	require.Nil(t, out.Request.Args)
	require.Equal(t, req.ArgsHash, out.Request.ArgsHash)
	require.Equal(t, len(args), out.Request.ArgsSize)
}

func TestListOrderAndIsolation(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	q := approval.NewQueue(approval.Options{Clock: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}})
	ctx, cancel := context.WithCancel(context.Background())
	var chans []<-chan answer
	for i := range 3 {
		_, ch := park(t, ctx, q, request("acme", fmt.Sprintf(`{"n":%d}`, i)))
		chans = append(chans, ch)
	}
	_, ch := park(t, ctx, q, request("globex", `{"n":9}`))
	chans = append(chans, ch)

	list := q.List("acme")
	require.Len(t, list, 3)
	for i, r := range list {
		require.Equal(t, fmt.Sprintf(`{"n":%d}`, i), string(r.Args))
	}
	list[0].Args[1] = 'X'
	require.Equal(t, `{"n":0}`, string(q.List("acme")[0].Args), "List returns copies")
	require.Len(t, q.List("globex"), 1)
	require.Empty(t, q.List("initech"))
	cancel()
	for _, ch := range chans {
		<-ch
	}
}

func TestSubscribe(t *testing.T) {
	q := approval.NewQueue(approval.Options{})
	var mu sync.Mutex
	var got []string
	unsubscribe := q.Subscribe(func(ev approval.Event) {
		mu.Lock()
		got = append(got, fmt.Sprintf("%s:%s:%d:%s", ev.Kind, ev.Request.Args, ev.Request.ArgsSize, ev.Decision))
		mu.Unlock()
		// A subscriber may use the queue, even decide, without deadlock.
		if ev.Kind == approval.Pending && string(ev.Request.Args) == `{"auto":true}` {
			_, err := q.Decide(ev.Request.Tenant, ev.Request.ID, invoker.Approved, ev.Request.ArgsHash)
			if err != nil {
				panic(err)
			}
		}
	})
	q.Subscribe(func(approval.Event) { panic("a panicking subscriber is contained") })

	ctx, cancel := context.WithCancel(context.Background())
	d, err := q.Approve(ctx, request("acme", `{"auto":true}`))
	require.NoError(t, err)
	require.Equal(t, invoker.Approved, d)

	_, ch := park(t, ctx, q, request("acme", `{"n":1}`))
	cancel()
	<-ch
	unsubscribe()
	d, _ = q.Approve(ctx, request("acme", `{"n":2}`))
	require.Equal(t, invoker.Denied, d)

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{
		`pending:{"auto":true}:13:denied`,
		`decided::13:approved`,
		`pending:{"n":1}:7:denied`,
		`expired::7:denied`,
	}, got)
}

func TestOutcomeJSON(t *testing.T) {
	q := approval.NewQueue(approval.Options{})
	req, ch := park(t, context.Background(), q, request("acme", `{"to":"ops"}`))
	out, err := q.Decide("acme", req.ID, invoker.Approved, req.ArgsHash)
	require.NoError(t, err)
	<-ch
	b, err := json.Marshal(out)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, "approved", m["decision"])
	require.Equal(t, req.ID, m["request"].(map[string]any)["id"])
	require.Equal(t, "HIGH", m["request"].(map[string]any)["risk"])
	require.Equal(t, map[string]any{"to": "ops"}, m["request"].(map[string]any)["args"])
}

// TestThroughInvoker approves through the queue while the invoker waits, and
// checks that a decision arriving after the approval timeout changes nothing.
func TestThroughInvoker(t *testing.T) {
	q := approval.NewQueue(approval.Options{})
	var ran atomic.Int32
	send := toolbox.Func("send", "send a message", func(ctx context.Context, in struct {
		To string `json:"to"`
	}) (string, error) {
		ran.Add(1)
		return "sent to " + in.To, nil
	}).WithRisk(toolbox.High)
	box, err := toolbox.New(send)
	require.NoError(t, err)
	inv, err := invoker.New(box, invoker.Options{Approver: q,
		Policy: invoker.Policy{ApprovalTimeout: 200 * time.Millisecond, CallTimeout: time.Minute}})
	require.NoError(t, err)
	stop := q.Subscribe(func(ev approval.Event) {
		if ev.Kind == approval.Pending && strings.Contains(string(ev.Request.Args), "ops") {
			go q.Decide(ev.Request.Tenant, ev.Request.ID, invoker.Approved, ev.Request.ArgsHash)
		}
	})
	defer stop()
	sess := inv.NewSession(session.Options{Tenant: "acme"})
	defer sess.Close(context.Background())

	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "send", Args: json.RawMessage(`{"to":"ops"}`)})
	require.True(t, res.OK(), res.Message)
	require.Equal(t, int32(1), ran.Load())

	res = inv.Invoke(context.Background(), sess, invoker.Call{Tool: "send", Args: json.RawMessage(`{"to":"all"}`)})
	require.Equal(t, invoker.ReasonApprovalTimeout, res.Reason)
	require.Equal(t, int32(1), ran.Load())
	// The handler's goroutine removes the expired request right after.
	require.Eventually(t, func() bool { return q.Len() == 0 }, 5*time.Second, time.Millisecond)
}

// TestHammer races many approvals against decisions, wrong hashes, foreign
// tenants and expiries: every Approve returns exactly once, a decision is
// accepted at most once, and nothing stays pending.
func TestHammer(t *testing.T) {
	q := approval.NewQueue(approval.Options{Remember: 64})
	var pending, settled atomic.Int64
	stop := q.Subscribe(func(ev approval.Event) {
		if ev.Kind == approval.Pending {
			pending.Add(1)
		} else {
			settled.Add(1)
		}
	})
	defer stop()
	const workers, perWorker = 8, 200
	var approved, accepted atomic.Int64
	var workersWG, decidersWG sync.WaitGroup
	for w := range workers {
		tenant := fmt.Sprintf("t%d", w%3)
		workersWG.Go(func() {
			for i := range perWorker {
				timeout := time.Duration(i%5+1) * time.Millisecond
				if i%2 == 0 {
					timeout = time.Second
				}
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				d, err := q.Approve(ctx, request(tenant, fmt.Sprintf(`{"w":%d,"i":%d}`, w, i)))
				cancel()
				if err == nil && d == invoker.Approved {
					approved.Add(1)
				}
			}
		})
	}
	done := make(chan struct{})
	for range 3 {
		decidersWG.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				for tn := range 3 {
					tenant := fmt.Sprintf("t%d", tn)
					for _, r := range q.List(tenant) {
						_, _ = q.Decide(tenant, r.ID, invoker.Approved, "bad")
						_, _ = q.Decide("t9", r.ID, invoker.Approved, r.ArgsHash)
						if _, err := q.Decide(tenant, r.ID, invoker.Approved, r.ArgsHash); err == nil {
							accepted.Add(1)
						}
					}
				}
				runtime.Gosched()
			}
		})
	}
	workersWG.Wait()
	close(done)
	decidersWG.Wait()
	require.Zero(t, q.Len())
	require.Equal(t, accepted.Load(), approved.Load(), "every accepted approval reached its caller, once")
	require.Greater(t, pending.Load(), int64(workers*perWorker/2))
	require.Positive(t, accepted.Load())
	require.Equal(t, pending.Load(), settled.Load(), "each queued request is decided or expired, once")
}

// TestRequestCallSite: the line and column of the call reach the queued
// request and its JSON (line, column), and are absent when unknown.
func TestRequestCallSite(t *testing.T) {
	q := approval.NewQueue(approval.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := request("acme", `{"n":1}`)
	r.Line, r.Column = 12, 5
	got, ch := park(t, ctx, q, r)
	require.Equal(t, 12, got.Line)
	require.Equal(t, 5, got.Column)
	b, err := json.Marshal(got)
	require.NoError(t, err)
	require.Contains(t, string(b), `"line":12,"column":5`)

	unknown, ch2 := park(t, ctx, q, request("acme", `{"n":2}`))
	b, err = json.Marshal(unknown)
	require.NoError(t, err)
	require.NotContains(t, string(b), `"line"`)
	require.NotContains(t, string(b), `"column"`)
	cancel()
	<-ch
	<-ch2
}
