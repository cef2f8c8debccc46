package chain_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
)

// TestDiscoveryInTheSandbox: tools.$search and tools.$describe answer from
// the tools this chain may call, within their own limit, and are no tool
// calls.
func TestDiscoveryInTheSandbox(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	value := func(res *chain.RunResult) any {
		t.Helper()
		require.Equal(t, chain.StatusOK, res.Status, "%s", res.Error)
		var v any
		require.NoError(t, json.Unmarshal(res.Value, &v))
		return v
	}

	// Every local tool is found; hosted, provider-defined and the chain
	// tool are not.
	res := e.run(t, `return (await tools.$search({query: "", limit: 25})).map(t => t.name)`, chain.Options{})
	require.Equal(t, []any{"lookup", "blob", "size", "send", "explode", "hang", "weather"}, value(res))
	require.Empty(t, res.Trace, "discovery is not a tool call")

	// Ranked: a word in the name counts more than in the description.
	res = e.run(t, `return await tools.$search("weather temperature")`, chain.Options{})
	require.Equal(t, []any{map[string]any{"name": "weather", "description": "Current temperature of a city"}}, value(res))

	// The chain's allow-list hides the rest, from $search and $describe.
	res = e.run(t, `
const found = (await tools.$search("")).map(t => t.name);
const decl = await tools.$describe({name: "lookup"});
let hidden; try { await tools.$describe("send") } catch (e) { hidden = e.reason }
return {found, decl, hidden};`, chain.Options{Tools: []string{"lookup", "weather"}})
	v := value(res).(map[string]any)
	require.Equal(t, []any{"lookup", "weather"}, v["found"])
	require.Equal(t, "declare const tools: {\n  /** Looks up a record */\n  lookup(args: {\n    id: number | ArtifactRef;\n  }): Promise<Result<{\n    [key: string]: number;\n  }>>;\n};\n", v["decl"])
	require.Equal(t, "unknown_tool", v["hidden"])

	// A profile's scopes and gates hide tools too: restricted autonomy
	// denies HIGH risk (send); a scope it does not grant hides nothing
	// here, as no tool requires one.
	restricted := &govern.Profile{Name: "r", Autonomy: govern.Restricted}
	res = e.run(t, `return (await tools.$search("")).map(t => t.name)`, chain.Options{Profile: restricted})
	require.NotContains(t, value(res), "send")
	require.Contains(t, value(res), "lookup")

	// Bad arguments and the limit.
	res = e.run(t, `
const out = [];
for (const args of [42, {query: 7}, "x".repeat(300)]) {
  try { await tools.$search(args); out.push("ok") } catch (e) { out.push(e.reason) }
}
try { await tools.$describe({}) } catch (e) { out.push(e.reason) }
try { await tools.$describe("nope") } catch (e) { out.push(e.reason) }
for (let i = 0; i < 20; i++) {
  try { await tools.$search("a") } catch (e) { out.push(e.reason + ":" + i); break }
}
return out;`, chain.Options{})
	require.Equal(t, []any{"invalid_arguments", "invalid_arguments", "invalid_arguments", "invalid_arguments", "unknown_tool",
		"budget_exhausted:" + "15"}, value(res), "20 per chain: 5 used above, the 16th in the loop is the 21st")
}

// TestDiscoveryLeavesOutUnavailableTools: a tool resting as unavailable
// for the chain's tenant is not offered by $search until it recovers, and
// $describe says why; another tenant still finds it.
func TestDiscoveryLeavesOutUnavailableTools(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	h := e.runner.Invoker().Governor().Health()
	for range govern.DefaultUnavailableAfter {
		h.CallFailed("acme", "weather", "tool \"weather\" failed: upstream 502\nretry later")
	}
	src := `return {found: (await tools.$search("")).map(t => t.name), decl: await tools.$describe("weather")}`
	value := func(tenant string) map[string]any {
		t.Helper()
		res := e.run(t, src, chain.Options{Tenant: tenant})
		require.Equal(t, chain.StatusOK, res.Status, "%s", res.Error)
		var v map[string]any
		require.NoError(t, json.Unmarshal(res.Value, &v))
		return v
	}
	acme := value("acme")
	require.Equal(t, []any{"lookup", "blob", "size", "send", "explode", "hang"}, acme["found"])
	until := h.For("acme", "weather").Until.UTC().Format(time.RFC3339)
	note := "// unavailable until " + until + ": tool \"weather\" failed: upstream 502 retry later\n"
	require.True(t, strings.HasPrefix(acme["decl"].(string), note+"declare const tools: {"), "%s", acme["decl"])

	globex := value("globex")
	require.Contains(t, globex["found"], "weather")
	require.True(t, strings.HasPrefix(globex["decl"].(string), "declare const tools: {"), "no note for a tenant that saw no failure")
}
