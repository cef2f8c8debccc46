package quickjs

import (
	"context"
	"runtime"
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

// bigInstance returns an instance restored from a snapshot, with a 64 MiB
// heap limit, that holds a 48 MiB Uint8Array a.
func bigInstance(t *testing.T) *Instance {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("memory images need Linux")
	}
	if raceEnabled {
		t.Skip("measures CPU time")
	}
	rt := testRuntime(t, Config{MemoryLimitPages: 2048})
	ctx := context.Background()
	seed, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	snap, err := rt.Snapshot(ctx, seed)
	require.NoError(t, err)
	seed.Close(ctx)
	in, err := rt.Restore(ctx, snap)
	require.NoError(t, err)
	t.Cleanup(func() { in.Close(ctx) })
	require.Equal(t, "ok", evalText(t, in, `globalThis.a = new Uint8Array(48 << 20); throw "ok"`))
	return in
}

// idleFor keeps in idle for d, long enough for the idle drop to run.
func idleFor(in *Instance, d time.Duration) {
	in.IdleBegin()
	time.Sleep(d)
	in.IdleEnd()
}

// TestIdleRescanOfDirtyPagesIsPaidFor: a chain that keeps 48 MiB of pages
// that differ from zero only in their last byte, and then only sleeps
// (setTimeout in a loop, or a slow tool), must not make the host compare
// those 48 MiB again at every wait: the guest paid once for dirtying them;
// the host would pay at every idle wait, outside any of the chain's limits
// (T1, "every loop is paid for").
func TestIdleRescanOfDirtyPagesIsPaidFor(t *testing.T) {
	in := bigInstance(t)
	require.Equal(t, "ok", evalText(t, in, `for (let i = 4095; i < a.length; i += 4096) a[i] = 1; throw "ok"`))
	idleFor(in, 3*idleCompact) // the first drop compares every page once
	const waits = 5
	before := cpuTime(t)
	for range waits {
		require.Equal(t, "1", evalText(t, in, `throw String(a[4095])`)) // a wake: the guest writes nothing new
		idleFor(in, 3*idleCompact)
	}
	used := cpuTime(t) - before
	t.Logf("%d idle waits of %v with 48 MiB dirty: %v of CPU", waits, 3*idleCompact, used)
	require.Less(t, used, waits*5*time.Millisecond, "an idle wait compares only the pages the guest wrote since the last one")
	require.Equal(t, "12288", evalText(t, in, `{ let n = 0; for (let i = 4095; i < a.length; i += 4096) n += a[i]; throw String(n) }`))
}

// TestIdleDropOfReadPagesIsPaidFor: a guest that only reads fresh pages
// (the kernel maps its shared zero page there) commits no memory of its
// own, and the idle drop must not cost the host more than the reads cost
// the guest: each such page is neither compared nor madvised one by one.
func TestIdleDropOfReadPagesIsPaidFor(t *testing.T) {
	in := bigInstance(t)
	idleFor(in, 3*idleCompact) // a's pages, zeroed by calloc, are dropped
	before := cpuTime(t)
	require.Equal(t, "0", evalText(t, in, `{ let s = 0; for (let i = 0; i < a.length; i += 4096) s += a[i]; throw String(s) }`))
	guest := cpuTime(t) - before
	before = cpuTime(t)
	idleFor(in, 3*idleCompact)
	host := cpuTime(t) - before
	t.Logf("guest read 12288 pages in %v of CPU; the idle drop took %v", guest, host)
	require.Less(t, host, guest/4, "the reads committed nothing: the drop costs next to nothing")
}

// TestIdleDropOfZeroedPagesIsPaidFor: a guest that writes zeros over 48 MiB
// of fresh pages (a.fill(0) in a loop with sleeps) makes every page its
// own, and the idle drop hands them all back; that must cost the host less
// than the writes cost the guest, not one madvise per page.
func TestIdleDropOfZeroedPagesIsPaidFor(t *testing.T) {
	in := bigInstance(t)
	idleFor(in, 3*idleCompact) // a's pages, zeroed by calloc, are dropped
	var guest, host time.Duration
	for range 3 {
		before := cpuTime(t)
		require.Equal(t, "ok", evalText(t, in, `a.fill(1); a.fill(0); throw "ok"`))
		guest += cpuTime(t) - before
		before = cpuTime(t)
		idleFor(in, 3*idleCompact)
		host += cpuTime(t) - before
	}
	t.Logf("guest zeroed 48 MiB three times in %v of CPU; the idle drops took %v", guest, host)
	require.Less(t, host, guest, "the drops cost less than the writes that caused them")
	require.Equal(t, "0", evalText(t, in, `throw String(a[12345] + a[a.length - 1])`))
}
