// Command intlbench measures airlock's Intl against Node 20's (full ICU) on
// the workloads of issue 23 item 3, and checks on the way that both print
// the same. BENCHMARKS.md ("Intl against Node") quotes a run.
//
//	go run ./internal/intlbench        # make bench-intl (part of make bench)
//
// Each workload is one script, run as a whole fresh airlock chain
// (sandbox.ScriptEngine.Run) and by one long-lived `node` process (TZ=UTC)
// as a fresh function; the script builds its input (outside the timing),
// times the workload with performance.now() and returns the time and its
// output. Rounds interleave the sides (airlock, node, airlock, node, …)
// after one warm-up round that is not counted; a side's figure is the
// median over rounds. A workload whose output differs between the sides
// fails the run: the comparison is only worth something if the answers are
// the same.
//
// Ratios are airlock ÷ node: the goal is at most 10×.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/airlockrt/airlock/sandbox"
)

// goal is the largest ratio (airlock ÷ node) a workload may have.
const goal = 10.0

// words returns a script fragment that defines words(n): n strings of 1
// to 12 characters from a mix of cases, accents, digits, spaces and
// punctuation, the same on both sides (a linear congruential generator).
const words = `
let seed = 12345;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const ALPHA = "aAbBcCdeEéÉèfghiIjklmnoOöÖpqrsßtuUüvwxyzZ0123456789 -_.'ÅåæÆçÇñÑ";
const words = (n) => {
  const out = [];
  for (let i = 0; i < n; i++) {
    let s = "";
    for (let k = 1 + rnd(12); k > 0; k--) s += ALPHA[rnd(ALPHA.length)];
    out.push(s);
  }
  return out;
};
`

// workload is one script: it returns {ms, out}, out a string both sides
// must agree on.
type workload struct {
	name, what string
	src        string
}

var workloads = []workload{
	{
		name: "localeCompare-sort", what: "sort 2,000 strings with a.localeCompare(b)",
		src: words + `
const a = words(2000);
const t = performance.now();
a.sort((x, y) => x.localeCompare(y));
const ms = performance.now() - t;
return { ms, out: a.join("|") };`,
	},
	{
		name: "toLocaleString", what: `2,000 x.toLocaleString("en-US") of numbers`,
		src: words + `
const xs = [];
for (let i = 0; i < 2000; i++) xs.push(i % 3 === 0 ? rnd(1e9) / 100 : i % 3 === 1 ? rnd(1e6) : -rnd(1e7) / 7);
const out = [];
const t = performance.now();
for (let i = 0; i < 2000; i++) out.push(xs[i].toLocaleString("en-US"));
const ms = performance.now() - t;
return { ms, out: out.join("|") };`,
	},
	{
		name: "format-10k", what: "10,000 NumberFormat.format + 10,000 DateTimeFormat.format",
		src: words + `
const xs = [], ds = [];
for (let i = 0; i < 10000; i++) {
  xs.push(i % 2 ? rnd(1e9) / 1000 : -rnd(1e6));
  ds.push(new Date(rnd(2e9) * 1000));
}
const out = [];
const t = performance.now();
const nf = new Intl.NumberFormat("de-DE", { maximumFractionDigits: 2 });
const df = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });
for (let i = 0; i < 10000; i++) out.push(nf.format(xs[i]));
for (let i = 0; i < 10000; i++) out.push(df.format(ds[i]));
const ms = performance.now() - t;
return { ms, out: out.join("|") };`,
	},
	{
		name: "collator-sort-10k", what: "sort 10,000 strings with new Intl.Collator().compare",
		src: words + `
const a = words(10000);
const t = performance.now();
a.sort(new Intl.Collator("en").compare);
const ms = performance.now() - t;
return { ms, out: a.join("|") };`,
	},
}

type config struct {
	rounds int
	out    io.Writer
	only   string // run only the workload of this name, when set
	// airlockOnly runs airlock's side alone (no node, no comparison) and
	// prints its least and median times: for counting instructions under
	// cachegrind, where the difference between two -rounds is one run.
	airlockOnly bool
}

func main() {
	c := config{out: os.Stdout}
	flag.IntVar(&c.rounds, "rounds", 5, "interleaved rounds counted, after one warm-up round")
	flag.StringVar(&c.only, "only", "", "run only the workload of this name")
	flag.BoolVar(&c.airlockOnly, "airlock-only", false, "run airlock's side alone (for cachegrind: the difference between two -rounds is one run)")
	flag.Parse()
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "intlbench:", err)
		os.Exit(1)
	}
}

// result is what a workload returns on either side.
type result struct {
	MS  float64 `json:"ms"`
	Out string  `json:"out"`
}

func run(ctx context.Context, c config) error {
	e, err := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{CompilationCacheDir: cacheDir()})
	if err != nil {
		return err
	}
	defer e.Close(ctx)
	ws := workloads
	if c.only != "" {
		ws = slices.DeleteFunc(slices.Clone(ws), func(w workload) bool { return w.name != c.only })
		if len(ws) == 0 {
			return fmt.Errorf("no workload named %q", c.only)
		}
	}
	if c.airlockOnly {
		return runAirlockOnly(ctx, c, e, ws)
	}
	node, err := startNode()
	if err != nil {
		return err
	}
	defer node.close()
	ms := make([][2][]float64, len(ws))
	fmt.Fprintf(c.out, "intlbench: %d rounds (+1 warm-up), interleaved airlock/node; node %s\n", c.rounds, node.version)
	for r := 0; r <= c.rounds; r++ {
		for i, w := range ws {
			a, err := airlockRun(ctx, e, w.src)
			if err != nil {
				return fmt.Errorf("%s, airlock: %w", w.name, err)
			}
			n, err := node.run(w.src)
			if err != nil {
				return fmt.Errorf("%s, node: %w", w.name, err)
			}
			if a.Out != n.Out {
				return fmt.Errorf("%s: airlock's output differs from node's at byte %d (%s)", w.name, firstDiff(a.Out, n.Out), excerpt(a.Out, n.Out))
			}
			if r > 0 {
				ms[i][0] = append(ms[i][0], a.MS)
				ms[i][1] = append(ms[i][1], n.MS)
			}
		}
	}
	fmt.Fprintf(c.out, "%-20s %12s %12s %8s  %s\n", "workload", "airlock", "node", "ratio", "goal (ratio = airlock ÷ node)")
	for i, w := range ws {
		a, n := median(ms[i][0]), median(ms[i][1])
		verdict := "missed"
		if a <= goal*n {
			verdict = "met"
		}
		fmt.Fprintf(c.out, "%-20s %9.2f ms %9.2f ms %7.1f×  ≤ %.0f×: %s  (%s)\n", w.name, a, n, a/n, goal, verdict, w.what)
	}
	return nil
}

// runAirlockOnly runs each workload on airlock's side, a warm-up and
// c.rounds more, and prints the least and the median time of those.
func runAirlockOnly(ctx context.Context, c config, e *sandbox.ScriptEngine, ws []workload) error {
	fmt.Fprintf(c.out, "intlbench: airlock only, %d rounds (+1 warm-up)\n", c.rounds)
	for _, w := range ws {
		var ms []float64
		for r := 0; r <= c.rounds; r++ {
			a, err := airlockRun(ctx, e, w.src)
			if err != nil {
				return fmt.Errorf("%s, airlock: %w", w.name, err)
			}
			if r > 0 {
				ms = append(ms, a.MS)
			}
		}
		least := 0.0
		if len(ms) > 0 {
			least = slices.Min(ms)
		}
		fmt.Fprintf(c.out, "%-20s least %9.2f ms  median %9.2f ms\n", w.name, least, median(ms))
	}
	return nil
}

func firstDiff(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// excerpt shows both outputs around their first difference, and their
// digests.
func excerpt(a, b string) string {
	i := firstDiff(a, b)
	cut := func(s string) string {
		lo, hi := max(0, i-40), min(len(s), i+40)
		return s[lo:hi]
	}
	return fmt.Sprintf("airlock %q (sha256 %x), node %q (sha256 %x)", cut(a), sha256.Sum256([]byte(a)), cut(b), sha256.Sum256([]byte(b)))
}

// airlockRun runs src as a fresh chain.
func airlockRun(ctx context.Context, e *sandbox.ScriptEngine, src string) (result, error) {
	br := func(context.Context, string, []byte) ([]byte, error) {
		return nil, errors.New("no tools")
	}
	res, err := e.Run(ctx, sandbox.Script{Source: src}, br, sandbox.Limits{MaxResultBytes: 16 << 20})
	if err != nil {
		return result{}, err
	}
	var r result
	if err := json.Unmarshal(res.Value, &r); err != nil {
		return result{}, fmt.Errorf("the script returned %.200q: %w", res.Value, err)
	}
	return r, nil
}

// serveJS is the node side: it reads one JSON string (a script) per line,
// runs it as the body of a fresh async function and answers one JSON line,
// the script's {ms, out} or {error}.
const serveJS = `
const { createInterface } = require("node:readline");
const AsyncFunction = (async () => {}).constructor;
const rl = createInterface({ input: process.stdin });
let queue = Promise.resolve();
rl.on("line", (line) => {
  queue = queue.then(async () => {
    try {
      const r = await new AsyncFunction(JSON.parse(line))();
      process.stdout.write(JSON.stringify(r) + "\n");
    } catch (e) {
      process.stdout.write(JSON.stringify({ error: String(e && e.stack || e) }) + "\n");
    }
  });
});
`

type nodeProc struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	version string
}

func startNode() (*nodeProc, error) {
	v, err := exec.Command("node", "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("node --version: %w (node 20 is required)", err)
	}
	cmd := exec.Command("node", "-e", serveJS)
	cmd.Env = append(os.Environ(), "TZ=UTC")
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
		return nil, fmt.Errorf("starting node: %w", err)
	}
	return &nodeProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), version: string(v[:len(v)-1])}, nil
}

func (p *nodeProc) run(src string) (result, error) {
	b, _ := json.Marshal(src)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return result{}, err
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return result{}, fmt.Errorf("reading node's answer: %w", err)
	}
	var r struct {
		result
		Error string `json:"error"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return result{}, fmt.Errorf("node answered %.200q: %w", line, err)
	}
	if r.Error != "" {
		return result{}, errors.New(r.Error)
	}
	return r.result, nil
}

func (p *nodeProc) close() {
	_ = p.in.Close()
	_ = p.cmd.Wait()
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
