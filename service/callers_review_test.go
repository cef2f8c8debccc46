package service_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

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
