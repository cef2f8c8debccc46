package govern

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// fakeClock is a clock tests advance by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestHealthOptionsDefaultsAndValidate(t *testing.T) {
	require.Equal(t, HealthOptions{DegradedAfter: 3, UnavailableAfter: 5, Quiet: 30 * time.Second}, HealthOptions{}.WithDefaults())
	require.Equal(t, HealthOptions{DegradedAfter: 1, UnavailableAfter: 5, Quiet: time.Second}, HealthOptions{DegradedAfter: 1, Quiet: time.Second}.WithDefaults())
	for _, tc := range []struct {
		name string
		o    HealthOptions
		ok   bool
	}{
		{"zero", HealthOptions{}, true},
		{"equal thresholds", HealthOptions{DegradedAfter: 2, UnavailableAfter: 2}, true},
		{"negative degraded", HealthOptions{DegradedAfter: -1}, false},
		{"negative unavailable", HealthOptions{UnavailableAfter: -1}, false},
		{"negative quiet", HealthOptions{Quiet: -time.Second}, false},
		{"unavailable below degraded", HealthOptions{DegradedAfter: 4, UnavailableAfter: 2}, false},
		{"unavailable below default degraded", HealthOptions{UnavailableAfter: 2}, false},
		{"degraded above default unavailable", HealthOptions{DegradedAfter: 6}, false},
		{"degraded above explicit unavailable ok", HealthOptions{DegradedAfter: 6, UnavailableAfter: 6}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate()
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}

// healthStep is one step of a health scenario: advance the clock, then do
// op, then expect the tool's health and Check.
type healthStep struct {
	advance time.Duration
	op      string // "fail", "ok", "limit", ""
	reset   time.Duration
	status  HealthStatus
	fails   int
	until   time.Duration // from the start; -1: zero
}

func TestHealthScenarios(t *testing.T) {
	const q = 30 * time.Second
	for _, tc := range []struct {
		name  string
		opts  HealthOptions
		steps []healthStep
	}{
		{"thresholds", HealthOptions{}, []healthStep{
			{op: "", status: Healthy, until: -1},
			{op: "fail", status: Healthy, fails: 1, until: -1},
			{op: "fail", status: Healthy, fails: 2, until: -1},
			{op: "fail", status: Degraded, fails: 3, until: -1},
			{op: "fail", status: Degraded, fails: 4, until: -1},
			{advance: time.Second, op: "fail", status: Unavailable, fails: 5, until: time.Second + q},
		}},
		{"quiet recovery then success", HealthOptions{}, []healthStep{
			{op: "fail"}, {op: "fail"}, {op: "fail"}, {op: "fail"},
			{op: "fail", status: Unavailable, fails: 5, until: q},
			{advance: q - time.Nanosecond, status: Unavailable, fails: 5, until: q},
			{advance: time.Nanosecond, status: Degraded, fails: 5, until: -1},
			{op: "ok", status: Healthy, fails: 0, until: -1},
			{op: "fail", status: Healthy, fails: 1, until: -1},
		}},
		{"half-open failure", HealthOptions{}, []healthStep{
			{op: "fail"}, {op: "fail"}, {op: "fail"}, {op: "fail"},
			{op: "fail", status: Unavailable, fails: 5, until: q},
			{advance: q, status: Degraded, fails: 5, until: -1},
			{advance: time.Second, op: "fail", status: Unavailable, fails: 6, until: 2*q + time.Second},
			{advance: q, status: Degraded, fails: 6, until: -1},
		}},
		{"success resets degraded", HealthOptions{}, []healthStep{
			{op: "fail"}, {op: "fail"},
			{op: "fail", status: Degraded, fails: 3, until: -1},
			{op: "ok", status: Healthy, fails: 0, until: -1},
			{op: "fail", status: Healthy, fails: 1, until: -1},
		}},
		{"custom thresholds", HealthOptions{DegradedAfter: 1, UnavailableAfter: 2, Quiet: time.Minute}, []healthStep{
			{op: "fail", status: Degraded, fails: 1, until: -1},
			{op: "fail", status: Unavailable, fails: 2, until: time.Minute},
		}},
		{"rate limited until reset", HealthOptions{}, []healthStep{
			{op: "limit", reset: 10 * time.Second, status: Unavailable, fails: 0, until: 10 * time.Second},
			{advance: 10 * time.Second, status: Healthy, fails: 0, until: -1},
		}},
		{"rate limit capped at 24h", HealthOptions{}, []healthStep{
			{op: "limit", reset: 48 * time.Hour, status: Unavailable, until: 24 * time.Hour},
			{advance: 24 * time.Hour, status: Healthy, until: -1},
		}},
		{"past reset ignored", HealthOptions{}, []healthStep{
			{advance: time.Minute, op: "limit", reset: 0, status: Healthy, until: -1},
			{op: "limit", reset: 30 * time.Second, status: Healthy, until: -1},
		}},
		{"later reset kept", HealthOptions{}, []healthStep{
			{op: "limit", reset: time.Minute, status: Unavailable, until: time.Minute},
			{op: "limit", reset: time.Second, status: Unavailable, until: time.Minute},
			{op: "limit", reset: 2 * time.Minute, status: Unavailable, until: 2 * time.Minute},
		}},
		{"success keeps rate limit", HealthOptions{}, []healthStep{
			{op: "limit", reset: time.Minute, status: Unavailable, until: time.Minute},
			{op: "ok", status: Unavailable, until: time.Minute},
		}},
		{"rate limit beyond quiet", HealthOptions{}, []healthStep{
			{op: "fail"}, {op: "fail"}, {op: "fail"}, {op: "fail"},
			{op: "fail", status: Unavailable, fails: 5, until: q},
			{op: "limit", reset: time.Hour, status: Unavailable, fails: 5, until: time.Hour},
			{op: "ok", status: Unavailable, fails: 0, until: time.Hour},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeClock()
			start := c.Now()
			h := NewHealth(tc.opts, c.Now)
			for i, s := range tc.steps {
				c.Advance(s.advance)
				switch s.op {
				case "fail":
					h.Failure("t", "boom")
				case "ok":
					h.Success("t")
				case "limit":
					h.RateLimited("t", start.Add(s.reset))
				}
				if s.status == "" {
					continue
				}
				var until time.Time
				if s.until >= 0 {
					until = start.Add(s.until)
				}
				g := h.Get("t")
				require.Equal(t, s.status, g.Status, "step %d", i)
				require.Equal(t, s.fails, g.ConsecutiveFailures, "step %d", i)
				require.Equal(t, until, g.Until, "step %d", i)
				ok, u := h.Check("t")
				require.Equal(t, s.status != Unavailable, ok, "step %d", i)
				require.Equal(t, until, u, "step %d", i)
			}
		})
	}
}

func TestHealthGetTimes(t *testing.T) {
	c := newFakeClock()
	h := NewHealth(HealthOptions{}, c.Now)
	require.Equal(t, ToolHealth{Status: Healthy}, h.Get("never"))
	t0 := c.Now()
	h.Success("t")
	c.Advance(time.Second)
	h.Failure("t", "boom")
	require.Equal(t, ToolHealth{Status: Healthy, ConsecutiveFailures: 1, LastSuccess: t0, LastFailure: t0.Add(time.Second), LastError: "boom"}, h.Get("t"))
	h.Failure("u", "bang")
	require.Equal(t, map[string]ToolHealth{
		"t": {Status: Healthy, ConsecutiveFailures: 1, LastSuccess: t0, LastFailure: t0.Add(time.Second), LastError: "boom"},
		"u": {Status: Healthy, ConsecutiveFailures: 1, LastFailure: t0.Add(time.Second), LastError: "bang"},
	}, h.All())

	b, err := json.Marshal(ToolHealth{Status: Healthy})
	require.NoError(t, err)
	require.JSONEq(t, `{"status":"healthy","consecutive_failures":0}`, string(b))
}

func TestHealthToolsAreIndependent(t *testing.T) {
	c := newFakeClock()
	h := NewHealth(HealthOptions{UnavailableAfter: 3}, c.Now)
	for range 3 {
		h.Failure("a", "boom")
	}
	ok, _ := h.Check("a")
	require.False(t, ok)
	ok, u := h.Check("b")
	require.True(t, ok)
	require.True(t, u.IsZero())
}

func TestNewHealthClampsOptions(t *testing.T) {
	c := newFakeClock()
	h := NewHealth(HealthOptions{DegradedAfter: 4, UnavailableAfter: 2, Quiet: -time.Second}, c.Now)
	require.Equal(t, HealthOptions{DegradedAfter: 4, UnavailableAfter: 4, Quiet: 30 * time.Second}, h.opts)
	require.NotNil(t, NewHealth(HealthOptions{}, nil).now)
}

func TestHealthBound(t *testing.T) {
	c := newFakeClock()
	h := NewHealth(HealthOptions{DegradedAfter: 1, UnavailableAfter: 1}, c.Now)
	for i := range MaxTrackedTools {
		h.Failure(fmt.Sprint("t", i), "boom")
	}
	require.Len(t, h.tools, MaxTrackedTools)
	// Full of failing tools: a new one is not tracked and reports healthy.
	h.Failure("new", "boom")
	require.Equal(t, ToolHealth{Status: Healthy}, h.Get("new"))
	ok, _ := h.Check("new")
	require.True(t, ok)
	h.Success("new")
	require.Equal(t, ToolHealth{Status: Healthy}, h.Get("new"))
	require.Len(t, h.tools, MaxTrackedTools)

	// A healthy tool may be forgotten for a failing one.
	h.Success("t7")
	h.Failure("new", "boom")
	require.Equal(t, Unavailable, h.Get("new").Status)
	require.Equal(t, ToolHealth{Status: Healthy}, h.Get("t7"))
	require.Len(t, h.tools, MaxTrackedTools)
}

func TestHealthConcurrent(t *testing.T) {
	c := newFakeClock()
	h := NewHealth(HealthOptions{}, c.Now)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			tool := fmt.Sprint("t", g%3)
			for i := range 500 {
				switch i % 5 {
				case 0:
					h.Success(tool)
				case 1:
					h.RateLimited(tool, c.Now().Add(time.Second))
				case 2:
					c.Advance(time.Millisecond)
				default:
					h.Failure(tool, "boom")
				}
				h.Check(tool)
				h.Get(tool)
				_ = h.All()
			}
		})
	}
	wg.Wait()
	require.Len(t, h.All(), 3)
}

func TestHealthCheckDoesNotAllocate(t *testing.T) {
	c := newFakeClock()
	h := NewHealth(HealthOptions{}, c.Now)
	require.Zero(t, testing.AllocsPerRun(100, func() { h.Check("x") }))
	h.Failure("y", "boom")
	h.Success("z")
	require.Zero(t, testing.AllocsPerRun(100, func() { h.Check("x"); h.Check("y"); h.Check("z") }))
}

func BenchmarkHealthCheck(b *testing.B) {
	c := newFakeClock()
	h := NewHealth(HealthOptions{}, c.Now)
	h.Success("healthy")
	b.ReportAllocs()
	for b.Loop() {
		h.Check("healthy")
		h.Check("untracked")
	}
}

// TestHealthLastError checks what a tool's health says of its last
// failure: the failure's own text for the tenant that saw it, bounded and
// valid UTF-8, kept after a success; the upstream's rate limit, in words
// of its own, for everyone; nothing of one tenant's text for another.
func TestHealthLastError(t *testing.T) {
	c := newFakeClock()
	h := NewHealth(HealthOptions{DegradedAfter: 1, UnavailableAfter: 2}, c.Now)
	h.CallFailed("acme", "fetch", `tool "fetch" failed: upstream said 502`)
	h.CallFailed("acme", "fetch", `tool "fetch" failed: upstream said 503`)
	got := h.For("acme", "fetch")
	require.Equal(t, Unavailable, got.Status)
	require.Equal(t, `tool "fetch" failed: upstream said 503`, got.LastError)
	require.Equal(t, ToolHealth{Status: Healthy}, h.For("globex", "fetch"), "another tenant sees neither the failure nor its text")

	h.CallSucceeded("acme", "fetch")
	got = h.For("acme", "fetch")
	require.Equal(t, Healthy, got.Status)
	require.Equal(t, `tool "fetch" failed: upstream said 503`, got.LastError, "kept after a success")

	long := strings.Repeat("é", MaxLastError) + "\xff"
	h.CallFailed("acme", "long", long)
	le := h.For("acme", "long").LastError
	require.LessOrEqual(t, len(le), MaxLastError)
	require.True(t, utf8.ValidString(le))
	require.True(t, strings.HasPrefix(long, strings.TrimSuffix(le, "…")))

	reset := c.Now().Add(time.Minute)
	h.RateLimited("search", reset)
	for _, tenant := range []string{"acme", "globex"} {
		got := h.For(tenant, "search")
		require.Equal(t, Unavailable, got.Status)
		require.Equal(t, "the upstream limits calls until "+reset.UTC().Format(time.RFC3339), got.LastError)
	}
}
