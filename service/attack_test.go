package service_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// Attacks on parked chains' share of the tenant's artifact quota
// (invoker.ChargeTenantBytes, service/fleet.go chargePark). Tests named
// TestAttack… that fail show a weakness; those that pass are attacks the
// code withstands, kept as regression tests.

// quotaProc is one process of a small fleet: its service and invoker, and
// how many times its HIGH-risk "send" ran.
type quotaProc struct {
	svc  *service.Service
	inv  *invoker.Invoker
	sent *atomic.Int32
}

func newQuotaProc(t *testing.T, drv blobstore.Driver, node string, maxTenant int64, sent *atomic.Int32) quotaProc {
	t.Helper()
	return newTracedProc(t, drv, node, maxTenant, sent, tracing.New(nil, ""))
}

// newTracedProc is newQuotaProc recording its chain and call spans with tr.
func newTracedProc(t *testing.T, drv blobstore.Driver, node string, maxTenant int64, sent *atomic.Int32, tr *tracing.Tracer) quotaProc {
	t.Helper()
	bs := blobstore.New(drv, blobstore.Options{})
	fleet, err := durable.New(durable.Options{Blobs: bs, Key: faultsKey, Node: node})
	require.NoError(t, err)
	box, _ := demo.Toolbox()
	require.NoError(t, box.Add(toolbox.Func("send", "Sends a message", func(_ context.Context, in struct {
		To string `json:"to"`
	}) (string, error) {
		sent.Add(1)
		return "sent " + in.To, nil
	}).WithRisk(toolbox.High)))
	queue := approval.NewQueue(approval.Options{})
	inv, err := invoker.New(box, invoker.Options{Approver: queue, Store: bs, MaxTenantArtifactBytes: maxTenant,
		Hooks: invoker.Hooks{StartCall: tr.StartCall, OnToolEnd: tr.ToolEnd, OnEvent: tr.Parked}})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	svc, err := service.New(runner, service.Options{Queue: queue, Fleet: fleet, Park: true, ParkTTL: time.Hour, Tracer: tr})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Close(ctx)
	})
	return quotaProc{svc, inv, sent}
}

const quotaScript = `return await tools.send({to: "ops"})`

func submitParked(t *testing.T, p quotaProc, tenant string) service.ChainView {
	t.Helper()
	v, err := p.svc.Submit(context.Background(), service.Caller{Tenant: tenant, Role: service.RoleAll},
		&service.SubmitRequest{Script: quotaScript}, service.SubmitOptions{})
	require.NoError(t, err)
	return v
}

// TestAttackParkChargeOutlivesChainResumedElsewhere — a
// chain parks on process A (its state charged to the tenant's quota there)
// and is decided and resumed on process B, as `airlock chains approve`
// always does (it resumes in the CLI process), or as any process's upkeep
// may. It ends on B and its state is deleted, but A still counts it until
// approval.park_ttl and one store TTL have passed: every chain a person
// approves from the CLI keeps its state's bytes charged on the serve
// process for a day or more, and a tenant whose chains park and are
// approved there reaches quota_exceeded with nothing stored (its tool
// results refused, its chains ending at their next park).
func TestAttackParkChargeOutlivesChainResumedElsewhere(t *testing.T) {
	ctx := context.Background()
	drv := memblob.New()
	var sent atomic.Int32
	const limit = 256 << 20
	a, b := newQuotaProc(t, drv, "node-a", limit, &sent), newQuotaProc(t, drv, "node-b", limit, &sent)

	v := submitParked(t, a, "acme")
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	require.Len(t, v.Pending, 1)
	require.ErrorIs(t, a.inv.ChargeTenantBytes(ctx, "acme", "probe", limit, time.Now().Add(time.Minute)), invoker.ErrTenantQuota,
		"the parked state counts on A")

	req, err := b.svc.Approval(ctx, "acme", v.Pending[0].ID)
	require.NoError(t, err)
	_, err = b.svc.Decide(ctx, "acme", req.ID, service.Decision{Approve: true, ArgsHash: req.ArgsHash, Hold: true})
	require.NoError(t, err)
	out, err := b.svc.Resume(ctx, "acme", v.ID)
	require.NoError(t, err)
	require.Equal(t, "ok", out.Status)
	require.EqualValues(t, 1, sent.Load())

	assert.NoError(t, a.inv.ChargeTenantBytes(ctx, "acme", "probe", limit, time.Now().Add(time.Minute)),
		"the chain ended on B and its state is gone: A must not count it still")
}

// TestAttackParkPastTenantQuota (passes) — a tenant whose artifact quota
// is used up cannot park more state: its chain ends limit_exceeded,
// reason quota_exceeded, its waiting call never runs, and another
// tenant's chain parks alongside.
func TestAttackParkPastTenantQuota(t *testing.T) {
	drv := memblob.New()
	var sent atomic.Int32
	const limit = 256 << 20
	a := newQuotaProc(t, drv, "node-a", limit, &sent)
	require.NoError(t, a.inv.ChargeTenantBytes(context.Background(), "acme", "filler", limit-16, time.Now().Add(time.Hour)))

	v := submitParked(t, a, "acme")
	require.Equal(t, string(chain.StatusLimitExceeded), v.Status)
	require.NotNil(t, v.Result)
	require.Equal(t, service.ReasonTenantQuota, v.Result.Reason)
	require.Zero(t, sent.Load())

	g := submitParked(t, a, "globex")
	require.Equal(t, "parked", g.Status, "another tenant parks")
	a.inv.ReleaseTenantBytes("acme", "filler")
	require.Equal(t, "parked", submitParked(t, a, "acme").Status, "released: acme parks again")
}
