package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPoolAfterFailedChains runs, through the engine's instance pool,
// chains that end badly (out of memory, the hard stack limit, an uncaught
// stack overflow, the Proxy ownKeys overflow that corrupts the guest's
// heap, a timeout mid-computation), each followed by a normal chain: the
// next chain comes from the pool, runs normally and sees nothing of the
// one before, whose instance's memory may be the very mapping it reuses.
func TestPoolAfterFailedChains(t *testing.T) {
	ctx := context.Background()
	const mem = 16 << 20
	e, err := NewScriptEngine(ctx, ScriptOptions{PoolSize: 2, PoolLimits: Limits{MemoryBytes: mem}, CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close(ctx)) }()
	const mark = "globalThis.leak = 'LEAK'; Object.prototype.polluted = 1; "
	bad := []struct {
		name, src string
		lim       Limits
		kind      ExitKind
		limit     string
	}{
		{name: "out of memory", src: mark + "const a = []; for (;;) a.push(new Array(1e4).fill(1.5))", kind: LimitExceeded, limit: LimitMemory},
		{name: "hard stack limit", src: mark + "const f = (n) => n === 0 ? 0 : 1 + f(n - 1); return f(100)",
			lim: Limits{MaxStackBytes: 4 << 10}, kind: LimitExceeded, limit: LimitStack},
		{name: "stack overflow", src: mark + "const f = (n) => f(n + 1) + 1; return f(0)", kind: ScriptError},
		{name: "ownKeys overflow", src: mark + `const keys = new Proxy({}, { get(t, k) { return k === 'length' ? 0x20000000 : 'k' + k } });
Reflect.ownKeys(new Proxy({}, { ownKeys: () => keys }))`,
			lim: Limits{Timeout: time.Second}}, // a trap, or the deadline, depending on the heap's layout
		{name: "timeout", src: mark + "for (;;) new Array(64).fill(1)", lim: Limits{Timeout: 50 * time.Millisecond}, kind: Timeout},
	}
	for range 3 {
		for _, tt := range bad {
			t.Run(tt.name, func(t *testing.T) {
				lim := tt.lim
				lim.MemoryBytes = mem
				require.Eventually(t, func() bool { return len(e.pool.ch) > 0 }, 10*time.Second, time.Millisecond)
				res, err := e.Run(ctx, Script{Source: tt.src}, okBridge, lim)
				var xe *ExitError
				require.ErrorAs(t, err, &xe)
				if tt.kind != 0 {
					require.Equal(t, tt.kind, xe.Kind, "%v", err)
					require.Equal(t, tt.limit, xe.Limit, "%v", err)
				}
				require.True(t, res.Stats.Pooled)

				require.Eventually(t, func() bool { return len(e.pool.ch) > 0 }, 10*time.Second, time.Millisecond)
				res, err = e.Run(ctx, Script{Source: `let s = 0; for (let i = 0; i < 1000; i++) s += i;
const r = await tools.echo({ s });
return [typeof leak, typeof ({}).polluted, r.args.s, new Array(1e4).fill(2).length]`}, okBridge, Limits{MemoryBytes: mem})
				require.NoError(t, err)
				require.True(t, res.Stats.Pooled)
				require.JSONEq(t, `["undefined", "undefined", 499500, 10000]`, string(res.Value))
			})
		}
	}
}

// TestCloseExpiredWhileComputing closes an engine, with a context that has
// already ended, while its chains compute: Close does not wait for them and
// closes the runtimes under them. Each guest must stop at its next yield
// rather than run on (or fault on) a linear memory handed back to the pool.
func TestCloseExpiredWhileComputing(t *testing.T) {
	ctx := context.Background()
	e, err := NewScriptEngine(ctx, ScriptOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	started := make(chan struct{}, 4)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			_, err := e.Run(ctx, Script{Source: "await tools.go(); let a = []; for (;;) { a.push({ x: 1 }); if (a.length > 1e4) a = [] }"},
				func(context.Context, string, []byte) ([]byte, error) {
					started <- struct{}{}
					return []byte(`{"status":"ok","value":{}}`), nil
				}, Limits{})
			errs <- err
		}()
	}
	for range 4 {
		<-started
	}
	time.Sleep(5 * time.Millisecond)
	ended, cancel := context.WithCancel(ctx)
	cancel()
	_ = e.Close(ended)
	for range 4 {
		var xe *ExitError
		require.ErrorAs(t, <-errs, &xe)
	}
}
