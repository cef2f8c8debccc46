package quickjs

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ownKeysOverflow is the Proxy ownKeys trap of CVE-2026-120438/120439's
// class (integer overflows on 32-bit hosts, fixed in QuickJS-NG 0.16.0):
// js_proxy_get_own_property_names allocates 8 * length bytes for the key
// table in a 32-bit size_t, so a trap answering an array-like of length
// 2^29 gets a zero-byte table and the loop writes key after key past it.
const ownKeysOverflow = `
const keys = new Proxy({}, { get(t, k) { return k === 'length' ? 0x20000000 : 'k' + k } });
Reflect.ownKeys(new Proxy({}, { ownKeys: () => keys }));
throw 'not reached'`

// TestEngine32BitOverflows shows what a script reaches through the 32-bit
// size overflows the engine still has: its own linear memory, and nothing
// else. The write past the table corrupts the guest's heap until it leaves
// linear memory and traps, or the allocation fails first; the host sees an
// error wrapping ErrGuest, the instance's memory stays under its cap, an
// instance running alongside finishes with the right answer, and the next
// instance is as new. The sizes the other overflow sites need (a typed
// array of 2^30 elements for TypedArray.prototype.sort, strings and arrays
// near 2^31 elements) are beyond any heap limit and end in out-of-memory or
// RangeError first.
func TestEngine32BitOverflows(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	const heap = 32 << 20
	for _, tt := range []struct {
		name, src string
		trap      bool   // the guest call fails
		stopped   bool   // the guest loops until its deadline
		text      string // else: the exception, a prefix
	}{
		{name: "Proxy ownKeys table", src: ownKeysOverflow, trap: true},
		{name: "TypedArray sort index table", src: "new Int8Array(0x40000000).sort()", text: "InternalError: out of memory"},
		{name: "ArrayBuffer near 2^32", src: "new ArrayBuffer(2 ** 32 - 1)", text: "RangeError"},
		{name: "Uint32Array of 2^30", src: "new Uint32Array(2 ** 30)", text: "RangeError: invalid array buffer length"},
		{name: "repeat to 2^31", src: "'xy'.repeat(2 ** 30)", text: "RangeError: invalid string length"},
		{name: "padStart to 2^32", src: "''.padStart(2 ** 32, 'ab')", text: "RangeError: invalid string length"},
		// 2^31 steps of C code: stopped at a loop header when the deadline ends.
		{name: "join of 2^31 holes", src: "const a = []; a.length = 2 ** 31; a.join('xx')", stopped: true},
		{name: "concat to 2^32", src: "const a = []; a.length = 2 ** 32 - 1; a.concat([1])", stopped: true},
		{name: "JSON.stringify of a long string", src: "JSON.stringify('\\u0001'.repeat(1 << 28))", text: "InternalError: out of memory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// A bystander in the same runtime, running while the attack does.
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				by, err := rt.NewInstance(ctx, heap)
				require.NoError(t, err)
				defer by.Close(ctx)
				require.Equal(t, "499500", evalText(t, by, "let s = 0; for (let i = 0; i < 1000; i++) s += i; throw String(s)"))
			}()
			in, err := rt.NewInstance(ctx, heap)
			require.NoError(t, err)
			defer in.Close(ctx)
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			exc, text, err := in.Eval(cctx, tt.src, "attack.js")
			switch {
			case tt.stopped:
				require.ErrorIs(t, err, ErrGuest)
				require.True(t, in.Interrupted(), "%v", err)
			case tt.trap:
				require.ErrorIs(t, err, ErrGuest)
				require.False(t, in.Interrupted(), "it ended on its own, not on the deadline: %v", err)
			default:
				require.NoError(t, err)
				require.True(t, exc)
				require.Contains(t, text, tt.text)
			}
			require.LessOrEqual(t, in.MemoryBytes(), MemLimit(heap))
			// Entering the attacked instance again does no more than fail.
			_, _, _ = in.Eval(cctx, "throw String(1 + 2)", "again.js")
			require.LessOrEqual(t, in.MemoryBytes(), MemLimit(heap))
			wg.Wait()
			// Whatever the attacked instance now holds, a new one is clean.
			next, err := rt.NewInstance(ctx, heap)
			require.NoError(t, err)
			defer next.Close(ctx)
			require.Equal(t, "undefined 3", evalText(t, next, "throw typeof keys + ' ' + (1 + 2)"))
		})
	}
}

// TestStackHeapCollision recurses deeply while the heap is close to its
// cap, so that each frame's allocations and the stack's growth meet: the
// script gets a catchable RangeError or out-of-memory error, or the guest
// traps on its stack floor; no frame is written over the heap or the
// static data (the stack region is an allocation of its own, and the floor
// is above its bottom), and the next instance runs normally.
func TestStackHeapCollision(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	const heap = 8 << 20
	for _, limit := range []uint32{0, 16 << 10, 4 << 10} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			in, err := rt.NewInstance(ctx, heap)
			require.NoError(t, err)
			defer in.Close(ctx)
			in.SetStackLimit(limit)
			exc, text, err := in.Eval(ctx, `
const hold = [];
try { for (;;) hold.push(new Array(1000).fill(1.5)) } catch (e) {}
hold.length = hold.length - 4; // a little room, no more
const f = (n) => { const o = { n, a: [n, n, n] }; return n === 0 ? 0 : 1 + f(n - 1) + o.a.length - 3 };
let r; try { r = f(1e6) } catch (e) { r = e === null ? 'null' : e.name + ': ' + e.message }
throw String(r)`, "collide.js")
			if err != nil {
				require.ErrorIs(t, err, ErrGuest)
				require.True(t, in.StackOverflowed(), "%v", err)
			} else {
				require.True(t, exc)
				// null: QuickJS ran out of memory making the out-of-memory
				// error itself, and throws what it has.
				require.Contains(t, []string{"RangeError: Maximum call stack size exceeded", "InternalError: out of memory", "null"}, text)
			}
			require.LessOrEqual(t, in.MemoryBytes(), MemLimit(heap))
			next, err := rt.NewInstance(ctx, heap)
			require.NoError(t, err)
			defer next.Close(ctx)
			require.Equal(t, "20", evalText(t, next, "const f = (n) => n === 0 ? 0 : 1 + f(n - 1); throw String(f(20))"))
		})
	}
}

// TestUsableAfterLimits checks that an instance whose script ran out of
// memory, or out of stack with QuickJS's own check, stays usable for the
// next evaluation, and that one whose guest trapped reports it.
func TestUsableAfterLimits(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 8<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	in.SetStackLimit(0)
	require.Equal(t, "InternalError: out of memory",
		evalText(t, in, "let a = []; try { for (;;) a.push(new Array(1e4).fill(1.5)) } catch (e) { a = null; throw e.name + ': ' + e.message }"))
	require.True(t, in.OutOfMemory())
	require.Equal(t, "ok 3", evalText(t, in, "throw 'ok ' + [1, 2, 3].length"))
	require.Equal(t, "RangeError: Maximum call stack size exceeded",
		evalText(t, in, "const g = (n) => g(n + 1) + 1; try { g(0) } catch (e) { throw e.name + ': ' + e.message }"))
	require.Equal(t, "ok 3", evalText(t, in, "throw 'ok ' + [1, 2, 3].length"))
}

// TestNothingLeaksBetweenInstances checks that one instance's globals,
// heap contents, timers-to-be and random state are not seen by the next,
// even when the pool of recycled memories hands the next the same pages.
func TestNothingLeaksBetweenInstances(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	const marker = "SECRET-7f3a9c"
	first := func() string {
		in, err := rt.NewInstance(ctx, 16<<20)
		require.NoError(t, err)
		defer in.Close(ctx)
		return evalText(t, in, `globalThis.leak = '`+marker+`'; Object.prototype.polluted = 1;
const big = []; for (let i = 0; i < 2000; i++) big.push('`+marker+`' + i);
Promise.resolve().then(() => { globalThis.later = 1 });
throw String(Math.random())`)
	}
	r1 := first()
	for range 3 {
		in, err := rt.NewInstance(ctx, 16<<20)
		require.NoError(t, err)
		require.Equal(t, "undefined undefined undefined", evalText(t, in, "throw typeof leak + ' ' + typeof ({}).polluted + ' ' + typeof later"))
		// The heap the script can read through the engine never holds the
		// earlier instance's strings: linear memory starts as instantiated.
		mem, ok := in.mem.Read(0, in.mem.Size())
		require.True(t, ok)
		require.NotContains(t, string(mem), marker)
		// Math.random starts from the same deterministic state every time,
		// not from where the last instance left it.
		require.Equal(t, r1, evalText(t, in, "throw String(Math.random())"))
		in.Close(ctx)
	}
}

// BenchmarkLoop1e6 evaluates a one-million-iteration loop in a fresh
// instance: the interpreter's speed with the rewrite's checks.
func BenchmarkLoop1e6(b *testing.B) {
	rt := testRuntime(b, Config{})
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		in, err := rt.NewInstance(ctx, 64<<20)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		exc, text, err := in.Eval(ctx, "let s = 0; for (let i = 0; i < 1e6; i++) s += i; throw String(s)", "loop.js")
		if err != nil || !exc || text != "499999500000" {
			b.Fatal(exc, text, err)
		}
		b.StopTimer()
		in.Close(ctx)
		b.StartTimer()
	}
}

// TestDispatcher checks the dispatcher the rewrite adds: an export it
// calls gets its arguments and returns its result, and an index past the
// last export traps without harming the instance.
func TestDispatcher(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 0)
	require.NoError(t, err)
	defer in.Close(ctx)
	p, err := in.call(ctx, fnMalloc, 16)
	require.NoError(t, err)
	require.NotZero(t, p)
	require.Less(t, p, uint64(1)<<32, "an i32 result is zero-extended")
	_, err = in.call(ctx, fnFree, p)
	require.NoError(t, err)
	_, err = in.call(ctx, numFns)
	require.ErrorIs(t, err, ErrGuest)
	exc, text, err := in.Eval(ctx, "1 + 1", "t.js")
	require.NoError(t, err)
	require.False(t, exc, text)
}

// TestIdleRelease checks that an instance that makes no guest call for
// idleRelease lets its api.Functions go, and makes them again when called.
func TestIdleRelease(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 0)
	require.NoError(t, err)
	defer in.Close(ctx)
	held := func() (n int) {
		in.fns.mu.Lock()
		defer in.fns.mu.Unlock()
		for _, d := range in.fns.depth {
			if d != nil && d.f != nil {
				n++
			}
		}
		return n
	}
	for range 2 {
		exc, text, err := in.Eval(ctx, "function f(n) { return n && f(n - 1) + 1 }; f(100)", "t.js")
		require.NoError(t, err)
		require.False(t, exc, text)
		require.Eventually(t, func() bool { return held() == 0 }, 5*time.Second, idleRelease)
	}
}

// TestStackRegion: the engine's stack is a region of its own, StackRegion
// bytes malloc'd before the runtime exists, so a script recurses about ten
// times deeper than wasm-ld's 64 KiB allowed; the limit a run sets still
// binds, and a snapshot's instances keep the region.
func TestStackRegion(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	top := in.stackTop()
	require.Greater(t, top, in.layout.StackTop, "the region is above wasm-ld's stack, in the heap")
	require.LessOrEqual(t, uint64(top), uint64(in.mem.Size()))
	require.Zero(t, top%16)

	const deep = "(() => { const f = (n) => n === 0 ? 0 : 1 + f(n - 1);\nlet r; try { r = f(%d) } catch (e) { r = e.name } throw String(r) })()"
	in.SetStackLimit(0)
	require.Equal(t, "1000", evalText(t, in, fmt.Sprintf(deep, 1000)))
	require.Equal(t, "RangeError", evalText(t, in, fmt.Sprintf(deep, 100000)))
	require.Equal(t, top, in.stackTop(), "the stack pointer's top does not move")
	// A run's smaller limit still binds: wasm-ld's old 56 KiB gives about
	// 120 nested calls.
	in.SetStackLimit(56 << 10)
	require.Equal(t, "RangeError", evalText(t, in, fmt.Sprintf(deep, 1000)))
	require.Equal(t, "100", evalText(t, in, fmt.Sprintf(deep, 100)))

	snap, err := rt.Snapshot(ctx, in)
	require.NoError(t, err)
	again, err := rt.Restore(ctx, snap)
	require.NoError(t, err)
	defer again.Close(ctx)
	require.Equal(t, top, again.stackTop())
	again.SetStackLimit(0)
	require.Equal(t, "1000", evalText(t, again, fmt.Sprintf(deep, 1000)))
}
