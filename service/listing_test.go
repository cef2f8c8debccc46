package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/service"
)

// TestChainsAndApprovalContext: a tenant's chain list is newest first,
// filtered by status and its own only; a pending request's context says
// why it waits, the tool's description, the calls so far and the script,
// and another tenant gets ErrNotFound.
func TestChainsAndApprovalContext(t *testing.T) {
	ctx := context.Background()
	svc, queue := newService(t, nil)
	acme := service.Caller{Tenant: "acme"}
	first, err := svc.Submit(ctx, acme, &service.SubmitRequest{Script: "return 1"}, service.SubmitOptions{})
	require.NoError(t, err)
	_, err = svc.Submit(ctx, service.Caller{Tenant: "globex"}, &service.SubmitRequest{Script: "return 2"}, service.SubmitOptions{})
	require.NoError(t, err)
	script := `await tools.kv_get({key: "k"}); return await tools.send_message({to: "ops@example.com", text: "hi"});`
	waiting, err := svc.Submit(ctx, acme, &service.SubmitRequest{Script: script}, service.SubmitOptions{Detach: true})
	require.NoError(t, err)
	var id string
	require.Eventually(t, func() bool {
		list := queue.List("acme")
		if len(list) == 1 {
			id = list[0].ID
		}
		return id != ""
	}, 10*time.Second, 10*time.Millisecond)

	list, err := svc.Chains(ctx, "acme", "")
	require.NoError(t, err)
	require.Len(t, list, 2, "acme's only")
	require.Equal(t, waiting.ID, list[0].ID, "newest first")
	require.Equal(t, first.ID, list[1].ID)
	require.Equal(t, "ok", list[1].Status)
	list, err = svc.Chains(ctx, "acme", "ok")
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, first.ID, list[0].ID)

	c, err := svc.ApprovalContext(ctx, "acme", id)
	require.NoError(t, err)
	require.Equal(t, "send_message", c.Request.Tool)
	require.NotEmpty(t, c.Description)
	require.Equal(t, "confirm", c.Gate)
	require.NotEmpty(t, c.Rule)
	require.NotEmpty(t, c.DecisionID)
	require.Equal(t, script, c.Script)
	require.Len(t, c.Calls, 1)
	require.Equal(t, "kv_get", c.Calls[0].Tool)
	_, err = svc.ApprovalContext(ctx, "globex", id)
	require.ErrorIs(t, err, service.ErrNotFound)

	_, err = svc.Decide(ctx, "acme", id, service.Decision{Approve: true, ArgsHash: c.Request.ArgsHash})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		v, err := svc.Chain(ctx, "acme", waiting.ID)
		return err == nil && v.Status == "ok"
	}, 10*time.Second, 10*time.Millisecond)
}
