package assemble_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/config"
)

// TestLoadReportsEveryProblem: one load of a file with several independent
// problems reports all of them, one per line in line order, each at its
// own line: those the decoder finds, those of cross-field validation and
// those only the tools show (Sources.Check). A policy section that is
// wrong is not blamed on a profile that has no limits of its own.
func TestLoadReportsEveryProblem(t *testing.T) {
	const file = `policy:
  call_timeout: 30x
  approval_timeout: 90s
tools:
  risk:
    send_mesage: HIGH
store:
  colour: blue
profiles:
  ops:
    autonomy: sometimes
  ro:
    limits:
      max_tool_calls: lots
server:
  max_results: -3
default_profile: ops
`
	path := filepath.Join(t.TempDir(), "airlock.yaml")
	require.NoError(t, os.WriteFile(path, []byte(file), 0o600))
	_, err := config.Load(config.Sources{File: path, Check: assemble.Check})
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		path + ":2: policy.call_timeout: ",
		path + ":3: policy.approval_timeout: ",
		path + `:6: tools.risk.send_mesage: no tool named "send_mesage" is configured`,
		path + ":8: store.colour: unknown key in store",
		path + ":11: profiles.ops.autonomy: ",
		path + ":14: profiles.ro.limits.max_tool_calls: ",
		path + ":16: server.max_results: ",
	}
	require.Len(t, lines, len(want), "%s", err)
	for i, w := range want {
		require.True(t, strings.HasPrefix(lines[i], w), "line %d is %q, want it to start with %q\n%s", i, lines[i], w, err)
	}
	require.NotContains(t, err.Error(), "profiles.ops.limits")
	require.ErrorIs(t, err, config.ErrInvalid)
}
