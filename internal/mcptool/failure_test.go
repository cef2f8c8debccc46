package mcptool_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/mcptest"
	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// within runs f and fails unless it returns within d.
func within[T any](t *testing.T, d time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not end within %s", what, d)
		panic("unreachable")
	}
}

// TestServerKilledMidCall: a call in flight when the server dies ends at
// once with an unknown outcome; while the server is down calls fail fast
// as unavailable; the supervisor brings it back and the tool works again.
func TestServerKilledMidCall(t *testing.T) {
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			var spec mcptool.ServerSpec
			var kill, revive func()
			switch tr {
			case "stdio":
				// The server is started through sh so that the test can make
				// its restarts fail (exit at once) while the block file is
				// there, to see the calls made while it is down.
				block := filepath.Join(t.TempDir(), "block")
				spec = mcptool.ServerSpec{Name: "everything", Command: "sh",
					Args: []string{"-c", `test -e "$BLOCK" && exit 3; exec node "$0"`, mcptest.Everything(t)},
					Env:  map[string]string{"BLOCK": block}}
				var m *mcptool.Manager
				kill = func() {
					require.NoError(t, os.WriteFile(block, nil, 0o600))
					pid := m.PID("everything", "")
					require.NotZero(t, pid)
					require.NoError(t, syscall.Kill(-pid, syscall.SIGKILL))
				}
				revive = func() { require.NoError(t, os.Remove(block)) }
				runKilled(t, spec, func(mm *mcptool.Manager) { m = mm }, func() { kill() }, func() { revive() })
			case "http":
				port := mcptest.FreePort(t)
				srv := mcptest.StartHTTPOn(t, port)
				spec = mcptool.ServerSpec{Name: "everything", URL: srv.URL}
				runKilled(t, spec, func(*mcptool.Manager) {}, srv.Kill, func() { mcptest.StartHTTPOn(t, port) })
			}
		})
	}
}

func runKilled(t *testing.T, spec mcptool.ServerSpec, got func(*mcptool.Manager), kill, revive func()) {
	ctx := context.Background()
	m, box := start(t, nil, []mcptool.ServerSpec{spec}, mcptool.Options{})
	got(m)
	inv := newInvoker(t, box, invoker.Policy{CallTimeout: 60 * time.Second})

	// Two calls in flight: one straight to the tool, one through the invoker.
	direct := make(chan error, 1)
	go func() {
		_, err := call(ctx, t, box, "everything_trigger_long_running_operation", `{"duration": 50, "steps": 1}`)
		direct <- err
	}()
	type invoked struct {
		res invoker.Result
		rec session.Record
	}
	viaInvoker := make(chan invoked, 1)
	go func() {
		res, rec := invoke(t, inv, "acme", "everything_trigger_long_running_operation", `{"duration": 50, "steps": 1}`)
		viaInvoker <- invoked{res, rec}
	}()
	time.Sleep(500 * time.Millisecond) // let both calls reach the server
	kill()

	select {
	case err := <-direct:
		require.Error(t, err)
		require.ErrorIs(t, err, toolbox.ErrOutcomeUnknown)
	case <-time.After(15 * time.Second):
		t.Fatal("the direct call did not end within 15s of the kill (its timeout is 60s)")
	}
	select {
	case r := <-viaInvoker:
		require.Equal(t, invoker.ReasonToolError, r.res.Reason, r.res.Message)
		require.Contains(t, r.res.Message, "its effects are unknown")
		require.Equal(t, session.StatusError, r.rec.Status)
	case <-time.After(15 * time.Second):
		t.Fatal("the invoked call did not end within 15s of the kill (its timeout is 60s)")
	}

	// Down: calls fail fast as unavailable.
	eventually(t, "the server is seen down", func() bool { return !status(t, m, "everything").Up })
	st := status(t, m, "everything")
	require.NotEmpty(t, st.Error)
	fresh := newInvoker(t, box, invoker.Policy{})
	derr := within(t, 5*time.Second, "a call while down", func() error {
		_, err := call(ctx, t, box, "everything_get_sum", `{"a": 1, "b": 2}`)
		return err
	})
	var unavailable *toolbox.UnavailableError
	require.ErrorAs(t, derr, &unavailable)
	require.GreaterOrEqual(t, unavailable.RetryAfter, time.Duration(0))
	require.Contains(t, derr.Error(), `mcp server "everything" is not connected`)
	res := within(t, 5*time.Second, "an invoked call while down", func() invoker.Result {
		r, _ := invoke(t, fresh, "acme", "everything_get_sum", `{"a": 1, "b": 2}`)
		return r
	})
	require.Equal(t, invoker.ReasonToolUnavailable, res.Reason, res.Message)
	require.Contains(t, res.Message, "not connected")

	// Back up: restarted, the tool works again.
	revive()
	eventually(t, "the server is back", func() bool {
		st := status(t, m, "everything")
		return st.Up && st.Restarts >= 1
	})
	res, _ = invoke(t, fresh, "acme", "everything_get_sum", `{"a": 1, "b": 2}`)
	require.Equal(t, session.StatusOK, res.Status, res.Message)
	require.JSONEq(t, `"The sum of 1 and 2 is 3."`, string(res.Value))
	st = status(t, m, "everything")
	require.Empty(t, st.Error)
	require.Contains(t, st.Tools, "everything_get_sum")
}

// TestSlowCallTimesOut: a call running past the invoker's call timeout
// ends with call_timeout, and the session serves the next call.
func TestSlowCallTimesOut(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			spec, _ := tr.spec(t)
			m, box := start(t, nil, []mcptool.ServerSpec{spec}, mcptool.Options{})
			inv := newInvoker(t, box, invoker.Policy{CallTimeout: time.Second, ApprovalTimeout: 500 * time.Millisecond})
			type invoked struct {
				res invoker.Result
				rec session.Record
			}
			r := within(t, 10*time.Second, "the slow call", func() invoked {
				res, rec := invoke(t, inv, "acme", "everything_trigger_long_running_operation", `{"duration": 5, "steps": 1}`)
				return invoked{res, rec}
			})
			require.Equal(t, invoker.ReasonCallTimeout, r.res.Reason, r.res.Message)
			require.Equal(t, session.StatusError, r.res.Status)
			require.Equal(t, session.StatusTimeout, r.rec.Status)
			eventually(t, "the abandoned call returns (the tool honours its context)", func() bool { return inv.Abandoned() == 0 })

			res, _ := invoke(t, inv, "acme", "everything_get_sum", `{"a": 20, "b": 22}`)
			require.Equal(t, session.StatusOK, res.Status, res.Message)
			require.JSONEq(t, `"The sum of 20 and 22 is 42."`, string(res.Value))
			st := status(t, m, "everything")
			require.True(t, st.Up)
			require.Zero(t, st.Restarts, "the timeout did not cost the session")
		})
	}
}

// TestCloseDuringCall: Close with a call in flight ends the call and
// returns promptly; the process is gone and the tools unregistered.
func TestCloseDuringCall(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			spec, _ := tr.spec(t)
			m, box := start(t, nil, []mcptool.ServerSpec{spec}, mcptool.Options{})
			pid := m.PID("everything", "")
			done := make(chan error, 1)
			go func() {
				_, err := call(context.Background(), t, box, "everything_trigger_long_running_operation", `{"duration": 50, "steps": 1}`)
				done <- err
			}()
			time.Sleep(300 * time.Millisecond)
			within(t, 10*time.Second, "Close", func() error { return m.Close() })
			select {
			case err := <-done:
				require.ErrorIs(t, err, toolbox.ErrOutcomeUnknown, "airlock left the call: its outcome is unknown")
			case <-time.After(10 * time.Second):
				t.Fatal("the call did not end within 10s of Close")
			}
			require.Zero(t, box.Len())
			if pid != 0 {
				require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH)
			}
		})
	}
}
