package sandbox

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestHostileSleeperWithDirtyMemory: a chain (T1) that dirties 48 MiB,
// one byte per page, and then only sleeps must cost the host next to
// nothing while it sleeps, as a blocked chain did before the idle drop:
// every wait longer than 20 ms makes the instance compare all its pages
// with the image again (quickjs.Instance.IdleBegin), on a timer goroutine
// that no limit of the chain counts. A few such chains would keep every
// core of the host busy for their whole 300 s timeout. A healthy chain of
// another tenant runs alongside.
func TestHostileSleeperWithDirtyMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory images need Linux")
	}
	if raceEnabled {
		t.Skip("measures CPU time")
	}
	e := engine(t)
	var mu sync.Mutex
	var marks []time.Duration
	var walls []time.Time
	bridge := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		if tool == "mark" {
			mu.Lock()
			marks, walls = append(marks, cpuTime(t)), append(walls, time.Now())
			mu.Unlock()
		}
		return okBridge(ctx, tool, args)
	}
	wait := bystander(t, e)
	res, err := e.Run(context.Background(), Script{Source: `
		const a = new Uint8Array(48 << 20);
		for (let i = 4095; i < a.length; i += 4096) a[i] = 1;
		await tools.mark();
		for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 25));
		await tools.mark();
		return a[4095] + a[a.length - 1];`, Tenant: "hostile"}, bridge, Limits{})
	wait()
	require.NoError(t, err)
	require.JSONEq(t, `2`, string(res.Value))
	require.Len(t, marks, 2)
	cpu, wall := marks[1]-marks[0], walls[1].Sub(walls[0])
	t.Logf("sleeping 20 × 25 ms with 48 MiB dirty: %v of CPU in %v", cpu, wall)
	// 20 wakes of a chain with nothing dirty, and the bystander, take some
	// 35 ms of CPU on a 2-core VM; rescanning 48 MiB at each wait, ~330 ms
	// (and the chain's 500 ms of sleeps then last ~1.1 s: each wake waits
	// for the scan in progress).
	require.Less(t, cpu, 100*time.Millisecond, "a sleeping chain costs the host next to nothing")
}

// idleParkScript builds state, waits for slow tools (each wait long enough
// for the idle drop), frees part of the state, then makes a call that
// parks the chain.
const idleParkScript = `
const m = new Map();
for (let i = 0; i < 2000; i++) m.set("k" + i, {i, s: "v" + i});
let sum = 0;
for (let j = 0; j < 3; j++) {
  const r = await tools.slow({j});
  sum += r.args.j;
  for (let i = 0; i < 500; i++) m.delete("k" + (j * 500 + i));
  await new Promise((res) => setTimeout(res, 1));
}
const [p] = await Promise.all([tools.risky({n: 1}), tools.slow({j: 10})]);
let t = 0;
for (const [, v] of m) t += v.i;
return {sum, t, size: m.size, p: p.args.n, r: Math.random()};
`

// TestIdleDropThenPark: a chain whose pages were dropped while it waited
// parks and resumes to the result of an uninterrupted run; a healthy chain
// of another tenant runs alongside.
func TestIdleDropThenPark(t *testing.T) {
	e := engine(t)
	slow := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		if tool == "slow" {
			time.Sleep(50 * time.Millisecond) // > the 20 ms idle drop
		}
		if tool == "risky" && ctx.Value(parkKey{}) != nil {
			return nil, &Pending{Token: append([]byte(nil), args...)}
		}
		return okBridge(ctx, tool, args)
	}
	wait := bystander(t, e)
	guest := Guest{Clock: ClockVirtual, Seed: 11}
	want, err := e.Run(context.Background(), Script{Source: idleParkScript, Guest: guest, Tenant: "a"}, slow, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `{"sum":3,"t":874750,"size":500,"p":1,"r":`+string(mustField(t, want.Value, "r"))+`}`, string(want.Value))
	ctx := context.WithValue(context.Background(), parkKey{}, true)
	res, err := e.Run(ctx, Script{Source: idleParkScript, Guest: guest, Park: true, Tenant: "a"}, slow, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	got, err := e.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: slow, Retry: approveAll})
	require.NoError(t, err)
	require.JSONEq(t, string(want.Value), string(got.Value))
	wait()
}

type parkKey struct{}

func mustField(t *testing.T, v []byte, k string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(v, &m))
	return m[k]
}

// TestIdleDropTimeoutDuringLoneCall: a run whose time limit passes while
// its lone call runs inline, its instance idle and the drop in progress,
// ends with Timeout; a healthy chain runs alongside.
func TestIdleDropTimeoutDuringLoneCall(t *testing.T) {
	e := engine(t)
	wait := bystander(t, e)
	hang := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	_, err := e.Run(context.Background(), Script{Source: `
		const a = new Uint8Array(32 << 20); a.fill(1); a.fill(0);
		await tools.hang();`}, hang, Limits{Timeout: 300 * time.Millisecond})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, Timeout, xe.Kind)
	wait()
}
