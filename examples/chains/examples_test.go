package chains_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

var (
	engineOnce sync.Once
	engine     *sandbox.ScriptEngine
	engineErr  error
)

func runner(t *testing.T, approver invoker.ApprovalHandler, policy invoker.Policy) *chain.Runner {
	engineOnce.Do(func() { engine, engineErr = sandbox.NewScriptEngine(context.Background(), sandbox.ScriptOptions{}) })
	require.NoError(t, engineErr)
	box, _ := demo.Toolbox()
	store := blobstore.New(memblob.New(), blobstore.Options{})
	t.Cleanup(func() { _ = store.Close() })
	inv, err := invoker.New(box, invoker.Options{Store: store, Approver: approver, Policy: policy})
	require.NoError(t, err)
	r, err := chain.New(inv, chain.Engines{Scripts: engine})
	require.NoError(t, err)
	return r
}

func decide(d invoker.Decision) invoker.ApprovalHandler {
	return invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) { return d, nil })
}

// golden is what a run is checked against: the value, and each call's tool,
// status and reason in order of completion where that order is fixed.
type golden struct {
	Status string          `json:"status"`
	Value  json.RawMessage `json:"value"`
	Calls  []string        `json:"calls"`
	Logs   []string        `json:"logs"`
}

func TestExampleChains(t *testing.T) {
	tests := []struct {
		name, file string
		approver   invoker.ApprovalHandler
		policy     invoker.Policy
		sortCalls  bool // calls run concurrently: compare as a multiset
	}{
		{name: "quickstart", file: "quickstart.js", sortCalls: true},
		{name: "artifact_pipeline", file: "artifact_pipeline.js"},
		{name: "approval_write_approved", file: "approval_write.js", approver: decide(invoker.Approved)},
		{name: "approval_write_denied", file: "approval_write.js", approver: decide(invoker.Denied)},
		{name: "approval_write_no_handler", file: "approval_write.js"},
		{name: "budget", file: "budget.js", policy: invoker.Policy{MaxToolCalls: 5}},
		{name: "report", file: "report.ts", sortCalls: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, err := os.ReadFile(tc.file)
			require.NoError(t, err)
			lang := sandbox.LangJS
			if filepath.Ext(tc.file) == ".ts" {
				lang = sandbox.LangTS
			}
			res, err := runner(t, tc.approver, tc.policy).Run(context.Background(),
				sandbox.Script{Source: string(src), Lang: lang, Filename: tc.file}, chain.Options{Tenant: "examples"})
			require.NoError(t, err)
			got := golden{Status: string(res.Status), Value: res.Value, Calls: []string{}, Logs: []string{}}
			for _, r := range res.Trace {
				got.Calls = append(got.Calls, r.Tool+" "+string(r.Status)+" "+r.Reason)
			}
			if tc.sortCalls {
				slices.Sort(got.Calls)
			}
			for _, l := range res.Logs {
				got.Logs = append(got.Logs, string(l.Level)+": "+l.Text)
			}
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				b, _ := json.MarshalIndent(got, "", "  ")
				require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
			}
			b, err := os.ReadFile(path)
			require.NoError(t, err, "run with -update to create %s", path)
			var want golden
			require.NoError(t, json.Unmarshal(b, &want))
			require.Equal(t, want.Status, got.Status, res.Error)
			require.JSONEq(t, string(want.Value), string(got.Value))
			require.Equal(t, want.Calls, got.Calls)
			require.Equal(t, want.Logs, got.Logs)
		})
	}
}

// TestGoGuestExample runs the compiled Go guest (built by `make guest`, or
// here when missing) against the demo tools.
func TestGoGuestExample(t *testing.T) {
	ctx := context.Background()
	wasm, err := os.ReadFile(filepath.Join("go-guest", "chain.wasm"))
	if err != nil {
		out := filepath.Join(t.TempDir(), "chain.wasm")
		cmd := exec.Command("go", "build", "-o", out, ".")
		cmd.Dir = "go-guest"
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		msg, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", msg)
		wasm, err = os.ReadFile(out)
		require.NoError(t, err)
	}
	modules, err := sandbox.NewModuleEngine(ctx, sandbox.ModuleOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = modules.Close(ctx) })
	mod, err := modules.Compile(ctx, wasm)
	require.NoError(t, err)
	box, _ := demo.Toolbox()
	inv, err := invoker.New(box, invoker.Options{})
	require.NoError(t, err)
	r, err := chain.New(inv, chain.Engines{Modules: modules})
	require.NoError(t, err)
	res, err := r.RunModule(ctx, mod, json.RawMessage(`{"cities":["Oslo","Atlantis","Cairo","Lima"]}`), chain.Options{})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `{"warmest":{"city":"Cairo","temp_c":31},"checked":3,"skipped":["Atlantis"]}`, string(res.Value))
	require.Len(t, res.Trace, 4)
	require.Equal(t, invoker.ReasonToolError, res.Trace[1].Reason)
}
