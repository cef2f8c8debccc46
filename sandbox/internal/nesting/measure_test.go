package nesting

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"
)

// TestMeasureEsbuild prints, for each attack shape, the deepest groups of it
// that, repeated to fill 1 MiB, pass the scan with sandbox's settings, and
// esbuild's time on that source, next to a normal parse of 1 MiB of
// ordinary code. It is a
// measurement, not a test (no timing is asserted): run it with
// AIRLOCK_MEASURE=1 go test -run TestMeasureEsbuild -v ./sandbox/internal/nesting/
// (AIRLOCK_MEASURE=raw also times esbuild on each group nested 2,000 deep,
// ignoring the cap).
func TestMeasureEsbuild(t *testing.T) {
	mode := os.Getenv("AIRLOCK_MEASURE")
	if mode == "" {
		t.Skip("set AIRLOCK_MEASURE=1 to measure")
	}
	const size = 1 << 20
	const maxDepth = 128
	parse := func(src string, ts, check bool) time.Duration {
		opts := api.TransformOptions{Loader: api.LoaderJS, Target: api.ESNext}
		if ts {
			opts.Loader = api.LoaderTS
		}
		if check { // what sandbox.Check does
			opts.MinifyIdentifiers, opts.MinifyWhitespace = true, true
		} else { // what a TypeScript run does
			opts.Sourcemap = api.SourceMapExternal
		}
		start := time.Now()
		api.Transform(src, opts)
		return time.Since(start)
	}
	scan := func(src string, ts bool) Report {
		cfg := Config{MaxDepth: maxDepth, TS: ts, MaxDepthWork: 4<<20 + 16*uint64(len(src))}
		if ts {
			cfg.MaxWork = 4<<20 + 32*uint64(len(src))
		}
		return Scan(src, cfg)
	}
	base := ordinary(size)
	r := scan(base, true)
	fmt.Printf("ordinary %d B: depth %d, depth work %.1f/B, TS work %d (%.1f/B); check %v, TS transpile %v\n",
		len(base), r.Depth, float64(r.DepthWork)/float64(len(base)), r.Work, float64(r.Work)/float64(len(base)), parse(base, false, true), parse(base, true, false))
	for _, sh := range shapes {
		// The deepest group that, repeated to fill 1 MiB, passes the scan.
		fill := func(n int) string {
			// In a block of its own, so that groups do not declare the
			// same names (esbuild's error storm, a different problem).
			group := "{" + sh.gen(n) + "}\n"
			return strings.Repeat(group, max(size/len(group), 1))
		}
		lo, hi := 1, 4*maxDepth
		for lo < hi {
			m := (lo + hi + 1) / 2
			if rr := scan(fill(m), sh.ts); rr.Over() {
				hi = m - 1
			} else {
				lo = m
			}
		}
		src := fill(lo)
		rr := scan(src, sh.ts)
		line := fmt.Sprintf("%-22s depth %3d: depth work %4.1f/B, TS work %4.1f/B; check %v", sh.name, lo,
			float64(rr.DepthWork)/float64(len(src)), float64(rr.Work)/float64(len(src)), parse(src, sh.ts, true))
		if sh.ts || mode == "raw" {
			line += fmt.Sprintf(", TS transpile %v", parse(src, true, false))
		}
		if mode == "raw" {
			line += fmt.Sprintf("; one group 2000 deep: check %v", parse(sh.gen(2000), sh.ts, true))
		}
		fmt.Println(line)
	}
}
