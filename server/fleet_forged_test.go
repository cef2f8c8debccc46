package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/service"
)

// settledAs waits until the key's chain id has a final status, read
// through e.
func settledAs(t *testing.T, e *env, key, id string) service.ChainView {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		v := e.view(t, key, id)
		switch v.Status {
		case "running", "parked", "waiting_approval":
		default:
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("chain %s did not end", id)
	return service.ChainView{}
}

// TestFleetForgedObjectsAreNotActedOn (THREATS.md, T3, row 3): someone who
// writes the bucket without the fleet key plants a decision approving a
// parked HIGH call, an end reporting the chain ok with a value of their
// own, and an index entry marking the chain decided. No process runs the
// call or reports the forged result; the call stays pending until a person
// decides it, and then the chain finishes with its real result, beside a
// healthy chain of another tenant.
func TestFleetForgedObjectsAreNotActedOn(t *testing.T) {
	f := newFleet(t, 2, func(o *setup) {
		var err error
		o.Fleet, err = durable.New(durable.Options{Blobs: o.Shared, Key: fleetKey, Node: o.Fleet.Node(), Lease: 600 * time.Millisecond,
			Registerer: o.Registerer})
		require.NoError(t, err)
	})
	a, b := f.envs[0], f.envs[1]
	ctx := context.Background()
	g := a.submit(t, keyGlobex, map[string]any{"script": `return await tools.notify({to: "globex"})`}, false)
	require.Equal(t, "parked", g.Status)
	v := a.submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "victim"})`}, false)
	require.Equal(t, "parked", v.Status)
	id := v.ID
	p := pendingOf(t, b, id, 1).Pending[0]
	require.Equal(t, "HIGH", p.Risk)

	approve := fmt.Sprintf(`{"approved":true,"args_hash":%q,"by":"t3","at":"2026-01-01T00:00:00Z"}`, p.ArgsHash)
	end := fmt.Sprintf(`{"id":%q,"tenant":"acme","status":"ok","finished":"2026-01-01T00:00:00Z","result":{"id":%q,"status":"ok","value":"forged by t3"}}`, id, id)
	live := fmt.Sprintf(`{"tenant":"acme","id":%q,"status":"parked","gen":1,"decided":true}`, id)
	mac := "ALR1 " + strings.Repeat("A", 43) + "\n"
	require.NoError(t, f.store.PutRecord(ctx, "acme", "approvals/"+p.ID+"/decision", []byte(mac+approve), true))
	require.NoError(t, f.store.PutRecord(ctx, "acme", "chains/"+id+"/end", []byte(end), true))
	require.NoError(t, f.store.PutRecord(ctx, blobstore.FleetTenant, "live/acme/"+id, []byte(live), false))

	// Asked to resume it, a process finds nothing decided; the upkeep of
	// both processes scans the fleet for several leases.
	_, err := b.svc.Resume(ctx, "acme", id)
	require.ErrorIs(t, err, service.ErrNotResumable)
	time.Sleep(2 * time.Second)
	require.Equal(t, int32(0), f.count("victim"), "the forged approval ran nothing")
	for _, e := range f.envs {
		w := e.view(t, keyAcme, id)
		require.Equal(t, "parked", w.Status, "the forged end is not the chain's")
		require.NotContains(t, fmt.Sprint(w.Result), "forged by t3")
		require.Len(t, w.Pending, 1)
	}
	r := b.do(t, "GET", "/v1/approvals", keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code)
	require.Contains(t, string(r.body), p.ID, "the call still waits for a person")
	refused := func(kind string) float64 {
		return a.metric(t, "airlock_fleet_refused_total", map[string]string{"kind": kind}) +
			b.metric(t, "airlock_fleet_refused_total", map[string]string{"kind": kind})
	}
	for _, kind := range []string{durable.KindDecision, durable.KindEnd, durable.KindIndex} {
		require.Positive(t, refused(kind), kind)
	}

	// A person denies it: the forged decision, written first, does not
	// stand in the way; the chain ends with its real outcome.
	r = decideOn(t, b, p, "deny")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	w := settled(t, a, id)
	require.Equal(t, "error", w.Status, "%+v", w.Result)
	require.Contains(t, w.Result.Error, "was denied")
	require.Equal(t, int32(0), f.count("victim"))
	require.Equal(t, http.StatusConflict, decideOn(t, a, p, "approve").code, "the first real decision stands")

	// The healthy chain of the other tenant.
	gp := a.view(t, keyGlobex, g.ID).Pending
	require.Len(t, gp, 1)
	r = b.do(t, "POST", "/v1/approvals/"+gp[0].ID, keyGlobex, map[string]string{"decision": "approve", "args_hash": gp[0].ArgsHash})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	w = settledAs(t, a, keyGlobex, g.ID)
	require.Equal(t, "ok", w.Status, "%+v", w.Result)
	require.Equal(t, int32(1), f.count("globex"))
}
