package sandbox

import (
	"context"
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
