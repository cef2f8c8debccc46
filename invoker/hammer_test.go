package invoker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
)

// TestHammer runs many goroutines × many calls over shared sessions, mixing
// every outcome, and checks that counts, traces, pins and hooks come out
// exact. Run with -race; TestMain checks for leaked goroutines.
func TestHammer(t *testing.T) {
	const sessions, workers, callsPerWorker, budget = 4, 8, 60, 400
	f := newFixture(t)
	var starts, ends atomic.Int64
	inv := f.invoker(t, invoker.Options{
		Store: f.store,
		Approver: invoker.ApprovalFunc(func(_ context.Context, r invoker.ApprovalRequest) (invoker.Decision, error) {
			return invoker.Approved, nil
		}),
		Policy: invoker.Policy{MaxToolCalls: budget, MaxInlineResultBytes: 64},
		Hooks: invoker.Hooks{
			OnToolStart: func(context.Context, invoker.Event) { starts.Add(1) },
			OnToolEnd:   func(context.Context, invoker.Event) { ends.Add(1) },
		},
	})
	calls := []invoker.Call{
		{Tool: "noop"}, {Tool: "boom"}, {Tool: "panic"}, {Tool: "nope"},
		{Tool: "send", Args: json.RawMessage(`{"to":"x"}`)},
		{Tool: "big", Args: json.RawMessage(`{"n":200}`)},
		{Tool: "echo", Args: json.RawMessage(`{"bad":1}`)},
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	sess := make([]*session.Session, sessions)
	okBig := make([]atomic.Int64, sessions)
	for s := range sess {
		sess[s] = newSession(inv, fmt.Sprintf("tenant%d", s%2))
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < callsPerWorker; i++ {
					c := calls[(w+i)%len(calls)]
					res := inv.Invoke(ctx, sess[s], c)
					if c.Tool == "big" && res.OK() {
						okBig[s].Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	total := sessions * workers * callsPerWorker
	require.EqualValues(t, total, starts.Load())
	require.EqualValues(t, total, ends.Load())
	for s, ss := range sess {
		tr := ss.Trace()
		require.Len(t, tr, workers*callsPerWorker)
		require.Equal(t, budget, ss.Calls())
		exhausted := 0
		for i, r := range tr {
			require.Equal(t, i+1, r.Seq)
			if r.Reason == invoker.ReasonBudgetExhausted {
				exhausted++
			}
		}
		require.Equal(t, workers*callsPerWorker-budget, exhausted)
		require.Len(t, ss.Pinned(), int(okBig[s].Load()), "one pin per offloaded result")
		require.NoError(t, ss.Close(ctx))
		require.Empty(t, ss.Pinned())
	}
}
