package sandbox

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCallValueAfterResume checks that a resumed run (an instance restored
// from a parked state) writes its calls' arguments as the run that never
// parked stringifies them, values made before the park included.
func TestCallValueAfterResume(t *testing.T) {
	const src = `
const o = {s: "é".repeat(300) + "名".repeat(300), n: [1, 2.5, -0, null, undefined], k: {"": true}};
const first = await tools.t(o);
await tools.risky({n: 1});
const again = await tools.t(o);
o.added = "x".repeat(50) + "\ud800";
return [first, again, await tools.t(o), await tools.t([o, o])];
`
	e := engine(t)
	run := func(stringify bool) ([]string, string) {
		var mu sync.Mutex
		var calls []string
		rec := func(_ context.Context, tool string, args []byte) ([]byte, error) {
			mu.Lock()
			calls = append(calls, tool+" "+string(args))
			mu.Unlock()
			return okBridge(context.Background(), tool, args)
		}
		park := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
			if tool == "risky" {
				return nil, &Pending{Token: append([]byte(nil), args...)}
			}
			return rec(ctx, tool, args)
		}
		ctx := context.Background()
		if stringify {
			ctx = context.WithValue(ctx, noCallValueKey{}, true)
		}
		res, err := e.Run(ctx, Script{Source: src, Park: true}, park, Limits{})
		require.NoError(t, err)
		require.NotNil(t, res.Parked)
		got, err := e.Resume(ctx, Resumption{State: res.Parked.State, Bridge: rec, Retry: approveAll})
		require.NoError(t, err)
		require.Nil(t, got.Parked)
		return calls, string(got.Value)
	}
	slowCalls, slowValue := run(true)
	fastCalls, fastValue := run(false)
	require.Len(t, fastCalls, 4)
	require.Equal(t, slowCalls, fastCalls)
	require.Equal(t, slowValue, fastValue)
}
