package main_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStartupErrors: a configuration run, serve and mcp cannot start with
// ends the command with its documented exit code and the cause on stderr,
// never a panic: 2 for a configuration to change, 3 for a host that failed
// (a store that cannot be reached or opened).
func TestStartupErrors(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(notDir, []byte("x"), 0o600))
	configs := []struct {
		name, yaml string
		code       int
		want       []string
	}{
		{"misspelt tool", "tools:\n  risk:\n    send_mesage: HIGH\n", 2,
			[]string{":3: tools.risk.send_mesage:", `no tool named "send_mesage"`}},
		{"unreachable s3", "store:\n  kind: s3\n  s3:\n    endpoint: 127.0.0.1:1\n    bucket: airlock\n", 3,
			[]string{"S3 blob store", "127.0.0.1:1"}},
		{"unwritable store dir", "store:\n  dir: " + filepath.Join(notDir, "store") + "\n", 3,
			[]string{"opening the blob store", notDir}},
	}
	commands := map[string][]string{
		"run":   {"run", chains + "quickstart.js"},
		"serve": {"serve", "--addr", "127.0.0.1:0"},
		"mcp":   {"mcp"},
	}
	for _, cfg := range configs {
		file := filepath.Join(dir, cfg.name+".yaml")
		require.NoError(t, os.WriteFile(file, []byte(cfg.yaml), 0o600))
		for cmd, args := range commands {
			t.Run(cfg.name+"/"+cmd, func(t *testing.T) {
				res := airlock(t, "", nil, append(args, "--config", file)...)
				require.NotContains(t, res.stderr, "panic")
				require.NotContains(t, res.stderr, "goroutine ")
				require.Equal(t, cfg.code, res.code, res.stderr)
				for _, w := range cfg.want {
					require.Contains(t, res.stderr, w)
				}
			})
		}
	}
}

// TestRunMCPServerDown: a one-shot run whose MCP server cannot start fails
// at once with exit code 3, naming the server and the cause, instead of
// waiting out the start timeout and running without its tools.
func TestRunMCPServerDown(t *testing.T) {
	start := time.Now()
	res := airlock(t, "", nil, "run", "--mcp", "x=/nonexistent/cmd", chains+"quickstart.js")
	require.Less(t, time.Since(start), 15*time.Second, "airlock run fails fast: %s", res.stderr)
	require.NotContains(t, res.stderr, "panic")
	require.Equal(t, 3, res.code, res.stderr)
	require.Contains(t, res.stderr, `mcp server "x" did not start`)
	require.Contains(t, res.stderr, "/nonexistent/cmd")
	require.Empty(t, res.stdout, "no chain ran")

	// The --mcp servers are known when the file is checked: tools.risk may
	// name their tools.
	file := filepath.Join(t.TempDir(), "airlock.yaml")
	require.NoError(t, os.WriteFile(file, []byte("tools:\n  risk: {x_echo: HIGH}\n"), 0o600))
	res = airlock(t, "", nil, "run", "--config", file, "--mcp", "x=/nonexistent/cmd", chains+"quickstart.js")
	require.Equal(t, 3, res.code, res.stderr)
	require.Contains(t, res.stderr, `mcp server "x" did not start`)
}

// TestConfigPrintDefaults: `airlock config print` shows the effective
// default of a key whose default is not a value of its own (the log
// level) and what an empty key means, rather than a bare "".
func TestConfigPrintDefaults(t *testing.T) {
	res := airlock(t, "", nil, "config", "print")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "\n  log_level: info\n")
	require.Contains(t, res.stdout, "\n  mode: \"\" # ask on a terminal, else deny (airlock run); queue (serve, mcp)\n")
	require.Contains(t, res.stdout, "\n  exporter: \"\" # off\n")
	require.Contains(t, res.stdout, "\n  max_tool_calls: 50\n")
}
