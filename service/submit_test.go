package service_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/service"
)

// TestSubmit: one submission path for every face: validation and limits,
// events as they happen, the chain retained for its tenant only, and
// cancellation with the submitter's context.
func TestSubmit(t *testing.T) {
	svc, _ := newService(t, nil)
	acme, ok := svc.CallerOf(keyAcme)
	require.True(t, ok)
	require.Equal(t, "acme", acme.Tenant)
	require.Equal(t, service.RoleAll, acme.Role, "a key without a role has role all")
	_, ok = svc.CallerOf("nope")
	require.False(t, ok)
	_, ok = svc.CallerOf("")
	require.False(t, ok)

	var mu sync.Mutex
	var names []string
	view, err := svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: `await tools.kv_get({key: "k"}); return 7`},
		service.SubmitOptions{Watch: func(ev service.Event) { mu.Lock(); names = append(names, ev.Name); mu.Unlock() }})
	require.NoError(t, err)
	require.Equal(t, "ok", view.Status)
	require.JSONEq(t, "7", string(view.Result.Value))
	mu.Lock()
	require.Contains(t, names, "tool_call")
	require.Contains(t, names, "tool_result")
	mu.Unlock()
	got, err := svc.Chain(context.Background(), "acme", view.ID)
	require.NoError(t, err)
	require.Equal(t, "ok", got.Status, "retained like any chain")
	_, err = svc.Chain(context.Background(), "globex", view.ID)
	require.ErrorIs(t, err, service.ErrNotFound, "for its tenant only")

	for _, tc := range []struct {
		caller string
		req    service.SubmitRequest
		reason string
	}{
		{keyAcme, service.SubmitRequest{Script: "return ("}, "invalid_script"},
		{keyAcme, service.SubmitRequest{Script: "return 1", Language: "cobol"}, "invalid_language"},
		{keyAcme, service.SubmitRequest{Script: strings.Repeat("x", 64<<10+1)}, "body_too_large"},
		{keyAcme, service.SubmitRequest{Script: "return 1", Tools: []string{"nope"}}, "unknown_tools"},
		{keyAcme, service.SubmitRequest{Script: "return 1", Tenant: "globex"}, "tenant_mismatch"},
		{keyApprove, service.SubmitRequest{Script: "return 1"}, "forbidden_role"},
	} {
		c, ok := svc.CallerOf(tc.caller)
		require.True(t, ok)
		_, err := svc.Submit(context.Background(), c, &tc.req, service.SubmitOptions{})
		var se *service.SubmitError
		require.True(t, errors.As(err, &se), "%v", err)
		require.Equal(t, tc.reason, se.Reason, se.Message)
	}

	// The caller's context ending cancels a synchronous chain.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	view, err = svc.Submit(ctx, acme, &service.SubmitRequest{Script: `await tools.slow({ms: 30000}); return 1`}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "cancelled", view.Status)

	// A detached chain runs on past its submitter's context.
	ctx, cancel = context.WithCancel(context.Background())
	view, err = svc.Submit(ctx, acme, &service.SubmitRequest{Script: `await tools.slow({ms: 200}); return 2`}, service.SubmitOptions{Detach: true})
	cancel()
	require.NoError(t, err)
	require.Equal(t, "running", view.Status)
	require.Eventually(t, func() bool {
		v, err := svc.Chain(context.Background(), "acme", view.ID)
		return err == nil && v.Status == "ok" && string(v.Result.Value) == "2"
	}, 10*time.Second, 10*time.Millisecond)
}

// TestCloseDrains: Close stops taking chains, lets running ones finish
// within its context, then cancels the rest and says how many.
func TestCloseDrains(t *testing.T) {
	svc, _ := newService(t, nil)
	acme, _ := svc.CallerOf(keyAcme)
	v, err := svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: `await tools.slow({ms: 30000}); return 1`}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err = svc.Close(ctx)
	require.EqualError(t, err, "service: shutdown cancelled 1 running chain(s)")
	require.True(t, svc.Draining())
	got, err := svc.Chain(context.Background(), "acme", v.ID)
	require.NoError(t, err, "reads keep working after Close")
	require.Equal(t, "cancelled", got.Status)
	_, err = svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: "return 1"}, service.SubmitOptions{})
	var se *service.SubmitError
	require.True(t, errors.As(err, &se))
	require.Equal(t, service.ReasonShuttingDown, se.Reason)
}

// TestNewStartsNothing: a service that was never started runs no
// goroutine of its own, and Close of an idle service returns at once.
func TestNewStartsNothing(t *testing.T) {
	_, err := service.New(nil, service.Options{})
	require.ErrorIs(t, err, service.ErrNoRunner)
	svc, _ := newService(t, nil)
	require.NoError(t, svc.Close(context.Background()))
}
