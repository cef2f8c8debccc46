package service_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore/memblob"
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

// at returns the 1-based line and column of the first occurrence of what
// in src, counting UTF-16 units (ASCII here).
func at(t *testing.T, src, what string) [2]int {
	t.Helper()
	i := strings.Index(src, what)
	require.GreaterOrEqual(t, i, 0, what)
	line := strings.Count(src[:i], "\n") + 1
	return [2]int{line, i - strings.LastIndex(src[:i], "\n")}
}

// TestApprovalContextCallSite: a waiting call's context names the line and
// column of the script that made it, for JavaScript and for TypeScript
// (the TypeScript as submitted): the second call of the same tool, on its
// own line, once the first was approved.
func TestApprovalContextCallSite(t *testing.T) {
	for _, tt := range []struct{ name, lang, script string }{
		{"javascript", "", "await tools.kv_get({key: \"k\"});\n" +
			"const first = await tools.send_message({to: \"a@example.com\", text: \"one\"});\n" +
			"return await tools.send_message({\n  to: \"b@example.com\", text: \"two\"});"},
		{"typescript", "typescript", "type Msg = {to: string; text: string};\ninterface Unused {\n  n: number;\n}\n" +
			"const m: Msg = {to: \"a@example.com\", text: \"one\"};\nconst first = await tools.send_message(m);\n" +
			"return await tools.send_message({\n  to: \"b@example.com\", text: \"two\"} as Msg);"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			svc, queue := newService(t, nil)
			v, err := svc.Submit(ctx, service.Caller{Tenant: "acme"}, &service.SubmitRequest{Script: tt.script, Language: tt.lang},
				service.SubmitOptions{Detach: true})
			require.NoError(t, err)
			pending := func(not string) string {
				var id string
				require.Eventually(t, func() bool {
					for _, r := range queue.List("acme") {
						if r.ID != not {
							id = r.ID
						}
					}
					return id != ""
				}, 10*time.Second, 10*time.Millisecond)
				return id
			}
			first := pending("")
			c, err := svc.ApprovalContext(ctx, "acme", first)
			require.NoError(t, err)
			require.Equal(t, at(t, tt.script, "send_message(m"[:12]), [2]int{c.Request.Line, c.Request.Column})
			_, err = svc.Decide(ctx, "acme", first, service.Decision{Approve: true, ArgsHash: c.Request.ArgsHash})
			require.NoError(t, err)

			second := pending(first)
			c, err = svc.ApprovalContext(ctx, "acme", second)
			require.NoError(t, err)
			require.Equal(t, at(t, tt.script, "send_message({\n"), [2]int{c.Request.Line, c.Request.Column})
			require.Equal(t, tt.script, c.Script)
			require.Equal(t, "confirm", c.Gate)
			_, err = svc.Decide(ctx, "acme", second, service.Decision{Approve: true, ArgsHash: c.Request.ArgsHash})
			require.NoError(t, err)
			require.Eventually(t, func() bool {
				got, err := svc.Chain(ctx, "acme", v.ID)
				return err == nil && got.Status == "ok"
			}, 10*time.Second, 10*time.Millisecond)
		})
	}
}

// TestApprovalContextParked: a parked chain's call, read on another
// process of the fleet, says why it waits (gate, rule, decision id, from
// its authenticated approval record), the line that made it, and the
// script its first park kept; after it is approved and the chain parks
// again (on another process, which never saw the script) on the second
// call of the same tool, the line is the second call's and the script is
// still there. Another tenant's parked chain is apart.
func TestApprovalContextParked(t *testing.T) {
	ctx := context.Background()
	drv := memblob.New()
	var sent atomic.Int32
	a, b := newQuotaProc(t, drv, "node-a", 0, &sent), newQuotaProc(t, drv, "node-b", 0, &sent)
	const script = "const one = await tools.send({to: \"a\"});\nconst n = 2;\nconst two = await tools.send(\n  {to: \"b\"});\nreturn [one, two];"
	v, err := a.svc.Submit(ctx, service.Caller{Tenant: "acme", Role: service.RoleAll}, &service.SubmitRequest{Script: script}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	g := submitParked(t, a, "globex")
	require.Equal(t, "parked", g.Status)

	c, err := b.svc.ApprovalContext(ctx, "acme", v.Pending[0].ID)
	require.NoError(t, err)
	require.Equal(t, "confirm", c.Gate)
	require.Equal(t, "matrix[supervised][HIGH]", c.Rule)
	require.Equal(t, v.Pending[0].DecisionID, c.DecisionID)
	require.NotEmpty(t, c.DecisionID)
	require.Equal(t, script, c.Script)
	require.Equal(t, [2]int{1, 25}, [2]int{c.Request.Line, c.Request.Column})
	_, err = b.svc.ApprovalContext(ctx, "globex", v.Pending[0].ID)
	require.ErrorIs(t, err, service.ErrNotFound)
	gc, err := b.svc.ApprovalContext(ctx, "globex", g.Pending[0].ID)
	require.NoError(t, err)
	require.Equal(t, quotaScript, gc.Script, "globex's own")

	_, err = b.svc.Decide(ctx, "acme", c.Request.ID, service.Decision{Approve: true, ArgsHash: c.Request.ArgsHash, Hold: true})
	require.NoError(t, err)
	out, err := b.svc.Resume(ctx, "acme", v.ID)
	require.NoError(t, err)
	require.Equal(t, "parked", out.Status, "%+v", out.Result)
	require.Len(t, out.Pending, 1)
	c, err = a.svc.ApprovalContext(ctx, "acme", out.Pending[0].ID)
	require.NoError(t, err)
	require.Equal(t, [2]int{3, 25}, [2]int{c.Request.Line, c.Request.Column})
	require.Equal(t, script, c.Script, "kept by the first park")
	require.Equal(t, "matrix[supervised][HIGH]", c.Rule)
	require.Len(t, c.Calls, 1)
	require.EqualValues(t, 1, sent.Load())
}
