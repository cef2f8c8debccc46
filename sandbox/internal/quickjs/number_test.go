package quickjs

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecodeNumber: the values a script passes to a host call decode as
// the numbers they are (ints and floats, -0, NaN, the infinities, the
// extremes), and nothing else decodes as a number; strings and ropes are
// strings. NewString answers short and long strings alike.
func TestDecodeNumber(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 8<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	nums := []string{"0", "-0", "1", "-1", "2147483647", "-2147483648", "2147483648", "0.5", "-1178276.5714285714",
		"1e21", "5e-324", "-5e-324", "1.7976931348623157e+308", "-1.7976931348623157e+308", "NaN", "Infinity", "-Infinity",
		"0.1 + 0.2", "2 ** 53 + 2", "1 / 3"}
	others := []string{"undefined", "null", "true", "false", "'1'", "1n", "2n ** 80n", "({})", "[1]", "Symbol()", "new Number(1)", "() => 1"}
	var got []uint64
	h := handlerFunc(func(ctx context.Context, in *Instance, args []uint64) uint64 {
		got = append(got, args[0])
		return in.Undefined()
	})
	src := func(exprs []string) string {
		var b strings.Builder
		for _, e := range exprs {
			b.WriteString("__airlock_host(" + e + ");\n")
		}
		return b.String() + "throw 'done'"
	}
	_, text, err := in.Eval(WithHandler(ctx, in, h), src(nums), "n.js")
	require.NoError(t, err)
	require.Equal(t, "done", text)
	require.Len(t, got, len(nums))
	want := func(e string) float64 {
		switch e {
		case "NaN":
			return math.NaN()
		case "Infinity":
			return math.Inf(1)
		case "-Infinity":
			return math.Inf(-1)
		case "-0":
			return math.Copysign(0, -1)
		case "0.1 + 0.2":
			return 0.30000000000000004
		case "2 ** 53 + 2":
			return 1<<53 + 2
		case "1 / 3":
			return 1.0 / 3
		}
		x, err := strconv.ParseFloat(e, 64)
		require.NoError(t, err)
		return x
	}
	for i, e := range nums {
		x, ok := DecodeNumber(got[i])
		require.True(t, ok, e)
		w := want(e)
		if math.IsNaN(w) {
			require.True(t, math.IsNaN(x), e)
			continue
		}
		require.Equal(t, math.Float64bits(w), math.Float64bits(x), "%s: %v", e, x)
		require.False(t, IsString(got[i]), e)
	}
	got = got[:0]
	_, _, err = in.Eval(WithHandler(ctx, in, h), src(others), "o.js")
	require.NoError(t, err)
	require.Len(t, got, len(others))
	for i, e := range others {
		_, ok := DecodeNumber(got[i])
		require.False(t, ok, e)
		require.Equal(t, e == "'1'", IsString(got[i]), e)
	}

	got = got[:0]
	_, _, err = in.Eval(WithHandler(ctx, in, h), "let s = 'a'; for (let i = 0; i < 12; i++) s += s + i; __airlock_host(s); __airlock_host(s.slice(0, 3)); throw 1", "s.js")
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.True(t, IsString(got[0]), "a long concatenation (a rope, or flat)")
	require.True(t, IsString(got[1]))

	for _, n := range []int{0, 1, jsonBufSize - 1, jsonBufSize, 5000} {
		s := strings.Repeat("é", n/2) + strings.Repeat("x", n%2)
		h := handlerFunc(func(ctx context.Context, in *Instance, args []uint64) uint64 {
			v, err := in.NewString(ctx, []byte(s))
			require.NoError(t, err)
			return v
		})
		code := "{ const v = __airlock_host(); throw typeof v + ':' + v.length + ':' + (v === 'é'.repeat(" +
			strconv.Itoa(n/2) + ") + 'x'.repeat(" + strconv.Itoa(n%2) + ")) }"
		_, text, err := in.Eval(WithHandler(ctx, in, h), code, "ns.js")
		require.NoError(t, err)
		require.Equal(t, "string:"+strconv.Itoa(len([]rune(s)))+":true", text, "%d bytes", len(s))
	}
}
