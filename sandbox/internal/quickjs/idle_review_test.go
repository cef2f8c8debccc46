package quickjs

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// bigInstance returns an instance restored from a snapshot, with a 64 MiB
// heap limit, that holds a 48 MiB Uint8Array a.
func bigInstance(t *testing.T) *Instance {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("memory images need Linux")
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
// (T1, "every loop is paid for"). A drop compares only the pages made
// private since the last one.
func TestIdleRescanOfDirtyPagesIsPaidFor(t *testing.T) {
	in := bigInstance(t)
	require.Equal(t, "ok", evalText(t, in, `for (let i = 4095; i < a.length; i += 4096) a[i] = 1; throw "ok"`))
	_, compared := in.lin.DropClean(nil)
	require.GreaterOrEqual(t, compared, 12288, "the first drop compares every page the guest wrote")
	for range 5 {
		require.Equal(t, "1", evalText(t, in, `throw String(a[4095])`)) // a wake: the guest writes nothing new
		_, compared := in.lin.DropClean(nil)
		require.Less(t, compared, 256, "a wake compares what the wake wrote, not the 48 MiB")
	}
	require.Equal(t, "12288", evalText(t, in, `{ let n = 0; for (let i = 4095; i < a.length; i += 4096) n += a[i]; throw String(n) }`))
}

// TestIdleDropOfReadPagesIsPaidFor: a guest that only reads fresh pages
// (the kernel maps its shared zero page there) commits no memory of its
// own: such pages are not the memory's own, and a drop neither compares
// nor madvises them.
func TestIdleDropOfReadPagesIsPaidFor(t *testing.T) {
	in := bigInstance(t)
	in.lin.DropClean(nil) // a's pages, zeroed by calloc, are dropped
	require.Equal(t, "0", evalText(t, in, `{ let s = 0; for (let i = 0; i < a.length; i += 4096) s += a[i]; throw String(s) }`))
	require.Less(t, in.lin.PrivatePages(), 256, "12288 pages read, none of them the memory's own")
	_, compared := in.lin.DropClean(nil)
	require.Less(t, compared, 256)
}

// TestIdleDropOfZeroedPagesIsPaidFor: a guest that writes zeros over 48 MiB
// of fresh pages (a.fill(0) in a loop with sleeps) makes every page its
// own, and the drop hands them all back, every time.
func TestIdleDropOfZeroedPagesIsPaidFor(t *testing.T) {
	in := bigInstance(t)
	in.lin.DropClean(nil) // a's pages, zeroed by calloc, are dropped
	for range 3 {
		require.Equal(t, "ok", evalText(t, in, `a.fill(1); a.fill(0); throw "ok"`))
		dropped, _ := in.lin.DropClean(nil)
		// 48 MiB is 12288 pages; the array's first and last may be
		// shared with other allocations, which are not zero.
		require.GreaterOrEqual(t, dropped, 12287)
		require.Less(t, in.lin.PrivatePages(), 256)
	}
	require.Equal(t, "0", evalText(t, in, `throw String(a[12345] + a[a.length - 1])`))
}

// TestIdleDropStops: IdleEnd stops a drop in progress within a few dozen
// pages, so a wake never waits for a whole scan.
func TestIdleDropStops(t *testing.T) {
	in := bigInstance(t)
	require.Equal(t, "ok", evalText(t, in, `a.fill(1); a.fill(0); throw "ok"`))
	var stop atomic.Bool
	stop.Store(true)
	dropped, compared := in.lin.DropClean(&stop)
	require.Zero(t, dropped)
	require.Zero(t, compared)
	require.Equal(t, "0", evalText(t, in, `throw String(a[12345])`))
}

// lostWrites is guest code that, for about ms milliseconds, makes pages of
// the 1 MiB array w clean and dirty in turn and counts the writes it does
// not read back: a drop racing a guest call would lose one.
const lostWrites = `{
	const w = globalThis.w ??= new Uint8Array(1 << 20);
	let lost = 0, i = 0;
	const end = Date.now() + %d;
	for (; Date.now() < end; i++) {
		for (let p = 0; p < w.length; p += 4096) w[p] = 1;
		for (let p = 0; p < w.length; p += 4096) if (w[p] !== 1) lost++;
		for (let p = 0; p < w.length; p += 4096) w[p] = 0;
	}
	throw lost + " " + (i > 10);
}`

// TestIdleTimerOfClosedInstance: an instance closed while idle, its drop
// timer still pending, hands its mapping to the next instance restored
// from the snapshot (another tenant's); the old timer must never drop a
// page of the new instance while its guest runs (T1 against T1).
func TestIdleTimerOfClosedInstance(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory images need Linux")
	}
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	snap := seeded(t, rt, true)
	for range 3 {
		a, err := rt.Restore(ctx, snap)
		require.NoError(t, err)
		require.Equal(t, "967", evalText(t, a, chainLike))
		aMem, _ := a.mem.Read(0, 1)
		a.IdleBegin()
		time.Sleep(idleCompact - 2*time.Millisecond)
		a.Close(ctx) // while the timer is about to fire
		a.IdleEnd()
		b, err := rt.Restore(ctx, snap)
		require.NoError(t, err)
		b.SetClock(realClock{}) // lostWrites reads the clock
		bMem, _ := b.mem.Read(0, 1)
		require.Same(t, &aMem[0], &bMem[0], "b has a's mapping")
		require.Equal(t, "0 true", evalText(t, b, fmt.Sprintf(lostWrites, 3*idleCompact/time.Millisecond)))
		require.Equal(t, "967", evalText(t, b, chainLike))
		b.Close(ctx)
	}
}

// TestIdleDropNeverDuringACall alternates short idle waits with guest calls
// that make pages clean and dirty in turn, with Interrupt-free host writes
// (SetStackLimit) between: no write is ever lost.
func TestIdleDropNeverDuringACall(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory images need Linux")
	}
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.Restore(ctx, seeded(t, rt, true))
	require.NoError(t, err)
	defer in.Close(ctx)
	in.SetClock(realClock{}) // lostWrites reads the clock
	for i := range 8 {
		in.IdleBegin()
		time.Sleep(time.Duration(i%4) * idleCompact / 2)
		in.IdleEnd()
		in.SetStackLimit(uint32(32<<10 + i*1024)) // a host write between idle waits
		require.Equal(t, "0 true", evalText(t, in, fmt.Sprintf(lostWrites, 2*idleCompact/time.Millisecond)))
	}
	require.Equal(t, "967", evalText(t, in, chainLike))
}

// TestIdleCaptureUnchanged: a state captured for parking is the same
// before and after the idle drop handed pages back.
func TestIdleCaptureUnchanged(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory images need Linux")
	}
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	snap := seeded(t, rt, true)
	in, err := rt.Restore(ctx, snap)
	require.NoError(t, err)
	defer in.Close(ctx)
	require.Equal(t, "967", evalText(t, in, chainLike))
	base := BaseOf(snap)
	before, err := rt.Capture(ctx, in, base)
	require.NoError(t, err)
	private := in.lin.PrivatePages()
	idleFor(in, 3*idleCompact)
	require.Less(t, in.lin.PrivatePages(), private, "pages were dropped")
	after, err := rt.Capture(ctx, in, base)
	require.NoError(t, err)
	requireSameState(t, before, after)
	back, err := rt.RestoreParked(ctx, after, base)
	require.NoError(t, err)
	defer back.Close(ctx)
	require.Equal(t, "666333", evalText(t, back, `{ let r = 0; for (const o of keep) r += o.i; throw String(r) }`))
}

// TestIdleWhileRuntimeCloses closes the runtime from another goroutine,
// and interrupts the instance, while its idle drop runs: nothing faults,
// and the instance fails its next call instead of running on freed memory.
func TestIdleWhileRuntimeCloses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory images need Linux")
	}
	rt := testRuntime(t, Config{MemoryLimitPages: 2048})
	ctx := context.Background()
	seed, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	snap, err := rt.Snapshot(ctx, seed)
	require.NoError(t, err)
	seed.Close(ctx)
	other, err := rt.Restore(ctx, snap)
	require.NoError(t, err)
	defer other.Close(ctx)
	in, err := rt.Restore(ctx, snap)
	require.NoError(t, err)
	defer in.Close(ctx)
	// 48 MiB of zeroed pages: a drop that lasts a while.
	require.Equal(t, "ok", evalText(t, in, `globalThis.a = new Uint8Array(48 << 20); a.fill(1); a.fill(0); throw "ok"`))
	require.Equal(t, "1", evalText(t, other, `globalThis.n = 1; throw String(n)`))
	other.IdleBegin()
	in.IdleBegin()
	time.Sleep(idleCompact + 2*time.Millisecond) // the drop has begun
	done := make(chan struct{})
	go func() {
		defer close(done)
		in.Interrupt()
		_ = rt.Close(ctx)
	}()
	<-done
	in.IdleEnd()
	other.IdleEnd()
	_, _, err = in.Eval(ctx, `a[0]`, "test.js")
	require.ErrorIs(t, err, ErrGuest)
	_, _, err = other.Eval(ctx, `n`, "test.js")
	require.ErrorIs(t, err, ErrGuest)
}

// realClock is the host's clock.
type realClock struct{}

func (realClock) Wall() int64 { return time.Now().UnixNano() }
func (realClock) Mono() int64 { return time.Now().UnixNano() }

// TestFillFreeChunksKeepsTheLimit: the chunks a filled snapshot keeps
// allocated for good take nothing a chain could have used: as many 1 MiB
// strings fit in an instance restored from a filled snapshot as from an
// unfilled one, and the instance still fails cleanly at the end.
func TestFillFreeChunksKeepsTheLimit(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	fit := map[bool]string{}
	for _, fill := range []bool{false, true} {
		in, err := rt.Restore(ctx, seeded(t, rt, fill))
		require.NoError(t, err)
		fit[fill] = evalText(t, in, `{ const a = []; try { for (;;) a.push("x".repeat(1 << 20) + a.length) } catch (e) { throw a.length + " " + e } }`)
		require.Equal(t, "967", evalText(t, in, chainLike), "the instance runs on after running out of memory")
		in.Close(ctx)
	}
	t.Logf("1 MiB strings that fit in an 8 MiB heap: %q unfilled, %q filled", fit[false], fit[true])
	require.Equal(t, fit[false], fit[true])
}
