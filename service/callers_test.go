package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/service"
)

var lookupTool = service.CallerTool{
	Name: "lookup", Description: "Finds a customer by email.",
	InputSchema:  json.RawMessage(`{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]}`),
	OutputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
}

var priceTool = service.CallerTool{
	Name: "price", Description: "Prices an order.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string"}}}`),
}

// waitCalls polls the chain's pending calls until n wait.
func waitCalls(t *testing.T, svc *service.Service, tenant, id string, n int) []service.CallView {
	t.Helper()
	var calls []service.CallView
	require.Eventually(t, func() bool {
		var err error
		calls, err = svc.ChainCalls(context.Background(), tenant, id)
		require.NoError(t, err)
		return len(calls) >= n
	}, 20*time.Second, 5*time.Millisecond)
	return calls
}

func errPtr(s string) *string { return &s }

// TestCallerToolsLive: two caller tools called at once each wait for the
// submitter's answer, bound to their arguments' hash; the answers reach the
// script as the tools' results, an error answer as a ToolError, and every
// bad answer is refused with its own error while the call waits on.
func TestCallerToolsLive(t *testing.T) {
	svc, _ := newService(t, nil)
	ctx := context.Background()
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	var events atomic.Int32
	v, err := svc.Submit(ctx, acme, &service.SubmitRequest{
		Script: `const [c, p] = await Promise.all([tools.lookup({email: "a@example.com"}), tools.price({sku: "x1"})]);
let failed = "";
try { await tools.price({sku: "bad"}); } catch (e) { failed = e.reason + ": " + e.message; }
return {name: c.name, total: p.total, failed};`,
		CallerTools: []service.CallerTool{lookupTool, priceTool},
	}, service.SubmitOptions{Detach: true, Watch: func(ev service.Event) {
		if ev.Name == service.EventCallPending {
			events.Add(1)
		}
	}})
	require.NoError(t, err)

	calls := waitCalls(t, svc, "acme", v.ID, 2)
	require.Len(t, calls, 2)
	byTool := map[string]service.CallView{}
	for _, c := range calls {
		byTool[c.Tool] = c
		require.Equal(t, v.ID, c.ChainID)
		require.False(t, c.Deadline.IsZero())
	}
	require.JSONEq(t, `{"email":"a@example.com"}`, string(byTool["lookup"].Args))
	all, err := svc.Calls(ctx, "acme")
	require.NoError(t, err)
	require.Len(t, all, 2)
	other, err := svc.Calls(ctx, "globex")
	require.NoError(t, err)
	require.Empty(t, other, "another tenant sees none")

	lk := byTool["lookup"]
	_, _, err = svc.AnswerCall(ctx, "globex", lk.ID, service.CallAnswer{ArgsHash: lk.ArgsHash, Result: json.RawMessage(`{"name":"Ann"}`)})
	require.ErrorIs(t, err, service.ErrNotFound, "another tenant cannot answer")
	_, _, err = svc.AnswerCall(ctx, "acme", lk.ID, service.CallAnswer{ArgsHash: strings.Repeat("0", 64), Result: json.RawMessage(`{"name":"Ann"}`)})
	require.ErrorIs(t, err, approval.ErrArgsMismatch)
	_, _, err = svc.AnswerCall(ctx, "acme", lk.ID, service.CallAnswer{ArgsHash: lk.ArgsHash, Result: json.RawMessage(`{"nom":"Ann"}`)})
	require.ErrorIs(t, err, service.ErrOutputMismatch)
	_, _, err = svc.AnswerCall(ctx, "acme", lk.ID, service.CallAnswer{ArgsHash: lk.ArgsHash, Result: json.RawMessage(`"` + strings.Repeat("x", service.DefaultMaxCallerResultBytes) + `"`)})
	require.ErrorIs(t, err, service.ErrResultTooLarge)
	_, _, err = svc.AnswerCall(ctx, "acme", lk.ID, service.CallAnswer{ArgsHash: lk.ArgsHash})
	require.ErrorIs(t, err, service.ErrInvalidAnswer, "neither result nor error")
	_, _, err = svc.AnswerCall(ctx, "acme", lk.ID, service.CallAnswer{ArgsHash: lk.ArgsHash, Result: json.RawMessage(`1`), Error: errPtr("x")})
	require.ErrorIs(t, err, service.ErrInvalidAnswer, "both")

	got, _, err := svc.AnswerCall(ctx, "acme", lk.ID, service.CallAnswer{ArgsHash: lk.ArgsHash, Result: json.RawMessage(`{"name":"Ann"}`)})
	require.NoError(t, err)
	require.Nil(t, got.Args)
	_, _, err = svc.AnswerCall(ctx, "acme", lk.ID, service.CallAnswer{ArgsHash: lk.ArgsHash, Result: json.RawMessage(`{"name":"Bob"}`)})
	require.ErrorIs(t, err, service.ErrAlreadyAnswered)
	pr := byTool["price"]
	_, _, err = svc.AnswerCall(ctx, "acme", pr.ID, service.CallAnswer{ArgsHash: pr.ArgsHash, Result: json.RawMessage(`{"total":12.5}`)})
	require.NoError(t, err)

	third := waitCalls(t, svc, "acme", v.ID, 1)[0]
	require.JSONEq(t, `{"sku":"bad"}`, string(third.Args))
	_, _, err = svc.AnswerCall(ctx, "acme", third.ID, service.CallAnswer{ArgsHash: third.ArgsHash, Error: errPtr("no such sku")})
	require.NoError(t, err)

	var end service.ChainView
	require.Eventually(t, func() bool {
		end, err = svc.Chain(ctx, "acme", v.ID)
		return err == nil && end.Finished.After(time.Time{})
	}, 20*time.Second, 10*time.Millisecond)
	require.Equal(t, "ok", end.Status, "%+v", end.Result)
	require.JSONEq(t, `{"name":"Ann","total":12.5,"failed":"tool_error: no such sku"}`, string(end.Result.Value))
	require.EqualValues(t, 3, events.Load())
	require.Len(t, end.Result.Trace, 3)
	_, _, err = svc.AnswerCall(ctx, "acme", third.ID, service.CallAnswer{ArgsHash: third.ArgsHash, Result: json.RawMessage(`1`)})
	require.ErrorIs(t, err, service.ErrAlreadyAnswered)
}

// TestCallerToolTimesOut: a call nobody answers ends call_timeout at the
// chain's call_timeout, and a late answer is refused as expired.
func TestCallerToolTimesOut(t *testing.T) {
	svc, _ := newService(t, nil)
	ctx := context.Background()
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	v, err := svc.Submit(ctx, acme, &service.SubmitRequest{
		Script:      `try { await tools.price({sku: "x"}); } catch (e) { return e.reason; }`,
		CallerTools: []service.CallerTool{priceTool},
		Policy:      map[string]json.RawMessage{"call_timeout": json.RawMessage(`"300ms"`), "approval_timeout": json.RawMessage(`"200ms"`)},
	}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	c := waitCalls(t, svc, "acme", v.ID, 1)[0]
	var end service.ChainView
	require.Eventually(t, func() bool {
		end, err = svc.Chain(ctx, "acme", v.ID)
		return err == nil && end.Finished.After(time.Time{})
	}, 20*time.Second, 10*time.Millisecond)
	require.JSONEq(t, `"call_timeout"`, string(end.Result.Value))
	_, _, err = svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`1`)})
	require.ErrorIs(t, err, service.ErrCallExpired)
	_, err = svc.Call(ctx, "acme", c.ID)
	require.ErrorIs(t, err, service.ErrNotFound)
}

// TestCallerToolsRefused: every rule a declaration breaks is refused with
// invalid_caller_tools before anything runs.
func TestCallerToolsRefused(t *testing.T) {
	svc, _ := newService(t, nil)
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 70) + `{"type":"string"}` + strings.Repeat(`}}`, 70)
	many := make([]service.CallerTool, service.MaxCallerTools+1)
	for i := range many {
		many[i] = service.CallerTool{Name: "t" + strings.Repeat("x", i), Description: "d"}
	}
	for name, tools := range map[string][]service.CallerTool{
		"bad name":        {{Name: "Bad Name", Description: "d"}},
		"configured name": {{Name: "kv_get", Description: "d"}},
		"twice":           {priceTool, priceTool},
		"no description":  {{Name: "x"}},
		"bad risk":        {{Name: "x", Description: "d", Risk: "SPICY"}},
		"too deep":        {{Name: "x", Description: "d", InputSchema: json.RawMessage(deep)}},
		"not a schema":    {{Name: "x", Description: "d", InputSchema: json.RawMessage(`{"type":12}`)}},
		"too many":        many,
		"bad output":      {{Name: "x", Description: "d", OutputSchema: json.RawMessage(`{"$ref":"http://example.com/s"}`)}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: "return 1", CallerTools: tools}, service.SubmitOptions{})
			var se *service.SubmitError
			require.True(t, errors.As(err, &se), "%v", err)
			require.Equal(t, service.ReasonInvalidCallerTools, se.Reason, se.Message)
		})
	}
}

// TestCallerToolsPendingBound: past MaxPendingCallsPerTenant a call fails
// tool_unavailable without being handed out; another tenant's calls are
// not counted against it.
func TestCallerToolsPendingBound(t *testing.T) {
	svc, _ := newService(t, func(o *service.Options) { o.MaxPendingCallsPerTenant = 2 })
	ctx := context.Background()
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	v, err := svc.Submit(ctx, acme, &service.SubmitRequest{
		Script: `const r = await Promise.allSettled([tools.price({sku: "1"}), tools.price({sku: "2"}), tools.price({sku: "3"})]);
return r.map(x => x.status === "fulfilled" ? "ok" : x.reason.reason);`,
		CallerTools: []service.CallerTool{priceTool},
	}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	calls := waitCalls(t, svc, "acme", v.ID, 2)
	globex := service.Caller{Tenant: "globex", Role: service.RoleAll}
	g, err := svc.Submit(ctx, globex, &service.SubmitRequest{Script: `return await tools.price({sku: "g"})`,
		CallerTools: []service.CallerTool{priceTool}}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	gc := waitCalls(t, svc, "globex", g.ID, 1)[0]
	_, _, err = svc.AnswerCall(ctx, "globex", gc.ID, service.CallAnswer{ArgsHash: gc.ArgsHash, Result: json.RawMessage(`"g"`)})
	require.NoError(t, err)
	for _, c := range calls {
		_, _, err := svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`1`)})
		require.NoError(t, err)
	}
	var end service.ChainView
	require.Eventually(t, func() bool {
		end, err = svc.Chain(ctx, "acme", v.ID)
		return err == nil && end.Finished.After(time.Time{})
	}, 20*time.Second, 10*time.Millisecond)
	var got []string
	require.NoError(t, json.Unmarshal(end.Result.Value, &got))
	require.ElementsMatch(t, []string{"ok", "ok", "tool_unavailable"}, got)
	gend, err := svc.Chain(ctx, "globex", g.ID)
	require.NoError(t, err)
	require.Eventually(t, func() bool { gend, _ = svc.Chain(ctx, "globex", g.ID); return gend.Status == "ok" }, 10*time.Second, 10*time.Millisecond)
	require.JSONEq(t, `"g"`, string(gend.Result.Value))
}

// TestCallerToolParksAndResumesElsewhere: in a fleet that parks, a caller
// tool's call parks its chain; the answer, refused on other arguments, a
// result breaking the output schema or past the first, is taken by another
// process, which resumes the chain; a caller tool above the chain's risk
// is approved first, then handed out.
func TestCallerToolParksAndResumesElsewhere(t *testing.T) {
	ctx := context.Background()
	drv := memblob.New()
	var sent atomic.Int32
	a, b := newQuotaProc(t, drv, "node-a", 0, &sent), newQuotaProc(t, drv, "node-b", 0, &sent)
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	risky := service.CallerTool{Name: "wire", Description: "Wires money.", Risk: "HIGH",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"usd":{"type":"number"}}}`)}
	v, err := a.svc.Submit(ctx, acme, &service.SubmitRequest{
		Script:      `const c = await tools.lookup({email: "a@example.com"}); const w = await tools.wire({usd: 5}); return [c.name, w];`,
		CallerTools: []service.CallerTool{lookupTool, risky},
	}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	require.Len(t, v.Pending, 1)
	require.Equal(t, "call", v.Pending[0].Kind)
	apps, err := b.svc.Approvals(ctx, "acme")
	require.NoError(t, err)
	require.Empty(t, apps, "a call is not an approval")

	calls, err := b.svc.Calls(ctx, "acme")
	require.NoError(t, err)
	require.Len(t, calls, 1)
	c := calls[0]
	require.Equal(t, v.Pending[0].ID, c.ID)
	require.JSONEq(t, `{"email":"a@example.com"}`, string(c.Args))
	_, err = b.svc.Call(ctx, "globex", c.ID)
	require.ErrorIs(t, err, service.ErrNotFound)
	_, _, err = b.svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: strings.Repeat("0", 64), Result: json.RawMessage(`{"name":"Ann"}`)})
	require.ErrorIs(t, err, approval.ErrArgsMismatch)
	_, _, err = b.svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`{"nom":"Ann"}`)})
	require.ErrorIs(t, err, service.ErrOutputMismatch, "the output schema holds in the fleet too")
	_, _, err = b.svc.AnswerCall(ctx, "globex", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`{"name":"Ann"}`)})
	require.ErrorIs(t, err, service.ErrNotFound)
	_, _, err = b.svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`{"name":"Ann"}`)})
	require.NoError(t, err)
	_, _, err = a.svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`{"name":"Bob"}`)})
	require.ErrorIs(t, err, service.ErrAlreadyAnswered, "the first answer wins, on any process")

	out, err := b.svc.Resume(ctx, "acme", v.ID)
	require.NoError(t, err)
	require.Equal(t, "parked", out.Status, "the risky tool waits for approval: %+v", out.Result)
	require.Len(t, out.Pending, 1)
	require.Empty(t, out.Pending[0].Kind)
	req, err := a.svc.Approval(ctx, "acme", out.Pending[0].ID)
	require.NoError(t, err)
	_, err = a.svc.Decide(ctx, "acme", req.ID, service.Decision{Approve: true, ArgsHash: req.ArgsHash, Hold: true})
	require.NoError(t, err)
	out, err = a.svc.Resume(ctx, "acme", v.ID)
	require.NoError(t, err)
	require.Equal(t, "parked", out.Status, "approved, the call is handed to the caller: %+v", out.Result)
	require.Len(t, out.Pending, 1)
	require.Equal(t, "call", out.Pending[0].Kind)
	w, err := b.svc.Call(ctx, "acme", out.Pending[0].ID)
	require.NoError(t, err)
	require.Equal(t, "wire", w.Tool)
	_, _, err = b.svc.AnswerCall(ctx, "acme", w.ID, service.CallAnswer{ArgsHash: w.ArgsHash, Result: json.RawMessage(`"wired"`)})
	require.NoError(t, err)
	out, err = b.svc.Resume(ctx, "acme", v.ID)
	require.NoError(t, err)
	require.Equal(t, "ok", out.Status, "%+v", out.Result)
	require.JSONEq(t, `["Ann","wired"]`, string(out.Result.Value))
	_, _, err = b.svc.AnswerCall(ctx, "acme", w.ID, service.CallAnswer{ArgsHash: w.ArgsHash, Result: json.RawMessage(`"again"`)})
	require.ErrorIs(t, err, service.ErrAlreadyAnswered)
}

// TestCallerToolGetsTheIdempotencyKey: a key the script gives a caller
// tool's call reaches its caller beside the arguments (not in them), live
// and parked.
func TestCallerToolGetsTheIdempotencyKey(t *testing.T) {
	ctx := context.Background()
	script := `return await tools.price({sku: "x", $idempotency_key: "order-7"})`
	svc, _ := newService(t, nil)
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	v, err := svc.Submit(ctx, acme, &service.SubmitRequest{Script: script, CallerTools: []service.CallerTool{priceTool}}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	c := waitCalls(t, svc, "acme", v.ID, 1)[0]
	require.Equal(t, "order-7", c.IdempotencyKey)
	require.JSONEq(t, `{"sku":"x"}`, string(c.Args))
	_, _, err = svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`1`)})
	require.NoError(t, err)

	var sent atomic.Int32
	p := newQuotaProc(t, memblob.New(), "node-a", 0, &sent)
	pv, err := p.svc.Submit(ctx, acme, &service.SubmitRequest{Script: script, CallerTools: []service.CallerTool{priceTool}}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "parked", pv.Status, "%+v", pv.Result)
	pc, err := p.svc.Call(ctx, "acme", pv.Pending[0].ID)
	require.NoError(t, err)
	require.Equal(t, "order-7", pc.IdempotencyKey)
	require.JSONEq(t, `{"sku":"x"}`, string(pc.Args))
}

// TestCallListingIsBounded: a listing of pending calls holds at most
// MaxListedArgsBytes of arguments; the calls past it are listed without
// theirs (hash and size kept), and each is read whole by its id.
func TestCallListingIsBounded(t *testing.T) {
	svc, _ := newService(t, nil)
	ctx := context.Background()
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	big := service.CallerTool{Name: "store", Description: "Stores a blob.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"data":{"type":"string"},"n":{"type":"integer"}}}`)}
	v, err := svc.Submit(ctx, acme, &service.SubmitRequest{
		Script:      `const d = "x".repeat(900000); await Promise.all([1, 2, 3, 4, 5, 6].map(n => tools.store({data: d, n})));`,
		CallerTools: []service.CallerTool{big},
	}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	calls := waitCalls(t, svc, "acme", v.ID, 6)
	for _, list := range [][]service.CallView{calls, func() []service.CallView { l, err := svc.Calls(ctx, "acme"); require.NoError(t, err); return l }()} {
		require.Len(t, list, 6)
		with, total := 0, 0
		for _, c := range list {
			require.Greater(t, c.ArgsSize, 900000)
			require.Len(t, c.ArgsHash, 64)
			if c.Args != nil {
				with++
				total += len(c.Args)
			}
		}
		require.Equal(t, 4, with, "4 of 900 kB fit in 4 MiB, the 5th does not")
		require.LessOrEqual(t, total, service.MaxListedArgsBytes)
	}
	for _, c := range calls {
		whole, err := svc.Call(ctx, "acme", c.ID)
		require.NoError(t, err)
		require.Equal(t, c.ArgsSize, len(whole.Args), "read by its id, a call has its arguments whole")
	}
	_, err = svc.Cancel(ctx, "acme", v.ID)
	require.NoError(t, err)
}
