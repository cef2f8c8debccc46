package mcptool_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/toolbox"
)

// TestStartFailFast: with FailFast, a server whose first start fails makes
// Start return at once with an error naming the server and the cause,
// well before the wait ends; without it Start waits and succeeds.
func TestStartFailFast(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spec    mcptool.ServerSpec
		wantErr string
	}{
		{"missing", mcptool.ServerSpec{Name: "s", Command: "/nonexistent/airlock-mcp-test"}, `mcp server "s" did not start: starting "/nonexistent/airlock-mcp-test"`},
		{"exits", mcptool.ServerSpec{Name: "s", Command: "sh", Args: []string{"-c", "exit 7"}}, `mcp server "s" did not start: starting: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			box, err := toolbox.New()
			require.NoError(t, err)
			start := time.Now()
			m, err := mcptool.Start(context.Background(), box, []mcptool.ServerSpec{tc.spec}, mcptool.Options{Wait: 30 * time.Second, FailFast: true})
			require.Nil(t, m)
			require.ErrorContains(t, err, tc.wantErr)
			require.Less(t, time.Since(start), 10*time.Second, "Start fails at once, not after the wait")
		})
	}
}
