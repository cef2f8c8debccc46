package assemble_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/toolbox"
)

func load(t *testing.T, yaml string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "airlock.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o600))
	c, err := config.Load(config.Sources{File: path})
	require.NoError(t, err)
	return c
}

// TestToolDefinitionErrors: the composition root checks the HTTP tool
// definitions when it builds them, and names the value to change by its
// position in the file.
func TestToolDefinitionErrors(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"http tool without url", "tools:\n  http:\n    - name: a\n      description: d\n", `airlock.yaml:3: tools.http[0]: httptool: invalid spec: tool "a": url must start with http`},
		{"http tool bad name", "tools:\n  http:\n    - name: A B\n      description: d\n      url: http://x\n", `airlock.yaml:3: tools.http[0]: httptool: invalid spec: tool "A B": name must match`},
		{"http tool bad method", "tools:\n  http:\n    - name: a\n      description: d\n      url: http://x\n      method: TRACE\n", `method "TRACE" is not one of`},
		{"http tool bad schema", "tools:\n  http:\n    - name: a\n      description: d\n      url: http://x\n      input_schema: {type: string}\n", `airlock.yaml:3: tools.http[0]: httptool: invalid spec: tool "a": input schema must have "type": "object"`},
		{"http tool bad header", "tools:\n  http:\n    - name: a\n      description: d\n      url: http://x\n      headers:\n        X-Key: ${env:bad-name}\n", `does not name an environment variable`},
		{"http tool duplicate", "tools:\n  http:\n    - {name: a, description: d, url: 'http://x'}\n    - {name: a, description: d, url: 'http://y'}\n", `airlock.yaml:4: tools.http[1].name: "a" is already the name of tools.http[0]`},
		{"http tool shadows demo", "tools:\n  http:\n    - {name: kv_get, description: d, url: 'http://x'}\n", `airlock.yaml:3: tools.http[0].name: "kv_get" is already a demo tool`},
		{"tenant ref without a source", "tools:\n  http:\n    - name: a\n      description: d\n      url: http://x\n      headers:\n        Authorization: Bearer ${tenant:crm_token}\n",
			`airlock.yaml:3: tools.http[0]: httptool: invalid spec: tool "a": header Authorization: ${tenant:crm_token} needs a tenant secret source, and none is configured (tenant_secrets.dir or tenant_secrets.env_prefix; docs/identity.md)`},
		{"tenant ref bad name", "tenant_secrets: {env_prefix: AIRLOCK_SECRET_}\ntools:\n  http:\n    - name: a\n      description: d\n      url: http://x\n      headers:\n        Authorization: Bearer ${tenant:../crm}\n",
			`header Authorization: ${tenant:../crm} does not name a tenant secret (1 to 64 of a-z, 0-9 and _, starting with a letter)`},
		{"tenant ref unterminated", "tenant_secrets: {env_prefix: AIRLOCK_SECRET_}\ntools:\n  http:\n    - name: a\n      description: d\n      url: http://x\n      headers:\n        Authorization: Bearer ${tenant:crm\n",
			`header Authorization: unterminated ${tenant: reference`},
		{"tenant ref in an mcp server's headers", "tenant_secrets: {env_prefix: AIRLOCK_SECRET_}\nmcp_servers:\n  - name: docs\n    url: http://x/mcp\n    headers: {Authorization: 'Bearer ${tenant:docs_token}'}\n",
			`airlock.yaml:3: mcp_servers[0]: mcp server "docs": Authorization: ${tenant:NAME} is not supported for MCP servers: a server's credentials are resolved once, when its session starts, and every call on the session shares them (docs/identity.md); use ${env:NAME}, or an HTTP tool for per-tenant credentials`},
		{"tenant ref in an mcp server's env", "tenant_secrets: {env_prefix: AIRLOCK_SECRET_}\nmcp_servers:\n  - name: gh\n    command: gh-mcp\n    per_tenant: true\n    env: {GITHUB_TOKEN: '${tenant:gh_token}'}\n",
			`mcp server "gh": GITHUB_TOKEN: ${tenant:NAME} is not supported for MCP servers`},
		{"risk for a tool that is not there", "tools:\n  builtin: []\n  risk:\n    send_message: HIGH\n", `airlock.yaml:4: tools.risk.send_message: no tool named "send_message" is configured`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := assemble.Tools(load(t, tc.yaml))
			require.ErrorIs(t, err, assemble.ErrConfig)
			require.ErrorIs(t, err, config.ErrInvalid)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestTools(t *testing.T) {
	c := load(t, `
tools:
  builtin: [demo]
  risk:
    send_message: CRITICAL
    kv_set: HIGH
  http:
    - name: forecast
      description: the forecast
      url: http://127.0.0.1:1/forecast
      method: GET
    - name: notify
      description: notify someone
      url: http://127.0.0.1:1/notify
`)
	box, sets, err := assemble.Tools(c)
	require.NoError(t, err)
	require.True(t, box.Has("forecast"))
	require.True(t, box.Has("kv_get"))
	require.Equal(t, []string{"forecast", "notify"}, sets["http"])
	require.NotEmpty(t, sets["demo"])
	e, _ := box.Lookup("send_message")
	require.Equal(t, toolbox.Critical, e.Info().Risk, "risk override applied")
	e, _ = box.Lookup("kv_set")
	require.Equal(t, toolbox.High, e.Info().Risk)
	e, _ = box.Lookup("notify")
	require.Equal(t, toolbox.High, e.Info().Risk, "POST defaults to HIGH")
	e, _ = box.Lookup("forecast")
	require.Equal(t, toolbox.Safe, e.Info().Risk, "GET defaults to SAFE")
	require.Equal(t, []string{"kv_get", "kv_set"}, box.Names()[:2], "overrides keep the order")
	kv, _ := box.Lookup("kv_set")
	_, err = kv.Tool().Call(context.Background(), json.RawMessage(`{"key":"a","value":1}`))
	require.NoError(t, err, "the overridden tool still runs")

	box, sets, err = assemble.Tools(load(t, "tools:\n  builtin: []\n"))
	require.NoError(t, err)
	require.Zero(t, box.Len())
	require.Empty(t, sets)
}
