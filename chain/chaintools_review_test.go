package chain_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// TestReviewChainToolsSeeTheLiveToolbox: a chain with tools of its own
// (Options.ChainTools, a caller's tools) sees the configured tools as
// every chain does, live: a tool the process withdraws while the chain
// runs (an MCP server's re-list) is gone for it too, and one re-registered
// stricter (a higher risk) meets the stricter gate.
func TestReviewChainToolsSeeTheLiveToolbox(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	box := e.runner.Invoker().Toolbox()
	mine := toolbox.Func("withdraw", "Withdraws weather and makes lookup high risk, as a re-list would", func(context.Context, struct{}) (bool, error) {
		box.Remove("weather")
		lk, _ := box.Lookup("lookup")
		require.NoError(t, box.Replace(toolbox.Func("lookup", lk.Info().Description, func(_ context.Context, in lookupIn) (int, error) {
			return in.ID, nil
		}).WithRisk(toolbox.High)))
		return true, nil
	})
	res := e.run(t, `await tools.withdraw({});
const out = [];
for (const f of [() => tools.weather({city: "Oslo"}), () => tools.lookup({id: 1})]) {
  try { await f(); out.push("ran"); } catch (e) { out.push(e.reason); }
}
return out;`, chain.Options{ChainTools: []toolbox.Tool{mine}})
	require.Equal(t, chain.StatusOK, res.Status, "%+v", res)
	require.JSONEq(t, `["unknown_tool","no_approval_handler"]`, string(res.Value))

	// Discovery finds the chain's own tools beside the configured ones.
	res = e.run(t, `const d = await tools.$describe("withdraw"); const s = await tools.$search({query: "temperature"});
return [typeof d === "string" ? d.includes("withdraw(") : JSON.stringify(d).includes("withdraw"), JSON.stringify(s).includes("temperature")];`,
		chain.Options{ChainTools: []toolbox.Tool{mine}})
	require.Equal(t, chain.StatusOK, res.Status, "%+v", res)
	require.JSONEq(t, `[true,false]`, string(res.Value), "weather was withdrawn above")
}
