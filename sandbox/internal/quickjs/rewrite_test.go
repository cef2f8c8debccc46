package quickjs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

func TestRewrite(t *testing.T) {
	b, lay, err := Rewrite(wasmBytes)
	require.NoError(t, err)
	require.Greater(t, lay.StackWrites, 800)
	require.Greater(t, lay.Loops, 1000)
	require.Greater(t, lay.OOMSites, 100)
	// The reactor build's globals: the stack pointer (0, mutable) and one
	// immutable i32; the rewrite's eight follow.
	require.Equal(t, []string{GlobalExportPrefix + "0", GlobalExportPrefix + "2",
		GlobalExportPrefix + "3", GlobalExportPrefix + "4", GlobalExportPrefix + "5",
		GlobalExportPrefix + "6", GlobalExportPrefix + "7", GlobalExportPrefix + "8", GlobalExportPrefix + "9"}, lay.Globals)
	require.Equal(t, GlobalExportPrefix+"3", lay.Floor)
	require.Equal(t, GlobalExportPrefix+"6", lay.LimitAddr)
	require.Equal(t, GlobalExportPrefix+"7", lay.SpareLimit)
	require.Equal(t, GlobalExportPrefix+"8", lay.Top)
	require.Equal(t, GlobalExportPrefix+"9", lay.JSONFloor)
	// Every error is made through the backtrace hook (backtrace.go).
	require.Greater(t, lay.Backtraces, 3)
	require.Equal(t, uint32(120), lay.StackSizeOffset)
	require.True(t, lay.SnapshotSafe)
	require.Equal(t, uint32(wasmStackSize), lay.StackTop-lay.StackBase)
	// The data segments are passive, all below the stack, the deny message
	// among them.
	require.NotEmpty(t, lay.Data)
	var deny bool
	for _, d := range lay.Data {
		require.LessOrEqual(t, uint64(d.Offset)+uint64(len(d.Bytes)), uint64(lay.StackBase))
		deny = deny || d.Offset == denyMsgAddr
	}
	require.True(t, deny)

	// The rewritten code still decodes instruction by instruction, holds the
	// same loops and stack-pointer writes, each of them checked, and no
	// original instruction names a global the rewrite added.
	loops, writes, checks := 0, 0, 0
	forEachInstr(t, b, func(ins []byte) {
		switch ins[0] {
		case wasmcode.OpLoop:
			loops++
		case 0x24:
			if ins[1] == 0 {
				writes++
			}
		case 0x4b: // i32.gt_u: one per stack check, and in the original code
			checks++
		}
	})
	require.Equal(t, lay.Loops, loops)
	require.Equal(t, lay.StackWrites, writes)
	require.GreaterOrEqual(t, checks, writes)

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
				_, err := wasmcode.InstrLen(tt.code)
				require.Error(t, err)
				require.True(t, errors.Is(err, wasmcode.ErrBadCode))
				return
			}
			// Trailing bytes must not be consumed.
			n, err := wasmcode.InstrLen(append(append([]byte(nil), tt.code...), 0x0b, 0x0b))
			require.NoError(t, err)
			require.Equal(t, tt.want, n)
		})
	}
}

func TestLEB(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, 64, -64, -65, 1 << 20, -1 << 31, 1<<31 - 1} {
		got, n, err := wasmcode.SLEB(wasmcode.AppendSLEB(nil, v))
		require.NoError(t, err)
		require.Equal(t, v, got)
		require.Positive(t, n)
	}
}

// testRuntime compiles the module once per test.
func testRuntime(t testing.TB, cfg Config) *Runtime {
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

// forEachInstr calls f with every instruction of every function body of the
// module wasm.
func forEachInstr(t *testing.T, wasm []byte, f func(ins []byte)) {
	t.Helper()
	for rest := wasm[8:]; len(rest) > 0; {
		id := rest[0]
		size, n, err := wasmcode.ULEB(rest[1:])
		require.NoError(t, err)
		body := rest[1+n : 1+n+int(size)]
		rest = rest[1+n+int(size):]
		if id != 10 {
			continue
		}
		count, p, err := wasmcode.ULEB(body)
		require.NoError(t, err)
		for i := uint64(0); i < count; i++ {
			size, k, err := wasmcode.ULEB(body[p:])
			require.NoError(t, err)
			fn := body[p+k : p+k+int(size)]
			p += k + int(size)
			groups, q, err := wasmcode.ULEB(fn)
			require.NoError(t, err)
			for g := uint64(0); g < groups; g++ {
				_, k, err := wasmcode.ULEB(fn[q:])
				require.NoError(t, err)
				q += k + 1
			}
			for q < len(fn) {
				l, err := wasmcode.InstrLen(fn[q:])
				require.NoError(t, err)
				f(fn[q : q+l])
				q += l
			}
		}
	}
}

// TestChecksUseNoMemory checks that the code the rewrite adds to stop the
// guest (the loop-header yield, the stack check) reads and writes globals
// only: no load or store, so nothing the guest can write in its memory
// changes what the checks do.
func TestChecksUseNoMemory(t *testing.T) {
	rw := &rewriter{budgetGlobal: 5, floorGlobal: 6, reasonGlobal: 7, oomGlobal: 8, stackTop: 165408, hostFunc: 0}
	for name, code := range map[string][]byte{
		"loop":  rw.appendLoopCheck(nil, 3),
		"stack": rw.appendStackCheck(nil, 3),
	} {
		t.Run(name, func(t *testing.T) {
			globals := map[uint64]bool{}
			for p := 0; p < len(code); {
				l, err := wasmcode.InstrLen(code[p:])
				require.NoError(t, err)
				op := code[p]
				require.False(t, op >= 0x28 && op <= 0x40, "memory instruction %#x", op)
				require.NotEqual(t, byte(0xfc), op)
				if op == 0x23 || op == 0x24 {
					g, _, _ := wasmcode.ULEB(code[p+1:])
					globals[g] = true
				}
				p += l
			}
			require.True(t, globals[7], "the trap records its reason")
		})
	}
}

// TestStopWhateverLowMemoryHolds runs a guest loop while the words below
// the static data (where the stack floor and interrupt flag used to be) and
// the static data itself are overwritten, and checks that the guest stops
// when its context ends.
func TestStopWhateverLowMemoryHolds(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in, err := rt.NewInstance(context.Background(), 64<<20)
	require.NoError(t, err)
	defer in.Close(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := in.Eval(ctx, "for (;;) {}", "loop.js")
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	low, ok := in.mem.Read(0, 1024)
	require.True(t, ok)
	for i := range low {
		low[i] = 0xFF
	}
	time.Sleep(10 * time.Millisecond)
	for i := range low {
		low[i] = 0
	}
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrGuest)
		require.True(t, in.Interrupted(), "%v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the guest did not stop when its context ended")
	}
}

// TestContextStopsGuest checks that a guest call stops when its context's
// deadline passes, with no Interrupt.
func TestContextStopsGuest(t *testing.T) {
	rt := testRuntime(t, Config{})
	in, err := rt.NewInstance(context.Background(), 64<<20)
	require.NoError(t, err)
	defer in.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, _, err = in.Eval(ctx, "for (;;) {}", "loop.js")
	require.ErrorIs(t, err, ErrGuest)
	require.True(t, in.Interrupted(), "%v", err)
	require.False(t, in.StackOverflowed())
}

// TestStackFloor checks the stack check at the engine level: a frame below
// the floor traps with ReasonStack, and the floor follows SetStackLimit.
func TestStackFloor(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	const (
		fits   = iota
		throws // QuickJS's own check: a catchable RangeError
		traps  // the hard floor
	)
	for _, tt := range []struct {
		limit uint32
		depth int
		want  int
	}{
		{limit: 0, depth: 20, want: fits},
		{limit: 0, depth: 100000, want: throws},
		{limit: 16 << 10, depth: 100000, want: throws},
		{limit: 4 << 10, depth: 20, want: traps},      // too small to build the error
		{limit: 1 << 30, depth: 100000, want: throws}, // clamped to the maximum
	} {
		t.Run(fmt.Sprintf("limit %d depth %d", tt.limit, tt.depth), func(t *testing.T) {
			in, err := rt.NewInstance(ctx, 64<<20)
			require.NoError(t, err)
			defer in.Close(ctx)
			in.SetStackLimit(tt.limit)
			exc, text, err := in.Eval(ctx, fmt.Sprintf("const f = (n) => n === 0 ? 0 : 1 + f(n - 1);\n"+
				"let r; try { r = f(%d) } catch (e) { r = e.name + ': ' + e.message } throw String(r)", tt.depth), "rec.js")
			switch tt.want {
			case fits:
				require.NoError(t, err)
				require.True(t, exc)
				require.Equal(t, "20", text)
				require.False(t, in.StackOverflowed())
			case throws:
				require.NoError(t, err)
				require.True(t, exc)
				require.Equal(t, "RangeError: Maximum call stack size exceeded", text)
				require.False(t, in.StackOverflowed())
			case traps:
				require.ErrorIs(t, err, ErrGuest)
				require.True(t, in.StackOverflowed(), "%v", err)
				require.False(t, in.Interrupted())
			}
		})
	}
}

func TestSoftStackMargin(t *testing.T) {
	for n, want := range map[uint32]uint32{4 << 10: 2 << 10, 16 << 10: 8 << 10, 24 << 10: 10 << 10, 40 << 10: 11 << 10, 56 << 10: 14 << 10, maxStack: 16 << 10, 1 << 20: 16 << 10} {
		require.Equal(t, want, SoftStackMargin(n), "n=%d", n)
	}
	for n, want := range map[uint32]uint32{4 << 10: 2 << 10, 16 << 10: 4 << 10, 40 << 10: 5 << 10, 56 << 10: 7 << 10, maxStack: 8 << 10, 1 << 20: 8 << 10} {
		require.Equal(t, want, SpareStackMargin(n), "n=%d", n)
	}
}
