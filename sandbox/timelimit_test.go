package sandbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	w "github.com/airlockrt/airlock/internal/wasmbuild"
)

// TestTimeLimitNamed: a run that passes Limits.Timeout ends with an error
// that names the setting and its value, whatever it was doing; it is still
// a Timeout that matches context.DeadlineExceeded. A deadline of the
// caller's context that comes first is reported as that deadline.
func TestTimeLimitNamed(t *testing.T) {
	e := engine(t)
	never := func(ctx context.Context, _ string, _ []byte) ([]byte, error) { <-ctx.Done(); return nil, ctx.Err() }
	early, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	tests := []struct {
		name string
		ctx  context.Context
		s    Script
		br   Bridge
		lim  Limits
		want string
	}{
		{name: "infinite loop", s: Script{Source: "for (;;) {}"}, lim: Limits{Timeout: 50 * time.Millisecond},
			want: "the script ran past its time limit (limits.timeout = 50ms)"},
		{name: "waiting for a tool", s: Script{Source: "await tools.slow()"}, br: never, lim: Limits{Timeout: 50 * time.Millisecond},
			want: "the script ran past its time limit (limits.timeout = 50ms)"},
		{name: "waiting for a timer, TypeScript", s: Script{Source: "await new Promise((r) => setTimeout(r, 1e9)); const n: number = 1", Lang: LangTS},
			lim: Limits{Timeout: 1500 * time.Millisecond}, want: "the script ran past its time limit (limits.timeout = 1.5s)"},
		{name: "the caller's deadline first", ctx: early, s: Script{Source: "for (;;) {}"}, lim: Limits{Timeout: time.Hour},
			want: "the run's deadline passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, br := tt.ctx, tt.br
			if ctx == nil {
				ctx = context.Background()
			}
			if br == nil {
				br = okBridge
			}
			res, err := e.Run(ctx, tt.s, br, tt.lim)
			require.NotNil(t, res)
			requireTimeout(t, err, tt.want)
		})
	}

	t.Run("resumed", func(t *testing.T) {
		res, err := e.Run(context.Background(), Script{Source: "await tools.risky({});\nfor (;;) {}", Park: true}, parkBridge,
			Limits{Timeout: time.Second})
		require.NoError(t, err)
		require.NotNil(t, res.Parked)
		_, err = e.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge, Retry: approveAll})
		requireTimeout(t, err, "the script ran past its time limit (limits.timeout = 1s)")
	})

	t.Run("module", func(t *testing.T) {
		ctx := context.Background()
		me, err := NewModuleEngine(ctx, ModuleOptions{CompilationCacheDir: cacheDir()})
		require.NoError(t, err)
		defer me.Close(ctx)
		loop := w.ProcExitCommand(nil, w.Body(nil, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b)) // loop br 0 end end
		m, err := me.Compile(ctx, loop)
		require.NoError(t, err)
		defer m.Close(ctx)
		_, err = m.Run(ctx, nil, okBridge, Limits{Timeout: 50 * time.Millisecond})
		requireTimeout(t, err, "the module ran past its time limit (limits.timeout = 50ms)")
	})
}

// requireTimeout checks that err is a Timeout with message want that still
// matches context.DeadlineExceeded.
func requireTimeout(t *testing.T, err error, want string) {
	t.Helper()
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, Timeout, xe.Kind)
	require.Equal(t, want, xe.Message)
	require.Equal(t, "sandbox: timeout: "+want, xe.Error())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.True(t, errors.Is(xe.Err, context.DeadlineExceeded))
	require.ErrorIs(t, err, &ExitError{Kind: Timeout})
}

// TestLimitsNamed: a run that reaches another limit names its setting and
// value as well.
func TestLimitsNamed(t *testing.T) {
	e := engine(t)
	tests := []struct {
		name  string
		src   string
		lim   Limits
		limit string
		want  string
	}{
		{name: "memory", src: "const a = []; for (;;) a.push(new Array(1e5).fill(1.5))", lim: Limits{MemoryBytes: 16 << 20},
			limit: LimitMemory, want: "memory limit of 16 MiB reached (limits.memory = 16MiB)"},
		{name: "log entries", src: "for (let i = 0; i < 5; i++) console.log(i)", lim: Limits{MaxLogEntries: 3},
			limit: LimitLogs, want: "console output exceeds 3 entries (limits.max_log_entries = 3)"},
		{name: "log bytes", src: "console.log('x'.repeat(5000))", lim: Limits{MaxLogBytes: 4 << 10},
			limit: LimitLogs, want: "console output exceeds 4096 bytes (limits.max_log_bytes = 4KiB)"},
		{name: "result", src: "return 'x'.repeat(100)", lim: Limits{MaxResultBytes: 10},
			limit: LimitResult, want: "the result's JSON is at least 102 bytes, more than 10 (limits.max_result_bytes = 10)"},
		{name: "arguments", src: "await tools.big({s: 'x'.repeat(100)})", lim: Limits{MaxArgsBytes: 50},
			limit: LimitArgs, want: "tools.big: arguments of 108 bytes exceed 50 (limits.max_args_bytes = 50)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Run(context.Background(), Script{Source: tt.src}, okBridge, tt.lim)
			var xe *ExitError
			require.ErrorAs(t, err, &xe)
			require.Equal(t, LimitExceeded, xe.Kind, "%v", err)
			require.Equal(t, tt.limit, xe.Limit)
			require.Equal(t, tt.want, xe.Message)
		})
	}
}
