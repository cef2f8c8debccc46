package chain_test

import (
	"context"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
)

// BenchmarkChainThreeCalls is whole-chain throughput: a fresh sandbox
// instance, three tool calls (two concurrent), a result, session close. Run
// with -cpu 2 it shows chains/s on this machine; ns/op is per chain.
func BenchmarkChainThreeCalls(b *testing.B) {
	e := newEnv(b, invoker.Options{})
	src := sandbox.Script{Source: `
		const [a, b] = await Promise.all([tools.lookup({id: 1}), tools.lookup({id: 2})]);
		const c = await tools.lookup({id: a.score + b.score});
		return c.score;`}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := e.runner.Run(ctx, src, chain.Options{})
			if err != nil || res.Status != chain.StatusOK {
				b.Errorf("run failed: %v %+v", err, res)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "chains/s")
}

// BenchmarkRunawayLoopStop measures how long after its deadline a chain stuck
// in `while(true){}` ends (p50 and max, in ms).
func BenchmarkRunawayLoopStop(b *testing.B) {
	e := newEnv(b, invoker.Options{})
	const deadline = 100 * time.Millisecond
	var lags []float64
	for b.Loop() {
		start := time.Now()
		res, err := e.runner.Run(context.Background(), sandbox.Script{Source: `while (true) {}`},
			chain.Options{Limits: sandbox.Limits{Timeout: deadline}})
		if err != nil || res.Status != chain.StatusTimeout {
			b.Fatalf("want timeout, got %v %+v", err, res)
		}
		lags = append(lags, float64(time.Since(start)-deadline)/float64(time.Millisecond))
	}
	sort.Float64s(lags)
	b.ReportMetric(lags[len(lags)/2], "ms-late-p50")
	b.ReportMetric(lags[len(lags)-1], "ms-late-max")
}

// BenchmarkRSSPerBlockedChain starts 1,000 chains that each wait inside a
// slow tool and reports the resident memory they add, per chain.
func BenchmarkRSSPerBlockedChain(b *testing.B) {
	const chains = 1000
	for b.Loop() {
		e := newEnv(b, invoker.Options{Policy: invoker.Policy{CallTimeout: 10 * time.Minute, ApprovalTimeout: time.Minute}})
		runtime.GC()
		before := rss()
		var started, done sync.WaitGroup
		started.Add(chains)
		for i := 0; i < chains; i++ {
			done.Add(1)
			go func() {
				defer done.Done()
				started.Done()
				res, err := e.runner.Run(context.Background(), sandbox.Script{Source: `return await tools.hang({});`}, chain.Options{})
				if err != nil || res.Status != chain.StatusOK {
					b.Errorf("run: %v %+v", err, res)
				}
			}()
		}
		started.Wait()
		// Wait until every chain is parked in the tool.
		deadline := time.Now().Add(5 * time.Minute)
		for e.inflight() < chains && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		runtime.GC()
		after := rss()
		close(e.release)
		done.Wait()
		b.ReportMetric(float64(after-before)/chains/(1<<20), "MiB/chain")
		b.ReportMetric(float64(e.inflightMax())/1, "chains-blocked")
	}
}

// rss returns the process's resident set size in bytes.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}
