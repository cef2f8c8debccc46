package govern

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
		str  string
	}{
		{"1/s", Rate{N: 1, Per: time.Second}, "1/s"},
		{"10/m", Rate{N: 10, Per: time.Minute}, "10/m"},
		{"100/h", Rate{N: 100, Per: time.Hour}, "100/h"},
		{"5/10s", Rate{N: 5, Per: 10 * time.Second}, "5/10s"},
		{"3/1m30s", Rate{N: 3, Per: 90 * time.Second}, "3/1m30s"},
		{"2/1s", Rate{N: 2, Per: time.Second}, "2/s"},
		{"7/500ms", Rate{N: 7, Per: 500 * time.Millisecond}, "7/500ms"},
		{"1000/1ms", Rate{N: 1000, Per: time.Millisecond}, "1000/1ms"},
		{"1/1µs", Rate{N: 1, Per: time.Microsecond}, "1/1µs"},
		{"007/s", Rate{N: 7, Per: time.Second}, "7/s"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			r, err := ParseRate(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, r)
			require.Equal(t, tc.str, r.String())
			back, err := ParseRate(r.String())
			require.NoError(t, err)
			require.Equal(t, r, back)
		})
	}
}

func TestParseRateErrors(t *testing.T) {
	for _, in := range []string{
		"", "5", "/s", "s/5", "5/", "0/s", "-1/s", "+1/s", " 1/s", "1/s ", "1.5/s",
		"1/d", "1/x", "1/0s", "1/-1s", "2/1µs", "1001/1ms", "1/1ns",
		"99999999999999999999/h", "1/s/s",
	} {
		t.Run(in, func(t *testing.T) {
			_, err := ParseRate(in)
			require.ErrorIs(t, err, ErrInvalidRate)
			require.Contains(t, err.Error(), fmt.Sprintf("%q", in))
		})
	}
}

func TestRateValidate(t *testing.T) {
	require.NoError(t, Rate{N: 1, Per: time.Second}.Validate())
	require.NoError(t, Rate{N: 1, Per: time.Second, Burst: 10}.Validate())
	for _, r := range []Rate{
		{},
		{N: 1},
		{N: 1, Per: time.Second, Burst: -1},
		{N: 2, Per: time.Microsecond},
		{N: 1, Per: 24 * time.Hour, Burst: 1 << 20},
	} {
		require.ErrorIs(t, r.Validate(), ErrInvalidRate, "%+v", r)
	}
}

func TestRateText(t *testing.T) {
	var v struct {
		R Rate `json:"r"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"r":"5/10s"}`), &v))
	require.Equal(t, Rate{N: 5, Per: 10 * time.Second}, v.R)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.JSONEq(t, `{"r":"5/10s"}`, string(b))

	err = json.Unmarshal([]byte(`{"r":"5/x"}`), &v)
	require.ErrorIs(t, err, ErrInvalidRate)
	_, err = Rate{}.MarshalText()
	require.ErrorIs(t, err, ErrInvalidRate)
}

// takeStep advances the clock by advance, then takes (or refunds) for
// tenant and expects ok and retryAfter.
type takeStep struct {
	advance time.Duration
	tenant  string
	refund  bool
	ok      bool
	retry   time.Duration
}

func TestLimiterTake(t *testing.T) {
	const a, b = "a", "b"
	for _, tc := range []struct {
		name  string
		rate  Rate
		steps []takeStep
	}{
		{"burst defaults to N", Rate{N: 3, Per: time.Second}, []takeStep{
			{tenant: a, ok: true}, {tenant: a, ok: true}, {tenant: a, ok: true},
			{tenant: a, ok: false, retry: 334 * time.Millisecond}, // 333.33…ms, rounded up
			{advance: 333 * time.Millisecond, tenant: a, ok: false, retry: time.Millisecond},
			{advance: time.Millisecond, tenant: a, ok: true},
			// 334ms gave 1.002 tokens: 0.002 is left, 332.67ms short.
			{tenant: a, ok: false, retry: 333 * time.Millisecond},
		}},
		{"explicit burst", Rate{N: 1, Per: time.Second, Burst: 2}, []takeStep{
			{tenant: a, ok: true}, {tenant: a, ok: true},
			{tenant: a, ok: false, retry: time.Second},
			{advance: 400 * time.Millisecond, tenant: a, ok: false, retry: 600 * time.Millisecond},
			{advance: 10 * time.Second, tenant: a, ok: true}, // refills to the burst only
			{tenant: a, ok: true},
			{tenant: a, ok: false, retry: time.Second},
		}},
		{"burst smaller than N", Rate{N: 10, Per: time.Second, Burst: 1}, []takeStep{
			{tenant: a, ok: true},
			{tenant: a, ok: false, retry: 100 * time.Millisecond},
			{advance: 100 * time.Millisecond, tenant: a, ok: true},
		}},
		{"sub-millisecond wait rounds up", Rate{N: 3, Per: time.Millisecond, Burst: 1}, []takeStep{
			{tenant: a, ok: true},
			{tenant: a, ok: false, retry: time.Millisecond},
			{advance: 333333 * time.Nanosecond, tenant: a, ok: false, retry: time.Millisecond},
			{advance: time.Nanosecond, tenant: a, ok: true},
		}},
		{"partial refill is exact", Rate{N: 3, Per: 10 * time.Second}, []takeStep{
			{tenant: a, ok: true}, {tenant: a, ok: true}, {tenant: a, ok: true},
			{advance: 1 * time.Second, tenant: a, ok: false, retry: 2334 * time.Millisecond},
			{advance: 2333 * time.Millisecond, tenant: a, ok: false, retry: time.Millisecond},
			{advance: 333333 * time.Nanosecond, tenant: a, ok: false, retry: time.Millisecond},
			{advance: 1 * time.Nanosecond, tenant: a, ok: true},
		}},
		{"per-tenant isolation", Rate{N: 1, Per: time.Minute}, []takeStep{
			{tenant: a, ok: true},
			{tenant: a, ok: false, retry: time.Minute},
			{tenant: b, ok: true},
			{advance: 30 * time.Second, tenant: b, ok: false, retry: 30 * time.Second},
			{tenant: a, ok: false, retry: 30 * time.Second},
		}},
		{"refund", Rate{N: 2, Per: time.Second}, []takeStep{
			{tenant: a, ok: true}, {tenant: a, ok: true},
			{tenant: a, ok: false, retry: 500 * time.Millisecond},
			{tenant: a, refund: true},
			{tenant: a, ok: true},
			{tenant: a, ok: false, retry: 500 * time.Millisecond},
		}},
		{"refund is capped at burst", Rate{N: 2, Per: time.Second}, []takeStep{
			{tenant: a, ok: true},
			{tenant: a, refund: true}, {tenant: a, refund: true}, {tenant: a, refund: true},
			{tenant: a, ok: true}, {tenant: a, ok: true},
			{tenant: a, ok: false, retry: 500 * time.Millisecond},
		}},
		{"refund of an unknown bucket does nothing", Rate{N: 1, Per: time.Second}, []takeStep{
			{tenant: b, refund: true},
			{tenant: b, ok: true},
			{tenant: b, ok: false, retry: time.Second},
		}},
		{"clock going back", Rate{N: 1, Per: time.Second}, []takeStep{
			{tenant: a, ok: true},
			{advance: -time.Hour, tenant: a, ok: false, retry: time.Second},
			{advance: time.Hour + time.Second, tenant: a, ok: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeClock()
			l := NewLimiter(map[string]Rate{"tool": tc.rate}, c.Now)
			for i, s := range tc.steps {
				c.Advance(s.advance)
				if s.refund {
					l.Refund(s.tenant, "tool")
					continue
				}
				ok, retry := l.Take(s.tenant, "tool")
				require.Equal(t, s.ok, ok, "step %d", i)
				require.Equal(t, s.retry, retry, "step %d", i)
			}
		})
	}
}

func TestLimiterUnlimitedTool(t *testing.T) {
	c := newFakeClock()
	l := NewLimiter(map[string]Rate{"tool": {N: 1, Per: time.Hour}}, c.Now)
	for range 100 {
		ok, retry := l.Take("a", "other")
		require.True(t, ok)
		require.Zero(t, retry)
	}
	l.Refund("a", "other")
	require.Empty(t, l.buckets)
	require.Zero(t, testing.AllocsPerRun(100, func() { l.Take("a", "other") }))

	var zero *Limiter = NewLimiter(nil, nil)
	ok, _ := zero.Take("a", "tool")
	require.True(t, ok)
}

func TestLimiterInvalidRateFailsClosed(t *testing.T) {
	l := NewLimiter(map[string]Rate{"tool": {N: 0, Per: time.Second}}, newFakeClock().Now)
	ok, retry := l.Take("a", "tool")
	require.False(t, ok)
	require.Equal(t, time.Second, retry)
	l.Refund("a", "tool")
}

func TestLimiterBucketBound(t *testing.T) {
	c := newFakeClock()
	l := NewLimiter(map[string]Rate{
		"slow": {N: 2, Per: 10 * time.Second},
		"fast": {N: 1, Per: time.Second},
	}, c.Now)
	for i := range MaxBuckets - 1 {
		ok, _ := l.Take(fmt.Sprint("t", i), "slow")
		require.True(t, ok)
	}
	ok, _ := l.Take("f", "fast")
	require.True(t, ok)
	require.Len(t, l.buckets, MaxBuckets)

	// Full and no bucket has refilled: a new bucket is refused with Per/N.
	ok, retry := l.Take("new", "slow")
	require.False(t, ok)
	require.Equal(t, 5*time.Second, retry)
	ok, retry = l.Take("new", "fast")
	require.False(t, ok)
	require.Equal(t, time.Second, retry)
	// Existing buckets still work.
	ok, _ = l.Take("t1", "slow")
	require.True(t, ok)

	// After 1s the fast bucket has refilled and is dropped for the new one.
	c.Advance(time.Second)
	ok, _ = l.Take("new", "fast")
	require.True(t, ok)
	require.Len(t, l.buckets, MaxBuckets)
	_, found := l.buckets[bucketKey{"f", "fast"}]
	require.False(t, found)

	// Full again; a refund that fills a bucket makes it droppable at once.
	ok, _ = l.Take("new2", "slow")
	require.False(t, ok)
	l.Refund("t2", "slow")
	ok, _ = l.Take("new2", "slow")
	require.True(t, ok)
	_, found = l.buckets[bucketKey{"t2", "slow"}]
	require.False(t, found)

	// Once the slow buckets refill (5s each token), they are all dropped.
	c.Advance(5 * time.Second)
	ok, _ = l.Take("new3", "slow")
	require.True(t, ok)
	require.Less(t, len(l.buckets), 10)
}

func TestLimiterHammer(t *testing.T) {
	c := newFakeClock()
	l := NewLimiter(map[string]Rate{"tool": {N: 100, Per: time.Second}}, c.Now)
	var took atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			tenant := fmt.Sprint("t", g%2)
			for i := range 1000 {
				if ok, _ := l.Take(tenant, "tool"); ok {
					took.Add(1)
					if i%7 == 0 {
						l.Refund(tenant, "tool")
						took.Add(-1)
					}
				}
				l.Take(tenant, "other")
			}
		})
	}
	wg.Wait()
	// A refund may have been last: take what is left.
	for _, tenant := range []string{"t0", "t1"} {
		for {
			ok, retry := l.Take(tenant, "tool")
			if !ok {
				require.Equal(t, 10*time.Millisecond, retry)
				break
			}
			took.Add(1)
		}
	}
	// The clock never moved: each tenant got exactly its burst.
	require.Equal(t, int64(200), took.Load())
}

func BenchmarkLimiterTake(b *testing.B) {
	c := newFakeClock()
	l := NewLimiter(map[string]Rate{"tool": {N: 1e6, Per: time.Microsecond * 1e6}}, c.Now)
	b.ReportAllocs()
	for b.Loop() {
		l.Take("a", "tool")
		l.Take("a", "other")
	}
}

func TestLimiterHammerWithClock(t *testing.T) {
	c := newFakeClock()
	l := NewLimiter(map[string]Rate{"tool": {N: 10, Per: time.Second, Burst: 5}}, c.Now)
	var took, bad atomic.Int64
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			for range 1000 {
				if ok, retry := l.Take("a", "tool"); ok {
					took.Add(1)
				} else if retry <= 0 || retry > 100*time.Millisecond {
					bad.Add(1)
				}
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			c.Advance(10 * time.Millisecond) // 2s in all: 20 tokens
		}
	})
	wg.Wait()
	require.Zero(t, bad.Load())
	require.LessOrEqual(t, took.Load(), int64(5+20))
	require.GreaterOrEqual(t, took.Load(), int64(5))
}
