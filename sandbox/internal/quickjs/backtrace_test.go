package quickjs

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOverflowBacktrace checks the backtrace hook: the stack overflow
// QuickJS's own check throws gets the stack Error.prepareStackTrace (a
// JavaScript function) makes, the limit is back where SetStackLimit put
// it afterwards, and a hook that itself recurses without end is stopped
// by the lowered limit (its own overflow has no stack: QuickJS does not nest build_backtrace) without reaching the floor.
func TestOverflowBacktrace(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	for _, tt := range []struct {
		name, prepare, want string
	}{
		{"hook runs", "(e, s) => 'hooked ' + s.length + ' ' + s[0].getFunctionName()", "hooked 10 f"},
		{"hook recurses", "function p(e, s) { return p(e, s) }", "null"},
		{"hook recurses then catches", "function p(e, s) { try { return p(e, s) } catch (x) { return 'inner ' + x.stack } }", "inner undefined"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, limit := range []uint32{0, 16 << 10} {
				in, err := rt.NewInstance(ctx, 64<<20)
				require.NoError(t, err)
				in.SetStackLimit(limit)
				addr := uint32(in.rt) + in.layout.StackSizeOffset + 8
				before, ok := in.mem.ReadUint32Le(addr)
				require.True(t, ok)
				exc, text, err := in.Eval(ctx, "Error.prepareStackTrace = "+tt.prepare+";\n"+
					"function f(n) { return f(n + 1) + 1 }\n"+
					"let r; try { f(0) } catch (e) { r = e.message + ': ' + String(e.stack) } throw r", "bt.js")
				require.NoError(t, err, "stack trap %v", in.StackOverflowed())
				require.True(t, exc)
				require.Equal(t, "Maximum call stack size exceeded: "+tt.want, text)
				require.False(t, in.StackOverflowed())
				after, _ := in.mem.ReadUint32Le(addr)
				require.Equal(t, before, after, "the limit is restored")
				in.Close(ctx)
			}
		})
	}
}

func TestSpareStackMargin(t *testing.T) {
	for _, n := range []uint32{24 << 10, 40 << 10, maxStack} {
		require.GreaterOrEqual(t, SoftStackMargin(n)-SpareStackMargin(n), uint32(hookRoom), "n=%d", n)
	}
}
