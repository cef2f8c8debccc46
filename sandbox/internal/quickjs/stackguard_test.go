package quickjs

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGuardStack(t *testing.T) {
	b, lay, err := GuardStack(wasmBytes)
	require.NoError(t, err)
	require.Greater(t, lay.Patched, 100)
	require.Equal(t, uint32(wasmStackSize), lay.StackTop-lay.StackBase)
	require.Greater(t, len(b), 0)
	_, _, err = GuardStack([]byte("nope"))
	require.Error(t, err)
}

func TestLEB(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, 64, -64, -65, 1 << 20, int64(int32(StackOverflowMagic))} {
		got, n, err := sleb(appendSleb(nil, v))
		require.NoError(t, err)
		require.Equal(t, v, got)
		require.Positive(t, n)
	}
}
