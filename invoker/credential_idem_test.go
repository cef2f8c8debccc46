package invoker_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// meetingOutcomes holds every Begin that finds a record, once armed, until
// two have: two callers then act on the same record they read, as two
// processes of a fleet may.
type meetingOutcomes struct {
	govern.Outcomes
	armed   atomic.Bool
	arrived atomic.Int32
	met     chan struct{}
}

func (m *meetingOutcomes) Begin(ctx context.Context, tenant, tool, key, argsHash string, window time.Duration) (*govern.Outcome, error) {
	o, err := m.Outcomes.Begin(ctx, tenant, tool, key, argsHash, window)
	if o != nil && m.armed.Load() {
		if m.arrived.Add(1) == 2 {
			close(m.met)
		}
		select {
		case <-m.met:
		case <-time.After(5 * time.Second):
		}
	}
	return o, err
}

// TestCredentialRetryClaimsOnlyItsOwnRefusal: the refusal recorded under an
// idempotency key when a call parked for a fresh credential is claimed anew
// only by the retry of that very call. Two chains of a tenant parked on the
// same explicit key (the second once the first's record left the dedup
// window) and retried at once both read the same refusal; had both claimed
// it anew, the write would run twice under one key.
func TestCredentialRetryClaimsOnlyItsOwnRefusal(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	g := newGovBox(t, govTool{info: toolbox.Info{Name: "crm_put", Description: "writes the CRM as the user", InputSchema: objSchema("email"),
		Audience: "crm", Class: toolbox.LocalWrite}, fn: credentialTool})
	outs := &meetingOutcomes{Outcomes: govern.NewMemOutcomes(clock), met: make(chan struct{})}
	gov := govern.New(govern.Options{Outcomes: outs, Clock: clock, DedupWindow: time.Hour})
	inv, err := invoker.New(g.box, invoker.Options{Governor: gov})
	require.NoError(t, err)
	newSess := func() *session.Session {
		return inv.NewSession(session.Options{Tenant: "acme", Governance: govern.NewChain(&govern.Profile{Name: "helper", Scopes: []string{"*"}}), ParkApprovals: true})
	}
	call := invoker.Call{Tool: "crm_put", Args: json.RawMessage(`{"email":"a@example.com"}`), IdempotencyKey: "order-1"}

	a := newSess()
	res := inv.Invoke(asUser("expired"), a, call)
	require.Equal(t, session.StatusParked, res.Status, res.Message)
	pa := res.Parked
	mu.Lock()
	now = now.Add(2 * time.Hour) // the first refusal's record leaves the window
	mu.Unlock()
	b := newSess()
	res = inv.Invoke(asUser("expired"), b, call)
	require.Equal(t, session.StatusParked, res.Status, res.Message)
	pb := res.Parked
	require.EqualValues(t, 2, g.ran("crm_put"), "each park ran the tool once; it sent nothing")

	outs.armed.Store(true)
	var wg sync.WaitGroup
	results := make([]invoker.Result, 2)
	for i, r := range []struct {
		sess *session.Session
		p    *invoker.ParkedCall
	}{{a, pa}, {b, pb}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := call
			c.Resume = retry(r.p)
			results[i] = inv.Invoke(asUser("fresh"), r.sess, c)
		}()
	}
	wg.Wait()
	require.EqualValues(t, 1, g.ran("crm_put")-2, "the write ran once under its key: %+v", results)
	oks := 0
	for _, r := range results {
		if r.OK() {
			oks++
		}
	}
	require.Equal(t, 1, oks, "%+v", results)
}
