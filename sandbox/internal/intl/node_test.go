package intl

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireNode returns the path of node for an audit that compares with
// Node 20 (why names it: "audit ranges"): without node the test skips,
// and fails under CI=true, where every real dependency must be there.
func requireNode(t *testing.T, why string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required under CI=true to " + why)
		}
		t.Skip("node not installed")
	}
	return node
}

// nodeEnv is the environment the audits run node in: UTC, and the C
// locale, so that the host's settings change nothing.
func nodeEnv() []string {
	return append(os.Environ(), "TZ=UTC", "LANG=C", "LC_ALL=C")
}

// nodeJSON runs script under node with in, as JSON, on its standard
// input, and decodes what it prints into out.
func nodeJSON(t *testing.T, node, script string, in, out any) {
	t.Helper()
	b, err := json.Marshal(in)
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", script)
	cmd.Env = nodeEnv()
	cmd.Stdin = bytes.NewReader(b)
	b, err = cmd.Output()
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, out))
}

// nodeDates is Date.parse of each date string, as Node reads it.
func nodeDates(t *testing.T, node string, dates []string) []float64 {
	t.Helper()
	var ms []float64
	nodeJSON(t, node, `process.stdout.write(JSON.stringify(JSON.parse(require("fs").readFileSync(0, "utf8")).map((d) => Date.parse(d))))`, dates, &ms)
	require.Len(t, ms, len(dates))
	return ms
}
