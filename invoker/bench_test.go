package invoker_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// benchInvoke measures Invoke of c on one session with an unlimited budget and
// a one-record trace (so the trace does not grow), serially or from all cores.
func benchInvoke(b *testing.B, box *toolbox.Toolbox, c invoker.Call, parallel bool) {
	inv, err := invoker.New(box, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	sess := inv.NewSession(session.Options{MaxTrace: 1})
	ctx := context.Background()
	b.ReportAllocs()
	if parallel {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				inv.Invoke(ctx, sess, c)
			}
		})
		return
	}
	for b.Loop() {
		if res := inv.Invoke(ctx, sess, c); !res.OK() {
			b.Fatal(res.Message)
		}
	}
}

func noopBox(b *testing.B) *toolbox.Toolbox {
	box, err := toolbox.New(toolbox.Func("noop", "does nothing", func(context.Context, struct{}) (struct{}, error) {
		return struct{}{}, nil
	}))
	if err != nil {
		b.Fatal(err)
	}
	return box
}

// BenchmarkInvokeBareNoop is the target case: the whole pipeline
// (budget, lookup, type gate, schema check, execution under a timeout on its
// own goroutine, shaping, trace record) for a SAFE tool that does nothing.
func BenchmarkInvokeBareNoop(b *testing.B) {
	benchInvoke(b, noopBox(b), invoker.Call{Tool: "noop", Args: json.RawMessage(`{}`)}, false)
}

// BenchmarkInvokeParallel is the same from all cores on one session.
func BenchmarkInvokeParallel(b *testing.B) {
	benchInvoke(b, noopBox(b), invoker.Call{Tool: "noop", Args: json.RawMessage(`{}`)}, true)
}

// BenchmarkInvokeEcho adds ~100 bytes of arguments to decode and validate
// against a schema, and a result of the same size to encode.
func BenchmarkInvokeEcho(b *testing.B) {
	f := newFixture(b)
	benchInvoke(b, f.box, invoker.Call{Tool: "echo",
		Args: json.RawMessage(`{"text":"the quick brown fox jumps over the lazy dog","list":[1,2,3,"four",{"five":5}]}`)}, false)
}

// BenchmarkInvokeGoverned is BenchmarkInvokeBareNoop with every governance
// rule configured but none triggered: a profile granting the tool's scope,
// a custom gate matrix, a risk adjuster, four call policies that allow, a
// generous egress rate, tool health, and an outcome store (the tool is
// read-only, so no record is written). Compare it with the bare figure.
func BenchmarkInvokeGoverned(b *testing.B) {
	box, err := toolbox.New(
		rawTool{info: toolbox.Info{Name: "noop", Description: "does nothing", Scopes: []string{"repo:read"}}, out: toolbox.Output{JSON: json.RawMessage(`{}`)}},
		rawTool{info: toolbox.Info{Name: "other", Description: "does nothing"}, out: toolbox.Output{JSON: json.RawMessage(`{}`)}})
	if err != nil {
		b.Fatal(err)
	}
	gov := govern.New(govern.Options{
		Rates:    map[string]govern.Rate{"noop": {N: 1_000_000, Per: time.Second}},
		Outcomes: govern.NewMemOutcomes(nil),
	})
	inv, err := invoker.New(box, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 1 << 30}, Governor: gov})
	if err != nil {
		b.Fatal(err)
	}
	policies := benchPolicies(b)
	prof := &govern.Profile{
		Name: "governed", Scopes: []string{"repo:read", "repo:write"}, Autonomy: govern.Supervised,
		Matrix:    govern.Matrix{govern.Supervised: {govern.Allow, govern.Confirm, govern.Deny}},
		Policies:  policies,
		Adjusters: []govern.RiskAdjuster{{Name: "never", Adjust: func(_ govern.Call, r toolbox.Risk) toolbox.Risk { return r }}},
	}
	sess := inv.NewSession(session.Options{MaxTrace: 1, Governance: govern.NewChain(prof)})
	ctx := context.Background()
	c := invoker.Call{Tool: "noop", Args: json.RawMessage(`{}`)}
	b.ReportAllocs()
	for b.Loop() {
		if res := inv.Invoke(ctx, sess, c); !res.OK() {
			b.Fatal(res.Message)
		}
	}
}
