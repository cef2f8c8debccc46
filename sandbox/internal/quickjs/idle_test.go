package quickjs

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seeded returns a snapshot of an instance holding some state, after
// FillFreeChunks when fill.
func seeded(t *testing.T, rt *Runtime, fill bool) *Snapshot {
	t.Helper()
	ctx := context.Background()
	seed, err := rt.NewInstance(ctx, 8<<20)
	require.NoError(t, err)
	defer seed.Close(ctx)
	// Garbage left behind leaves holes in the allocator's free lists.
	require.Equal(t, "ok", evalText(t, seed, `globalThis.keep = []; for (let i = 0; i < 2000; i++) { const o = {i, s: "x" + i}; if (i % 3 === 0) keep.push(o); } throw "ok"`))
	if fill {
		n, err := seed.FillFreeChunks(ctx)
		require.NoError(t, err)
		require.Positive(t, n, "the garbage left free chunks")
	}
	snap, err := rt.Snapshot(ctx, seed)
	require.NoError(t, err)
	return snap
}

// chainLike runs in in what a short chain does: compile a little code,
// allocate, call functions of the snapshot; it returns its answer.
const chainLike = `{ const m = new Map(); for (let i = 0; i < 300; i++) m.set("k" + i, {i}); throw String(keep.length + m.size) }`

func TestFillFreeChunksKeepsWritesTogether(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory images need Linux")
	}
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	private := map[bool]int{}
	for _, fill := range []bool{false, true} {
		snap := seeded(t, rt, fill)
		in, err := rt.Restore(ctx, snap)
		require.NoError(t, err)
		require.Equal(t, "967", evalText(t, in, chainLike), "the same answer, filled or not")
		private[fill] = in.lin.PrivatePages()
		t.Logf("filled %v: %d private pages", fill, private[fill])
		require.Positive(t, private[fill])
		in.Close(ctx)
	}
	require.Less(t, private[true], private[false], "a filled image makes the chain write fewer pages of its own")
}

// TestIdleDropsCleanPages checks that an instance left idle hands back the
// pages that read as the image again, and runs on unchanged.
func TestIdleDropsCleanPages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory images need Linux")
	}
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.Restore(ctx, seeded(t, rt, true))
	require.NoError(t, err)
	defer in.Close(ctx)
	require.Equal(t, "967", evalText(t, in, chainLike))
	before := in.lin.PrivatePages()
	in.IdleBegin()
	require.Eventually(t, func() bool { return in.lin.PrivatePages() < before }, 5*time.Second, idleCompact/2)
	in.IdleEnd()
	require.Equal(t, "666333", evalText(t, in, `{ let r = 0; for (const o of keep) r += o.i; throw String(r) }`), "the state survives")
}

// TestIdleRace alternates guest calls with idle waits of every length
// around idleCompact, under the race detector in CI: a drop must never
// overlap a call, and the guest's state must survive every drop.
func TestIdleRace(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.Restore(ctx, seeded(t, rt, true))
	require.NoError(t, err)
	defer in.Close(ctx)
	require.Equal(t, "1", evalText(t, in, `globalThis.n = 1; throw String(n)`))
	for i := range 14 {
		in.IdleBegin()
		time.Sleep(time.Duration(i%7) * idleCompact / 3)
		in.IdleEnd()
		require.Equal(t, "967", evalText(t, in, chainLike))
		require.Equal(t, itoa(i+2), evalText(t, in, `n++; throw String(n)`))
	}
	in.IdleBegin()
	in.Close(ctx) // closing while idle stops the timer
	in.IdleEnd()
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestFillFreeChunksBigHole: a hole larger than any first probe (a 2 MiB
// string freed) is filled too: the probe doubles until it grows the
// memory, so it comes from the top, not from the hole.
func TestFillFreeChunksBigHole(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 32<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	// A 2 MiB string with a 1 MiB one kept after it: freed, the first
	// leaves a hole below the top.
	require.Equal(t, "ok", evalText(t, in, `{ let big = "x".repeat(2 << 20) + "y"; globalThis.kept = "z".repeat(1 << 20) + "w"; big = null; } throw "ok"`))
	at := func() uint64 {
		t.Helper()
		p, err := in.call(ctx, fnMalloc, 512<<10)
		require.NoError(t, err)
		require.NotZero(t, p)
		_, err = in.call(ctx, fnFree, p)
		require.NoError(t, err)
		return p
	}
	hole := at() // in the freed string's hole
	n, err := in.FillFreeChunks(ctx)
	require.NoError(t, err)
	require.Positive(t, n)
	require.Greater(t, at(), hole, "the hole is filled: 512 KiB come from the top, above it")
	require.Equal(t, "3", evalText(t, in, `throw String(1 + 2)`))
}
