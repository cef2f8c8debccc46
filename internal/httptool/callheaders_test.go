package httptool_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// TestIdempotencyKeyIsTheTenants: the Idempotency-Key an HTTP tool sends
// is bound to the calling tenant. Every tenant shares the tool's upstream
// account (its configured credentials), so a key sent as the chain gave
// it would let tenant A claim tenant B's key at the upstream: B's call is
// then answered with A's recorded response (or refused), and A, calling
// with B's key and arguments, reads B's. The same tenant's key maps to the
// same header, so the upstream still deduplicates its retries.
func TestIdempotencyKeyIsTheTenants(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	tool := newTool(t, httptool.Spec{Name: "pay", URL: srv.URL + "/pay", Method: "POST", Risk: toolbox.Safe,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"}}}`)})
	box, err := toolbox.New(tool)
	require.NoError(t, err)
	inv, err := invoker.New(box, invoker.Options{})
	require.NoError(t, err)
	call := invoker.Call{Tool: "pay", Args: json.RawMessage(`{"amount":1,"$idempotency_key":"pay-1"}`)}
	for _, tenant := range []string{"acme", "acme", "globex"} {
		sess := inv.NewSession(session.Options{Tenant: tenant})
		res := inv.Invoke(context.Background(), sess, call)
		require.True(t, res.OK(), res.Message)
		require.NoError(t, sess.Close(context.Background()))
	}
	require.Len(t, got, 3)
	require.NotEmpty(t, got[0])
	require.Equal(t, got[0], got[1], "one tenant's retries keep their key")
	require.NotEqual(t, got[0], got[2], "two tenants' equal keys are two keys upstream")
	require.Equal(t, httptool.IdempotencyKey("acme", "pay-1"), got[0])
}

// TestIdempotencyKeyCannotInjectHeaders: a Caller whose key holds a line
// break (an embedder's own Caller; the invoker never hands one on) sends
// no header of its own making.
func TestIdempotencyKeyCannotInjectHeaders(t *testing.T) {
	var h http.Header
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		h = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	tool := newTool(t, httptool.Spec{URL: srv.URL, Method: "POST"})
	ctx := toolbox.WithCaller(context.Background(), toolbox.StaticCaller{TenantID: "acme", Key: "k\r\nX-Evil: 1"})
	_, err := tool.Call(ctx, json.RawMessage(`{}`))
	require.NoError(t, err)
	require.Empty(t, h.Get("X-Evil"))
	require.Regexp(t, `^[0-9a-f]{64}$`, h.Get("Idempotency-Key"))
}
