package chain_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
)

// parkScript sends two messages (HIGH risk: approval) and looks one record
// up, all at once, with a timer pending, and offloads a large result
// first so the chain holds a pin while parked.
const parkChain = `
const big = await tools.blob({mib: 1});
let ticked = false;
const timer = new Promise(r => setTimeout(() => { ticked = true; r(); }, 5));
const out = await Promise.all([tools.send({to: "a@example.com"}), tools.lookup({id: 2}), tools.send({to: "b@example.com"})]);
await timer;
console.log("done", ticked);
return {out, ticked, ref: typeof big.$artifact};
`

func decideAll(approve bool) func(context.Context, chain.Approval) (chain.Decision, bool, error) {
	return func(_ context.Context, a chain.Approval) (chain.Decision, bool, error) {
		return chain.Decision{Approved: approve, ArgsHash: a.Request.ArgsHash}, true, nil
	}
}

func TestParkAndResume(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	res, err := e.runner.Run(context.Background(), sandbox.Script{Source: parkChain}, chain.Options{Park: true, SessionID: "ch_park1"})
	require.NoError(t, err)
	require.Equal(t, chain.StatusParked, res.Status, "%s", res.Error)
	require.Equal(t, chain.ReasonAwaitingApproval, res.Reason)
	require.Len(t, res.Parked.Approvals, 2)
	require.Equal(t, "send", res.Parked.Approvals[0].Request.Tool)
	require.JSONEq(t, `{"to":"a@example.com"}`, string(res.Parked.Approvals[0].Request.Args))
	require.Equal(t, int64(0), e.sent.Load(), "nothing sent before the decision")
	require.Len(t, res.Trace, 2, "blob and lookup ended; the sends have not")
	pinned := e.pins(t)
	require.NotEmpty(t, pinned, "the parked chain keeps its artifact pinned")
	t.Logf("parked chain state: %d bytes", len(res.Parked.State))

	// Through JSON and back, as a store would keep it.
	state := append([]byte(nil), res.Parked.State...)
	out, err := e.runner.Resume(context.Background(), state, chain.ResumeOptions{Decide: decideAll(true)})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, out.Status, "%s", out.Error)
	var v struct {
		Out    []any  `json:"out"`
		Ticked bool   `json:"ticked"`
		Ref    string `json:"ref"`
	}
	require.NoError(t, json.Unmarshal(out.Value, &v))
	require.Equal(t, []any{"sent to a@example.com", map[string]any{"id": 2.0, "score": 20.0}, "sent to b@example.com"}, v.Out)
	require.True(t, v.Ticked)
	require.Equal(t, "string", v.Ref)
	require.Equal(t, int64(2), e.sent.Load())
	require.Len(t, out.Trace, 4)
	for i, rec := range out.Trace {
		require.Equal(t, i+1, rec.Seq)
	}
	require.Equal(t, 4, out.Stats.Calls)
	require.Equal(t, []sandbox.LogEntry{{Level: sandbox.LogInfo, Text: "done true"}}, out.Logs)
	require.Empty(t, e.pins(t), "the finished chain released its pins")
}

func TestParkDeniedAndExpired(t *testing.T) {
	for _, tc := range []struct {
		name   string
		decide func(context.Context, chain.Approval) (chain.Decision, bool, error)
		reason string
	}{
		{"denied", decideAll(false), invoker.ReasonApprovalDenied},
		{"expired", func(context.Context, chain.Approval) (chain.Decision, bool, error) {
			return chain.Decision{Expired: true}, true, nil
		}, invoker.ReasonApprovalExpired},
		{"other arguments", func(_ context.Context, a chain.Approval) (chain.Decision, bool, error) {
			return chain.Decision{Approved: true, ArgsHash: "00" + a.Request.ArgsHash[2:]}, true, nil
		}, invoker.ReasonApprovalFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, invoker.Options{})
			src := `try { await tools.send({to: "x@example.com"}); return "sent" } catch (e) { return e.reason }`
			res, err := e.runner.Run(context.Background(), sandbox.Script{Source: src}, chain.Options{Park: true})
			require.NoError(t, err)
			require.Equal(t, chain.StatusParked, res.Status)
			out, err := e.runner.Resume(context.Background(), res.Parked.State, chain.ResumeOptions{Decide: tc.decide})
			require.NoError(t, err)
			require.Equal(t, chain.StatusOK, out.Status, "%s", out.Error)
			require.Equal(t, `"`+tc.reason+`"`, string(out.Value))
			require.Equal(t, int64(0), e.sent.Load())
			require.Len(t, out.Trace, 1)
			require.Equal(t, tc.reason, out.Trace[0].Reason)
		})
	}
}

func TestParkAgainWhileUndecided(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	res, err := e.runner.Run(context.Background(), sandbox.Script{Source: parkChain}, chain.Options{Park: true})
	require.NoError(t, err)
	require.Equal(t, chain.StatusParked, res.Status)
	first := res.Parked.Approvals[0].Seq
	var asked atomic.Int32
	onlyFirst := func(_ context.Context, a chain.Approval) (chain.Decision, bool, error) {
		asked.Add(1)
		if a.Seq != first {
			return chain.Decision{}, false, nil
		}
		return chain.Decision{Approved: true, ArgsHash: a.Request.ArgsHash}, true, nil
	}
	res, err = e.runner.Resume(context.Background(), res.Parked.State, chain.ResumeOptions{Decide: onlyFirst, Park: true})
	require.NoError(t, err)
	require.Equal(t, chain.StatusParked, res.Status, "%s", res.Error)
	require.Len(t, res.Parked.Approvals, 1)
	require.Equal(t, int64(1), e.sent.Load())
	require.Equal(t, int32(2), asked.Load())
	out, err := e.runner.Resume(context.Background(), res.Parked.State, chain.ResumeOptions{Decide: decideAll(true)})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, out.Status, "%s", out.Error)
	require.Equal(t, int64(2), e.sent.Load())
}

func TestParkDiscardReleasesPins(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	res, err := e.runner.Run(context.Background(), sandbox.Script{Source: parkChain}, chain.Options{Park: true})
	require.NoError(t, err)
	require.NotEmpty(t, e.pins(t))
	out, err := e.runner.Discard(context.Background(), res.Parked.State, chain.StatusCancelled, "cancelled", "cancelled by a test")
	require.NoError(t, err)
	require.Equal(t, chain.StatusCancelled, out.Status)
	require.Len(t, out.Trace, 2)
	require.Empty(t, e.pins(t))
	require.Equal(t, int64(0), e.sent.Load())
}

func TestResumeRefusesGarbage(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	_, err := e.runner.Resume(context.Background(), []byte("nope"), chain.ResumeOptions{Decide: decideAll(true)})
	require.ErrorIs(t, err, chain.ErrBadState)
	res, err := e.runner.Run(context.Background(), sandbox.Script{Source: parkChain}, chain.Options{Park: true})
	require.NoError(t, err)
	// A byte changed anywhere near the end: the engine state's check, and
	// its compressed memory (DEFLATE has no check of its own: a changed
	// byte there may decompress to other memory without an error).
	for _, back := range []int{1, 4, 5, 10, 50, 100, 200, 400} {
		bad := append([]byte(nil), res.Parked.State...)
		bad[len(bad)-back] ^= 0xff
		_, err = e.runner.Resume(context.Background(), bad, chain.ResumeOptions{Decide: decideAll(true)})
		require.ErrorIs(t, err, chain.ErrBadState, "byte %d from the end", back)
	}
	require.Equal(t, int64(0), e.sent.Load())
}

// pins returns the pin markers in the store.
func (e *env) pins(t *testing.T) []string {
	t.Helper()
	var out []string
	require.NoError(t, e.drv.List(context.Background(), "", func(en blobstore.Entry) error {
		if strings.Contains(en.Key, "/pin/") {
			out = append(out, en.Key)
		}
		return nil
	}))
	return out
}

// TestCallSiteReachesTheApproval: the line (and column) of the script that
// made a call reaches what an approver sees: a parked call's request,
// beside the gate and rule that asked, across a resumption that parks
// again on the second call of the same tool; and a live approval of a
// TypeScript chain, at the line of the TypeScript as submitted.
func TestCallSiteReachesTheApproval(t *testing.T) {
	const src = "const a = await tools.lookup({id: 1});\n" +
		"await tools.send({to: \"a@example.com\"});\n" +
		"const b = 2;\n" +
		"await tools.send({\n  to: \"b@example.com\"});\n" +
		"return b;"
	e := newEnv(t, invoker.Options{})
	res, err := e.runner.Run(context.Background(), sandbox.Script{Source: src}, chain.Options{Park: true})
	require.NoError(t, err)
	require.Equal(t, chain.StatusParked, res.Status, "%s", res.Error)
	require.Len(t, res.Parked.Approvals, 1)
	a := res.Parked.Approvals[0]
	require.Equal(t, [2]int{2, 13}, [2]int{a.Request.Line, a.Request.Column})
	require.Equal(t, "confirm", a.Gate)
	require.NotEmpty(t, a.Rule)
	require.NotEmpty(t, a.DecisionID)
	res, err = e.runner.Resume(context.Background(), res.Parked.State, chain.ResumeOptions{Decide: decideAll(true), Park: true})
	require.NoError(t, err)
	require.Equal(t, chain.StatusParked, res.Status, "%s", res.Error)
	require.Len(t, res.Parked.Approvals, 1)
	require.Equal(t, [2]int{4, 13}, [2]int{res.Parked.Approvals[0].Request.Line, res.Parked.Approvals[0].Request.Column})

	var mu sync.Mutex
	var lines [][2]int
	live := newEnv(t, invoker.Options{Approver: invoker.ApprovalFunc(func(_ context.Context, r invoker.ApprovalRequest) (invoker.Decision, error) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, [2]int{r.Line, r.Column})
		return invoker.Approved, nil
	})})
	ts := "interface Msg {\n  to: string;\n}\nconst m: Msg = {to: \"a@example.com\"};\n" +
		"await tools.send(m);\nawait tools.send(\n  {to: \"b@example.com\"} as Msg);\nreturn 1;"
	out, err := live.runner.Run(context.Background(), sandbox.Script{Source: ts, Lang: sandbox.LangTS}, chain.Options{})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, out.Status, "%s", out.Error)
	require.Equal(t, [][2]int{{5, 13}, {6, 13}}, lines)
}
