package sandbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// reportPercentiles adds p50 and p99 of ds, in microseconds, to b.
func reportPercentiles(b *testing.B, ds []time.Duration, unit string) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-"+unit)
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), "p99-"+unit)
}

// BenchmarkChainStart measures Run of a trivial script, from the call to
// its return, with a fresh instance each time (the compiled module cached in
// process), without and with a pool of pre-created instances.
func BenchmarkChainStart(b *testing.B) {
	for _, pool := range []int{0, 8} {
		b.Run(fmt.Sprintf("pool=%d", pool), func(b *testing.B) {
			ctx := context.Background()
			e, err := NewScriptEngine(ctx, ScriptOptions{PoolSize: pool, CompilationCacheDir: cacheDir()})
			require.NoError(b, err)
			defer e.Close(ctx)
			if pool > 0 {
				for len(e.pool.ch) < pool {
					time.Sleep(time.Millisecond)
				}
			}
			ds := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if pool > 0 {
					b.StopTimer()
					for len(e.pool.ch) == 0 { // measure start latency, not refill throughput
						time.Sleep(100 * time.Microsecond)
					}
					b.StartTimer()
				}
				t := time.Now()
				_, err := e.Run(ctx, Script{Source: "return 1"}, okBridge, Limits{})
				ds = append(ds, time.Since(t))
				if err != nil {
					b.Fatal(err)
				}
			}
			reportPercentiles(b, ds, "us")
		})
	}
}

// BenchmarkBridgeRoundTrip measures one sequential tool call, guest → fake
// bridge returning {"status":"ok","value":{}} → guest, with ~100-byte
// arguments; ns/op is per call, and p50/p99 are of the time from one bridge
// call to the next.
func BenchmarkBridgeRoundTrip(b *testing.B) {
	benchmarkRoundTrip(b, `{q: "`+strings.Repeat("x", 80)+`", n: 1}`)
}

// BenchmarkBridgeRoundTripStringified is BridgeRoundTrip with arguments
// the host does not write itself (a Date, last: the host has walked the
// rest when it declines), so that the prelude calls JSON.stringify.
func BenchmarkBridgeRoundTripStringified(b *testing.B) {
	benchmarkRoundTrip(b, `{q: "`+strings.Repeat("x", 80)+`", n: 1, d: new Date(0)}`)
}

func benchmarkRoundTrip(b *testing.B, args string) {
	e := engine(b)
	ds := make([]time.Duration, 0, b.N)
	var last time.Time
	br := func(context.Context, string, []byte) ([]byte, error) {
		now := time.Now()
		if !last.IsZero() {
			ds = append(ds, now.Sub(last))
		}
		last = now
		return []byte(`{"status":"ok","value":{}}`), nil
	}
	src := fmt.Sprintf("for (let i = 0; i < %d; i++) await tools.noop(%s); return 0", b.N, args)
	b.ResetTimer()
	res, err := e.Run(context.Background(), Script{Source: src}, br, Limits{})
	require.NoError(b, err)
	require.Equal(b, b.N, res.Stats.Calls)
	reportPercentiles(b, ds, "us")
}

// BenchmarkRunawayLoop measures how long after its deadline a `while(true)`
// script's Run returns.
func BenchmarkRunawayLoop(b *testing.B) {
	e := engine(b)
	const timeout = 20 * time.Millisecond
	ds := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		t := time.Now()
		_, err := e.Run(context.Background(), Script{Source: "while (true) {}"}, okBridge, Limits{Timeout: timeout})
		ds = append(ds, time.Since(t)-timeout)
		var xe *ExitError
		require.ErrorAs(b, err, &xe)
		require.Equal(b, Timeout, xe.Kind)
	}
	reportPercentiles(b, ds, "us-after-deadline")
}

// BenchmarkTightLoop measures the interpreter on a CPU-bound loop (the cost
// of the loop-header interrupt checks shows here).
func BenchmarkTightLoop(b *testing.B) {
	e := engine(b)
	for i := 0; i < b.N; i++ {
		_, err := e.Run(context.Background(), Script{Source: "let n = 0; for (let i = 0; i < 1e6; i++) n += i; return n"}, okBridge, Limits{})
		require.NoError(b, err)
	}
}
