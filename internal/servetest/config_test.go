package servetest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFleetNeedsMinIOUnderCI: under CI=true a fleet without MinIO is an
// error, never a quiet fall-back to the fs store; outside CI it falls back.
func TestFleetNeedsMinIOUnderCI(t *testing.T) {
	t.Setenv("AIRLOCK_S3_ENDPOINT", "")
	t.Setenv("CI", "true")
	_, _, err := configure(t, 2, Options{})
	require.ErrorContains(t, err, "AIRLOCK_S3_ENDPOINT is unset")
	_, _, err = configure(t, 1, Options{ApprovalMode: "park"})
	require.ErrorContains(t, err, "AIRLOCK_S3_ENDPOINT is unset", "park needs a fleet even for one process")

	t.Setenv("CI", "")
	c, s3, err := configure(t, 2, Options{})
	require.NoError(t, err)
	require.False(t, s3)
	require.Contains(t, c, "allow_unlocked_store: true")
}

// TestConfigNotAMapping: extra config that is not a YAML mapping is an
// error naming Options.Config.
func TestConfigNotAMapping(t *testing.T) {
	_, _, err := configure(t, 1, Options{Config: "- a\n- b"})
	require.ErrorContains(t, err, "Options.Config is not a YAML mapping")
}
