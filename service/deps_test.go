package service_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoTransport: the service is transport-free: it imports no net/http
// and none of the faces; the composition root builds it without pulling
// in the HTTP face.
func TestNoTransport(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "github.com/airlockrt/airlock/service").CombinedOutput()
	require.NoError(t, err, "%s", out)
	imports := strings.Fields(string(out))
	for _, banned := range []string{"net/http", "github.com/airlockrt/airlock/server", "github.com/airlockrt/airlock/mcp",
		"github.com/airlockrt/airlock/internal/config", "github.com/airlockrt/airlock/internal/assemble"} {
		require.NotContains(t, imports, banned, "service must not import %s", banned)
	}
	out, err = exec.Command("go", "list", "-deps", "github.com/airlockrt/airlock/internal/assemble").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	for _, banned := range []string{"github.com/airlockrt/airlock/server", "github.com/airlockrt/airlock/mcp"} {
		require.NotContains(t, deps, banned, "the composition root must not need the face %s", banned)
	}
}
