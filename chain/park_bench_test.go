package chain_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
)

// typicalPark is a typical model-written chain with an approval: it reads
// four records at once, builds a small report, and sends it (HIGH risk)
// while a timer is pending.
const typicalPark = `
const ids = [1, 2, 3, 4];
const rows = await Promise.all(ids.map(id => tools.lookup({id})));
const report = rows.map(r => ({id: r.id, score: r.score, label: "record " + r.id})).sort((a, b) => b.score - a.score);
const summary = {total: report.reduce((s, r) => s + r.score, 0), best: report[0].id, when: new Date().toISOString()};
let waited = false;
const timer = new Promise(r => setTimeout(() => { waited = true; r(); }, 1));
const sent = await tools.send({to: "ops@example.com"});
await timer;
return {summary, sent, waited, count: report.length};
`

// BenchmarkParkResume measures parking a typical chain on its approval
// (submit → parked state in hand) and resuming it (state → result), in
// the engine, without the store (durable's benchmarks add the bucket). It
// reports p50/p99 of each, the parked state's size and the guest memory.
func BenchmarkParkResume(b *testing.B) {
	e := newEnv(b, invoker.Options{})
	ctx := context.Background()
	src := sandbox.Script{Source: typicalPark}
	var park, resume []float64
	var size, mem float64
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		res, err := e.runner.Run(ctx, src, chain.Options{Park: true})
		if err != nil || res.Status != chain.StatusParked {
			b.Fatalf("run: %v %+v", err, res)
		}
		t1 := time.Now()
		out, err := e.runner.Resume(ctx, res.Parked.State, chain.ResumeOptions{Decide: decideAll(true)})
		if err != nil || out.Status != chain.StatusOK {
			b.Fatalf("resume: %v %+v", err, out)
		}
		park = append(park, float64(t1.Sub(t0).Microseconds()))
		resume = append(resume, float64(time.Since(t1).Microseconds()))
		size, mem = float64(len(res.Parked.State)), float64(res.Stats.MemoryBytes)
	}
	b.StopTimer()
	reportPercentiles(b, "park", park)
	reportPercentiles(b, "resume", resume)
	b.ReportMetric(size, "state-bytes")
	b.ReportMetric(mem/(1<<20), "guest-MiB")
}

// BenchmarkInMemoryApproval is the same chain kept in memory: the approver
// answers at once and the chain never leaves the process.
func BenchmarkInMemoryApproval(b *testing.B) {
	e := newEnv(b, invoker.Options{Approver: invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
		return invoker.Approved, nil
	})})
	ctx := context.Background()
	src := sandbox.Script{Source: typicalPark}
	var whole []float64
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		out, err := e.runner.Run(ctx, src, chain.Options{})
		if err != nil || out.Status != chain.StatusOK {
			b.Fatalf("run: %v %+v", err, out)
		}
		whole = append(whole, float64(time.Since(t0).Microseconds()))
	}
	b.StopTimer()
	reportPercentiles(b, "run", whole)
}

// reportPercentiles reports the p50 and p99 of samples (µs).
func reportPercentiles(b *testing.B, name string, samples []float64) {
	slices.Sort(samples)
	b.ReportMetric(samples[len(samples)/2], name+"-p50-µs")
	b.ReportMetric(samples[min(len(samples)-1, len(samples)*99/100)], name+"-p99-µs")
}

// BenchmarkParkStateSize reports the parked state's size against the guest
// memory the chain uses, for chains holding more and more data when they
// park (objects built before the approval).
func BenchmarkParkStateSize(b *testing.B) {
	e := newEnv(b, invoker.Options{})
	ctx := context.Background()
	for _, n := range []int{0, 1000, 5000, 20000} {
		b.Run(strconv.Itoa(n)+"-objects", func(b *testing.B) {
			src := sandbox.Script{Source: fmt.Sprintf(`const rows = [];
for (let i = 0; i < %d; i++) rows.push({id: i, name: "row " + i, tags: ["a", "b"], score: i * 0.5});
const sent = await tools.send({to: "ops@example.com"});
return rows.length;`, n)}
			var size, mem float64
			for range b.N {
				res, err := e.runner.Run(ctx, src, chain.Options{Park: true})
				if err != nil || res.Status != chain.StatusParked {
					b.Fatalf("run: %v %+v", err, res)
				}
				size, mem = float64(len(res.Parked.State)), float64(res.Stats.MemoryBytes)
				if _, err := e.runner.Discard(ctx, res.Parked.State, chain.StatusCancelled, "cancelled", "benchmark"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(size/1024, "state-KiB")
			b.ReportMetric(mem/(1<<20), "guest-MiB")
		})
	}
}
