package invoker_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// fixture is a toolbox of test tools that count their runs and remember the
// arguments they received.
type fixture struct {
	box     *toolbox.Toolbox
	store   *blobstore.Store
	runs    sync.Map // tool name -> *atomic.Int64
	lastArg sync.Map // tool name -> json.RawMessage
	release chan struct{}
}

type echoIn struct {
	Text  string          `json:"text,omitempty"`
	Data  []byte          `json:"data,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
	List  []any           `json:"list,omitempty"`
}

type bigIn struct {
	N      int  `json:"n"`
	Object bool `json:"object,omitempty"`
}

type sendIn struct {
	To   string `json:"to"`
	Body string `json:"body,omitempty"`
}

// rawTool is a Tool written by hand, returning whatever bytes it is given.
type rawTool struct {
	info toolbox.Info
	out  toolbox.Output
}

func (r rawTool) Info() toolbox.Info { return r.info }
func (r rawTool) Call(context.Context, json.RawMessage) (toolbox.Output, error) {
	return r.out, nil
}

func newFixture(t testing.TB) *fixture {
	f := &fixture{release: make(chan struct{}), store: blobstore.New(memblob.New(), blobstore.Options{})}
	t.Cleanup(func() { _ = f.store.Close() })
	count := func(name string, args any) {
		c, _ := f.runs.LoadOrStore(name, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
		b, _ := json.Marshal(args)
		f.lastArg.Store(name, json.RawMessage(b))
	}
	tools := []toolbox.Tool{
		toolbox.Func("noop", "does nothing", func(context.Context, struct{}) (struct{}, error) {
			count("noop", struct{}{})
			return struct{}{}, nil
		}),
		toolbox.Func("echo", "returns its input", func(_ context.Context, in echoIn) (echoIn, error) {
			count("echo", in)
			return in, nil
		}),
		toolbox.Func("big", "returns n bytes", func(_ context.Context, in bigIn) (any, error) {
			count("big", in)
			if in.Object {
				// {"s":"xxx…"} encodes to n bytes.
				return map[string]string{"s": strings.Repeat("x", in.N-8)}, nil
			}
			// "xxx…" encodes to n bytes.
			return strings.Repeat("x", in.N-2), nil
		}),
		toolbox.Func("send", "sends a message", func(_ context.Context, in sendIn) (string, error) {
			count("send", in)
			return "sent to " + in.To, nil
		}).WithRisk(toolbox.High),
		toolbox.Func("nuke", "deletes everything", func(context.Context, struct{}) (string, error) {
			count("nuke", struct{}{})
			return "gone", nil
		}).WithRisk(toolbox.Critical),
		toolbox.Func("boom", "fails", func(context.Context, struct{}) (struct{}, error) {
			count("boom", struct{}{})
			return struct{}{}, errors.New("disk full")
		}),
		toolbox.Func("panic", "panics", func(context.Context, struct{}) (struct{}, error) {
			count("panic", struct{}{})
			panic("secret-token-123")
		}),
		toolbox.Func("slow", "waits for its context", func(ctx context.Context, _ struct{}) (struct{}, error) {
			count("slow", struct{}{})
			<-ctx.Done()
			return struct{}{}, ctx.Err()
		}),
		toolbox.Func("stubborn", "ignores its context", func(context.Context, struct{}) (string, error) {
			count("stubborn", struct{}{})
			<-f.release
			return "late", nil
		}),
		toolbox.Func("img", "renders an image", func(context.Context, struct{}) (toolbox.Output, error) {
			count("img", struct{}{})
			return toolbox.Output{JSON: json.RawMessage(`{"w":1}`), Media: []toolbox.Media{{MIME: "image/png", Data: []byte("\x89PNG")}}}, nil
		}),
		rawTool{info: toolbox.Info{Name: "badjson", Description: "returns broken JSON"}, out: toolbox.Output{JSON: json.RawMessage(`{"a":`)}},
		toolbox.HostedTool{Name: "web_search", Description: "hosted search"},
		toolbox.ProviderDefinedTool{Name: "computer", Description: "provider tool"},
		rawTool{info: toolbox.Info{Name: "tool_chain", Description: "runs a chain", Kind: toolbox.KindChain}},
	}
	box, err := toolbox.New(tools...)
	require.NoError(t, err)
	f.box = box
	return f
}

func (f *fixture) ran(name string) int64 {
	c, ok := f.runs.Load(name)
	if !ok {
		return 0
	}
	return c.(*atomic.Int64).Load()
}

func (f *fixture) arg(name string) string {
	v, ok := f.lastArg.Load(name)
	if !ok {
		return ""
	}
	return string(v.(json.RawMessage))
}

func (f *fixture) invoker(t testing.TB, opts invoker.Options) *invoker.Invoker {
	inv, err := invoker.New(f.box, opts)
	require.NoError(t, err)
	return inv
}

func newSession(inv *invoker.Invoker, tenant string) *session.Session {
	return inv.NewSession(session.Options{Tenant: tenant})
}
