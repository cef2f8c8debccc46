package mcptool_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/mcptest"
	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// callsPerChain is how many sequential calls one benchmarked chain makes.
const callsPerChain = 20

// BenchmarkRoundTrip measures one call of server-everything's echo tool,
// over stdio and streamable HTTP: made directly with the SDK's client
// (direct), and from a chain through airlock's invoker and MCP client
// (chain: a chain of 20 sequential calls, reported per call as ns/call;
// chain start is ~0.3 ms, BENCHMARKS.md).
func BenchmarkRoundTrip(b *testing.B) {
	entry := mcptest.Everything(b)
	srv := mcptest.StartHTTP(b)
	transports := []struct {
		name string
		spec mcptool.ServerSpec
		make func() sdk.Transport
	}{
		{"stdio", mcptool.ServerSpec{Name: "everything", Command: "node", Args: []string{entry}},
			func() sdk.Transport { return &sdk.CommandTransport{Command: exec.Command("node", entry)} }},
		{"http", mcptool.ServerSpec{Name: "everything", URL: srv.URL},
			func() sdk.Transport {
				return &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{}}
			}},
	}
	ctx := context.Background()
	// The same chain over a Go tool: what the chain costs per call without MCP.
	b.Run("chain/local", func(b *testing.B) {
		box, err := toolbox.New(toolbox.Func("everything_echo", "Echoes", func(_ context.Context, in struct {
			Message string `json:"message"`
		}) (string, error) {
			return "Echo: " + in.Message, nil
		}))
		require.NoError(b, err)
		benchChain(b, box)
	})
	for _, tr := range transports {
		b.Run("direct/"+tr.name, func(b *testing.B) {
			c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
			cs, err := c.Connect(ctx, tr.make(), nil)
			require.NoError(b, err)
			defer cs.Close()
			args := map[string]any{"message": "hello"}
			b.ResetTimer()
			for b.Loop() {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err)
				}
			}
		})
		b.Run("chain/"+tr.name, func(b *testing.B) {
			box := &toolbox.Toolbox{}
			m, err := mcptool.Start(ctx, box, []mcptool.ServerSpec{tr.spec}, mcptool.Options{Wait: 30 * time.Second})
			require.NoError(b, err)
			defer m.Close()
			require.True(b, box.Has("everything_echo"))
			benchChain(b, box)
		})
	}
}

// benchChain runs a chain of callsPerChain sequential echo calls per
// iteration and reports the time per call.
func benchChain(b *testing.B, box *toolbox.Toolbox) {
	inv, err := invoker.New(box, invoker.Options{Policy: invoker.Policy{MaxToolCalls: callsPerChain}})
	require.NoError(b, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(b)})
	require.NoError(b, err)
	src := sandbox.Script{Source: `for (let i = 0; i < 20; i++) await tools.everything_echo({message: "hello"}); return 1`}
	b.ResetTimer()
	start := time.Now()
	n := 0
	for b.Loop() {
		res, err := runner.Run(context.Background(), src, chain.Options{})
		if err != nil || res.Status != chain.StatusOK {
			out, _ := json.Marshal(res)
			b.Fatalf("%v %s", err, out)
		}
		n++
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(n*callsPerChain), "ns/call")
}
