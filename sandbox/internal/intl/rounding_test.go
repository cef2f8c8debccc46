package intl

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRoundingModes pins ECMA-402's rounding modes on ties and signs, as
// Node 20 formats them (corpus 180-183 compare many more with Node).
func TestRoundingModes(t *testing.T) {
	h := New()
	values := []string{"1.5", "2.5", "-1.5", "-2.5", "1.25", "0.004", "-0.004"}
	want := map[string]string{
		"ceil":       "2 3 -1 -2 2 1 -0",
		"floor":      "1 2 -2 -3 1 0 -1",
		"expand":     "2 3 -2 -3 2 1 -1",
		"trunc":      "1 2 -1 -2 1 0 -0",
		"halfCeil":   "2 3 -1 -2 1 0 -0",
		"halfFloor":  "1 2 -2 -3 1 0 -0",
		"halfExpand": "2 3 -2 -3 1 0 -0",
		"halfTrunc":  "1 2 -1 -2 1 0 -0",
		"halfEven":   "2 2 -2 -2 1 0 -0",
	}
	for mode, w := range want {
		t.Run(mode, func(t *testing.T) {
			got := ""
			for i, v := range values {
				if i > 0 {
					got += " "
				}
				got += format(t, h, fmt.Sprintf(`{"maximumFractionDigits":0,"roundingMode":%q}`, mode), v)
			}
			require.Equal(t, w, got)
		})
	}
}

func format(t *testing.T, h *Handler, opts, v string) string {
	t.Helper()
	out := h.Handle([]byte(`{"op":"nf","l":["en"],"o":` + opts + `,"v":"` + v + `"}`))
	var ans struct {
		S string `json:"s"`
		E string `json:"e"`
		M string `json:"m"`
	}
	require.NoError(t, json.Unmarshal(out, &ans), string(out))
	if ans.E != "" {
		return "!" + ans.E + ": " + ans.M
	}
	return ans.S
}

// TestRoundingOptions: increments, priorities, trailing zeros and the
// validation errors, worded as V8's.
func TestRoundingOptions(t *testing.T) {
	h := New()
	tests := []struct{ opts, v, want string }{
		{`{"roundingIncrement":5,"minimumFractionDigits":2,"maximumFractionDigits":2}`, "1.125", "1.15"},
		{`{"roundingIncrement":25,"minimumFractionDigits":2,"maximumFractionDigits":2,"roundingMode":"halfEven"}`, "1.125", "1.00"},
		{`{"roundingIncrement":25,"minimumFractionDigits":2,"maximumFractionDigits":2,"roundingMode":"halfEven"}`, "1.375", "1.50"},
		{`{"roundingIncrement":2,"roundingMode":"halfEven"}`, "3", "4"},
		{`{"roundingIncrement":2,"roundingMode":"halfEven"}`, "1", "0"},
		{`{"roundingIncrement":5000}`, "2500", "5,000"},
		{`{"roundingIncrement":5000}`, "2499", "0"},
		{`{"roundingIncrement":50,"roundingMode":"ceil"}`, "0.00049", "50"},
		{`{"maximumSignificantDigits":2,"maximumFractionDigits":1,"roundingPriority":"morePrecision"}`, "1.2345", "1.2"},
		{`{"maximumSignificantDigits":2,"maximumFractionDigits":1,"roundingPriority":"lessPrecision"}`, "0.1234", "0.1"},
		{`{"maximumSignificantDigits":2,"maximumFractionDigits":1,"roundingPriority":"morePrecision"}`, "0.1234", "0.12"},
		{`{"maximumSignificantDigits":2,"maximumFractionDigits":1,"roundingPriority":"lessPrecision"}`, "123.456", "120"},
		{`{"minimumFractionDigits":2,"maximumFractionDigits":2,"trailingZeroDisplay":"stripIfInteger"}`, "1.001", "1"},
		{`{"minimumFractionDigits":2,"trailingZeroDisplay":"stripIfInteger"}`, "1.5", "1.50"},
		{`{"roundingIncrement":3}`, "1", "!RangeError: roundingIncrement value is out of range."},
		{`{"roundingIncrement":5000.5}`, "1", "!RangeError: roundingIncrement value is out of range."},
		{`{"roundingIncrement":1e300}`, "1", "!RangeError: roundingIncrement value is out of range."},
		{`{"roundingIncrement":5,"maximumFractionDigits":2}`, "1", "!RangeError: maximumFractionDigits not equal to minimumFractionDigits"},
		{`{"roundingIncrement":5,"maximumSignificantDigits":2}`, "1", "!TypeError: RoundingType is not fractionDigits"},
		{`{"roundingIncrement":5,"notation":"compact"}`, "1", "!TypeError: RoundingType is not fractionDigits"},
		{`{"roundingMode":"x"}`, "1", "!RangeError: Value x out of range for Intl.NumberFormat options property roundingMode"},
		{`{"roundingPriority":"x"}`, "1", "!RangeError: Value x out of range for SetNumberFormatDigitOptions options property roundingPriority"},
		{`{"trailingZeroDisplay":"x"}`, "1", "!RangeError: Value x out of range for Intl.NumberFormat options property trailingZeroDisplay"},
		{`{"maximumFractionDigits":20.5}`, "1", "!RangeError: maximumFractionDigits value is out of range."},
		{`{"maximumFractionDigits":19.5}`, "0.123456789", "0.123456789"},
		// Hostile: a huge value with an increment stays bounded work.
		{`{"roundingIncrement":2500,"minimumFractionDigits":3,"maximumFractionDigits":3,"useGrouping":false}`, "999.9999", "1000.000"},
		{`{"roundingIncrement":2500,"minimumFractionDigits":3,"maximumFractionDigits":3,"useGrouping":false}`, strings.Repeat("9", 4000) + ".9999", "1" + strings.Repeat("0", 4000) + ".000"},
		{`{"roundingIncrement":5,"maximumFractionDigits":0,"roundingMode":"expand"}`, "1e-1000", "5"},
	}
	for _, tt := range tests {
		t.Run(tt.opts+" "+tt.v, func(t *testing.T) {
			require.Equal(t, tt.want, format(t, h, tt.opts, tt.v))
		})
	}
}
