package sandbox

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReviewNothingRunsAfterResult tries, as a script author, to run code,
// call tools, log or change the result after the result was reported
// (OP_DONE no longer unwinds the guest: quickjs.Instance.Finish).
func TestReviewNothingRunsAfterResult(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	for _, tc := range []struct{ name, src, want string }{
		{"queued call", `tools.x({}); return 1`, "1"},
		{"deep microtask", `let p = Promise.resolve(); for (let i = 0; i < 10; i++) p = p.then(() => 0);
			p.then(() => { tools.x({}); console.log("late"); }); return 1`, "1"},
		{"microtask from toJSON", `return { toJSON() { Promise.resolve().then(() => { tools.x({}); console.log("late"); }); return 1; } }`, "1"},
		{"timer", `setTimeout(() => { tools.x({}); console.log("late"); }, 0); return 1`, "1"},
		{"async generator", `async function* g() { for (let i = 0; i < 20; i++) await null; tools.x({}); console.log("late"); yield 1; }
			const it = g(); it.next(); return 1`, "1"},
		{"finalization registry", `const r = new FinalizationRegistry(() => { tools.x({}); console.log("late"); });
			return { toJSON() { for (let i = 0; i < 1000; i++) r.register({ a: new Array(100) }, i); for (let i = 0; i < 1e4; i++) ({ b: new Array(10) }); return 1; } }`, "1"},
		{"error after result", `let p = Promise.resolve(); for (let i = 0; i < 5; i++) p = p.then(() => 0);
			p.then(() => { throw new Error("late"); }); return 1`, "1"},
		{"rejection after result", `Promise.resolve().then(() => 0).then(() => 0).then(() => Promise.reject(new Error("late"))); return 1`, "1"},
		{"pending call settles after", `tools.x({}).then(() => console.log("late")); await null; return 1`, "1"},
		{"stringify override with a late job", `JSON.stringify = () => { Promise.resolve().then(() => { tools.x({}); console.log("late"); }); return "2"; }; return 1`, "2"},
		{"stringify override returning an object", `JSON.stringify = () => ({ length: 0, toString() { Promise.resolve().then(() => { tools.x({}); console.log("late"); }); return "3"; } }); return 1`, "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			bridge := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
				calls.Add(1)
				return okBridge(ctx, tool, args)
			}
			res, err := e.Run(ctx, Script{Source: tc.src}, bridge, Limits{Timeout: 10 * time.Second})
			require.NoError(t, err)
			require.Equal(t, tc.want, string(res.Value))
			for _, l := range res.Logs {
				require.NotEqual(t, "late", l.Text)
			}
			if tc.name != "pending call settles after" {
				require.Zero(t, calls.Load(), "a tool call reached the bridge after the result")
			}
		})
	}
}
