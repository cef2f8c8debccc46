package sandbox

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	w "github.com/airlockrt/airlock/internal/wasmbuild"
)

// TestHostileModules: modules that made the host allocate gigabytes, buffer
// a gigabyte of output or keep unbounded log records end each in a clear,
// typed result, while a healthy module runs alongside in the same engine.
func TestHostileModules(t *testing.T) {
	ctx := context.Background()
	e, err := NewModuleEngine(ctx, ModuleOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer e.Close(ctx)
	healthy, err := e.Compile(ctx, buildGuest(t))
	require.NoError(t, err)
	defer healthy.Close(ctx)

	refused := []struct {
		name string
		wasm []byte
		msg  string
	}{
		{"2^28 locals", w.ProcExitCommand(nil, w.Body([][2]uint32{{1 << 27, uint32(w.I64)}, {1 << 27, uint32(w.I32)}}, 0x0b)),
			"sandbox: invalid module: function 1 declares more than 50000 locals"},
		{"table of 2^31 entries", w.ProcExitCommand(w.Vec(append([]byte{w.FuncRef}, w.Limits(0, 1<<31)...)), w.Body(nil, 0x0b)),
			"sandbox: invalid module: a table of up to 2147483648 entries is more than the 1048576 a chain module may have"},
		{"Extism HTTP", w.Module(w.Section(w.SecType, w.Vec(w.FuncType(nil, nil))),
			w.Section(w.SecImport, w.Vec(w.ImportFunc("extism:host/env", "http_request", 0)))),
			"sandbox: invalid module: import extism:host/env.http_request is not one a chain module may use (guest-sdk/ABI.md lists them)"},
	}
	runs := []struct {
		name  string
		wasm  []byte
		lim   Limits
		kind  ExitKind
		limit string
		msg   string
	}{
		{name: "table.grow by 2^32-1 on a table without a maximum", wasm: w.TableGrow(0), kind: ScriptError,
			msg: "the module exited with code 3"},
		{name: "tables charged to the memory limit", wasm: w.TableGrow(600_000), lim: Limits{MemoryBytes: 4 << 20},
			kind: LimitExceeded, limit: LimitMemory, msg: "the module's tables alone need 4 MiB, more than its memory limit of 4 MiB (limits.memory = 4MiB)"},
		{name: "fd_write with 100,000 aliasing iovecs", wasm: w.FDWriteFlood(), kind: LimitExceeded, limit: LimitLogs,
			msg: "output exceeds 1048576 bytes (limits.max_log_bytes = 1MiB)"},
		{name: "a million airlock_log entries", wasm: w.LogFlood(), kind: LimitExceeded, limit: LimitLogs,
			msg: "output exceeds 10000 entries (limits.max_log_entries = 10000)"},
		{name: "a million one-byte entries under a high entry cap", wasm: w.LogFlood(), lim: Limits{MaxLogEntries: 1 << 30},
			kind: LimitExceeded, limit: LimitLogs, msg: "output exceeds 1048576 bytes (limits.max_log_bytes = 1MiB)"},
	}

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // the bystander
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := healthy.Run(ctx, json.RawMessage(`{"cities":["Oslo","Lima"]}`), weatherBridge, Limits{})
			if err != nil || string(res.Value) != `{"warmest":{"city":"Lima","temp_c":19},"checked":2,"skipped":[]}` {
				t.Errorf("the healthy module failed alongside: %v", err)
				return
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Compile(ctx, tc.wasm)
			require.ErrorIs(t, err, ErrInvalidModule)
			require.EqualError(t, err, tc.msg)
		})
	}
	for _, tc := range runs {
		t.Run(tc.name, func(t *testing.T) {
			m, err := e.Compile(ctx, tc.wasm)
			require.NoError(t, err)
			defer m.Close(ctx)
			res, err := m.Run(ctx, nil, okBridge, tc.lim)
			var xe *ExitError
			require.ErrorAs(t, err, &xe)
			require.Equal(t, tc.kind, xe.Kind, "%v", err)
			require.Equal(t, tc.limit, xe.Limit)
			require.Equal(t, tc.msg, xe.Message)
			if tc.limit == LimitLogs {
				require.True(t, res.LogsTruncated)
				total := 0
				for _, l := range res.Logs {
					total += len(l.Text) + LogEntryOverhead
				}
				require.LessOrEqual(t, total, 1<<20, "the logs kept stay within the budget")
			}
		})
	}
}
