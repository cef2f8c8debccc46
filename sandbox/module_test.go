package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var guestWasm = struct {
	once sync.Once
	b    []byte
	err  error
}{}

// buildGuest compiles examples/chains/go-guest for wasip1.
func buildGuest(t *testing.T) []byte {
	t.Helper()
	guestWasm.once.Do(func() {
		dir, err := os.MkdirTemp("", "airlock-guest")
		if err != nil {
			guestWasm.err = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "chain.wasm")
		cmd := exec.Command("go", "build", "-o", out, ".")
		cmd.Dir = filepath.Join("..", "examples", "chains", "go-guest")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if msg, err := cmd.CombinedOutput(); err != nil {
			guestWasm.err = errors.New(string(msg))
			return
		}
		guestWasm.b, guestWasm.err = os.ReadFile(out)
	})
	if guestWasm.err != nil {
		t.Skipf("cannot build the Go guest for wasip1 with this toolchain: %v", guestWasm.err)
	}
	return guestWasm.b
}

func weatherBridge(_ context.Context, tool string, args []byte) ([]byte, error) {
	var a struct{ City string }
	if tool != "weather" || json.Unmarshal(args, &a) != nil {
		return []byte(`{"status":"error","reason":"unknown_tool","message":"no"}`), nil
	}
	temps := map[string]int{"Oslo": 4, "Lima": 19, "Cairo": 31}
	t, ok := temps[a.City]
	if !ok {
		return []byte(`{"status":"denied","reason":"approval_denied","message":"not that one"}`), nil
	}
	b, _ := json.Marshal(map[string]any{"status": "ok", "value": map[string]any{"city": a.City, "temp_c": t}})
	return b, nil
}

func TestModuleEngine(t *testing.T) {
	wasm := buildGuest(t)
	ctx := context.Background()
	e, err := NewModuleEngine(ctx, ModuleOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer e.Close(ctx)
	m, err := e.Compile(ctx, wasm)
	require.NoError(t, err)
	defer m.Close(ctx)

	tests := []struct {
		name  string
		input string
		br    Bridge
		lim   Limits
		want  string
		kind  ExitKind
		logs  []LogEntry
	}{
		{name: "ok", input: `{"cities":["Oslo","Lima"]}`, br: weatherBridge,
			want: `{"warmest":{"city":"Lima","temp_c":19},"checked":2,"skipped":[]}`,
			logs: []LogEntry{{Level: LogInfo, Text: "checked 2 cities"}}},
		{name: "tool error skipped", input: `{"cities":["Cairo","Atlantis"]}`, br: weatherBridge,
			want: `{"warmest":{"city":"Cairo","temp_c":31},"checked":1,"skipped":["Atlantis"]}`,
			logs: []LogEntry{{Level: LogWarn, Text: "skipping Atlantis: approval_denied"}, {Level: LogInfo, Text: "checked 1 cities"}}},
		{name: "bad input", input: `[1]`, br: weatherBridge, kind: ScriptError},
		{name: "bridge failure", input: `{"cities":["Oslo"]}`, kind: HostError,
			br: func(context.Context, string, []byte) ([]byte, error) { return nil, errors.New("db down") }},
		{name: "timeout in a tool", input: `{"cities":["Oslo"]}`, kind: Timeout, lim: Limits{Timeout: 100 * time.Millisecond},
			br: func(ctx context.Context, _ string, _ []byte) ([]byte, error) { <-ctx.Done(); return nil, ctx.Err() }},
		{name: "result limit", input: `{"cities":["Oslo"]}`, br: weatherBridge, kind: LimitExceeded, lim: Limits{MaxResultBytes: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := m.Run(ctx, json.RawMessage(tt.input), tt.br, tt.lim)
			require.NotNil(t, res)
			if tt.kind != 0 {
				var xe *ExitError
				require.ErrorAs(t, err, &xe)
				require.Equal(t, tt.kind, xe.Kind, "%v", err)
				return
			}
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
			require.Equal(t, tt.logs, res.Logs)
		})
	}
}

func TestModuleEngineRejects(t *testing.T) {
	ctx := context.Background()
	e, err := NewModuleEngine(ctx, ModuleOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	_, err = e.Compile(ctx, []byte("not wasm"))
	require.ErrorIs(t, err, ErrInvalidModule)
	// A valid module with no entry point: (module).
	_, err = e.Compile(ctx, []byte("\x00asm\x01\x00\x00\x00"))
	require.ErrorIs(t, err, ErrInvalidModule)
	require.NoError(t, e.Close(ctx))
	_, err = e.Compile(ctx, []byte("\x00asm\x01\x00\x00\x00"))
	require.ErrorIs(t, err, ErrClosed)
}

// exitModule is a WASI command whose _start calls proc_exit(code).
func exitModule(code byte) []byte {
	b := []byte("\x00asm\x01\x00\x00\x00")
	b = append(b, 0x01, 0x08, 0x02, 0x60, 0x01, 0x7f, 0x00, 0x60, 0x00, 0x00) // types: (i32)->(), ()->()
	imp := append([]byte{0x01, 22}, "wasi_snapshot_preview1"...)
	imp = append(append(append(imp, 9), "proc_exit"...), 0x00, 0x00)
	b = append(append(b, 0x02, byte(len(imp))), imp...)
	b = append(b, 0x03, 0x02, 0x01, 0x01)       // one function of type 1
	b = append(b, 0x05, 0x03, 0x01, 0x00, 0x01) // one memory, one page
	exp := append([]byte{0x02, 6}, "_start"...)
	exp = append(append(append(exp, 0x00, 0x01, 6), "memory"...), 0x02, 0x00)
	b = append(append(b, 0x07, byte(len(exp))), exp...)
	return append(b, 0x0a, 0x08, 0x01, 0x06, 0x00, 0x41, code, 0x10, 0x00, 0x0b) // i32.const code; call proc_exit
}

// TestModuleExitCode: a module that exits with a code is classified from
// the runtime's typed exit error, not from its text.
func TestModuleExitCode(t *testing.T) {
	ctx := context.Background()
	e, err := NewModuleEngine(ctx, ModuleOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer e.Close(ctx)
	m, err := e.Compile(ctx, exitModule(7))
	require.NoError(t, err)
	defer m.Close(ctx)
	_, err = m.Run(ctx, nil, func(context.Context, string, []byte) ([]byte, error) { return nil, nil }, Limits{})
	var exit *ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, ScriptError, exit.Kind)
	require.Equal(t, "the module exited with code 7", exit.Message)
}
