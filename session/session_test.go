package session_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/airlockrt/airlock/session"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pinLog is an in-memory Pinner that records pins and can fail on demand.
type pinLog struct {
	mu      sync.Mutex
	pinned  map[string]string // ref -> owner
	failing map[string]bool   // refs whose unpin fails
}

func newPinLog() *pinLog {
	return &pinLog{pinned: map[string]string{}, failing: map[string]bool{}}
}

func (p *pinLog) Pin(_ context.Context, tenant, ref, owner string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pinned[tenant+"/"+ref] = owner
	return nil
}

func (p *pinLog) Unpin(_ context.Context, tenant, ref, owner string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failing[ref] {
		return errors.New("store down")
	}
	delete(p.pinned, tenant+"/"+ref)
	return nil
}

func (p *pinLog) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pinned)
}

func TestDefaults(t *testing.T) {
	s := session.New(session.Options{})
	require.Regexp(t, `^s_[0-9a-f]{32}$`, s.ID())
	require.Equal(t, "default", s.Tenant())
	require.NotEqual(t, s.ID(), session.New(session.Options{}).ID())
	require.ErrorIs(t, s.Pin(context.Background(), "r"), session.ErrNoStore)
	require.NoError(t, s.Close(context.Background()))
}

func TestBudgetExactlyMax(t *testing.T) {
	s := session.New(session.Options{})
	for i := 0; i < 3; i++ {
		require.True(t, s.Acquire(3), "call %d", i+1)
	}
	require.False(t, s.Acquire(3))
	require.False(t, s.Acquire(3))
	require.Equal(t, 3, s.Calls())
}

func TestTraceNumberingAndCap(t *testing.T) {
	s := session.New(session.Options{MaxTrace: 2})
	for i := 0; i < 4; i++ {
		r := s.Append(session.Record{Tool: fmt.Sprint("t", i), Status: session.StatusOK})
		require.Equal(t, i+1, r.Seq)
	}
	tr := s.Trace()
	require.Len(t, tr, 2)
	require.Equal(t, "t0", tr[0].Tool)
	require.Equal(t, 2, s.Dropped())
	tr[0].Tool = "mutated"
	require.Equal(t, "t0", s.Trace()[0].Tool, "Trace returns a copy")
}

func TestPinGrantClose(t *testing.T) {
	ctx := context.Background()
	pins := newPinLog()
	s := session.New(session.Options{Tenant: "acme", Pins: pins, Grants: []string{"granted"}})
	require.True(t, s.CanRead("granted"))
	require.False(t, s.CanRead("r1"))
	require.NoError(t, s.Pin(ctx, "r1"))
	require.NoError(t, s.Pin(ctx, "r2"))
	require.True(t, s.CanRead("r1"))
	require.Equal(t, []string{"r1", "r2"}, s.Pinned())
	require.Equal(t, 2, pins.count())

	pins.failing["r2"] = true
	err := s.Close(ctx)
	require.ErrorContains(t, err, "r2")
	require.True(t, s.Closed())
	require.Equal(t, []string{"r2"}, s.Pinned(), "a failed unpin stays listed")
	require.Equal(t, 1, pins.count())

	pins.failing["r2"] = false
	require.NoError(t, s.Close(ctx), "Close retries what failed")
	require.Empty(t, s.Pinned())
	require.Equal(t, 0, pins.count())
	require.NoError(t, s.Close(ctx), "idempotent")
	require.ErrorIs(t, s.Pin(ctx, "r3"), session.ErrClosed)
	require.Equal(t, 0, pins.count())
}

func TestNextFileIndex(t *testing.T) {
	s := session.New(session.Options{})
	require.Equal(t, 0, s.NextFileIndex("img"))
	require.Equal(t, 1, s.NextFileIndex("img"))
	require.Equal(t, 0, s.NextFileIndex("pdf"))
}

// TestHammer runs many goroutines against one session; counts, trace and pins
// must come out exact under -race.
func TestHammer(t *testing.T) {
	const workers, perWorker, budget = 16, 200, 1000
	ctx := context.Background()
	pins := newPinLog()
	s := session.New(session.Options{Pins: pins, MaxTrace: workers * perWorker})
	var acquired sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	for w := 0; w < workers; w++ {
		acquired.Add(1)
		go func() {
			defer acquired.Done()
			for i := 0; i < perWorker; i++ {
				if s.Acquire(budget) {
					mu.Lock()
					granted++
					mu.Unlock()
				}
				s.Append(session.Record{Tool: "t"})
				if err := s.Pin(ctx, fmt.Sprintf("w%d-%d", w, i)); err != nil {
					t.Error(err)
				}
				if i%50 == 0 {
					_ = s.Trace()
				}
			}
		}()
	}
	acquired.Wait()
	require.Equal(t, budget, granted)
	require.Equal(t, budget, s.Calls())
	tr := s.Trace()
	require.Len(t, tr, workers*perWorker)
	for i, r := range tr {
		require.Equal(t, i+1, r.Seq)
	}
	require.Len(t, s.Pinned(), workers*perWorker)
	require.NoError(t, s.Close(ctx))
	require.Equal(t, 0, pins.count())
}

// TestAllowListAndView: Options.Tools limits the tools a chain may call,
// nil allows all; View shows a tool the id and tenant and nothing else.
func TestAllowListAndView(t *testing.T) {
	all := session.New(session.Options{})
	require.True(t, all.Allows("anything"))
	some := session.New(session.Options{ID: "s1", Tenant: "acme", Tools: []string{"a", "b"}})
	require.True(t, some.Allows("a"))
	require.False(t, some.Allows("c"))
	none := session.New(session.Options{Tools: []string{}})
	require.False(t, none.Allows("a"), "an empty allow-list allows nothing")
	v := some.View()
	require.Equal(t, "s1", v.ID())
	require.Equal(t, "acme", v.Tenant())
	require.Same(t, v, some.View(), "one view per session, no allocation per call")
}

func TestChargeArtifacts(t *testing.T) {
	s := session.New(session.Options{})
	tests := []struct {
		name       string
		n, max     int64
		wantBefore int64
		wantOK     bool
	}{
		{"first charge", 600, 1000, 0, true},
		{"up to the limit", 400, 1000, 600, true},
		{"one byte past", 1, 1000, 1000, false},
		{"negative", -1, 1000, 1000, false},
		{"zero at the limit", 0, 1000, 1000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, ok := s.ChargeArtifacts(tc.n, tc.max)
			require.Equal(t, tc.wantBefore, before)
			require.Equal(t, tc.wantOK, ok)
		})
	}
	require.EqualValues(t, 1000, s.ArtifactBytes())
	s.RefundArtifacts(400)
	require.EqualValues(t, 600, s.ArtifactBytes())
	s.RefundArtifacts(10_000)
	require.Zero(t, s.ArtifactBytes(), "a refund never goes below zero")
	require.Nil(t, s.Pinner())
}
