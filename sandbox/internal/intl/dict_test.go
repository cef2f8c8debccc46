package intl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDictionariesLoad decodes both dictionaries and checks their kind.
func TestDictionariesLoad(t *testing.T) {
	cj, err := cjDictionary()
	require.NoError(t, err)
	require.NotEmpty(t, cj.units)
	require.True(t, cj.hasValues)
	th, err := thaiDictionary()
	require.NoError(t, err)
	require.NotEmpty(t, th.bytes)
	require.False(t, th.hasValues)
	require.Equal(t, rune(0x0e00), th.offset)
	_, err = loadDictionary(cjDictGz, thaiDictSum)
	require.ErrorContains(t, err, "damaged")
}
