package mcptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/mcptest"
	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// startDown starts a Manager whose servers are not expected to come up.
func startDown(t *testing.T, specs []mcptool.ServerSpec, opts mcptool.Options) (*mcptool.Manager, *toolbox.Toolbox) {
	t.Helper()
	box, err := toolbox.New()
	require.NoError(t, err)
	m := within(t, 15*time.Second, "Start", func() *mcptool.Manager {
		m, err := mcptool.Start(context.Background(), box, specs, opts)
		require.NoError(t, err)
		return m
	})
	t.Cleanup(func() { _ = m.Close() })
	return m, box
}

// TestStartFails: a command that does not exist, one that exits at once
// and one that never answers leave their server down with the reason in
// Status, register nothing, and Close returns promptly.
func TestStartFails(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spec    mcptool.ServerSpec
		wantErr string
	}{
		{"missing", mcptool.ServerSpec{Name: "s", Command: "/nonexistent/airlock-mcp-test"}, `starting "/nonexistent/airlock-mcp-test"`},
		{"exits", mcptool.ServerSpec{Name: "s", Command: "sh", Args: []string{"-c", "exit 7"}}, "starting: "},
		{"hangs", mcptool.ServerSpec{Name: "s", Command: "sleep", Args: []string{"100"}, StartTimeout: time.Second}, "did not initialize within 1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Start with a Wait returns when the wait ends, not before
			// the server is up nor later.
			m, box := startDown(t, []mcptool.ServerSpec{tc.spec}, mcptool.Options{Wait: 2 * time.Second})
			select {
			case <-m.Ready("s"):
				t.Fatal("the server listed tools")
			default:
			}
			eventually(t, "the error is reported", func() bool {
				return strings.Contains(status(t, m, "s").Error, tc.wantErr)
			})
			st := status(t, m, "s")
			t.Logf("status error: %s", st.Error)
			require.False(t, st.Up)
			require.Empty(t, st.Tools)
			require.Zero(t, box.Len())
			pid := m.PID("s", "")
			within(t, 10*time.Second, "Close", func() error { return m.Close() })
			if pid != 0 {
				require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the process ended")
			}
		})
	}
}

// TestTenantStartFails: when a tenant's session cannot start, that
// tenant's calls fail as unavailable (after the first start, not while it
// runs) while the catalog's tools stay registered.
func TestTenantStartFails(t *testing.T) {
	ctx := context.Background()
	block := filepath.Join(t.TempDir(), "block")
	spec := mcptool.ServerSpec{Name: "everything", Command: "sh", PerTenant: true,
		Args: []string{"-c", `test -e "$BLOCK" && exit 3; exec node "$0"`, mcptest.Everything(t)},
		Env:  map[string]string{"BLOCK": block}}
	m, box := start(t, nil, []mcptool.ServerSpec{spec}, mcptool.Options{})
	require.NoError(t, os.WriteFile(block, nil, 0o600))

	_, err := call(toolbox.WithCaller(ctx, caller("s1", "acme")), t, box, "everything_get_sum", `{"a": 1, "b": 2}`)
	var unavailable *toolbox.UnavailableError
	require.ErrorAs(t, err, &unavailable)
	require.NotContains(t, err.Error(), "it is starting", "the call waited for the first start")
	require.Contains(t, err.Error(), "starting: ")
	inv := newInvoker(t, box, invoker.Policy{})
	res, _ := invoke(t, inv, "acme", "everything_get_sum", `{"a": 1, "b": 2}`)
	require.Equal(t, invoker.ReasonToolUnavailable, res.Reason, res.Message)

	st := status(t, m, "everything")
	require.True(t, st.Up, "the catalog session is unaffected")
	require.Contains(t, st.Tools, "everything_get_sum")
}

const secret = "s3cr3t-Value-9f2"

func secrets(_ context.Context, name string) (string, error) {
	switch name {
	case "MY_SECRET":
		return secret, nil
	case "BROKEN":
		return "line\nbreak-" + secret, nil
	}
	return "", errors.New("no secret " + name + " (it would be " + secret + ")")
}

// TestSecrets: ${env:NAME} placeholders are resolved through
// Options.Secrets into the stdio server's environment and the HTTP
// server's headers; nothing else of airlock's environment reaches the
// server; the secret appears in no Status error and no log line.
func TestSecrets(t *testing.T) {
	ctx := context.Background()
	t.Setenv("AIRLOCK_TEST_CANARY", "canary-5h1")
	logs := &syncBuffer{}
	opts := mcptool.Options{Secrets: toolbox.SecretsFunc(secrets), Logger: bufLogger(logs)}

	t.Run("stdio env", func(t *testing.T) {
		spec := stdioSpec(t)
		spec.Env = map[string]string{"API_TOKEN": "Bearer ${env:MY_SECRET}", "PLAIN": "plain"}
		_, box := start(t, nil, []mcptool.ServerSpec{spec}, opts)
		out, err := call(ctx, t, box, "everything_get_env", `{}`)
		require.NoError(t, err)
		var text string
		require.NoError(t, json.Unmarshal(out.JSON, &text))
		var env map[string]string
		require.NoError(t, json.Unmarshal([]byte(text), &env))
		// The server got the secret (it says it back) and the chain does not:
		// results are scrubbed of the secrets the server was given.
		require.Equal(t, "Bearer [REDACTED]", env["API_TOKEN"])
		require.NotContains(t, string(out.JSON), secret)
		require.Equal(t, "plain", env["PLAIN"])
		require.NotContains(t, env, "AIRLOCK_TEST_CANARY")
		allowed := []string{"PATH", "HOME", "TMPDIR", "LANG", "API_TOKEN", "PLAIN"}
		for k := range env {
			require.Contains(t, allowed, k, "only these reach the server: %v", slices.Sorted(maps.Keys(env)))
		}
		require.Equal(t, os.Getenv("PATH"), env["PATH"])
	})

	t.Run("http headers", func(t *testing.T) {
		srv := sdk.NewServer(&sdk.Implementation{Name: "gosrv", Version: "1"}, nil)
		addUpper(srv, "alpha", "Alpha tool.")
		sdk.AddTool(srv, &sdk.Tool{Name: "leak", Description: "Fails quoting the token."},
			func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "bad token " + secret}}}, nil, nil
			})
		url, auth := goServer(t, srv)
		spec := mcptool.ServerSpec{Name: "go", URL: url, Headers: map[string]string{"Authorization": "Bearer ${env:MY_SECRET}"}}
		_, box := start(t, nil, []mcptool.ServerSpec{spec}, opts)
		_, err := call(ctx, t, box, "go_alpha", `{"text": "x"}`)
		require.NoError(t, err)
		seen := auth()
		require.NotEmpty(t, seen)
		for _, a := range seen {
			require.Equal(t, "Bearer "+secret, a)
		}
		// A tool error quoting the secret reaches the chain without it.
		_, err = call(ctx, t, box, "go_leak", `{}`)
		require.EqualError(t, err, "bad token [REDACTED]")
	})

	// Starts that fail with the secret about: a server that prints it on
	// stdout (not JSON-RPC) or stderr and exits, a secret that is not
	// there, one with a line break.
	for _, tc := range []struct {
		name, script, env, wantErr string
	}{
		{"printed on stdout", `echo "$TOKEN"; exit 1`, "${env:MY_SECRET}", "starting: "},
		{"printed on stderr", `echo "$TOKEN" >&2; exit 1`, "${env:MY_SECRET}", "starting: "},
		// server-everything's SDK answers server/discover (id 1) with an
		// error; this one refuses initialize (id 2) quoting the secret.
		{"quoted by the server", `read -r l; echo '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}'; read -r l; echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":1,\"message\":\"refused $TOKEN\"}}"; sleep 5`, "${env:MY_SECRET}", `calling "initialize": refused [REDACTED]`},
		{"missing", `exit 1`, "${env:NOPE}", "TOKEN: secret NOPE: not available"},
		{"line break", `exit 1`, "${env:BROKEN}", "TOKEN: the value holds a line break or NUL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := mcptool.ServerSpec{Name: "s", Command: "sh", Args: []string{"-c", tc.script},
				Env: map[string]string{"TOKEN": tc.env}, StartTimeout: 3 * time.Second}
			m, _ := startDown(t, []mcptool.ServerSpec{spec}, opts)
			eventually(t, "the error is reported", func() bool {
				return strings.Contains(status(t, m, "s").Error, tc.wantErr)
			})
			time.Sleep(500 * time.Millisecond) // a retry or two
			require.NoError(t, m.Close())
			st := status(t, m, "s")
			t.Logf("status error: %s", st.Error)
			require.NotContains(t, st.Error, secret)
			require.NotContains(t, st.Error, "break-")
		})
	}
	require.NotContains(t, logs.String(), secret)
	require.NotContains(t, logs.String(), "canary-5h1")
	require.Contains(t, logs.String(), "mcp: server down", "the log was written to")
}
