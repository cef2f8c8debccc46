package jsnum

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAppend: the strings ECMAScript's Number::toString gives (as in V8).
func TestAppend(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1.5, "-1.5"}, {0.1, "0.1"},
		{1e20, "100000000000000000000"}, {1e21, "1e+21"}, {123e-20, "1.23e-18"},
		{0.000001, "0.000001"}, {1e-7, "1e-7"}, {5e-324, "5e-324"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{9007199254740993, "9007199254740992"}, {1.5e300, "1.5e+300"}, {-2.5e-7, "-2.5e-7"}, {123456.789, "123456.789"},
	} {
		require.Equal(t, c.want, string(Append(nil, c.x)), "%v", c.x)
	}
	require.Equal(t, "x=42", string(Append([]byte("x="), 42)))
}
