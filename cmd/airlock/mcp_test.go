package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/mcptest"
)

// inspector runs the official MCP inspector's CLI (a client nobody here
// wrote) with args and returns its JSON answer.
func inspector(t *testing.T, args ...string) (map[string]any, string) {
	t.Helper()
	cli := mcptest.Inspector(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// --stored-auth-only: a 401 is an auth_required failure, never an
	// interactive OAuth login.
	cmd := exec.CommandContext(ctx, "node", append([]string{cli, "--cli", "--stored-auth-only"}, args...)...)
	cmd.Env = env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	// The CLI exits 5 (tool_is_error) when a tool's answer has isError;
	// that answer is still the result.
	if xe, ok := err.(*exec.ExitError); ok && xe.ExitCode() == 5 {
		err = nil
	}
	out := stdout.String()
	if i := strings.Index(out, "{"); i >= 0 {
		out = out[i:]
	}
	var v map[string]any
	if err != nil || json.Unmarshal([]byte(out), &v) != nil {
		return nil, stdout.String() + stderr.String()
	}
	return v, ""
}

func toolNames(v map[string]any) []string {
	var names []string
	for _, tl := range v["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

// TestInspectorOverStdio: the inspector starts `airlock mcp`, lists its
// tools and calls run_chain on the demo tools.
func TestInspectorOverStdio(t *testing.T) {
	list, failure := inspector(t, bin, "mcp", "--method", "tools/list")
	require.Empty(t, failure)
	require.ElementsMatch(t, []string{"run_chain", "search_tools", "describe_tool"}, toolNames(list))
	for _, tl := range list["tools"].([]any) {
		if tl := tl.(map[string]any); tl["name"] == "run_chain" {
			require.Contains(t, tl["description"], "csv_stats(args: {", "run_chain declares the tools in TypeScript")
		}
	}

	call, failure := inspector(t, bin, "mcp", "--method", "tools/call", "--tool-name", "run_chain",
		"--tool-arg", `script=const s = await tools.csv_stats({csv: "a,b\n1,2\n3,4"}); return s.sums`)
	require.Empty(t, failure)
	sc := call["structuredContent"].(map[string]any)
	require.Equal(t, "ok", sc["status"])
	require.Equal(t, map[string]any{"a": 4.0, "b": 6.0}, sc["value"])
	require.Equal(t, 1.0, sc["calls"])

	// A script error is a tool error with the line and column.
	call, failure = inspector(t, bin, "mcp", "--method", "tools/call", "--tool-name", "run_chain",
		"--tool-arg", "script=return (", "--tool-arg", "language=typescript")
	require.Empty(t, failure)
	require.Equal(t, true, call["isError"])
	require.Contains(t, call["content"].([]any)[0].(map[string]any)["text"], "invalid_script")
}

// TestInspectorOverHTTP: the inspector reaches /mcp on `airlock serve`
// with an API key; without one it is refused.
func TestInspectorOverHTTP(t *testing.T) {
	s := serve(t, `
server:
  api_keys:
    - {key: "`+keyAcme+`", tenant: acme}
    - {key: "`+keyGlobex+`", tenant: globex, role: approver}
`)
	url := s.url + "/mcp"
	list, failure := inspector(t, url, "--transport", "http", "--header", "Authorization: Bearer "+keyAcme, "--method", "tools/list")
	require.Empty(t, failure)
	require.ElementsMatch(t, []string{"run_chain", "search_tools", "describe_tool"}, toolNames(list))

	call, failure := inspector(t, url, "--transport", "http", "--header", "Authorization: Bearer "+keyAcme,
		"--method", "tools/call", "--tool-name", "run_chain", "--tool-arg", `script=const r = await tools.kv_get({key: "nope"}); return {r, n: 6 * 7}`)
	require.Empty(t, failure)
	sc := call["structuredContent"].(map[string]any)
	require.Equal(t, "ok", sc["status"], "%v", call)
	require.Equal(t, 42.0, sc["value"].(map[string]any)["n"])
	// The chain ran for the key's tenant: acme reads it, globex does not.
	c := api{t: t, url: s.url}
	id := sc["id"].(string)
	require.Equal(t, 200, c.do("GET", "/v1/chains/"+id, keyAcme, "", nil).code)
	require.Equal(t, 404, c.do("GET", "/v1/chains/"+id, keyGlobex, "", nil).code)

	// Without a key, with a wrong one, or with an approver's key: refused.
	for _, key := range []string{"", "wrong-key-0123456789abcdef", keyGlobex} {
		args := []string{url, "--transport", "http", "--method", "tools/list"}
		if key != "" {
			args = append(args, "--header", "Authorization: Bearer "+key)
		}
		_, failure := inspector(t, args...)
		require.Contains(t, failure, `"code":"auth_required"`, "key %q", key)
		// The answer itself: 401 with a bearer challenge.
		init := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		a := c.do("POST", "/mcp", key, "application/json", init)
		require.Equal(t, 401, a.code, "key %q: %s", key, a.body)
	}
}

// TestMCPExample runs examples/mcp: a chain that combines the reference
// MCP server's tools with airlock's own, as its README shows.
func TestMCPExample(t *testing.T) {
	mcptest.Everything(t)
	path := "PATH=" + filepath.Join(mcptest.Dir(), "node_modules", ".bin") + ":" + os.Getenv("PATH")
	const dir = "../../examples/mcp/"
	r := airlock(t, "", []string{path}, "run", "--json", "--config", dir+"airlock.yaml", dir+"chain.js")
	require.Equal(t, 0, r.code, r.stderr)
	var res runResult
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	var v struct {
		Tool    string                    `json:"tool"`
		Weather map[string]map[string]any `json:"weather"`
		Hottest string                    `json:"hottest"`
		Chart   string                    `json:"chart"`
		Sum     string                    `json:"humidity_sum"`
		Logo    struct {
			MIME  string `json:"mime"`
			Bytes int    `json:"bytes"`
		} `json:"logo"`
	}
	require.NoError(t, json.Unmarshal(res.Value, &v))
	require.Equal(t, "everything_get_structured_content", v.Tool)
	require.Len(t, v.Weather, 3)
	for city, w := range v.Weather {
		require.IsType(t, 0.0, w["temperature"], city)
		require.IsType(t, "", w["conditions"], city)
	}
	require.Contains(t, v.Weather, v.Hottest)
	require.Equal(t, "/workspace/media/render_chart_0.png", v.Chart)
	require.Regexp(t, `^The sum of \d+ and \d+ is \d+\.$`, v.Sum)
	require.Equal(t, "image/png", v.Logo.MIME)
	require.Greater(t, v.Logo.Bytes, 100)
	var tools []string
	for _, rec := range res.Trace {
		require.Equal(t, "ok", string(rec.Status))
		tools = append(tools, rec.Tool)
	}
	require.Equal(t, []string{"everything_get_structured_content", "everything_get_structured_content", "everything_get_structured_content",
		"render_chart", "everything_get_sum", "everything_get_tiny_image"}, tools)

	// airlock types declares the MCP tools, the output schema as the
	// return type; airlock tools lists them with their risk.
	r = airlock(t, "", []string{path}, "types", "--config", dir+"airlock.yaml")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "everything_get_structured_content(args: {")
	require.Contains(t, r.stdout, "temperature: number;")
	require.NotContains(t, r.stdout, "everything_get_env", "the config registers four of the server's tools")
	r = airlock(t, "", []string{path}, "tools", "--config", dir+"airlock.yaml")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `everything_get_sum\s+SAFE`, r.stdout)
}

// TestMCPFlagAndConfig: --mcp on run, operator overrides of MCP tools by
// their airlock names, and configuration errors at their positions.
func TestMCPFlagAndConfig(t *testing.T) {
	entry := mcptest.Everything(t)
	script := filepath.Join(t.TempDir(), "sum.js")
	require.NoError(t, os.WriteFile(script, []byte(`return await tools.everything_get_sum({a: 2, b: 40})`), 0o600))
	r := airlock(t, "", nil, "run", "--json", "--mcp", "everything=node "+entry, script)
	require.Equal(t, 0, r.code, r.stderr)
	var res runResult
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	require.JSONEq(t, `"The sum of 2 and 40 is 42."`, string(res.Value))

	r = airlock(t, "", nil, "run", "--mcp", "everything", script)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "NAME=COMMAND ARGS... or NAME=URL")

	// tools.risk and governance.tools reach MCP tools by their airlock
	// names, though they register after the configuration is checked.
	cfg := filepath.Join(t.TempDir(), "airlock.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`
tools:
  builtin: []
  risk: {everything_get_sum: HIGH}
governance:
  tools:
    everything_echo: {scopes: [echo]}
mcp_servers:
  - name: everything
    command: node
    args: [`+entry+`]
    tools: [get-sum, echo]
`), 0o600))
	r = airlock(t, "", nil, "tools", "--json", "--config", cfg)
	require.Equal(t, 0, r.code, r.stderr)
	var out struct {
		Tools []struct {
			Name   string   `json:"name"`
			Risk   string   `json:"risk"`
			Scopes []string `json:"scopes"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	listed := out.Tools
	require.Len(t, listed, 2)
	for _, tl := range listed {
		switch tl.Name {
		case "everything_get_sum":
			require.Equal(t, "HIGH", tl.Risk)
		case "everything_echo":
			require.Equal(t, "SAFE", tl.Risk)
			require.Equal(t, []string{"echo"}, tl.Scopes)
		default:
			t.Fatalf("unexpected tool %q", tl.Name)
		}
	}
	// Under --approve deny the raised risk is enforced.
	r = airlock(t, "", nil, "run", "--json", "--config", cfg, "--approve", "deny", script)
	require.Equal(t, 1, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	require.Equal(t, "approval_denied", res.Trace[0].Reason)

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(`
mcp_servers:
  - name: Bad-Name
    command: x
  - name: both
    command: x
    url: http://127.0.0.1:1/mcp
`), 0o600))
	r = airlock(t, "", nil, "tools", "--config", bad)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "bad.yaml:3: mcp_servers[0]: mcp server name \"Bad-Name\"")
	require.Contains(t, r.stderr, "bad.yaml:5: mcp_servers[1]: mcp server \"both\": set either command (stdio) or url (streamable HTTP)")
}
