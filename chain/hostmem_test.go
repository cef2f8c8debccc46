package chain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/fsblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// hostMemEnv is a runner whose HIGH tool "send" waits in an approval queue
// that keeps large arguments in a file store, as `airlock serve` does, so
// that the store's copy is on disk and what the heap holds is the host's
// own.
type hostMemEnv struct {
	runner *chain.Runner
	queue  *approval.Queue
	ended  atomic.Int64 // calls that ended
}

func newHostMemEnv(t testing.TB, opts invoker.Options) *hostMemEnv {
	e := &hostMemEnv{}
	drv, err := fsblob.New(t.TempDir())
	require.NoError(t, err)
	store := blobstore.New(drv, blobstore.Options{})
	t.Cleanup(func() { _ = store.Close() })
	box, err := toolbox.New(
		toolbox.Func("send", "Sends a message", func(_ context.Context, in sendIn) (int, error) {
			return len(in.To), nil
		}).WithRisk(toolbox.High),
	)
	require.NoError(t, err)
	e.queue = approval.NewQueue(approval.Options{Store: store})
	// The handler keeps the request it was shown until it decides, as the
	// metrics wrapper of `airlock serve` does: what it was shown is held
	// for the whole wait.
	opts.Approver = invoker.ApprovalFunc(func(ctx context.Context, req invoker.ApprovalRequest) (invoker.Decision, error) {
		d, err := e.queue.Approve(ctx, req)
		runtime.KeepAlive(req)
		return d, err
	})
	opts.Store = store
	opts.Policy.CallTimeout, opts.Policy.ApprovalTimeout = 10*time.Minute, 9*time.Minute
	opts.Hooks.OnToolEnd = func(context.Context, invoker.Event) { e.ended.Add(1) }
	inv, err := invoker.New(box, opts)
	require.NoError(t, err)
	e.runner, err = chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	return e
}

// bigArgs is the length of the arguments bigSends sends, and bigCharge
// what each such call is charged against the tenant's budget: its state,
// its arguments, and decoding them (their text and three values).
const (
	bigArgs   = (1 << 20) - 64 + len(`{"to":""}`)
	bigCharge = invoker.CallOverhead + 2*bigArgs + 3*invoker.DecodedValueBytes
)

// bigSends is a script that starts n calls of send with about 1 MiB of
// arguments each, all at once, and returns how each ended.
func bigSends(n int) string {
	return fmt.Sprintf(`const big = "x".repeat(%d);
const out = await Promise.allSettled(Array.from({length: %d}, () => tools.send({to: big})));
return out.map(o => o.status === "fulfilled" ? "ok" : o.reason.reason);`, (1<<20)-64, n)
}

func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// approveAll approves every pending request of tenant.
func (e *hostMemEnv) approveAll(tenant string) {
	for _, r := range e.queue.List(tenant) {
		_, _ = e.queue.Decide(tenant, r.ID, invoker.Approved, r.ArgsHash)
	}
}

// TestHostMemoryOfWaitingCalls: five chains of one tenant each start 50
// calls of a HIGH tool with about 1 MiB of arguments, which wait for
// approval. The heap they hold while they wait stays within the tenant's
// MaxTenantInFlightBytes plus a small overhead (docs/limits.md, "Host
// memory held for calls"): the calls that fit wait (31: each is charged
// its arguments and what decoding them takes, 2 MiB, and holds one copy of
// them while it waits); the others end at once with tenant_memory. A chain of
// another tenant runs alongside and its call is approved and runs. Before
// the budget, the same calls held 2 MiB each: about 500 MiB of heap.
func TestHostMemoryOfWaitingCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 250 MiB of arguments through the sandbox")
	}
	if os.Getenv("AIRLOCK_HOSTMEM_PROFILE") != "" {
		runtime.MemProfileRate = 4096
	}
	const chains, calls = 5, 50
	e := newHostMemEnv(t, invoker.Options{})
	base, baseRSS := heapInuse(), rss()

	src := bigSends(calls)
	results := make([]*chain.RunResult, chains)
	var wg sync.WaitGroup
	for i := range chains {
		wg.Go(func() {
			res, err := e.runner.Run(context.Background(), sandbox.Script{Source: src},
				chain.Options{Tenant: "t1", Limits: sandbox.Limits{Timeout: 10 * time.Minute}})
			if err == nil {
				results[i] = res
			}
		})
	}
	// Every call has either ended (refused) or waits in the queue.
	require.Eventually(t, func() bool { return e.ended.Load()+int64(e.queue.Len()) == chains*calls },
		5*time.Minute, 20*time.Millisecond)
	fits := int(invoker.DefaultMaxTenantInFlightBytes / bigCharge)
	require.Equal(t, fits, e.queue.Len(), "the calls within the tenant's budget wait")
	require.Equal(t, e.runner.Invoker().TenantInFlightBytes("t1"), int64(fits*bigCharge))

	inuse := heapInuse()
	grow := int64(inuse) - int64(base)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d calls wait, %d refused; heap in use grew by %.1f MiB (HeapAlloc %.1f MiB, StackInuse %.1f MiB); RSS grew by %.1f MiB, Go heap retained from the OS %.1f MiB (not asserted: RSS holds the guests' memories and garbage the runtime has not returned yet)",
		e.queue.Len(), e.ended.Load(), float64(grow)/(1<<20), float64(ms.HeapAlloc)/(1<<20), float64(ms.StackInuse)/(1<<20),
		float64(rss()-baseRSS)/(1<<20), float64(ms.HeapSys-ms.HeapReleased)/(1<<20))
	if f := os.Getenv("AIRLOCK_HOSTMEM_PROFILE"); f != "" {
		out, err := os.Create(f)
		require.NoError(t, err)
		require.NoError(t, pprof.WriteHeapProfile(out))
		require.NoError(t, out.Close())
	}
	// The bound: the tenant's budget, plus per call 8 KiB of host state
	// (sessions, records, contexts, events, approval requests), plus 16 MiB
	// for what does not scale with the calls (the encoder's pooled
	// buffers, the engine's instances, the store).
	bound := int64(invoker.DefaultMaxTenantInFlightBytes) + chains*calls*(8<<10) + 16<<20
	require.LessOrEqual(t, grow, bound, "heap held while the calls wait")

	// Another tenant's chain is not affected: its call waits, is approved
	// and runs.
	other := make(chan *chain.RunResult, 1)
	go func() {
		res, err := e.runner.Run(context.Background(), sandbox.Script{Source: `return await tools.send({to: "bob"})`},
			chain.Options{Tenant: "t2"})
		if err == nil {
			other <- res
		}
		close(other)
	}()
	require.Eventually(t, func() bool { return len(e.queue.List("t2")) == 1 }, time.Minute, 10*time.Millisecond)
	e.approveAll("t2")
	res := <-other
	require.NotNil(t, res)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `3`, string(res.Value))

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for waiting := true; waiting; {
		e.approveAll("t1")
		select {
		case <-done:
			waiting = false
		case <-time.After(20 * time.Millisecond):
		}
	}
	ran, refused := 0, 0
	for _, res := range results {
		require.NotNil(t, res)
		require.Equal(t, chain.StatusOK, res.Status, res.Error)
		var out []string
		require.NoError(t, json.Unmarshal(res.Value, &out))
		for _, o := range out {
			switch o {
			case "ok":
				ran++
			case invoker.ReasonTenantMemory:
				refused++
			default:
				t.Fatalf("a call ended %q", o)
			}
		}
		require.Equal(t, len(out)-countOK(out), countReason(res, invoker.ReasonTenantMemory), "the trace records the refusals")
	}
	require.Equal(t, fits, ran)
	require.Equal(t, chains*calls-fits, refused)
	require.Zero(t, e.runner.Invoker().TenantInFlightBytes("t1"), "everything held is released")
}

func countOK(out []string) int {
	n := 0
	for _, o := range out {
		if o == "ok" {
			n++
		}
	}
	return n
}
