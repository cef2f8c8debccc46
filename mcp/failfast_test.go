package mcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/mcp"
	"github.com/airlockrt/airlock/toolbox"
)

// TestStartFailFast: with FailFast, a server whose first start fails makes
// Start return at once with an error naming the server and the cause,
// well before the wait ends; without it Start waits and succeeds.
func TestStartFailFast(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spec    mcp.ServerSpec
		wantErr string
	}{
		{"missing", mcp.ServerSpec{Name: "s", Command: "/nonexistent/airlock-mcp-test"}, `mcp server "s" did not start: starting "/nonexistent/airlock-mcp-test"`},
		{"exits", mcp.ServerSpec{Name: "s", Command: "sh", Args: []string{"-c", "exit 7"}}, `mcp server "s" did not start: starting: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			box, err := toolbox.New()
			require.NoError(t, err)
			start := time.Now()
			m, err := mcp.Start(context.Background(), box, []mcp.ServerSpec{tc.spec}, mcp.Options{Wait: 30 * time.Second, FailFast: true})
			require.Nil(t, m)
			require.ErrorContains(t, err, tc.wantErr)
			require.Less(t, time.Since(start), 10*time.Second, "Start fails at once, not after the wait")
		})
	}
}
