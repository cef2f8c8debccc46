package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/require"
)

// manualClock is a parse budget's clock that the test fires: expire sends
// on the timer of the budget started for a source, by its length.
type manualClock struct {
	timers chan chan time.Time
}

func newManualClock() *manualClock { return &manualClock{timers: make(chan chan time.Time, 16)} }

func (m *manualClock) after(time.Duration) (<-chan time.Time, func() bool) {
	c := make(chan time.Time, 1)
	m.timers <- c
	return c, func() bool { return true }
}

// slowStorm is a source esbuild takes minutes on: n bytes of one name
// declared again and again, each an error whose note it places by counting
// lines from the start (140 KB takes it 50 s).
func slowStorm(n int) string { return strings.Repeat("let x;\n", n/7) }

// largeScript is ordinary code of at least n bytes that returns 1.
func largeScript(n int) string {
	return "let s = 0;\n" + strings.Repeat("s += [1, 2, 3].length;\n", n/23+1) + "return s > 0 ? 1 : 0;"
}

// gone reports whether no process pid exists.
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// cpuTicks is the user and system CPU time of process pid, in clock ticks.
func cpuTicks(t *testing.T, pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}

// TestParseBudget: without a worker, a large source whose parse outlasts
// its budget is refused with the budget in the message, and while the
// abandoned parse still runs it keeps its slot: its tenant's next large
// script is refused, and so is another tenant's when it held the last
// slot. Small sources are never held up. The budget's clock and the parser
// are the test's, so nothing depends on how fast the machine is.
func TestParseBudget(t *testing.T) {
	storm := strings.Repeat("let x;\n", 300) // 2100 bytes
	release := make(chan struct{})
	var budgets []time.Duration
	expire := true
	pb := &parseBudget{
		inline:  1 << 10,
		base:    time.Second,
		perByte: time.Millisecond,
		slots:   1,
		after: func(d time.Duration) (<-chan time.Time, func() bool) {
			budgets = append(budgets, d)
			c := make(chan time.Time, 1)
			if expire {
				c <- time.Time{}
			}
			return c, func() bool { return true }
		},
		transform: func(src string, opts api.TransformOptions) api.TransformResult {
			if src == storm {
				<-release // the parse outlasts any budget
			}
			return api.Transform(src, opts)
		},
	}

	err := check(context.Background(), Script{Source: storm, Tenant: "a"}, pb)
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, ScriptError, xe.Kind)
	require.Equal(t, "SyntaxError: the script is too costly to parse (over 3.1s): many repeated errors such as names declared twice; fix the first ones and resubmit", xe.Message)
	require.Equal(t, []time.Duration{time.Second + 2100*time.Millisecond}, budgets, "base + perByte × length")

	big := "return 1;\n" + strings.Repeat("f([1, 2, 3]);\n", 200)
	err = check(context.Background(), Script{Source: big, Tenant: "a"}, pb)
	require.ErrorAs(t, err, &xe, "the abandoned parse still runs")
	require.Equal(t, ScriptError, xe.Kind)
	require.Equal(t, "SyntaxError: the host is parsing another large script of this tenant; retry in a moment, or send a smaller one", xe.Message)
	err = check(context.Background(), Script{Source: big, Tenant: "b"}, pb)
	require.ErrorAs(t, err, &xe, "the abandoned parse holds the only slot")
	require.Equal(t, "SyntaxError: the host is parsing other large scripts; retry in a moment, or send a smaller one", xe.Message)
	require.NoError(t, check(context.Background(), Script{Source: "return 1", Tenant: "a"}, pb), "small sources parse inline")
	require.Len(t, budgets, 1, "only large sources that start a parse start a budget")

	// The abandoned parse ends on its own; then large sources parse again,
	// within a budget that does not run out.
	close(release)
	require.Eventually(t, func() bool { return pb.busy() == 0 }, time.Minute, time.Millisecond)
	expire = false
	require.NoError(t, check(context.Background(), Script{Source: big, Tenant: "a"}, pb))
	require.NoError(t, check(context.Background(), Script{Source: big, Lang: LangTS}, pb))
	// A source parsed twice in a row (as it is, then in the body form) finds
	// the slot its first parse held free again.
	for range 100 {
		require.NoError(t, check(context.Background(), Script{Source: "const s = 'export';\n" + big}, pb))
		require.NoError(t, check(context.Background(), Script{Source: "await 1;\n" + big}, pb))
	}
}

// TestParseBudgetStoppable: a parse that can be stopped (a worker) is
// stopped when its budget runs out or its caller's context ends, and its
// slot is free when the refusal returns: the same tenant's next large
// script, and another tenant's, parse at once.
func TestParseBudgetStoppable(t *testing.T) {
	clock := newManualClock()
	stopped := make(chan error, 1)
	pb := &parseBudget{
		inline: 1 << 10,
		base:   time.Second,
		slots:  1,
		after:  clock.after,
		worker: func(ctx context.Context, src string, opts api.TransformOptions) (api.TransformResult, error) {
			if strings.HasPrefix(src, "let x;") {
				<-ctx.Done() // outlasts any budget, until stopped
				time.Sleep(10 * time.Millisecond)
				stopped <- ctx.Err()
				return api.TransformResult{}, ctx.Err()
			}
			return api.Transform(src, opts), nil
		},
	}
	storm, big := slowStorm(2100), largeScript(2100)

	// The budget runs out.
	errc := make(chan error, 1)
	go func() { errc <- check(context.Background(), Script{Source: storm, Tenant: "a"}, pb) }()
	(<-clock.timers) <- time.Time{}
	err := <-errc
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.True(t, strings.HasPrefix(xe.Message, "SyntaxError: the script is too costly to parse (over 1s)"), xe.Message)
	require.ErrorIs(t, <-stopped, context.Canceled, "the worker was stopped before the refusal")
	require.Zero(t, pb.busy(), "the slot is free when the refusal returns")
	for _, tenant := range []string{"a", "b"} {
		errc := make(chan error, 1)
		go func() { errc <- check(context.Background(), Script{Source: big, Tenant: tenant}, pb) }()
		<-clock.timers // never fires
		require.NoError(t, <-errc)
	}

	// The caller's context ends.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { errc <- check(ctx, Script{Source: storm, Tenant: "a"}, pb) }()
	<-clock.timers
	cancel()
	err = <-errc
	require.ErrorAs(t, err, &xe)
	require.Equal(t, Cancelled, xe.Kind)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, <-stopped, context.Canceled)
	require.Zero(t, pb.busy())

	// A context that has ended takes no slot.
	err = check(ctx, Script{Source: storm, Tenant: "a"}, pb)
	require.ErrorAs(t, err, &xe)
	require.Equal(t, Cancelled, xe.Kind)
	require.Zero(t, pb.busy())
}

// workerBudget is the process's budget with the test's clock, and a worker
// that reports each worker process it starts on pids.
func workerBudget(clock *manualClock, pids chan<- int) *parseBudget {
	return &parseBudget{
		inline:  64 << 10,
		base:    time.Second,
		perByte: 2 * time.Microsecond,
		slots:   2,
		after:   clock.after,
		worker: func(ctx context.Context, src string, opts api.TransformOptions) (api.TransformResult, error) {
			return parseInWorker(ctx, src, opts, func(pid int) { pids <- pid })
		},
	}
}

// TestParseWorkerKilled: a genuinely slow large source (300 KB of a name
// declared again, minutes of esbuild) parses in a worker process, which is
// killed when its budget runs out: the refusal returns with the process
// gone and its slot free, and another tenant's large script parses at
// once, in a worker of its own.
func TestParseWorkerKilled(t *testing.T) {
	clock := newManualClock()
	pids := make(chan int, 4)
	pb := workerBudget(clock, pids)
	storm := slowStorm(300 << 10)

	errc := make(chan error, 1)
	go func() { errc <- check(context.Background(), Script{Source: storm, Tenant: "a"}, pb) }()
	timer := <-clock.timers
	pid := <-pids
	// Let it parse long enough to be seen burning CPU.
	before := cpuTicks(t, pid)
	require.Eventually(t, func() bool { return cpuTicks(t, pid) >= before+20 }, time.Minute, 10*time.Millisecond, "the worker parses")
	ticks := cpuTicks(t, pid)
	expired := time.Now()
	timer <- expired
	err := <-errc
	freed := time.Since(expired)
	require.True(t, gone(pid), "the worker process is gone when the refusal returns")
	require.Zero(t, pb.busy(), "its slot is free")
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, ScriptError, xe.Kind)
	require.Equal(t, "SyntaxError: the script is too costly to parse (over 1.614s): many repeated errors such as names declared twice; fix the first ones and resubmit", xe.Message)
	t.Logf("killed a worker %d ticks into its parse; its CPU and slot were free %v after the budget ran out", ticks, freed)

	// Another tenant's large script parses at once, in a worker of its own.
	big := largeScript(100 << 10)
	started := time.Now()
	go func() { errc <- check(context.Background(), Script{Source: big, Tenant: "b"}, pb) }()
	<-clock.timers // never fires
	require.NoError(t, <-errc)
	t.Logf("then a %d-byte script parsed in a worker in %v", len(big), time.Since(started))
	require.True(t, gone(<-pids), "a worker that answered has exited")
	require.Zero(t, pb.busy())
}

// TestParseWorkerCancelled: the caller's context ending kills the worker of
// a large parse: Compile returns Cancelled with the process gone and the
// slot free.
func TestParseWorkerCancelled(t *testing.T) {
	clock := newManualClock()
	pids := make(chan int, 1)
	pb := workerBudget(clock, pids)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := compile(ctx, Script{Source: slowStorm(300 << 10), Tenant: "a"}, pb)
		errc <- err
	}()
	<-clock.timers
	pid := <-pids
	require.False(t, gone(pid))
	cancel()
	err := <-errc
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, Cancelled, xe.Kind)
	require.ErrorIs(t, err, context.Canceled)
	require.True(t, gone(pid))
	require.Zero(t, pb.busy())
}

// TestParseTenants: tenant A's slow large parse holds A's slot only. While
// it parses, tenant B's large script compiles and runs (a healthy chain),
// and A's second large script is refused; when A gives up, its worker is
// gone.
func TestParseTenants(t *testing.T) {
	clock := newManualClock()
	pids := make(chan int, 4)
	pb := workerBudget(clock, pids)
	e := engine(t)

	ctxA, cancelA := context.WithCancel(context.Background())
	errA := make(chan error, 1)
	go func() {
		_, err := compile(ctxA, Script{Source: slowStorm(600 << 10), Tenant: "A"}, pb)
		errA <- err
	}()
	<-clock.timers // A's budget never runs out: A gives up below
	pidA := <-pids

	for _, lang := range []Lang{LangJS, LangTS} {
		s := Script{Source: largeScript(100 << 10), Lang: lang, Tenant: "B"}
		done := make(chan error, 1)
		var prep *prepared
		go func() {
			var err error
			prep, err = compile(context.Background(), s, pb)
			done <- err
		}()
		<-clock.timers
		require.NoError(t, <-done)
		require.True(t, gone(<-pids))
		res, err := e.RunProgram(context.Background(), &Program{script: s, prep: prep}, okBridge, Limits{})
		require.NoError(t, err)
		require.JSONEq(t, "1", string(res.Value))
	}

	_, err := compile(context.Background(), Script{Source: largeScript(100 << 10), Tenant: "A"}, pb)
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, ScriptError, xe.Kind)
	require.Equal(t, "SyntaxError: the host is parsing another large script of this tenant; retry in a moment, or send a smaller one", xe.Message)
	require.False(t, gone(pidA), "A's first parse still runs")

	cancelA()
	require.ErrorIs(t, <-errA, context.Canceled)
	require.True(t, gone(pidA))
	require.Zero(t, pb.busy())
}

// TestParseWorkerSameResult: a worker's result is the in-process parser's,
// for what the sandbox reads of it: code, source map, errors and warnings
// with their positions and line text, a source that is not valid UTF-8
// included.
func TestParseWorkerSameResult(t *testing.T) {
	opts := api.TransformOptions{Loader: api.LoaderTS, Target: api.ESNext, Sourcefile: "s.ts", Sourcemap: api.SourceMapExternal,
		Supported: map[string]bool{"import-meta": false}}
	for _, src := range []string{
		"const n: number = 1;\nexport const m = n;\n",
		"const u = import.meta.url;\nconst \xff = 1;\n",
		"let x;\nlet x;\nconst y = ;\n",
	} {
		want := api.Transform(src, opts)
		got, err := parseInWorker(context.Background(), src, opts, nil)
		require.NoError(t, err)
		require.Equal(t, string(want.Code), string(got.Code))
		require.Equal(t, string(want.Map), string(got.Map))
		require.Equal(t, len(want.Errors), len(got.Errors))
		require.Equal(t, len(want.Warnings), len(got.Warnings))
		for i, m := range append(want.Errors, want.Warnings...) {
			g := append(got.Errors, got.Warnings...)[i]
			require.Equal(t, m.Text, g.Text)
			require.Equal(t, *m.Location, *g.Location)
		}
	}
}

// TestParseBudgetDefault: Check and every engine parse within the
// process's budget (the shared test engine is given noParseBudget), in
// worker processes.
func TestParseBudgetDefault(t *testing.T) {
	require.Equal(t, 64<<10, processParse.inline)
	require.Equal(t, time.Second, processParse.base)
	require.Equal(t, 2*time.Microsecond, processParse.perByte)
	require.GreaterOrEqual(t, processParse.slots, 2)
	require.Nil(t, processParse.after, "the real clock")
	require.Nil(t, processParse.transform, "esbuild")
	require.NotNil(t, processParse.worker)
	require.True(t, workerReady.Load(), "TestMain calls RunParseWorker")
	// Over 64 KiB, but quick to parse even in a worker built with -race.
	require.NoError(t, Check(Script{Source: "// " + strings.Repeat("x", 70<<10) + "\nreturn 1", Tenant: "default"}))
	require.Zero(t, processParse.busy())
}

// BenchmarkParseWorker is what a worker process costs: one parse of a
// small source in a worker, start to exit.
func BenchmarkParseWorker(b *testing.B) {
	opts := api.TransformOptions{Loader: api.LoaderJS}
	for b.Loop() {
		if _, err := parseInWorker(context.Background(), "return 1", opts, nil); err != nil {
			b.Fatal(err)
		}
	}
}
