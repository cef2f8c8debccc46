package sandbox

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHostileSleeperWithDirtyMemory: a chain (T1) that dirties 48 MiB,
// one byte per page, and then only sleeps, each wait longer than the idle
// drop's 20 ms, runs to its right result beside a healthy chain of another
// tenant. That each wait compares only the pages written since the last
// one, not the 48 MiB again, on a timer goroutine no limit of the chain
// counts, is quickjs.TestIdleRescanOfDirtyPagesIsPaidFor.
func TestHostileSleeperWithDirtyMemory(t *testing.T) {
	e := engine(t)
	wait := bystander(t, e)
	res, err := e.Run(context.Background(), Script{Source: `
		const a = new Uint8Array(48 << 20);
		for (let i = 4095; i < a.length; i += 4096) a[i] = 1;
		await tools.mark();
		for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 25));
		await tools.mark();
		return a[4095] + a[a.length - 1];`, Tenant: "hostile"}, okBridge, Limits{})
	wait()
	require.NoError(t, err)
	require.JSONEq(t, `2`, string(res.Value))
}

// idleParkScript builds state, waits for slow tools (each wait long enough
// for the idle drop), frees part of the state, then makes a call that
// parks the chain.
const idleParkScript = `
const m = new Map();
for (let i = 0; i < 2000; i++) m.set("k" + i, {i, s: "v" + i});
let sum = 0;
for (let j = 0; j < 3; j++) {
  const r = await tools.slow({j});
  sum += r.args.j;
  for (let i = 0; i < 500; i++) m.delete("k" + (j * 500 + i));
  await new Promise((res) => setTimeout(res, 1));
}
const [p] = await Promise.all([tools.risky({n: 1}), tools.slow({j: 10})]);
let t = 0;
for (const [, v] of m) t += v.i;
return {sum, t, size: m.size, p: p.args.n, r: Math.random()};
`

// TestIdleDropThenPark: a chain whose pages were dropped while it waited
// parks and resumes to the result of an uninterrupted run; a healthy chain
// of another tenant runs alongside.
func TestIdleDropThenPark(t *testing.T) {
	e := engine(t)
	slow := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		if tool == "slow" {
			time.Sleep(50 * time.Millisecond) // > the 20 ms idle drop
		}
		if tool == "risky" && ctx.Value(parkKey{}) != nil {
			return nil, &Pending{Token: append([]byte(nil), args...)}
		}
		return okBridge(ctx, tool, args)
	}
	wait := bystander(t, e)
	guest := Guest{Clock: ClockVirtual, Seed: 11}
	want, err := e.Run(context.Background(), Script{Source: idleParkScript, Guest: guest, Tenant: "a"}, slow, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `{"sum":3,"t":874750,"size":500,"p":1,"r":`+string(mustField(t, want.Value, "r"))+`}`, string(want.Value))
	ctx := context.WithValue(context.Background(), parkKey{}, true)
	res, err := e.Run(ctx, Script{Source: idleParkScript, Guest: guest, Park: true, Tenant: "a"}, slow, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	got, err := e.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: slow, Retry: approveAll})
	require.NoError(t, err)
	require.JSONEq(t, string(want.Value), string(got.Value))
	wait()
}

type parkKey struct{}

func mustField(t *testing.T, v []byte, k string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(v, &m))
	return m[k]
}

// TestIdleDropTimeoutDuringLoneCall: a run whose time limit passes while
// its lone call runs inline, its instance idle and the drop in progress,
// ends with Timeout; a healthy chain runs alongside.
func TestIdleDropTimeoutDuringLoneCall(t *testing.T) {
	e := engine(t)
	wait := bystander(t, e)
	hang := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	_, err := e.Run(context.Background(), Script{Source: `
		const a = new Uint8Array(32 << 20); a.fill(1); a.fill(0);
		await tools.hang();`}, hang, Limits{Timeout: 300 * time.Millisecond})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, Timeout, xe.Kind)
	wait()
}
