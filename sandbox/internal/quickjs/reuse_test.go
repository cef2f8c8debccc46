package quickjs

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// TestCorruptedInstancesLeaveNoTrace hammers the paths by which state
// could cross from one instance to the next through the recycled linear
// memories, the snapshot and the runtime: an instance whose heap the
// ownKeys overflow corrupted is entered again while a goroutine tied to
// the call's context interrupts it, then closed; instances created and
// restored from the same Runtime right after (often on the same recycled
// mapping) must run normally and hold nothing of it.
func TestCorruptedInstancesLeaveNoTrace(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	const heap = 8 << 20
	seed, err := rt.NewInstance(ctx, heap)
	require.NoError(t, err)
	require.Equal(t, "seeded", evalText(t, seed, "globalThis.fromSnapshot = 'seeded'; throw fromSnapshot"))
	snap, err := rt.Snapshot(ctx, seed)
	require.NoError(t, err)
	seed.Close(ctx)
	iterations := 40
	if testing.Short() {
		iterations = 8
	}
	for i := range iterations {
		bad, err := rt.NewInstance(ctx, heap)
		require.NoError(t, err)
		_, _, err = bad.Eval(ctx, ownKeysOverflow, "attack.js")
		require.ErrorIs(t, err, ErrGuest)
		// Re-enter it, with an interrupt racing the call.
		cctx, cancel := context.WithTimeout(ctx, time.Duration(i%4)*time.Millisecond)
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			<-cctx.Done()
			bad.Interrupt()
		}()
		_, _, _ = bad.Eval(cctx, "globalThis.marker = 'CORRUPT-"+fmt.Sprint(i)+"'; for (let i = 0; i < 1e5; i++) new Array(64).fill(i); throw 1", "again.js")
		cancel()
		<-stopped
		bad.Close(ctx)
		bad.Interrupt() // after Close: harmless

		fresh, err := rt.NewInstance(ctx, heap)
		require.NoError(t, err, "iteration %d", i)
		require.Equal(t, "undefined 499500", evalText(t, fresh, "let s = 0; for (let i = 0; i < 1000; i++) s += i; throw typeof marker + ' ' + s"))
		restored, err := rt.Restore(ctx, snap)
		require.NoError(t, err, "iteration %d", i)
		require.Equal(t, "seeded undefined", evalText(t, restored, "throw fromSnapshot + ' ' + typeof marker"))
		mem, ok := restored.mem.Read(0, restored.mem.Size())
		require.True(t, ok)
		require.NotContains(t, string(mem), "CORRUPT-")
		fresh.Close(ctx)
		restored.Close(ctx)
	}
}

// TestRuntimeCloseWhileRunning closes the runtime while guests run on
// other goroutines: each guest traps at its next yield instead of writing
// into (or faulting on) a memory that has gone back to the pool, and its
// memory stays readable by its owner until the instance's own Close.
//
// wazero itself reads and writes the memory's allocator field unsynchronised
// when a module is closed under a running guest (MemoryInstance.Grow against
// ensureResourcesClosed), so the race detector objects to the scenario
// itself; sandbox.ScriptEngine never closes a runtime under a running chain.
func TestRuntimeCloseWhileRunning(t *testing.T) {
	if raceEnabled {
		t.Skip("wazero's own unsynchronised close (see above)")
	}
	ctx := context.Background()
	cache := wazero.NewCompilationCache()
	defer cache.Close(ctx)
	for round := range 4 {
		rt := testRuntime(t, Config{Cache: cache})
		var wg sync.WaitGroup
		started := make(chan struct{}, 4)
		for range 4 {
			in, err := rt.NewInstance(ctx, 8<<20)
			require.NoError(t, err)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer in.Close(ctx)
				started <- struct{}{}
				_, _, err := in.Eval(ctx, "let a = []; for (let i = 0; ; i++) { a.push({ i }); if (a.length > 1e4) a = [] }", "w.js")
				require.ErrorIs(t, err, ErrGuest)
				// The memory is still this instance's: reading it is safe.
				_, ok := in.mem.Read(0, in.mem.Size())
				require.True(t, ok)
			}()
		}
		for range 4 {
			<-started
		}
		time.Sleep(time.Duration(round) * time.Millisecond)
		require.NoError(t, rt.Close(ctx))
		wg.Wait()
	}
}

// TestCloseFromHandler closes the instance from inside a host call: the
// guest call in progress ends, and the memory is handed back only then.
func TestCloseFromHandler(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 8<<20)
	require.NoError(t, err)
	h := handlerFunc(func(ctx context.Context, in *Instance, _ []uint64) uint64 {
		in.Close(ctx)
		require.True(t, in.pinned, "the memory stays pinned while the call is in progress")
		return in.Undefined()
	})
	_, _, err = in.Eval(WithHandler(ctx, in, h), "__airlock_host(); for (let i = 0; i < 1e6; i++) new Array(8); throw 1", "c.js")
	require.ErrorIs(t, err, ErrGuest)
	require.False(t, in.pinned)
	next, err := rt.NewInstance(ctx, 8<<20)
	require.NoError(t, err)
	defer next.Close(ctx)
	require.Equal(t, "3", evalText(t, next, "throw String(1 + 2)"))
}

type handlerFunc func(ctx context.Context, in *Instance, args []uint64) uint64

func (f handlerFunc) HostCall(ctx context.Context, in *Instance, args []uint64) uint64 {
	return f(ctx, in, args)
}

// TestRestoreFromImage checks that an instance restored from a snapshot's
// shared image holds exactly the snapshot's memory, also on a mapping a
// previous instance wrote all over, and that what one instance writes is
// not seen by another restored alongside.
func TestRestoreFromImage(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	seed, err := rt.NewInstance(ctx, 8<<20)
	require.NoError(t, err)
	require.Equal(t, "ok", evalText(t, seed, "globalThis.kept = 'ok'; throw kept"))
	snap, err := rt.Snapshot(ctx, seed)
	require.NoError(t, err)
	seed.Close(ctx)
	want, _, err := BaseOf(snap).image(ctx, rt, snap.heapLimit)
	require.NoError(t, err)
	for i := range 4 {
		a, err := rt.Restore(ctx, snap)
		require.NoError(t, err)
		b, err := rt.Restore(ctx, snap)
		require.NoError(t, err)
		if runtime.GOOS == "linux" {
			require.NotNil(t, a.lin, "iteration %d", i)
			img, _ := snap.image(ctx, rt)
			require.NotNil(t, img, "the image is shared on Linux")
		}
		mem, ok := a.mem.Read(0, a.mem.Size())
		require.True(t, ok)
		require.True(t, bytes.Equal(want, mem[:len(want)]), "iteration %d: restored memory differs from the snapshot's", i)
		require.Equal(t, "ok object", evalText(t, a, "globalThis.scribble = []; for (let i = 0; i < 1e4; i++) scribble.push('A'.repeat(40) + i); throw kept + ' ' + typeof scribble"))
		require.Equal(t, "ok undefined", evalText(t, b, "throw kept + ' ' + typeof scribble"))
		a.Close(ctx)
		b.Close(ctx)
	}
}

// TestRestoredLookupsStayPerInstance checks that what a restored instance
// looks up and compiles (GlobalFunc, Atom, Precompile) is its own, though
// Restore hands it the Snapshot's tables without copying them: neither the
// Snapshot nor an instance restored from it beside it learns of it.
func TestRestoredLookupsStayPerInstance(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	tmpl, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	defer tmpl.Close(ctx)
	exc, _, err := tmpl.Eval(ctx, "globalThis.f = () => 1; globalThis.g = () => 2", "init.js")
	require.NoError(t, err)
	require.False(t, exc)
	_, err = tmpl.GlobalFunc(ctx, "f")
	require.NoError(t, err)
	_, err = tmpl.Atom(ctx, "a")
	require.NoError(t, err)
	snap, err := rt.Snapshot(ctx, tmpl)
	require.NoError(t, err)

	a, err := rt.Restore(ctx, snap)
	require.NoError(t, err)
	defer a.Close(ctx)
	b, err := rt.Restore(ctx, snap)
	require.NoError(t, err)
	defer b.Close(ctx)
	// a looks up more; b and the snapshot must not see it.
	_, err = a.GlobalFunc(ctx, "g")
	require.NoError(t, err)
	_, err = a.Atom(ctx, "b")
	require.NoError(t, err)
	require.NoError(t, a.Precompile(ctx, "1+1", "p.js"))
	for name, in := range map[string]*Instance{"b": b, "snapshot": {funcs: snap.funcs, atoms: snap.atoms, compiled: snap.compiled}} {
		require.Contains(t, in.funcs, "f", name)
		require.NotContains(t, in.funcs, "g", name)
		require.Contains(t, in.atoms, "a", name)
		require.NotContains(t, in.atoms, "b", name)
		require.NotContains(t, in.compiled, "1+1", name)
	}
	require.Contains(t, a.funcs, "f")
	require.Contains(t, a.funcs, "g")
	require.Contains(t, a.atoms, "b")
	require.Contains(t, a.compiled, "1+1")
	// b's own lookup of g is its own.
	_, err = b.GlobalFunc(ctx, "g")
	require.NoError(t, err)
	require.NotContains(t, snap.funcs, "g")
}
