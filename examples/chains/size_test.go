package chains_test

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
)

// sizeClaim matches "make_csv returns ~N KB" (the tool name may be in
// backquotes).
var sizeClaim = regexp.MustCompile("make_csv`? returns ~([0-9]+) KB")

// TestArtifactPipelineSizeClaim checks that the size artifact_pipeline.js
// and README.md say make_csv returns is what it returns, within 10%.
func TestArtifactPipelineSizeClaim(t *testing.T) {
	src, err := os.ReadFile("artifact_pipeline.js")
	require.NoError(t, err)
	res, err := runner(t, nil, invoker.Policy{}).Run(context.Background(),
		sandbox.Script{Source: string(src), Filename: "artifact_pipeline.js"}, chain.Options{Tenant: "examples"})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.Len(t, res.Artifacts, 1, "make_csv's result is offloaded")
	size := res.Artifacts[0].Size

	for _, file := range []string{"artifact_pipeline.js", "README.md"} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		m := sizeClaim.FindSubmatch(b)
		require.NotNil(t, m, "%s says how large make_csv's result is", file)
		kb, err := strconv.Atoi(string(m[1]))
		require.NoError(t, err)
		claimed := int64(kb) * 1000
		require.InEpsilon(t, size, claimed, 0.10, "%s says make_csv returns ~%d KB; it returns %d bytes", file, kb, size)
	}
}
