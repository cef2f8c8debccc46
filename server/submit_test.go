package server_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/server"
)

// TestSubmit: the API's synchronous submission for other faces (MCP): the
// same validation and limits as POST /v1/chains, events as they happen,
// the chain retained, and cancellation with the caller's context.
func TestSubmit(t *testing.T) {
	e := newEnv(t, nil)
	acme, ok := e.srv.CallerOf(keyAcme)
	require.True(t, ok)
	require.Equal(t, "acme", acme.Tenant)
	_, ok = e.srv.CallerOf("nope")
	require.False(t, ok)
	_, ok = e.srv.CallerOf("")
	require.False(t, ok)

	var mu sync.Mutex
	var names []string
	view, err := e.srv.Submit(context.Background(), acme, &server.SubmitRequest{Script: `await tools.kv_get({key: "k"}); return 7`},
		func(ev server.Event) { mu.Lock(); names = append(names, ev.Name); mu.Unlock() })
	require.NoError(t, err)
	require.Equal(t, "ok", view.Status)
	require.JSONEq(t, "7", string(view.Result.Value))
	mu.Lock()
	require.Contains(t, names, "tool_call")
	require.Contains(t, names, "tool_result")
	mu.Unlock()
	require.Equal(t, "ok", e.view(t, keyAcme, view.ID).Status, "retained like any chain, for its tenant")

	for _, tc := range []struct {
		req    server.SubmitRequest
		status int
		reason string
	}{
		{server.SubmitRequest{Script: "return ("}, 400, "invalid_script"},
		{server.SubmitRequest{Script: "return 1", Language: "cobol"}, 400, "invalid_language"},
		{server.SubmitRequest{Script: strings.Repeat("x", 64<<10+1)}, 413, "body_too_large"},
		{server.SubmitRequest{Script: "return 1", Tools: []string{"nope"}}, 400, "unknown_tools"},
	} {
		_, err := e.srv.Submit(context.Background(), acme, &tc.req, nil)
		var se *server.SubmitError
		require.True(t, errors.As(err, &se), "%v", err)
		require.Equal(t, tc.status, se.Status)
		require.Equal(t, tc.reason, se.Reason)
	}

	// The caller's context ending cancels the chain.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	view, err = e.srv.Submit(ctx, acme, &server.SubmitRequest{Script: `await tools.slow({ms: 30000}); return 1`}, nil)
	require.NoError(t, err)
	require.Equal(t, "cancelled", view.Status)
}
