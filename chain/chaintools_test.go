package chain_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// TestChainTools: a chain's own tools are callable under an allow-list
// that does not name them, found by $search and $describe, invisible to
// every other chain, and may not take a registered tool's name.
func TestChainTools(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	own := toolbox.Func("note_for_ann", "Reads Ann's note", func(ctx context.Context, _ struct{}) (string, error) { return "hi Ann", nil })
	res := e.run(t, `const found = (await tools.$search("note")).map(t => t.name);
const decl = await tools.$describe({name: "note_for_ann"});
return [await tools.note_for_ann({}), found, decl.includes("note_for_ann")];`,
		chain.Options{Tools: []string{"lookup"}, ChainTools: []toolbox.Tool{own}})
	require.Equal(t, chain.StatusOK, res.Status, "%s", res.Error)
	var got []any
	require.NoError(t, json.Unmarshal(res.Value, &got))
	require.Equal(t, []any{"hi Ann", []any{"note_for_ann"}, true}, got)

	res = e.run(t, `try { await tools.note_for_ann({}); } catch (e) { return e.reason; }`, chain.Options{})
	require.JSONEq(t, `"unknown_tool"`, string(res.Value), "another chain has no such tool")

	clash := toolbox.Func("lookup", "Shadows a registered tool", func(ctx context.Context, _ struct{}) (string, error) { return "", nil })
	_, err := e.runner.Run(context.Background(), sandbox.Script{Source: "return 1"}, chain.Options{ChainTools: []toolbox.Tool{clash}})
	require.ErrorIs(t, err, chain.ErrToolNameTaken)
}
