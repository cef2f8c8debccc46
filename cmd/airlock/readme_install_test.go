package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeSaysWhatMakeTestInstalls: the README names every Debian
// package scripts/deps.sh installs, every npm package scripts/mcp-deps.sh
// pins (with its version) and the MinIO version scripts/minio.sh builds;
// and each of the five stages is announced by the script that runs it.
func TestReadmeSaysWhatMakeTestInstalls(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("../../" + name)
		require.NoError(t, err)
		return string(b)
	}
	readme, deps, minio, makefile := read("README.md"), read("scripts/deps.sh"), read("scripts/minio.sh"), read("Makefile")

	m := regexp.MustCompile(`(?m)^for tool in ([a-z0-9: ]+); do`).FindStringSubmatch(deps)
	require.NotNil(t, m, "scripts/deps.sh lists its Debian packages (command:package) in one for loop")
	for _, pair := range strings.Fields(m[1]) {
		_, pkg, ok := strings.Cut(pair, ":")
		require.True(t, ok, pair)
		require.Contains(t, readme, "`"+pkg+"`", "README names the Debian package %s", pkg)
	}
	out, err := exec.Command("../../scripts/mcp-deps.sh", "--list").Output()
	require.NoError(t, err)
	for _, pkg := range strings.Fields(string(out)) {
		require.Contains(t, readme, pkg, "README names the npm package %s with its version", pkg)
	}
	v := regexp.MustCompile(`MINIO_VERSION="([^"]+)"`).FindStringSubmatch(minio)
	require.NotNil(t, v)
	require.Contains(t, readme, "github.com/minio/minio@"+v[1])

	for n, script := range map[string]string{"1": deps, "2": deps, "3": minio, "4": minio} {
		require.Regexp(t, `(?m)^\s*stage `+n+` "`, script, "stage %s is announced", n)
	}
	require.Contains(t, makefile, "TEST_STAGES := 5", "make test numbers five stages")
	require.Contains(t, makefile, "[5/$(TEST_STAGES)]", "the Makefile announces the test stage")
	require.Contains(t, readme, "==> [n/5]")
}
