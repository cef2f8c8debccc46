package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/sandbox"
)

// TestMaxStackBytesSetting: the stack limit is a setting like the others —
// it has a key, a default, text parsing and the request merge — with no code
// outside its owner.
func TestMaxStackBytesSetting(t *testing.T) {
	var l sandbox.Limits
	require.NoError(t, l.Set("max_stack_bytes", "32KiB"))
	require.Equal(t, 32<<10, l.MaxStackBytes)
	require.Equal(t, sandbox.DefaultMaxStackBytes, sandbox.Limits{}.WithDefaults().MaxStackBytes)

	got, err := sandbox.Limits{}.Tighten(sandbox.Limits{MaxStackBytes: 16 << 10}, sandbox.Limits{})
	require.NoError(t, err)
	require.Equal(t, 16<<10, got.MaxStackBytes)
	_, err = sandbox.Limits{MaxStackBytes: 16 << 10}.Tighten(sandbox.Limits{MaxStackBytes: 32 << 10}, sandbox.Limits{})
	require.EqualError(t, err, "max_stack_bytes 32KiB is above this server's value of 16KiB")
	require.EqualError(t, sandbox.Limits{MaxStackBytes: -1}.Validate(), "sandbox: invalid limits: max_stack_bytes (-1) must not be negative")
}
