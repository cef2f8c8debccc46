package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzRestoreIntlFormats: a parked state's table of Intl formats (its
// prefixes, NUL-separated here) is restored within MaxIntlFormats and
// MaxIntlFormatBytes, without duplicates, or refused as ErrCorruptState,
// never with a panic; and a table it accepts comes back the same through
// the JSON a parked state carries it in (so that a run always resumes
// from the state it parked with).
func FuzzRestoreIntlFormats(f *testing.F) {
	for _, s := range []string{"N{\"l\":[],\"o\":{}}\n", "N1\x00D2", "N1\x00N1", "K{}", "", "N\xed\xa0\x80\x00N\xed\xbf\xbf",
		strings.Repeat("N", MaxIntlFormatBytes+1)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		prefixes := strings.Split(in, "\x00")
		tab, err := restoreIntlFormats(prefixes)
		if err != nil {
			require.ErrorIs(t, err, ErrCorruptState)
			return
		}
		require.LessOrEqual(t, len(tab.prefixes), MaxIntlFormats)
		require.LessOrEqual(t, tab.bytes, MaxIntlFormatBytes)
		require.Len(t, tab.byPrefix, len(tab.prefixes))
		for _, p := range tab.prefixes {
			require.True(t, utf8.ValidString(p))
		}
		js, err := json.Marshal(hostState{IntlFormats: tab.prefixes})
		require.NoError(t, err)
		var back hostState
		require.NoError(t, json.Unmarshal(js, &back))
		again, err := restoreIntlFormats(back.IntlFormats)
		require.NoError(t, err)
		require.Equal(t, tab.prefixes, again.prefixes)
	})
}
