package sandbox

import (
	"context"
	"strings"
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

// TestCallValueReviewLimits runs arguments at and around max_args_bytes,
// made of escapes and multi-byte characters, and values whose JSON passes
// the limit exactly where a string or key opens, both ways: the calls the
// Bridge sees and the failures must be the same.
func TestCallValueReviewLimits(t *testing.T) {
	lim := Limits{MaxArgsBytes: 1000, MaxInFlight: 2}
	for _, tt := range []struct{ name, src string }{
		{"escapes at the limit", `return (await tools.t({s: "\n".repeat(496)})).args.s.length;`},
		{"escapes over the limit", `await tools.t({s: "\n".repeat(497)});`},
		{"latin1 escapes over the limit", `await tools.t({s: "\u0001".repeat(200)});`},
		{"multi-byte at the limit", `return (await tools.t({s: "名".repeat(330)})).args.s.length;`},
		{"multi-byte over the limit", `await tools.t({s: "名".repeat(331)});`},
		{"surrogate pairs over the limit", `await tools.t({s: "🎉".repeat(249)});`},
		{"surrogate pairs at the limit", `return (await tools.t({s: "🎉".repeat(248)})).args.s.length;`},
		{"string opening at the limit", `await tools.t(["x".repeat(996), "a".repeat(1 << 22)]);`},
		{"key opening at the limit", `await tools.t({a: "x".repeat(992), ["b".repeat(1 << 22)]: 1});`},
		{"rope opening at the limit", `await tools.t(["x".repeat(996), "a".repeat(1 << 21) + "c".repeat(1 << 21)]);`},
		{"calls past in-flight with big arguments", `const ps = []; for (let i = 0; i < 5; i++) ps.push(tools.t({i, s: "y".repeat(900)})); return (await Promise.all(ps)).length;`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			slow := runCalls(t, tt.src, lim, true)
			fast := runCalls(t, tt.src, lim, false)
			require.Equal(t, slow, fast)
			switch {
			case strings.Contains(tt.name, "over the limit"), strings.Contains(tt.name, "opening"):
				require.Contains(t, fast.Exit, `limit "args"`)
			default:
				require.Empty(t, fast.Exit)
			}
		})
	}
}
