package demo_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
)

// TestHTTPDocFirstExample runs the script of docs/http-api.md's first curl
// example through the demo tools, as `airlock serve` with its defaults
// would, and checks it returns what the page shows: hits, not an empty list.
func TestHTTPDocFirstExample(t *testing.T) {
	b, err := os.ReadFile("../../docs/http-api.md")
	require.NoError(t, err)
	page := string(b)

	_, rest, ok := strings.Cut(page, "```sh\n")
	require.True(t, ok, "http-api.md opens with a sh example")
	block, rest, ok := strings.Cut(rest, "```\n")
	require.True(t, ok)
	_, body, ok := strings.Cut(block, "-d '")
	require.True(t, ok, "the example posts a body with -d '…'")
	body, _, ok = strings.Cut(body, "'")
	require.True(t, ok)
	var req struct{ Script string }
	require.NoError(t, json.Unmarshal([]byte(body), &req), "the example's body is JSON: %s", body)
	require.Contains(t, req.Script, "tools.search_docs")

	_, shown, ok := strings.Cut(rest, "```json\n")
	require.True(t, ok, "the example is followed by the value it returns")
	shown, _, _ = strings.Cut(shown, "```\n")

	ctx := context.Background()
	eng, err := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{})
	require.NoError(t, err)
	defer eng.Close(ctx)
	box, _ := demo.Toolbox()
	inv, err := invoker.New(box, invoker.Options{})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: eng})
	require.NoError(t, err)
	res, err := runner.Run(ctx, sandbox.Script{Source: req.Script}, chain.Options{})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)

	var hits []demo.Hit
	require.NoError(t, json.Unmarshal(res.Value, &hits))
	require.NotEmpty(t, hits, "the first example of http-api.md finds something")
	require.JSONEq(t, shown, string(res.Value), "http-api.md shows what the example returns")
}
