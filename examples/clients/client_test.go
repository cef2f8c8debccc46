// Package clients_test runs the Python unit tests of the example client
// (test_client.py) from go test.
package clients_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPythonClient runs test_client.py, which drives client.py against a
// stub server: error locations, submit failures, the final result.
func TestPythonClient(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is not installed; CI must have it (the tests of the example client need it)")
		}
		t.Skip("python3 is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-B", "-m", "unittest", "-v", "test_client")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Regexp(t, `(?m)^Ran [1-9][0-9]* tests`, string(out))
	require.Regexp(t, `(?m)^OK$`, string(out))
	require.Contains(t, string(out), "test_invalid_script_prints_line_and_column")
}
