package chain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
)

var guest struct {
	once sync.Once
	wasm []byte
	err  error
}

// goGuest returns the compiled examples/chains/go-guest module, building it
// with this toolchain (GOOS=wasip1) when `make guest` has not.
func goGuest(t testing.TB) []byte {
	guest.once.Do(func() {
		dir := filepath.Join("..", "examples", "chains", "go-guest")
		out := filepath.Join(t.TempDir(), "chain.wasm")
		cmd := exec.Command("go", "build", "-o", out, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if msg, err := cmd.CombinedOutput(); err != nil {
			guest.err = fmt.Errorf("building the Go guest: %w\n%s", err, msg)
			return
		}
		guest.wasm, guest.err = os.ReadFile(out)
	})
	require.NoError(t, guest.err)
	return guest.wasm
}

// TestCompiledGoGuest runs the Go example guest through the same invoker:
// its tool calls are gated, traced and refused exactly like a script's.
func TestCompiledGoGuest(t *testing.T) {
	e := newEnv(t, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 3}})
	ctx := context.Background()
	modules, err := sandbox.NewModuleEngine(ctx, sandbox.ModuleOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = modules.Close(ctx) })
	mod, err := modules.Compile(ctx, goGuest(t))
	require.NoError(t, err)
	r, err := chain.New(e.runner.Invoker(), chain.Engines{Modules: modules})
	require.NoError(t, err)

	res, err := r.RunModule(ctx, mod, json.RawMessage(`{"cities":["Oslo","Atlantis","Lima","Cairo"]}`), chain.Options{})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `{"warmest":{"city":"Lima","temp_c":19},"checked":2,"skipped":["Atlantis","Cairo"]}`, string(res.Value))
	require.Len(t, res.Trace, 4)
	reasons := []string{}
	for _, rec := range res.Trace {
		reasons = append(reasons, rec.Reason)
	}
	require.Equal(t, []string{"", invoker.ReasonToolError, "", invoker.ReasonBudgetExhausted}, reasons)
	require.Contains(t, res.Logs, sandbox.LogEntry{Level: sandbox.LogWarn, Text: "skipping Atlantis: tool_error"})
	require.Contains(t, res.Logs, sandbox.LogEntry{Level: sandbox.LogInfo, Text: "checked 2 cities"})

	// Scripts need a script engine.
	_, err = r.Run(ctx, sandbox.Script{Source: "return 1"}, chain.Options{})
	require.ErrorIs(t, err, chain.ErrNoEngine)
	require.ErrorIs(t, r.Check(sandbox.Script{Source: "return 1"}), chain.ErrNoEngine)
}

// trapWasm is a minimal module whose "run" executes `unreachable`.
var trapWasm = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
	0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, // type 0: () -> i32
	0x03, 0x02, 0x01, 0x00, // func 0 has type 0
	0x07, 0x07, 0x01, 0x03, 'r', 'u', 'n', 0x00, 0x00, // export "run" = func 0
	0x0a, 0x05, 0x01, 0x03, 0x00, 0x00, 0x0b, // body: unreachable; end
}

// TestTrappingModule: a guest trap ends that chain as error/trap.
func TestTrappingModule(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	ctx := context.Background()
	modules, err := sandbox.NewModuleEngine(ctx, sandbox.ModuleOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = modules.Close(ctx) })
	mod, err := modules.Compile(ctx, trapWasm)
	require.NoError(t, err)
	r, err := chain.New(e.runner.Invoker(), chain.Engines{Modules: modules})
	require.NoError(t, err)
	res, err := r.RunModule(ctx, mod, json.RawMessage(`{}`), chain.Options{})
	require.NoError(t, err)
	require.Equal(t, chain.StatusError, res.Status)
	require.Equal(t, "trap", res.Reason)
	require.Contains(t, res.Error, "wasm trap")
	require.Empty(t, res.Trace)
}
