package service_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/service"
)

// TestLargeParsePerTenant: a tenant's slow large script (600 KB of a name
// declared again, minutes of the host parser) holds one parse slot, its
// tenant's: while it parses, another tenant's large script is accepted and
// its chain runs, and the same tenant's second large script is refused.
// The slow parse is refused at its budget, its worker killed, and the
// tenant's next large script is accepted at once.
func TestLargeParsePerTenant(t *testing.T) {
	svc, _ := newService(t, func(o *service.Options) {
		o.MaxRequestBytes = 1 << 20
		keys := o.Keys
		o.Keys = func(key string) (service.Caller, bool) {
			if key == "globex-key-0123456789abcdef" {
				return service.Caller{Tenant: "globex"}, true
			}
			return keys(key)
		}
	})
	acme, _ := svc.CallerOf(keyAcme)
	globex, ok := svc.CallerOf("globex-key-0123456789abcdef")
	require.True(t, ok)
	// Over 64 KiB, and quick to parse.
	large := `const pad = "` + strings.Repeat("x", 70<<10) + `"; return pad.length;`
	storm := strings.Repeat("let x;\n", (600<<10)/7)

	type answer struct {
		view service.ChainView
		err  error
		took time.Duration
	}
	slow := make(chan answer, 1)
	go func() {
		start := time.Now()
		v, err := svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: storm}, service.SubmitOptions{})
		slow <- answer{v, err, time.Since(start)}
	}()

	// acme's second large script is refused while its first parses.
	require.Eventually(t, func() bool { return len(children(t)) == 1 }, 10*time.Second, time.Millisecond, "acme's parse worker starts")
	worker := children(t)[0]
	_, err := svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: large}, service.SubmitOptions{})
	var se *service.SubmitError
	require.True(t, errors.As(err, &se), "%v", err)
	require.Equal(t, "invalid_script", se.Reason)
	require.Equal(t, "SyntaxError: the host is parsing another large script of this tenant; retry in a moment, or send a smaller one", se.Message)

	// globex is not held up: its large script is accepted and its chain
	// finishes while acme's parse still runs.
	view, err := svc.Submit(context.Background(), globex, &service.SubmitRequest{Script: large}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "ok", view.Status)
	require.JSONEq(t, "71680", string(view.Result.Value))
	select {
	case a := <-slow:
		t.Fatalf("acme's slow parse ended before globex's chain: %+v", a)
	default:
	}

	a := <-slow
	require.NotContains(t, children(t), worker, "acme's worker was killed")
	require.True(t, errors.As(a.err, &se), "%v", a.err)
	require.Equal(t, "invalid_script", se.Reason)
	require.True(t, strings.HasPrefix(se.Message, "SyntaxError: the script is too costly to parse (over 2.229s)"), se.Message)
	require.Less(t, a.took, 10*time.Second, "refused at its budget, not when the parser would have finished")
	view, err = svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: large}, service.SubmitOptions{})
	require.NoError(t, err, "acme's slot is free")
	require.Equal(t, "ok", view.Status)
}

// children are the processes whose parent is this one: the parse workers.
func children(t *testing.T) []int {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) && f[0] != "Z" {
			pids = append(pids, pid)
		}
	}
	return pids
}
