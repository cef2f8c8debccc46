package invoker_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// BenchmarkInvokeNoop measures the whole pipeline for a SAFE no-op tool with an
// inline result: budget, lookup, type gate, schema check, execution under a
// timeout, shaping and the trace record.
func BenchmarkInvokeNoop(b *testing.B) {
	f := newFixture(b)
	inv := f.invoker(b, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 1 << 30}})
	sess := inv.NewSession(session.Options{MaxTrace: 1})
	ctx := context.Background()
	c := invoker.Call{Tool: "noop", Args: json.RawMessage(`{}`)}
	b.ReportAllocs()
	for b.Loop() {
		if res := inv.Invoke(ctx, sess, c); !res.OK() {
			b.Fatal(res.Message)
		}
	}
}

// BenchmarkInvokeEcho is the same with ~100 bytes of arguments to decode and
// validate against a schema.
func BenchmarkInvokeEcho(b *testing.B) {
	f := newFixture(b)
	inv := f.invoker(b, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 1 << 30}})
	sess := inv.NewSession(session.Options{MaxTrace: 1})
	ctx := context.Background()
	c := invoker.Call{Tool: "echo", Args: json.RawMessage(`{"text":"the quick brown fox jumps over the lazy dog","list":[1,2,3,"four",{"five":5}]}`)}
	b.ReportAllocs()
	for b.Loop() {
		if res := inv.Invoke(ctx, sess, c); !res.OK() {
			b.Fatal(res.Message)
		}
	}
}

// BenchmarkInvokeParallel runs the no-op pipeline from all cores on one session.
func BenchmarkInvokeParallel(b *testing.B) {
	f := newFixture(b)
	inv := f.invoker(b, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 1 << 30}})
	sess := inv.NewSession(session.Options{MaxTrace: 1})
	ctx := context.Background()
	c := invoker.Call{Tool: "noop", Args: json.RawMessage(`{}`)}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			inv.Invoke(ctx, sess, c)
		}
	})
}

// BenchmarkInvokeBareNoop is the target case: a SAFE tool that does
// nothing, with no test bookkeeping inside the tool.
func BenchmarkInvokeBareNoop(b *testing.B) {
	box, err := toolbox.New(toolbox.Func("noop", "does nothing", func(context.Context, struct{}) (struct{}, error) {
		return struct{}{}, nil
	}))
	if err != nil {
		b.Fatal(err)
	}
	inv, err := invoker.New(box, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	sess := inv.NewSession(session.Options{MaxTrace: 1})
	ctx := context.Background()
	c := invoker.Call{Tool: "noop", Args: json.RawMessage(`{}`)}
	b.ReportAllocs()
	for b.Loop() {
		if res := inv.Invoke(ctx, sess, c); !res.OK() {
			b.Fatal(res.Message)
		}
	}
}
