package intl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPatternGenerator checks the patterns the generator makes for the
// differences it was written to remove (TestDatePatternsMatchNode compares
// thousands more with Node), without node.
func TestPatternGenerator(t *testing.T) {
	h := New()
	for _, c := range []struct {
		locale, options, want string
	}{
		// A weekday with a numeric hour in h23 keeps de's "EHm" two-digit hour.
		{"de", `{"weekday":"short","hour":"numeric","minute":"2-digit","hourCycle":"h23"}`, "Mo., 00:05"},
		{"en-GB", `{"weekday":"short","hour":"numeric","minute":"2-digit","hourCycle":"h23"}`, "Mon 00:05"},
		// Korean medium time in h23: ICU's HHmmss, its hour one digit wide.
		{"ko", `{"timeStyle":"medium","hourCycle":"h23"}`, "0:05:09"},
		// The full date style pattern wins the tie of equal distances.
		{"es", `{"weekday":"long","day":"numeric","month":"short","year":"numeric"}`, "lunes, 15 de ene de 2024"},
		{"pt-PT", `{"weekday":"long","day":"numeric","month":"long","year":"numeric"}`, "segunda-feira, 15 de janeiro de 2024"},
		// A field no format has is appended with CLDR's appendItems.
		{"en", `{"year":"numeric","day":"numeric"}`, "2024 (day: 15)"},
		{"de", `{"year":"numeric","day":"numeric"}`, "2024 (Tag: 15)"},
		// fr-CA's "'h'" reads as a numeric hour in resolvedOptions.
		{"fr-CA", `{"hour":"2-digit","minute":"2-digit","hour12":true}`, "00 h 05\u202fa.m."},
	} {
		v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{c.locale}, O: []byte(c.options[:len(c.options)-1] + `,"timeZone":"UTC"}`)})
		require.NoError(t, err, c.locale+" "+c.options)
		parts, err := v.(*dtAnswer).format(1705277109000) // 2024-01-15T00:05:09Z
		require.NoError(t, err)
		require.Equal(t, c.want, joinParts(parts), c.locale+" "+c.options)
	}
	v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{"fr-CA"}, O: []byte(`{"hour":"2-digit","minute":"2-digit","hour12":true}`)})
	require.NoError(t, err)
	require.Equal(t, "numeric", v.(*dtAnswer).R.Hour)
}
