// Command peerbench measures airlock against the peer of issue 22: QuickJS
// as quickjs-emscripten 0.32 ships it (Bellard's QuickJS 2025-09-13 built
// with emscripten) on Node 20, the engine most JavaScript code-mode sandboxes
// use. BENCHMARKS.md ("Against the peer") quotes a run.
//
//	scripts/peer-deps.sh                # npm ci of bench/peer (once)
//	go run ./internal/peerbench         # make bench-peer
//
// Six measures, each taken on both sides, interleaved round by round
// (airlock, peer, airlock, peer, …) after one warm-up round that is not
// counted; a side's figure is the median over rounds of each round's p50:
//
//   - start: airlock runs `return 1` as a whole fresh chain
//     (sandbox.ScriptEngine.Run, a fresh instance each time); the peer
//     gives the chain a linear memory of its own, as each airlock chain has:
//     a fresh module instance, a runtime and a context, evaluates `1+1` and
//     disposes them (a quarter of -starts samples: each costs milliseconds).
//   - start-shared: the same airlock start against the peer's runtimes
//     sharing one module's memory (a runtime and a context, `1+1`): its
//     fastest start, without the isolation; shown, with no goal.
//   - call: one awaited tool call with ~100 bytes of JSON arguments and an ok
//     envelope back; airlock's `await tools.noop({...})` against a bridge
//     that answers at once, the peer's `await tools.noop({...})` through a
//     host function returning a promise the host resolves with the reply,
//     which the guest JSON-parses. A sample is the time from one host call
//     to the next.
//   - loop: `let s = 0; for (let i = 0; i < 1e6; i++) s += i` in a fresh
//     instance (airlock) or runtime and context (peer).
//   - density: memory added per chain with -chains chains blocked at once
//     in a tool call that is never answered, each side in a process of its
//     own started for the round ((PSS after − PSS before) / chains: a page
//     mapped by many chains counts once, as it takes memory once);
//     density-rss shows the same with RSS, which counts the snapshot image
//     each airlock chain maps copy-on-write once per chain.
//
// Ratios are peer ÷ airlock: above 1, airlock is faster (or smaller).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airlockrt/airlock/sandbox"
)

// childEnv, when set in the environment, makes the program a density child:
// it holds that many airlock chains blocked, prints a densityResult and
// exits.
const childEnv = "AIRLOCK_PEERBENCH_DENSITY_CHILD"

// config is what one run measures.
type config struct {
	peerDir string // holds peer.mjs and its node_modules
	rounds  int    // counted rounds, after one warm-up round
	starts  int    // start samples per round and side
	calls   int    // call samples per round and side
	loops   int    // loop samples per round and side
	chains  int    // chains blocked at once for density
	out     io.Writer
}

func main() {
	if v := os.Getenv(childEnv); v != "" {
		if err := densityChild(v, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "peerbench:", err)
			os.Exit(1)
		}
		return
	}
	c := config{out: os.Stdout}
	flag.StringVar(&c.peerDir, "peer", "bench/peer", "directory of peer.mjs, with its node_modules installed by scripts/peer-deps.sh")
	flag.IntVar(&c.rounds, "rounds", 7, "interleaved rounds counted, after one warm-up round")
	flag.IntVar(&c.starts, "starts", 200, "start samples per round and side")
	flag.IntVar(&c.calls, "calls", 1000, "call samples per round and side")
	flag.IntVar(&c.loops, "loops", 3, "loop samples per round and side")
	flag.IntVar(&c.chains, "chains", 1000, "chains blocked at once for the density measure")
	flag.Parse()
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "peerbench:", err)
		os.Exit(1)
	}
}

// measure is one of the four comparisons.
type measure struct {
	name, unit string
	goal       string
	// met says whether the goal is met, given airlock's and the peer's
	// figures; nil for a measure shown without a goal.
	met func(airlock, peer float64) bool
	// airlock and peer return one round's samples.
	airlock, peer func(ctx context.Context) ([]float64, error)
}

func run(ctx context.Context, c config) error {
	if _, err := os.Stat(filepath.Join(c.peerDir, "node_modules", "quickjs-emscripten", "package.json")); err != nil {
		return fmt.Errorf("the peer is not installed in %s (run scripts/peer-deps.sh): %w", c.peerDir, err)
	}
	e, err := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{CompilationCacheDir: cacheDir()})
	if err != nil {
		return err
	}
	defer e.Close(ctx)
	peer, err := startPeer(c.peerDir)
	if err != nil {
		return err
	}
	defer peer.close()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ms := []measure{
		{
			// A peer chain with a linear memory of its own (a fresh module
			// instance), as every airlock chain has: issue 22's start.
			name: "start", unit: "µs", goal: "≥ 40× and airlock p50 ≤ 100 µs",
			met:     func(a, p float64) bool { return p/a >= 40 && a <= 100 },
			airlock: func(ctx context.Context) ([]float64, error) { return airlockStarts(ctx, e, c.starts/4+1) },
			peer:    func(context.Context) ([]float64, error) { return peer.measure("start_isolated", c.starts/4+1) },
		},
		{
			// The peer's runtimes sharing one module's memory: its fastest
			// start, without the isolation; shown, no goal.
			name: "start-shared", unit: "µs", goal: "(peer chains share one memory; no goal)",
			airlock: func(ctx context.Context) ([]float64, error) { return airlockStarts(ctx, e, c.starts) },
			peer:    func(context.Context) ([]float64, error) { return peer.measure("start", c.starts) },
		},
		{
			name: "call", unit: "µs", goal: "≥ 1.8×",
			met:     func(a, p float64) bool { return p/a >= 1.8 },
			airlock: func(ctx context.Context) ([]float64, error) { return airlockCalls(ctx, e, c.calls) },
			peer:    func(context.Context) ([]float64, error) { return peer.measure("call", c.calls) },
		},
		{
			name: "loop", unit: "ms", goal: "≥ 0.6×",
			met:     func(a, p float64) bool { return p/a >= 0.6 },
			airlock: func(ctx context.Context) ([]float64, error) { return airlockLoops(ctx, e, c.loops) },
			peer:    func(context.Context) ([]float64, error) { return peer.measure("loop", c.loops) },
		},
		{
			name: "density", unit: "MiB/chain", goal: "airlock ≤ 0.25 MiB per chain (PSS)",
			met: func(a, _ float64) bool { return a <= 0.25 },
			airlock: func(ctx context.Context) ([]float64, error) {
				return density(ctx, true, self, []string{childEnv + "=" + strconv.Itoa(c.chains)}, nil)
			},
			peer: func(ctx context.Context) ([]float64, error) {
				return density(ctx, true, "node", nil, []string{"--expose-gc", filepath.Join(c.peerDir, "peer.mjs"), "density", strconv.Itoa(c.chains)})
			},
		},
		{
			// RSS counts each chain's copy-on-write mapping of the shared
			// image once per chain; shown beside PSS, no goal.
			name: "density-rss", unit: "MiB/chain", goal: "(RSS: shared image pages counted per chain; no goal)",
			airlock: func(ctx context.Context) ([]float64, error) {
				return density(ctx, false, self, []string{childEnv + "=" + strconv.Itoa(c.chains)}, nil)
			},
			peer: func(ctx context.Context) ([]float64, error) {
				return density(ctx, false, "node", nil, []string{"--expose-gc", filepath.Join(c.peerDir, "peer.mjs"), "density", strconv.Itoa(c.chains)})
			},
		},
	}
	scale := map[string]float64{"µs": 1e3, "ms": 1e6, "MiB/chain": 1}
	p50s := make([][2][]float64, len(ms)) // per measure, airlock's and the peer's per-round p50s
	fmt.Fprintf(c.out, "peerbench: %d rounds (+1 warm-up), interleaved airlock/peer; %d starts, %d calls, %d loops, %d chains per round and side\n",
		c.rounds, c.starts, c.calls, c.loops, c.chains)
	for r := 0; r <= c.rounds; r++ {
		for i, m := range ms {
			for side, f := range []func(context.Context) ([]float64, error){m.airlock, m.peer} {
				xs, err := f(ctx)
				if err != nil {
					return fmt.Errorf("%s, %s: %w", m.name, [2]string{"airlock", "peer"}[side], err)
				}
				if r > 0 { // round 0 warms both sides up
					p50s[i][side] = append(p50s[i][side], median(xs)/scale[m.unit])
				}
			}
		}
	}
	fmt.Fprintf(c.out, "%-12s %16s %16s %8s  %s\n", "measure", "airlock p50", "peer p50", "ratio", "goal (ratio = peer ÷ airlock)")
	for i, m := range ms {
		a, p := median(p50s[i][0]), median(p50s[i][1])
		verdict := ": missed"
		switch {
		case m.met == nil:
			verdict = ""
		case m.met(a, p):
			verdict = ": met"
		}
		fmt.Fprintf(c.out, "%-12s %16s %16s %7.2f×  %s%s\n", m.name, format(a, m.unit), format(p, m.unit), p/a, m.goal, verdict)
	}
	return nil
}

func format(v float64, unit string) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	default:
		return fmt.Sprintf("%.3f %s", v, unit)
	}
}

// median returns the middle of xs (the mean of the two middles for an even
// count), or 0 for none; xs is sorted in place.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// cacheDir keeps the compiled engine across runs, where the sandbox's tests
// keep theirs.
func cacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "airlock", "wazero-test")
}

var okReply = []byte(`{"status":"ok","value":{}}`)

// callArgs are the arguments of every call, the same on both sides (see
// bench/peer/peer.mjs): ~100 bytes of JSON.
var callArgs = `{q: "` + strings.Repeat("x", 80) + `", n: 1}`

// airlockStarts runs `return 1` n times, each a whole fresh chain, and
// returns the durations in nanoseconds.
func airlockStarts(ctx context.Context, e *sandbox.ScriptEngine, n int) ([]float64, error) {
	br := func(context.Context, string, []byte) ([]byte, error) { return okReply, nil }
	ns := make([]float64, 0, n)
	for range n {
		t := time.Now()
		if _, err := e.Run(ctx, sandbox.Script{Source: "return 1"}, br, sandbox.Limits{}); err != nil {
			return nil, err
		}
		ns = append(ns, float64(time.Since(t)))
	}
	return ns, nil
}

// airlockCalls makes n+1 sequential awaited calls in one chain and returns
// the n times from one bridge call to the next, in nanoseconds.
func airlockCalls(ctx context.Context, e *sandbox.ScriptEngine, n int) ([]float64, error) {
	ns := make([]float64, 0, n)
	var last time.Time
	br := func(context.Context, string, []byte) ([]byte, error) {
		now := time.Now()
		if !last.IsZero() {
			ns = append(ns, float64(now.Sub(last)))
		}
		last = now
		return okReply, nil
	}
	src := fmt.Sprintf("for (let i = 0; i < %d; i++) await tools.noop(%s); return 0", n+1, callArgs)
	if _, err := e.Run(ctx, sandbox.Script{Source: src}, br, sandbox.Limits{}); err != nil {
		return nil, err
	}
	return ns, nil
}

// airlockLoops runs the 1e6-iteration loop n times, each in a fresh chain,
// and returns the durations in nanoseconds.
func airlockLoops(ctx context.Context, e *sandbox.ScriptEngine, n int) ([]float64, error) {
	br := func(context.Context, string, []byte) ([]byte, error) { return okReply, nil }
	ns := make([]float64, 0, n)
	for range n {
		t := time.Now()
		if _, err := e.Run(ctx, sandbox.Script{Source: "let s = 0; for (let i = 0; i < 1e6; i++) s += i; return s"}, br, sandbox.Limits{}); err != nil {
			return nil, err
		}
		ns = append(ns, float64(time.Since(t)))
	}
	return ns, nil
}

// densityResult is what a density child prints: resident set sizes and
// proportional set sizes (PSS: a page mapped n times counts 1/n, so the
// snapshot image every chain maps copy-on-write counts once, not once per
// chain as in RSS), in bytes.
type densityResult struct {
	Before    int64 `json:"before"`
	After     int64 `json:"after"`
	BeforePSS int64 `json:"before_pss"`
	AfterPSS  int64 `json:"after_pss"`
	Chains    int   `json:"chains"`
}

// density starts a density child, name with args and env added to this
// process's environment, and returns its MiB per chain as the one sample:
// of PSS when pss, else of RSS.
func density(ctx context.Context, pss bool, name string, env, args []string) ([]float64, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var d densityResult
	if err := json.Unmarshal(out, &d); err != nil {
		return nil, fmt.Errorf("density child printed %q: %w", out, err)
	}
	if d.Chains <= 0 {
		return nil, fmt.Errorf("density child held %d chains", d.Chains)
	}
	grown := d.After - d.Before
	if pss {
		if d.AfterPSS == 0 {
			return nil, errors.New("density child printed no PSS (/proc/self/smaps_rollup)")
		}
		grown = d.AfterPSS - d.BeforePSS
	}
	return []float64{float64(grown) / float64(d.Chains) / (1 << 20)}, nil
}

// densityChild holds chains (a decimal count) airlock chains blocked in a
// tool call at once and prints a densityResult to w.
func densityChild(chains string, w io.Writer) error {
	n, err := strconv.Atoi(chains)
	if err != nil || n <= 0 {
		return fmt.Errorf("%s=%q: want a positive count", childEnv, chains)
	}
	ctx := context.Background()
	e, err := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{CompilationCacheDir: cacheDir()})
	if err != nil {
		return err
	}
	defer e.Close(ctx)
	release := make(chan struct{})
	var blocked atomic.Int64
	br := func(context.Context, string, []byte) ([]byte, error) {
		blocked.Add(1)
		<-release
		return okReply, nil
	}
	// One chain first, so that the engine's snapshot and caches count in
	// the baseline, not per chain.
	if _, err := e.Run(ctx, sandbox.Script{Source: "return 1"}, br, sandbox.Limits{}); err != nil {
		return err
	}
	settle()
	before, beforePSS := rss(), pss()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.Run(ctx, sandbox.Script{Source: "return await tools.hang({})"}, br, sandbox.Limits{}); err != nil {
				errs <- err
			}
		}()
	}
	deadline := time.Now().Add(5 * time.Minute)
	for blocked.Load() < int64(n) {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d chains blocked after 5 minutes", blocked.Load(), n)
		}
		select {
		case err := <-errs:
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Measured as chains that have waited a while: one blocked 20 ms hands
	// back the pages it wrote that read as the shared image again
	// (quickjs.Instance.IdleBegin).
	time.Sleep(blockedFor)
	settle()
	after, afterPSS := rss(), pss()
	close(release)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(densityResult{Before: before, After: after, BeforePSS: beforePSS, AfterPSS: afterPSS, Chains: n})
}

// blockedFor is how long the density child's chains have all been
// blocked when it measures.
const blockedFor = 500 * time.Millisecond

// settle collects garbage and returns freed memory to the OS, so that RSS
// counts what is live.
func settle() {
	runtime.GC()
	debug.FreeOSMemory()
}

// rss returns this process's resident set size in bytes.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// pss returns this process's proportional set size in bytes (0 where
// /proc/self/smaps_rollup is not there).
func pss() int64 {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// peerProc is a running `node peer.mjs serve`.
type peerProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startPeer(dir string) (*peerProc, error) {
	cmd := exec.Command("node", filepath.Join(dir, "peer.mjs"), "serve")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the peer (node %s): %w", filepath.Join(dir, "peer.mjs"), err)
	}
	return &peerProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// measure asks the peer for n samples of what and returns them in
// nanoseconds.
func (p *peerProc) measure(what string, n int) ([]float64, error) {
	if _, err := fmt.Fprintf(p.in, "%s %d\n", what, n); err != nil {
		return nil, err
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("reading the peer's answer: %w", err)
	}
	var r struct{ NS []float64 }
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, fmt.Errorf("the peer answered %q: %w", line, err)
	}
	if len(r.NS) == 0 {
		return nil, errors.New("the peer returned no samples")
	}
	return r.NS, nil
}

func (p *peerProc) close() {
	_ = p.in.Close()
	_ = p.cmd.Wait()
}
