package durable_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/airlockrt/airlock/durable"
)

// BenchmarkParkStore measures what the bucket adds to parking and resuming
// a chain: SavePark plus the chain record (park), and GetChain, Claim and
// LoadPark (resume), with a 28 KiB state, the size of a typical chain's
// (chain's BenchmarkParkResume). p50 and p99 in µs, per backend.
func BenchmarkParkStore(b *testing.B) {
	for _, be := range backends(b) {
		b.Run(be.name, func(b *testing.B) {
			ss, _ := stores(b, be, 1, durable.Options{})
			s := ss[0]
			ctx := context.Background()
			state := make([]byte, 28<<10)
			_, _ = rand.Read(state)
			var park, resume []float64
			b.ResetTimer()
			for i := range b.N {
				id := fmt.Sprintf("ch_bench%d_%d", time.Now().UnixNano(), i)
				a := approval(id, 5, `{"to":"ops@example.com"}`)
				t0 := time.Now()
				if err := s.SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 1, Created: t0, Expires: t0.Add(time.Hour),
					Approvals: []durable.Approval{a}, State: state}); err != nil {
					b.Fatal(err)
				}
				a.Args = nil
				if err := s.PutChain(ctx, &durable.Chain{ID: id, Tenant: "acme", Status: durable.StatusParked, Gen: 1,
					Pending: []durable.Approval{a}}); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				c, err := s.GetChain(ctx, "acme", id)
				if err != nil {
					b.Fatal(err)
				}
				if won, err := s.Claim(ctx, "acme", id, c.Gen, "resume"); err != nil || !won {
					b.Fatal(won, err)
				}
				if _, err := s.LoadPark(ctx, "acme", id, c.Gen); err != nil {
					b.Fatal(err)
				}
				park = append(park, float64(t1.Sub(t0).Microseconds()))
				resume = append(resume, float64(time.Since(t1).Microseconds()))
			}
			b.StopTimer()
			slices.Sort(park)
			slices.Sort(resume)
			b.ReportMetric(park[len(park)/2], "park-p50-µs")
			b.ReportMetric(park[min(len(park)-1, len(park)*99/100)], "park-p99-µs")
			b.ReportMetric(resume[len(resume)/2], "resume-p50-µs")
			b.ReportMetric(resume[min(len(resume)-1, len(resume)*99/100)], "resume-p99-µs")
		})
	}
}
