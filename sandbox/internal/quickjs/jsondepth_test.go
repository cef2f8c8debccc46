package quickjs

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJSONStringifyDepth: JSON.stringify's recursion, whose cycle check
// costs n²/2 comparisons for a value n levels deep, is bounded by
// jsonStack (wasm-ld's old stack) below where it began rather than by the
// whole stack region: the deepest value it writes is as deep as before the
// region (some 1,000 to 4,000 levels), a deeper one throws the engine's
// catchable RangeError, and a run whose own limit is smaller keeps it.
func TestJSONStringifyDepth(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	deepest := func(in *Instance) int {
		t.Helper()
		got := evalText(t, in, `(() => {
  const fits = (n) => { let o = 1; for (let i = 0; i < n; i++) o = [o]; try { return JSON.stringify(o).length === 2 * n + 1 } catch (e) { if (!(e instanceof RangeError) || e.message !== "Maximum call stack size exceeded") throw e; return false } };
  let lo = 1, hi = 200000;
  while (lo < hi) { const m = (lo + hi + 1) >> 1; if (fits(m)) lo = m; else hi = m - 1 }
  throw String(lo);
})()`)
		n, err := strconv.Atoi(got)
		require.NoError(t, err, got)
		return n
	}
	in, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	in.SetStackLimit(0)
	d := deepest(in)
	require.Greater(t, d, 1000)
	require.Less(t, d, 4000)
	// Script recursion keeps the whole region, and a stringify deep in it
	// keeps its own room: the bound is counted from where it began.
	require.Equal(t, "1100", evalText(t, in, "(() => { const f = (n) => n === 0 ? 0 : 1 + f(n - 1); throw String(f(1100)) })()"))
	require.Equal(t, "[[[1]]] 900", evalText(t, in, `(() => {
  const f = (n) => n === 0 ? JSON.stringify([[[1]]]) : f(n - 1);
  let o = 1; for (let i = 0; i < 900; i++) o = [o];
  const g = (n) => n === 0 ? JSON.stringify(o).length : g(n - 1);
  throw f(1000) + " " + (g(1000) - 1) / 2;
})()`))
	// A toJSON that stringifies runs under the outer stringify's bound, and
	// the next stringify starts afresh.
	require.Equal(t, `{"a":"{\"b\":1}"} 3`, evalText(t, in, `(() => {
  const s = JSON.stringify({ a: { toJSON() { return JSON.stringify({ b: 1 }) } } });
  throw s + " " + JSON.stringify([1]).length;
})()`))

	small, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	defer small.Close(ctx)
	small.SetStackLimit(16 << 10)
	require.Less(t, deepest(small), d/2)
}
