package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/s3blob"
)

// hostileMCPEnv, set to 1, makes the test binary an MCP server on stdio
// (hostileMCPServer) instead of running the tests: the stdio server
// TestSurvivalFleet configures.
const hostileMCPEnv = "HOSTILE_MCP_SERVER"

// hostileMCPServer serves, on stdio, what a hostile MCP server (THREATS.md
// T4) may list: a tool whose input schema is a $ref cycle (the schema that
// once made every call of the tool overflow the process's stack), one
// nested past the depth bound, and one fine tool.
func hostileMCPServer() {
	srv := sdk.NewServer(&sdk.Implementation{Name: "hostile", Version: "1"}, nil)
	answer := func(text string) sdk.ToolHandler {
		return func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
		}
	}
	srv.AddTool(&sdk.Tool{Name: "cyclic", Description: "a $ref cycle",
		InputSchema: json.RawMessage(`{"type":"object","$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`)}, answer("ran"))
	deep := strings.Repeat(`{"type":"object","not":`, 990) + `{}` + strings.Repeat(`}`, 990)
	srv.AddTool(&sdk.Tool{Name: "deep", Description: "nested past the bound", InputSchema: json.RawMessage(deep)}, answer("ran"))
	srv.AddTool(&sdk.Tool{Name: "fine", Description: "a fine tool",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}, answer("fine"))
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestSurvivalFleet is the survival test's fleet half (THREATS.md, "How it
// is checked"; the classes of the fleet and MCP issue): one serve process
// on a MinIO fleet, with a hostile MCP server configured, takes at once
//
//   - a parked chain whose interval timer wakes it again and again (the
//     park loop): it ends limit_exceeded, reason wakes, after
//     approval.max_wakes;
//   - a decision a bucket writer without the fleet key plants for a parked
//     HIGH call: the call never runs, the chain stays parked and its
//     approval undecided;
//   - the hostile server's tools: the $ref cycle and the over-deep schema
//     are refused at registration (a chain calling one ends in an error),
//     its fine tool answers;
//
// while another tenant's chains finish ok throughout, /healthz answers,
// and the process's resident memory stays under the bound of TestSurvival.
func TestSurvivalFleet(t *testing.T) {
	f := newFleetEnv(t)
	const globexKey = "fleet-globex-key-0123456789"
	config := strings.Replace(f.config, "approval:\n  mode: park\n", "approval:\n  mode: park\n  max_wakes: 3\n", 1)
	config = strings.Replace(config, "    - {key: \""+fleetAPIKey+"\", tenant: acme}\n",
		"    - {key: \""+fleetAPIKey+"\", tenant: acme}\n    - {key: \""+globexKey+"\", tenant: globex}\n", 1)
	config += fmt.Sprintf(`mcp_servers:
  - name: hostile
    command: %q
    env: {%s: "1"}
    risk: {fine: SAFE}
`, os.Args[0], hostileMCPEnv)
	require.Contains(t, config, "max_wakes: 3")
	require.Contains(t, config, globexKey)
	s := serve(t, config)
	c := api{t: t, url: s.url}

	// Another tenant's healthy chains, and /healthz, throughout.
	stop := make(chan struct{})
	var healthy, unhealthy atomic.Int32
	var problems sync.Map
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		client := &http.Client{Timeout: 30 * time.Second}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			req, _ := http.NewRequest("POST", s.url+"/v1/chains", strings.NewReader(fmt.Sprintf(`{"script": "return %d + 1"}`, i)))
			req.Header.Set("Authorization", "Bearer "+globexKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				unhealthy.Add(1)
				problems.Store("chain: "+err.Error(), true)
				continue
			}
			var out struct {
				Status string `json:"status"`
				Result struct {
					Value json.RawMessage `json:"value"`
				} `json:"result"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if out.Status != "ok" || string(out.Result.Value) != fmt.Sprint(i+1) {
				unhealthy.Add(1)
				problems.Store(fmt.Sprintf("chain: %s %s", out.Status, out.Result.Value), true)
			} else {
				healthy.Add(1)
			}
			if h, err := client.Get(s.url + "/healthz"); err != nil || h.StatusCode != http.StatusOK {
				unhealthy.Add(1)
				problems.Store(fmt.Sprint("healthz: ", err), true)
			} else {
				h.Body.Close()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()

	// The park loop.
	r := c.json("POST", "/v1/chains", fleetAPIKey, map[string]any{"script": `setInterval(() => {}, 200); await tools.notify({id: "wakes"}); return 1`})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, "parked", r.field(t, "status"), "%s", r.body)
	loop := r.field(t, "id").(string)

	// The forged decision.
	r = c.json("POST", "/v1/chains", fleetAPIKey, map[string]any{"script": `return await tools.notify({id: "forged"})`})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, "parked", r.field(t, "status"), "%s", r.body)
	forged := r.field(t, "id").(string)
	pending := c.chain(forged)["pending"].([]any)
	require.Len(t, pending, 1)
	approvalID := pending[0].(map[string]any)["id"].(string)
	drv, err := s3blob.New(context.Background(), s3blob.Config{Endpoint: os.Getenv(s3blob.EnvEndpoint), Bucket: f.bucket,
		AccessKey: os.Getenv(s3blob.EnvAccessKey), SecretKey: os.Getenv(s3blob.EnvSecretKey)})
	require.NoError(t, err)
	defer drv.Close()
	for _, body := range []string{`{"approved":true}`, `ALR1 ` + strings.Repeat("0", 64) + "\n" + `{"approved":true,"args_hash":"x"}`} {
		require.NoError(t, drv.Put(context.Background(), "r/acme/approvals/"+approvalID+"/decision", strings.NewReader(body), blobstore.PutOptions{}))
	}

	// The hostile MCP server's tools.
	for _, tool := range []string{"hostile_cyclic", "hostile_deep"} {
		r = c.json("POST", "/v1/chains", fleetAPIKey, map[string]any{"script": `return await tools.` + tool + `({})`})
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		require.Equal(t, "error", r.field(t, "status"), "%s: %s", tool, r.body)
		trace := r.field(t, "result", "trace").([]any)
		require.Len(t, trace, 1, "%s", r.body)
		require.Equal(t, "unknown_tool", trace[0].(map[string]any)["reason"], "%s: refused at registration, so not a tool", tool)
	}
	r = c.json("POST", "/v1/chains", fleetAPIKey, map[string]any{"script": `return await tools.hostile_fine({q: "x"})`})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, "ok", r.field(t, "status"), "%s", r.body)

	v := c.until(loop, "limit_exceeded", "ok", "error")
	require.Equal(t, "limit_exceeded", v["status"], "%v", v)
	require.Equal(t, "wakes", v["result"].(map[string]any)["reason"], "%v", v)
	require.Zero(t, f.count("wakes"), "its call was never decided")

	// Four leases on: the forged decision was never acted on.
	time.Sleep(8 * time.Second)
	require.Zero(t, f.count("forged"), "a forged decision ran the call")
	v = c.chain(forged)
	require.Equal(t, "parked", v["status"], "%v", v)
	a := c.do("GET", "/v1/approvals/"+approvalID, fleetAPIKey, "", nil)
	require.Equal(t, http.StatusOK, a.code, "%s", a.body)
	require.Nil(t, a.field(t, "decision"), "%s", a.body)
	m := c.do("GET", "/metrics", fleetAPIKey, "", nil)
	require.Equal(t, http.StatusOK, m.code, "%s", m.body)
	require.Regexp(t, `airlock_fleet_refused_total\{kind="decision"\} [1-9]`, string(m.body), "the planted decisions were read and refused")

	close(stop)
	wg.Wait()
	problems.Range(func(k, _ any) bool { t.Errorf("healthy tenant: %v", k); return true })
	require.Zero(t, unhealthy.Load())
	require.Positive(t, healthy.Load())
	rss := residentBytes(s.cmd.Process.Pid)
	t.Logf("healthy chains %d; resident memory %d MiB", healthy.Load(), rss>>20)
	require.Less(t, rss, int64(1<<30))
}
