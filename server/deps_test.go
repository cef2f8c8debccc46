package server_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImportsPointOneWay: the server is a face that embedders link; it
// takes what the composition root built and pulls in neither the loader of
// the configuration file, nor the demo or HTTP tools, nor the exporters
// tracing is set up with.
func TestImportsPointOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/airlockrt/airlock/server").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	for _, banned := range []string{
		"github.com/airlockrt/airlock/internal/config",
		"github.com/airlockrt/airlock/internal/demo",
		"github.com/airlockrt/airlock/internal/httptool",
		"github.com/airlockrt/airlock/internal/assemble",
		"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp",
		"go.yaml.in/yaml/v3",
	} {
		require.NotContains(t, deps, banned, "server must not import %s", banned)
	}
	t.Logf("server links %d packages", len(deps))
}
