package service_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/invoker"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/service"
)

// answerAllWithErrors answers every call the chain makes with an error until it ends.
func answerAllWithErrors(t *testing.T, svc *service.Service, tenant, id string) service.ChainView {
	t.Helper()
	ctx := context.Background()
	var end service.ChainView
	require.Eventually(t, func() bool {
		calls, err := svc.ChainCalls(ctx, tenant, id)
		require.NoError(t, err)
		for _, c := range calls {
			_, _, _ = svc.AnswerCall(ctx, tenant, c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Error: errPtr("upstream said no")})
		}
		end, err = svc.Chain(ctx, tenant, id)
		return err == nil && end.Finished.After(time.Time{})
	}, 20*time.Second, 5*time.Millisecond)
	return end
}

// TestReviewCallerToolHealthNotSharedAcrossChains: a chain whose submitter
// answers its caller tool's calls with errors does not rest a same-named
// caller tool of the tenant's next chain (another submitter's function):
// that chain's call still reaches its caller.
func TestReviewCallerToolHealthNotSharedAcrossChains(t *testing.T) {
	svc, _ := newService(t, nil)
	ctx := context.Background()
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	first, err := svc.Submit(ctx, acme, &service.SubmitRequest{
		Script: `let n = 0;
for (let i = 0; i < 8; i++) { try { await tools.price({sku: "s" + i}); } catch (e) { n++; } }
return n;`,
		CallerTools: []service.CallerTool{priceTool},
	}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	end := answerAllWithErrors(t, svc, "acme", first.ID)
	require.JSONEq(t, `8`, string(end.Result.Value), "%+v", end.Result)

	second, err := svc.Submit(ctx, acme, &service.SubmitRequest{
		Script:      `try { return await tools.price({sku: "fresh"}); } catch (e) { return e.reason; }`,
		CallerTools: []service.CallerTool{priceTool},
	}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	var got []service.CallView
	for deadline := time.Now().Add(20 * time.Second); len(got) == 0; time.Sleep(5 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the second chain's call never became pending")
		got, err = svc.ChainCalls(ctx, "acme", second.ID)
		require.NoError(t, err)
		v, err := svc.Chain(ctx, "acme", second.ID)
		require.NoError(t, err)
		if len(got) == 0 && v.Result != nil {
			t.Fatalf("the call never reached its caller: %s", v.Result.Value)
		}
	}
	_, _, err = svc.AnswerCall(ctx, "acme", got[0].ID, service.CallAnswer{ArgsHash: got[0].ArgsHash, Result: json.RawMessage(`7`)})
	require.NoError(t, err)
}

// TestReviewParkedCallOfCancelledChainIsGone: once a parked chain waiting
// for a caller tool's answer is cancelled, its call is neither listed nor
// shown (GET /v1/calls/{id} is 404 once the call ended), and an answer is
// refused as expired.
func TestReviewParkedCallOfCancelledChainIsGone(t *testing.T) {
	ctx := context.Background()
	drv := memblob.New()
	var sent atomic.Int32
	a, b := newQuotaProc(t, drv, "node-a", 0, &sent), newQuotaProc(t, drv, "node-b", 0, &sent)
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	v, err := a.svc.Submit(ctx, acme, &service.SubmitRequest{
		Script: `return await tools.lookup({email: "a@example.com"});`, CallerTools: []service.CallerTool{lookupTool},
	}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	id := v.Pending[0].ID
	c, err := b.svc.Call(ctx, "acme", id)
	require.NoError(t, err)

	_, err = b.svc.Cancel(ctx, "acme", v.ID)
	require.NoError(t, err)
	end, err := a.svc.Chain(ctx, "acme", v.ID)
	require.NoError(t, err)
	require.Equal(t, "cancelled", end.Status)

	list, err := b.svc.Calls(ctx, "acme")
	require.NoError(t, err)
	require.Empty(t, list)
	_, _, err = b.svc.AnswerCall(ctx, "acme", id, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`{"name":"Ann"}`)})
	require.ErrorIs(t, err, service.ErrCallExpired)
	_, _, err = b.svc.AnswerCall(ctx, "acme", id, service.CallAnswer{ArgsHash: strings.Repeat("0", 64), Result: json.RawMessage(`{"name":"Ann"}`)})
	require.ErrorIs(t, err, service.ErrCallExpired, "an ended call is expired whatever hash the answer carries, as a live one")
	_, err = b.svc.Call(ctx, "acme", id)
	require.ErrorIs(t, err, service.ErrNotFound, "the ended call is not shown with its arguments")
}

// TestReviewCallOfEndedChainFreesItsSlot: a script that returns while a
// call to a caller tool waits ends that call with the chain: it is no
// longer listed, and it does not hold the tenant's pending-call bound.
func TestReviewCallOfEndedChainFreesItsSlot(t *testing.T) {
	svc, _ := newService(t, func(o *service.Options) { o.MaxPendingCallsPerTenant = 1 })
	ctx := context.Background()
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	v, err := svc.Submit(ctx, acme, &service.SubmitRequest{
		Script:      `tools.price({sku: "forgotten"}).catch(() => {}); await new Promise(r => setTimeout(r, 200)); return 1;`,
		CallerTools: []service.CallerTool{priceTool},
	}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "ok", v.Status, "%+v", v.Result)
	require.Eventually(t, func() bool {
		list, err := svc.Calls(ctx, "acme")
		return err == nil && len(list) == 0
	}, 5*time.Second, 10*time.Millisecond, "the ended chain's call is still listed")

	w, err := svc.Submit(ctx, acme, &service.SubmitRequest{
		Script:      `try { return await tools.price({sku: "next"}); } catch (e) { return e.reason; }`,
		CallerTools: []service.CallerTool{priceTool},
	}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	var got []service.CallView
	for deadline := time.Now().Add(20 * time.Second); len(got) == 0; time.Sleep(5 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the next chain's call never became pending")
		got, err = svc.ChainCalls(ctx, "acme", w.ID)
		require.NoError(t, err)
		if v, err := svc.Chain(ctx, "acme", w.ID); err == nil && len(got) == 0 && v.Result != nil {
			t.Fatalf("the next chain's call was refused: %s", v.Result.Value)
		}
	}
	_, _, err = svc.AnswerCall(ctx, "acme", got[0].ID, service.CallAnswer{ArgsHash: got[0].ArgsHash, Result: json.RawMessage(`2`)})
	require.NoError(t, err)
}

// TestReviewMovedDecisionIsNotAnAnswer: a bucket writer who copies the
// approval of a caller tool's call (pk_) or another call's answer (pc_)
// under the decision name of a call waiting for its answer answers
// nothing: the call still waits, takes its caller's answer, and the chain
// ends with that answer.
func TestReviewMovedDecisionIsNotAnAnswer(t *testing.T) {
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
	lookup := v.Pending[0].ID
	c, err := b.svc.Call(ctx, "acme", lookup)
	require.NoError(t, err)
	_, _, err = b.svc.AnswerCall(ctx, "acme", lookup, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`{"name":"Ann"}`)})
	require.NoError(t, err)
	out, err := b.svc.Resume(ctx, "acme", v.ID)
	require.NoError(t, err)
	approvalID := out.Pending[0].ID
	req, err := a.svc.Approval(ctx, "acme", approvalID)
	require.NoError(t, err)
	_, err = a.svc.Decide(ctx, "acme", approvalID, service.Decision{Approve: true, ArgsHash: req.ArgsHash, Hold: true})
	require.NoError(t, err)
	out, err = a.svc.Resume(ctx, "acme", v.ID)
	require.NoError(t, err)
	require.Equal(t, "parked", out.Status, "%+v", out.Result)
	wire := out.Pending[0].ID
	require.Equal(t, "call", out.Pending[0].Kind)

	read := func(key string) []byte {
		rc, err := drv.Get(ctx, key, 0, -1)
		require.NoError(t, err, key)
		defer rc.Close()
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		return b
	}
	for _, from := range []string{approvalID, lookup} {
		rec := read("r/acme/approvals/" + from + "/decision")
		require.NoError(t, drv.Put(ctx, "r/acme/approvals/"+wire+"/decision", bytes.NewReader(rec), blobstore.PutOptions{}))
		w, err := b.svc.Call(ctx, "acme", wire)
		require.NoError(t, err, "the call still waits after %s's decision was moved onto it", from)
		_, err = a.svc.Resume(ctx, "acme", v.ID)
		require.Error(t, err, "nothing to resume on a moved decision")
		list, err := a.svc.Calls(ctx, "acme")
		require.NoError(t, err)
		require.Len(t, list, 1)
		require.Equal(t, w.ID, list[0].ID)
	}
	require.NoError(t, drv.Delete(ctx, "r/acme/approvals/"+wire+"/decision"))
	w, err := b.svc.Call(ctx, "acme", wire)
	require.NoError(t, err)
	_, _, err = b.svc.AnswerCall(ctx, "acme", wire, service.CallAnswer{ArgsHash: w.ArgsHash, Result: json.RawMessage(`"wired"`)})
	require.NoError(t, err)
	out, err = b.svc.Resume(ctx, "acme", v.ID)
	require.NoError(t, err)
	require.Equal(t, "ok", out.Status, "%+v", out.Result)
	require.JSONEq(t, `["Ann","wired"]`, string(out.Result.Value))

	// Rolled back: the answer deleted after the chain ended (its first
	// version still reads), a second answer is refused, nothing runs again.
	require.NoError(t, drv.Delete(ctx, "r/acme/approvals/"+wire+"/decision"))
	_, _, err = a.svc.AnswerCall(ctx, "acme", wire, service.CallAnswer{ArgsHash: w.ArgsHash, Result: json.RawMessage(`"twice"`)})
	require.True(t, errors.Is(err, service.ErrAlreadyAnswered) || errors.Is(err, service.ErrCallExpired), "%v", err)
	end, err := a.svc.Chain(ctx, "acme", v.ID)
	require.NoError(t, err)
	require.JSONEq(t, `["Ann","wired"]`, string(end.Result.Value))
}

// TestReviewCallerToolNameTheGuestReserves: a caller tool the script could
// never call (the guest's tools object answers "then", "constructor", …
// itself, so that `await tools` and JSON.stringify work) is refused at
// submission, not accepted, declared and then unreachable.
func TestReviewCallerToolNameTheGuestReserves(t *testing.T) {
	svc, _ := newService(t, nil)
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	for _, name := range []string{"then", "catch", "finally", "constructor", "__proto__", "valueof"} {
		t.Run(name, func(t *testing.T) {
			v, err := svc.Submit(context.Background(), acme, &service.SubmitRequest{
				Script:      `try { return await tools[` + strconv.Quote(name) + `]({}); } catch (e) { return String(e); }`,
				CallerTools: []service.CallerTool{{Name: name, Description: "d"}},
			}, service.SubmitOptions{Detach: true})
			if name == "valueof" {
				// Not reserved (names are lower case): callable.
				require.NoError(t, err)
				waitCalls(t, svc, "acme", v.ID, 1)
				_, _ = svc.Cancel(context.Background(), "acme", v.ID)
				return
			}
			var se *service.SubmitError
			require.True(t, errors.As(err, &se), "accepted %q: %v", name, err)
			require.Equal(t, service.ReasonInvalidCallerTools, se.Reason, se.Message)
		})
	}
}

// TestReviewDeepAnswerIsBounded: an answer nested as deep as the JSON
// decoder allows ends the call with a typed outcome, and the process and
// the chain go on.
func TestReviewDeepAnswerIsBounded(t *testing.T) {
	svc, _ := newService(t, nil)
	ctx := context.Background()
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	v, err := svc.Submit(ctx, acme, &service.SubmitRequest{
		Script:      `try { const r = await tools.price({sku: "x"}); return typeof r; } catch (e) { return e.reason || String(e); }`,
		CallerTools: []service.CallerTool{priceTool},
	}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	c := waitCalls(t, svc, "acme", v.ID, 1)[0]
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	_, _, err = svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(deep)})
	if err != nil {
		require.ErrorIs(t, err, service.ErrOutputMismatch)
		return
	}
	var end service.ChainView
	require.Eventually(t, func() bool {
		end, err = svc.Chain(ctx, "acme", v.ID)
		return err == nil && end.Finished.After(time.Time{})
	}, 20*time.Second, 10*time.Millisecond)
	// The guest cannot build a value that deep: the chain ends with a
	// typed error (as for any tool's result), the process goes on.
	require.Contains(t, []string{"ok", "error"}, end.Status, "%+v", end.Result)
}

// TestReviewParkedAnswerNotJSONIsRefusedAsLive: a result that is not JSON
// (the Go API takes any bytes) is refused the same on a parked call as on
// a live one (ErrOutputMismatch, the call still waits), not taken for a
// store failure.
func TestReviewParkedAnswerNotJSONIsRefusedAsLive(t *testing.T) {
	ctx := context.Background()
	drv := memblob.New()
	var sent atomic.Int32
	a := newQuotaProc(t, drv, "node-a", 0, &sent)
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	v, err := a.svc.Submit(ctx, acme, &service.SubmitRequest{Script: `return await tools.price({sku: "x"});`,
		CallerTools: []service.CallerTool{priceTool}}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	c, err := a.svc.Call(ctx, "acme", v.Pending[0].ID)
	require.NoError(t, err)
	_, _, err = a.svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`{not json`)})
	require.ErrorIs(t, err, service.ErrOutputMismatch)
	_, _, err = a.svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`12`)})
	require.NoError(t, err, "the call still waited")
}

// parkProc is a fleet process that parks, with MaxParkBytes maxPark.
func parkProc(t *testing.T, drv *memblob.Driver, maxPark int64) *service.Service {
	t.Helper()
	bs := blobstore.New(drv, blobstore.Options{})
	fleet, err := durable.New(durable.Options{Blobs: bs, Key: faultsKey, Node: "node-p"})
	require.NoError(t, err)
	box, _ := demo.Toolbox()
	queue := approval.NewQueue(approval.Options{})
	inv, err := invoker.New(box, invoker.Options{Approver: queue, Store: bs})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	svc, err := service.New(runner, service.Options{Queue: queue, Fleet: fleet, Park: true, ParkTTL: time.Hour, MaxParkBytes: maxPark})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Close(ctx)
	})
	return svc
}

// TestReviewParkedCallsPayForTheirOutputSchemas: each call of a caller
// tool that parks writes its own copy of the tool's output schema to the
// store, and every park the caller tools' declarations: what a submission
// of one schema makes a chain write, many times over, counts against
// approval.max_park_bytes like the state does.
func TestReviewParkedCallsPayForTheirOutputSchemas(t *testing.T) {
	ctx := context.Background()
	// An output schema of about 200 KiB (a long enum), and 10 calls at once.
	enum := make([]string, 0, 20000)
	for i := range 20000 {
		enum = append(enum, fmt.Sprintf("v%08d", i))
	}
	out, err := json.Marshal(map[string]any{"enum": enum})
	require.NoError(t, err)
	big := service.CallerTool{Name: "pick", Description: "Picks one.", OutputSchema: out,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"i":{"type":"number"}}}`)}
	const calls = 10
	script := `return await Promise.all(Array.from({length: 10}, (_, i) => tools.pick({i})));`
	budget := int64(calls * len(out) / 2) // above the state, below what the schemas' copies take

	svc := parkProc(t, memblob.New(), budget)
	small := big
	small.OutputSchema = nil
	v, err := svc.Submit(ctx, service.Caller{Tenant: "acme", Role: service.RoleAll},
		&service.SubmitRequest{Script: script, CallerTools: []service.CallerTool{small},
			Policy: map[string]json.RawMessage{"max_tool_calls": json.RawMessage(`20`)}},
		service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "parked", v.Status, "the state alone fits the budget: %+v", v.Result)

	v, err = svc.Submit(ctx, service.Caller{Tenant: "acme", Role: service.RoleAll},
		&service.SubmitRequest{Script: script, CallerTools: []service.CallerTool{big},
			Policy: map[string]json.RawMessage{"max_tool_calls": json.RawMessage(`20`)}},
		service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "limit_exceeded", v.Status, "a park writing %d bytes of schema copies passed a park budget of %d: %+v", calls*len(out), budget, v.Result)
	require.Equal(t, service.ReasonParkBytes, v.Result.Reason)
}

// TestReviewAnswerAtTheDeadlineIsConsistent: answers sent around a call's
// deadline are either taken, and then the script has them, or refused as
// expired, and then the script saw call_timeout: never "taken" for a
// call_timeout.
func TestReviewAnswerAtTheDeadlineIsConsistent(t *testing.T) {
	svc, _ := newService(t, nil)
	ctx := context.Background()
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	taken, expired := 0, 0
	for i := range 7 {
		v, err := svc.Submit(ctx, acme, &service.SubmitRequest{
			Script:      `try { return await tools.price({sku: "x"}); } catch (e) { return e.reason; }`,
			CallerTools: []service.CallerTool{priceTool},
			Policy:      map[string]json.RawMessage{"call_timeout": json.RawMessage(`"150ms"`), "approval_timeout": json.RawMessage(`"100ms"`)},
		}, service.SubmitOptions{Detach: true})
		require.NoError(t, err)
		c := waitCalls(t, svc, "acme", v.ID, 1)[0]
		// Around the deadline: from 3ms before to 3ms after.
		time.Sleep(time.Until(c.Deadline.Add(time.Duration(i%7-3) * time.Millisecond)))
		_, _, aerr := svc.AnswerCall(ctx, "acme", c.ID, service.CallAnswer{ArgsHash: c.ArgsHash, Result: json.RawMessage(`"answered"`)})
		var end service.ChainView
		require.Eventually(t, func() bool {
			end, err = svc.Chain(ctx, "acme", v.ID)
			return err == nil && end.Finished.After(time.Time{})
		}, 20*time.Second, 5*time.Millisecond)
		if aerr == nil {
			taken++
			require.JSONEq(t, `"answered"`, string(end.Result.Value), "run %d: the answer was taken, the script saw otherwise", i)
		} else {
			expired++
			require.ErrorIs(t, aerr, service.ErrCallExpired)
			require.JSONEq(t, `"call_timeout"`, string(end.Result.Value), "run %d", i)
		}
	}
	t.Logf("taken %d, expired %d", taken, expired)
}
