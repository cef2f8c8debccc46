package intl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRangeHostile sends formatRange requests a script could not make
// (the prelude sends finite numbers) and ones it can: each is answered
// with an error or a range, never a panic, in bounded work.
func TestRangeHostile(t *testing.T) {
	h := New()
	for _, tt := range []struct{ v, w, want string }{
		{`0`, `"x"`, `{"e":"TypeError","m":"malformed Intl value"}`},
		{`[1]`, `0`, `{"e":"TypeError","m":"malformed Intl value"}`},
		{`0`, `1e400`, `{"e":"TypeError","m":"malformed Intl value"}`},
		{`0`, `{"a":1}`, `{"e":"TypeError","m":"malformed Intl value"}`},
		{`9e15`, `0`, `{"e":"RangeError","m":"Invalid time value"}`},
		{`0`, `-8640000000000001`, `{"e":"RangeError","m":"Invalid time value"}`},
		{`8.64e15`, `-8.64e15`, ``},
		{`0.9`, `0.1`, ``},
		{`-1e-300`, `1e-300`, ``},
	} {
		req := `{"op":"dtf","l":["en"],"o":{"timeZone":"UTC","dateStyle":"full","timeStyle":"full"},"v":` + tt.v + `,"w":` + tt.w + `}`
		got := string(h.Handle([]byte(req)))
		if tt.want != "" {
			require.Equal(t, tt.want, got, req)
			continue
		}
		require.Contains(t, got, `"p":[[`, req)
	}
	// Every locale and calendar, with every option set the audit has,
	// over a wide span, in bounded time.
	for _, l := range []string{"en", "ar-EG", "zh-Hant-HK", "ja-u-ca-japanese", "he-u-ca-hebrew", "de-u-hc-h11", "xx"} {
		for _, o := range rangeOptions {
			opts, _, _ := strings.Cut(o, "|")
			req := `{"op":"dtf","l":["` + l + `"],"o":` + opts + `,"v":-8.64e15,"w":8.64e15}`
			got := string(h.Handle([]byte(req)))
			require.True(t, strings.HasPrefix(got, `{"r":`), "%s: %s", req, got)
		}
	}
}

// TestSplitInTwo checks splitPatternInto2Part's cuts.
func TestSplitInTwo(t *testing.T) {
	for p, want := range map[string]int{
		"MMM d – d, y": len("MMM d – "), "h:mm – h:mm a": len("h:mm – "), "d – d": len("d – "),
		"y": 1, "'d' d – d": len("'d' d – "), "HH:mm": 5,
	} {
		require.Equal(t, want, splitInTwo(p), p)
	}
}
