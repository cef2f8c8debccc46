package quickjs

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

func TestRewrite(t *testing.T) {
	b, lay, err := Rewrite(wasmBytes)
	require.NoError(t, err)
	require.Greater(t, lay.Patched, 100)
	require.Greater(t, lay.Loops, 1000)
	require.Equal(t, []string{GlobalExportPrefix + "0", GlobalExportPrefix + "1"}, lay.Globals)
	require.True(t, lay.SnapshotSafe)
	require.Equal(t, uint32(wasmStackSize), lay.StackTop-lay.StackBase)

	// The rewritten code still decodes instruction by instruction, and holds
	// one check per loop (a second rewrite finds the same loops).
	_, lay2, err := Rewrite(b)
	require.NoError(t, err)
	require.Equal(t, lay.Loops, lay2.Loops)

	_, _, err = Rewrite([]byte("nope"))
	require.Error(t, err)
}

func TestInstrLen(t *testing.T) {
	tests := []struct {
		name string
		code []byte
		want int // 0: an error
	}{
		{"nop", []byte{0x01}, 1},
		{"block empty", []byte{0x02, 0x40}, 2},
		{"loop i32", []byte{0x03, 0x7f}, 2},
		{"if v128", []byte{0x04, 0x7b}, 2},
		{"block type index", []byte{0x02, 0x05}, 2},
		{"block type index, two bytes", []byte{0x03, 0x80, 0x01}, 3},
		{"block type, truncated", []byte{0x02, 0x80}, 0},
		{"br_table", []byte{0x0e, 0x03, 0x00, 0x01, 0x80, 0x01, 0x02}, 7},
		{"call_indirect", []byte{0x11, 0x85, 0x01, 0x00}, 4},
		{"return_call", []byte{0x12, 0x07}, 2},
		{"select typed", []byte{0x1c, 0x01, 0x7f}, 3},
		{"local.get", []byte{0x20, 0x80, 0x80, 0x01}, 4},
		{"i32.load", []byte{0x28, 0x02, 0x10}, 3},
		{"i64.store, big offset", []byte{0x37, 0x03, 0xff, 0xff, 0x03}, 5},
		{"i32.load with memory index", []byte{0x28, 0x42, 0x01, 0x08}, 4},
		{"memory.grow", []byte{0x40, 0x00}, 2},
		{"i32.const negative", []byte{0x41, 0x7f}, 2},
		{"i64.const", []byte{0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 7},
		{"f32.const", []byte{0x43, 0x0b, 0x0b, 0x0b, 0x0b}, 5},
		{"f64.const", []byte{0x44, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, 9},
		{"f64.const, truncated", []byte{0x44, 0, 0}, 0},
		{"i32.add", []byte{0x6a}, 1},
		{"i64.extend32_s", []byte{0xc4}, 1},
		{"ref.null", []byte{0xd0, 0x70}, 2},
		{"ref.func", []byte{0xd2, 0x03}, 2},
		{"i32.trunc_sat_f32_s", []byte{0xfc, 0x00}, 2},
		{"memory.init", []byte{0xfc, 0x08, 0x01, 0x00}, 4},
		{"data.drop", []byte{0xfc, 0x09, 0x01}, 3},
		{"memory.copy", []byte{0xfc, 0x0a, 0x00, 0x00}, 4},
		{"memory.fill", []byte{0xfc, 0x0b, 0x00}, 3},
		{"table.copy", []byte{0xfc, 0x0e, 0x00, 0x01}, 4},
		{"table.fill", []byte{0xfc, 0x11, 0x00}, 3},
		{"0xfc unknown", []byte{0xfc, 0x12}, 0},
		{"v128.load", []byte{0xfd, 0x00, 0x04, 0x00}, 4},
		{"v128.const", append([]byte{0xfd, 0x0c}, make([]byte, 16)...), 18},
		{"i8x16.shuffle", append([]byte{0xfd, 0x0d}, make([]byte, 16)...), 18},
		{"i8x16.extract_lane_s", []byte{0xfd, 0x15, 0x0f}, 3},
		{"f64x2.replace_lane", []byte{0xfd, 0x22, 0x01}, 3},
		{"v128.not", []byte{0xfd, 0x4d}, 2},
		{"v128.load8_lane", []byte{0xfd, 0x54, 0x00, 0x00, 0x07}, 5},
		{"v128.load32_zero", []byte{0xfd, 0x5c, 0x02, 0x08}, 4},
		{"i32x4.dot_i16x8_s (two-byte sub-opcode)", []byte{0xfd, 0xba, 0x01}, 3},
		{"relaxed madd", []byte{0xfd, 0x85, 0x02}, 3},
		{"atomic.fence", []byte{0xfe, 0x03, 0x00}, 3},
		{"i32.atomic.rmw.add", []byte{0xfe, 0x1e, 0x02, 0x00}, 4},
		{"unknown opcode", []byte{0xff}, 0},
		{"try (exceptions)", []byte{0x06, 0x40}, 0},
		{"empty", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == 0 {
				_, err := instrLen(tt.code)
				require.Error(t, err)
				require.True(t, errors.Is(err, errBadCode))
				return
			}
			// Trailing bytes must not be consumed.
			n, err := instrLen(append(append([]byte(nil), tt.code...), 0x0b, 0x0b))
			require.NoError(t, err)
			require.Equal(t, tt.want, n)
		})
	}
}

func TestLEB(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, 64, -64, -65, 1 << 20, int64(int32(StackOverflowMagic)), int64(int32(InterruptMagic))} {
		got, n, err := sleb(appendSleb(nil, v))
		require.NoError(t, err)
		require.Equal(t, v, got)
		require.Positive(t, n)
	}
}

// testRuntime compiles the module once per test.
func testRuntime(t *testing.T, cfg Config) *Runtime {
	t.Helper()
	ctx := context.Background()
	m, err := LoadModule()
	require.NoError(t, err)
	cfg.Module = m
	if cfg.Cache == nil {
		cfg.Cache = wazero.NewCompilationCache()
		t.Cleanup(func() { _ = cfg.Cache.Close(ctx) })
	}
	if cfg.MemoryLimitPages == 0 {
		cfg.MemoryLimitPages = 1024
	}
	rt, err := NewRuntime(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	return rt
}

// evalText evaluates code that throws a string and returns the string.
func evalText(t *testing.T, in *Instance, code string) string {
	t.Helper()
	exc, text, err := in.Eval(context.Background(), code, "test.js")
	require.NoError(t, err)
	require.True(t, exc, "the code must throw its answer")
	return text
}

func TestInterrupt(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	for _, src := range []string{
		"for (;;) {}",
		"'x'.repeat(1 << 24).replace(/x/g, 'yy').length",      // C loops
		"/(a+)+b/.test('a'.repeat(40))",                       // backtracking
		"const f = (n) => n ? f(n - 1) + f(n - 1) : 1; f(80)", // recursion, which loops in the interpreter
	} {
		t.Run(src, func(t *testing.T) {
			in, err := rt.NewInstance(ctx, 64<<20)
			require.NoError(t, err)
			defer in.Close(ctx)
			time.AfterFunc(20*time.Millisecond, in.Interrupt)
			start := time.Now()
			_, _, err = in.Eval(ctx, src, "loop.js")
			require.ErrorIs(t, err, ErrGuest)
			require.True(t, in.Interrupted(), "%v", err)
			require.Less(t, time.Since(start), 5*time.Second)
		})
	}
	// Interrupt is harmless after Close.
	in, err := rt.NewInstance(ctx, 0)
	require.NoError(t, err)
	in.Close(ctx)
	in.Interrupt()
}

func TestSnapshot(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	tmpl, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	defer tmpl.Close(ctx)
	exc, _, err := tmpl.Eval(ctx, "globalThis.shared = {n: 41}", "init.js")
	require.NoError(t, err)
	require.False(t, exc)
	snap, err := rt.Snapshot(ctx, tmpl)
	require.NoError(t, err)
	require.Positive(t, snap.Bytes())

	probe := "throw [shared.n, typeof leak, Date.now(), Math.random()].join(' ')"
	want := evalText(t, tmpl, probe) // what the template itself sees next
	for i := 0; i < 3; i++ {
		in, err := rt.Restore(ctx, snap)
		require.NoError(t, err)
		require.Equal(t, want, evalText(t, in, probe), "restore %d", i)
		// Changes stay in the instance that made them.
		exc, _, err = in.Eval(ctx, "globalThis.leak = 1; shared.n = 0", "mutate.js")
		require.NoError(t, err)
		require.False(t, exc)
		in.Close(ctx)
	}
}

func TestSnapshotRefusesHostClock(t *testing.T) {
	rt := testRuntime(t, Config{Walltime: time.Now})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 0)
	require.NoError(t, err)
	defer in.Close(ctx)
	_, err = rt.Snapshot(ctx, in)
	require.ErrorIs(t, err, ErrNoSnapshot)
}

// TestLoopYields checks that a guest stuck in a loop does not stall the
// process: a garbage collection (which stops the world) completes while it
// runs, and so does the timer that interrupts it.
func TestLoopYields(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 0)
	require.NoError(t, err)
	defer in.Close(ctx)
	done := make(chan error, 1)
	go func() {
		_, _, err := in.Eval(ctx, "for (;;) {}", "loop.js")
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	gcDone := make(chan struct{})
	go func() { runtime.GC(); close(gcDone) }()
	select {
	case <-gcDone:
	case <-time.After(5 * time.Second):
		t.Fatal("a garbage collection did not complete while the guest looped")
	}
	time.AfterFunc(10*time.Millisecond, in.Interrupt)
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrGuest)
		require.True(t, in.Interrupted())
	case <-time.After(5 * time.Second):
		t.Fatal("the guest was not interrupted")
	}
}
