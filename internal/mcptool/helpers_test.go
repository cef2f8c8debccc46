package mcptool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/internal/enginetest"
	"github.com/airlockrt/airlock/internal/mcptest"
	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// transport is how a test reaches server-everything: a spec naming it
// "everything", and for HTTP the running server.
type transport struct {
	name string
	spec func(t *testing.T) (mcptool.ServerSpec, *mcptest.Server)
}

var transports = []transport{
	{"stdio", func(t *testing.T) (mcptool.ServerSpec, *mcptest.Server) {
		return stdioSpec(t), nil
	}},
	{"http", func(t *testing.T) (mcptool.ServerSpec, *mcptest.Server) {
		srv := mcptest.StartHTTP(t)
		return mcptool.ServerSpec{Name: "everything", URL: srv.URL}, srv
	}},
}

func stdioSpec(t *testing.T) mcptool.ServerSpec {
	return mcptool.ServerSpec{Name: "everything", Command: "node", Args: []string{mcptest.Everything(t)}}
}

// start starts a Manager over box (a new one when nil) and waits up to
// 30s for every server's first tool list; the test's cleanup closes it.
func start(t *testing.T, box *toolbox.Toolbox, specs []mcptool.ServerSpec, opts mcptool.Options) (*mcptool.Manager, *toolbox.Toolbox) {
	t.Helper()
	if box == nil {
		var err error
		box, err = toolbox.New()
		require.NoError(t, err)
	}
	m, err := mcptool.Start(context.Background(), box, specs, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	for _, s := range specs {
		select {
		case <-m.Ready(s.Name):
		case <-time.After(30 * time.Second):
			t.Fatalf("server %s did not list its tools within 30s: %+v", s.Name, m.Status())
		}
	}
	return m, box
}

// newInvoker is an invoker over box with a memory blob store that approves
// every call.
func newInvoker(t *testing.T, box *toolbox.Toolbox, p invoker.Policy) *invoker.Invoker {
	t.Helper()
	inv, _ := newInvokerStore(t, box, p)
	return inv
}

func newInvokerStore(t *testing.T, box *toolbox.Toolbox, p invoker.Policy) (*invoker.Invoker, *blobstore.Store) {
	t.Helper()
	store := blobstore.New(memblob.New(), blobstore.Options{})
	t.Cleanup(func() { _ = store.Close() })
	inv, err := invoker.New(box, invoker.Options{Policy: p, Store: store,
		Approver: invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
			return invoker.Approved, nil
		})})
	require.NoError(t, err)
	return inv, store
}

// invoke makes one call in a new session of tenant and returns its result
// and trace record.
func invoke(t *testing.T, inv *invoker.Invoker, tenant, tool, args string) (invoker.Result, session.Record) {
	t.Helper()
	sess := inv.NewSession(session.Options{Tenant: tenant})
	t.Cleanup(func() { _ = sess.Close(context.Background()) })
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: tool, Args: json.RawMessage(args)})
	trace := sess.Trace()
	require.Len(t, trace, 1)
	return res, trace[0]
}

// call calls a registered tool directly (no invoker).
func call(ctx context.Context, t *testing.T, box *toolbox.Toolbox, name, args string) (toolbox.Output, error) {
	t.Helper()
	tool, ok := box.Get(name)
	require.True(t, ok, "tool %s is registered (have %v)", name, box.Names())
	return tool.Call(ctx, json.RawMessage(args))
}

// status returns the status of server name.
func status(t *testing.T, m *mcptool.Manager, name string) mcptool.Status {
	t.Helper()
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status of %s", name)
	return mcptool.Status{}
}

// eventually waits up to 30s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 30*time.Second, 20*time.Millisecond, what)
}

// caller is a toolbox.Caller of a tenant.
func caller(id, tenant string) toolbox.StaticCaller {
	return toolbox.StaticCaller{ChainID: id, TenantID: tenant}
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func bufLogger(buf *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// scripts is the test binary's one script engine.
func scripts(t testing.TB) *sandbox.ScriptEngine { return enginetest.Scripts(t) }
