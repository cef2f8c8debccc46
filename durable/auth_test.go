package durable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
)

// The attacker (THREATS.md, T3) writes the bucket without the fleet key.
// Every test here plants forged, replayed or swapped objects of one kind
// and checks that they are refused with ErrForged, that nothing acts on
// them, that the real process can still record what it must (the first
// authentic object wins, not the first object), and that a healthy chain
// of another tenant finishes alongside.

var attackerKey = []byte("attacker-key-without-the-fleet-k")

// proc is a process of the fleet on drv: its Store, and the registry its
// refusals are counted in.
type proc struct {
	*durable.Store
	reg *prometheus.Registry
}

func newProc(t testing.TB, drv blobstore.Driver, node string, k []byte, prev ...[]byte) proc {
	t.Helper()
	bs := blobstore.New(drv, blobstore.Options{})
	reg := prometheus.NewRegistry()
	s, err := durable.New(durable.Options{Blobs: bs, Key: k, PreviousKeys: prev, Node: node, Registerer: reg})
	require.NoError(t, err)
	return proc{s, reg}
}

// refused is airlock_fleet_refused_total{kind} of p.
func (p proc) refused(t testing.TB, kind string) float64 {
	t.Helper()
	mfs, err := p.reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != "airlock_fleet_refused_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == kind {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func approvalIn(tenant, chainID string, seq int, args string) durable.Approval {
	a := approval(chainID, seq, args)
	a.Tenant = tenant
	return a
}

// parkChain parks generation gen of chain id of tenant on one HIGH call,
// as the service does: the state, the request, then the record.
func parkChain(t testing.TB, s proc, tenant, id string, gen int, args string) durable.Approval {
	t.Helper()
	ctx := context.Background()
	a := approvalIn(tenant, id, 1, args)
	require.NoError(t, s.SavePark(ctx, &durable.Park{Tenant: tenant, ChainID: id, Gen: gen, Created: time.Now(),
		Expires: time.Now().Add(time.Hour), Approvals: []durable.Approval{a}, State: []byte("state of " + id)}))
	p := a
	p.Args = nil
	require.NoError(t, s.PutChain(ctx, &durable.Chain{ID: id, Tenant: tenant, Language: "javascript", Status: durable.StatusParked,
		Node: s.Node(), Created: time.Now(), Gen: gen, Expires: a.Expires, Pending: []durable.Approval{p}}))
	return a
}

// finishChain continues a parked chain as the service does once its call
// was approved (claim, load, end ok with value) and reports the result.
func finishChain(t testing.TB, s proc, tenant, id string, gen int, value string) *durable.Chain {
	t.Helper()
	ctx := context.Background()
	won, err := s.Claim(ctx, tenant, id, gen, "resume")
	require.NoError(t, err)
	require.True(t, won, "the real claimant wins")
	_, err = s.LoadPark(ctx, tenant, id, gen)
	require.NoError(t, err)
	c, err := s.GetChain(ctx, tenant, id)
	require.NoError(t, err)
	c.Status, c.Pending = "ok", nil
	c.Result = &chain.RunResult{ID: id, Status: chain.StatusOK, Value: json.RawMessage(strconv.Quote(value))}
	won, err = s.Finish(ctx, c)
	require.NoError(t, err)
	require.True(t, won, "the real end wins")
	c, err = s.GetChain(ctx, tenant, id)
	require.NoError(t, err)
	return c
}

// healthy is a chain of another tenant, parked at the start of a test and
// decided and finished at its end by another process.
func healthy(t *testing.T, other proc, id string) func() {
	a := parkChain(t, other, "globex", id, 1, `{"to":"ops"}`)
	return func() {
		t.Helper()
		_, err := other.Decide(context.Background(), "globex", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash})
		require.NoError(t, err)
		c := finishChain(t, other, "globex", id, 1, "healthy")
		require.Equal(t, "ok", c.Status)
		require.JSONEq(t, `"healthy"`, string(c.Result.Value))
	}
}

// plant writes rec as the tenant's record name, overwriting whatever is
// there, as T3 can.
func plant(t testing.TB, bs *blobstore.Store, tenant, name string, rec []byte) {
	t.Helper()
	require.NoError(t, bs.PutRecord(context.Background(), tenant, name, rec, false))
}

func raw(t testing.TB, bs *blobstore.Store, tenant, name string) []byte {
	t.Helper()
	b, _, err := bs.GetRecord(context.Background(), tenant, name)
	require.NoError(t, err)
	return b
}

// body is a stored record's JSON body (past its header line).
func body(rec []byte) []byte {
	_, b, _ := bytes.Cut(rec, []byte("\n"))
	return b
}

func TestForgedDecisionIsRefused(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		real, other := newProc(t, b.open(t), "node-a", key), newProc(t, b.open(t), "node-b", key)
		t3 := blobstore.New(b.open(t), blobstore.Options{})
		attacker := newProc(t, b.open(t), "node-x", attackerKey)
		done := healthy(t, other, id+"h")

		a := parkChain(t, real, "acme", id, 1, `{"to":"ceo","amount":1000000}`)
		// Authentic decisions elsewhere, to replay here: on chain B's call
		// (same tenant), and on the same call id in another tenant.
		ab := parkChain(t, real, "acme", id+"b", 1, `{"to":"ceo","amount":1000000}`)
		_, err := real.Decide(ctx, "acme", ab.ID, durable.Decision{Approved: true, ArgsHash: ab.ArgsHash})
		require.NoError(t, err)
		ag := parkChain(t, real, "globex", id, 1, `{"to":"ceo","amount":1000000}`)
		require.Equal(t, a.ID, ag.ID, "approval ids depend on the chain id and call only")
		_, err = real.Decide(ctx, "globex", ag.ID, durable.Decision{Approved: true, ArgsHash: ag.ArgsHash})
		require.NoError(t, err)

		name := "approvals/" + a.ID + "/decision"
		approve, _ := json.Marshal(durable.Decision{Approved: true, ArgsHash: a.ArgsHash, By: "t3", At: time.Now()})
		for _, tc := range []struct {
			name string
			rec  []byte
		}{
			{"plain JSON", approve},
			{"a header with a made-up MAC", append([]byte("ALR1 "+strings.Repeat("A", 43)+"\n"), approve...)},
			{"signed under another key", durable.SignForTest(attacker.Store, durable.KindDecision, "acme", a.ID, 0, approve)},
			{"another chain's decision", raw(t, t3, "acme", "approvals/"+ab.ID+"/decision")},
			{"another tenant's decision", raw(t, t3, "globex", name)},
			{"another kind's record", durable.SignForTest(real.Store, durable.KindRequest, "acme", a.ID, 0, approve)},
			{"another generation's", durable.SignForTest(real.Store, durable.KindDecision, "acme", a.ID, 2, approve)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := real.refused(t, durable.KindDecision)
				plant(t, t3, "acme", name, tc.rec)
				got, d, err := real.GetApproval(ctx, "acme", a.ID)
				require.NoError(t, err)
				require.Nil(t, d, "no decision: the call keeps waiting")
				require.Equal(t, a.ArgsHash, got.ArgsHash)
				require.Greater(t, real.refused(t, durable.KindDecision), before)
				listed := false
				require.NoError(t, real.ListApprovals(ctx, "acme", func(x *durable.Approval, d *durable.Decision) error {
					if x.ID == a.ID {
						listed = d == nil
					}
					return nil
				}))
				require.True(t, listed, "still listed as waiting")
			})
		}
		// The forged decision written first does not block the real one,
		// which is a denial here: the forged approval never takes effect.
		d, err := other.Decide(ctx, "acme", a.ID, durable.Decision{Approved: false, ArgsHash: a.ArgsHash, By: "alice"})
		require.NoError(t, err)
		require.False(t, d.Approved)
		_, got, err := real.GetApproval(ctx, "acme", a.ID)
		require.NoError(t, err)
		require.False(t, got.Approved)
		require.Equal(t, "alice", got.By)
		first, err := real.Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash})
		require.ErrorIs(t, err, durable.ErrAlreadyDecided, "the first authentic decision wins")
		require.False(t, first.Approved)
		done()
	})
}

func TestForgedEndIsRefused(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		real, other := newProc(t, b.open(t), "node-a", key), newProc(t, b.open(t), "node-b", key)
		t3 := blobstore.New(b.open(t), blobstore.Options{})
		attacker := newProc(t, b.open(t), "node-x", attackerKey)
		done := healthy(t, other, id+"h")

		a := parkChain(t, real, "acme", id, 1, `{"to":"ceo"}`)
		// Authentic ends elsewhere: chain B's, and the same chain id's in
		// another tenant.
		parkChain(t, real, "acme", id+"b", 1, `{"to":"x"}`)
		finishChain(t, real, "acme", id+"b", 1, "chain b")
		parkChain(t, real, "globex", id, 1, `{"to":"x"}`)
		finishChain(t, real, "globex", id, 1, "globex")

		name := "chains/" + id + "/end"
		forged, _ := json.Marshal(durable.Chain{ID: id, Tenant: "acme", Status: "ok", Finished: time.Now(),
			Result: &chain.RunResult{ID: id, Status: chain.StatusOK, Value: json.RawMessage(`"forged by t3"`)}})
		for _, tc := range []struct {
			name string
			rec  []byte
		}{
			{"plain JSON", forged},
			{"signed under another key", durable.SignForTest(attacker.Store, durable.KindEnd, "acme", id, 0, forged)},
			{"another chain's end", raw(t, t3, "acme", "chains/"+id+"b/end")},
			{"another tenant's end", raw(t, t3, "globex", name)},
			{"its own running record", raw(t, t3, "acme", "chains/"+id+"/rec")},
			{"an index entry's MAC", durable.SignForTest(real.Store, durable.KindIndex, "acme", id, 0, forged)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := real.refused(t, durable.KindEnd)
				plant(t, t3, "acme", name, tc.rec)
				c, err := real.GetChain(ctx, "acme", id)
				require.NoError(t, err)
				require.Equal(t, durable.StatusParked, c.Status, "no forged result is reported")
				require.Nil(t, c.Result)
				require.Greater(t, real.refused(t, durable.KindEnd), before)
				// Writing the record goes on: the chain has not ended.
				require.NoError(t, real.PutChain(ctx, c))
			})
		}
		// The real end is recorded although a forged one came first.
		_, err := other.Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash})
		require.NoError(t, err)
		c := finishChain(t, other, "acme", id, 1, "real")
		require.Equal(t, "ok", c.Status)
		require.JSONEq(t, `"real"`, string(c.Result.Value))
		c, err = real.GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.JSONEq(t, `"real"`, string(c.Result.Value), "every process reads the real end")
		won, err := real.Finish(ctx, &durable.Chain{ID: id, Tenant: "acme", Status: "cancelled"})
		require.NoError(t, err)
		require.False(t, won, "once")
		require.ErrorIs(t, real.PutChain(ctx, c), durable.ErrEnded)
		done()
	})
}

func TestReplayedClaimIsRefused(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		real, other := newProc(t, b.open(t), "node-a", key), newProc(t, b.open(t), "node-b", key)
		t3 := blobstore.New(b.open(t), blobstore.Options{})
		attacker := newProc(t, b.open(t), "node-x", attackerKey)
		done := healthy(t, other, id+"h")

		parkChain(t, real, "acme", id, 1, `{"to":"a"}`)
		won, err := real.Claim(ctx, "acme", id, 1, "resume")
		require.NoError(t, err)
		require.True(t, won)
		// Generation 1's claim replayed as generation 2's, and another
		// key's claim of generation 3: each is refused, and the real
		// claimant of that generation still wins, once.
		plant(t, t3, "acme", "chains/"+id+"/claim/2", raw(t, t3, "acme", "chains/"+id+"/claim/1"))
		cl, _ := json.Marshal(map[string]any{"kind": "resume", "node": "t3", "at": time.Now()})
		plant(t, t3, "acme", "chains/"+id+"/claim/3", durable.SignForTest(attacker.Store, durable.KindClaim, "acme", id, 3, cl))
		for _, gen := range []int{2, 3} {
			_, err = real.StaleClaim(ctx, "acme", id, gen)
			require.ErrorIs(t, err, durable.ErrForged, "generation %d", gen)
			require.ErrorIs(t, err, durable.ErrNotFound, "a forged claim is no claim")
			won, err = other.Claim(ctx, "acme", id, gen, "resume")
			require.NoError(t, err)
			require.True(t, won, "generation %d: the forged claim does not block the real one", gen)
			won, err = real.Claim(ctx, "acme", id, gen, "resume")
			require.NoError(t, err)
			require.False(t, won, "generation %d: once", gen)
			_, err = real.StaleClaim(ctx, "acme", id, gen)
			require.NoError(t, err, "the real claim is read")
		}
		require.GreaterOrEqual(t, real.refused(t, durable.KindClaim), 2.0)
		// Forged claims in every name a claim may take: the chain is denied
		// (T3 may deny service), with the stable reason.
		for _, n := range []string{"", ".1", ".2", ".3"} {
			plant(t, t3, "acme", "chains/"+id+"/claim/4"+n, cl)
		}
		won, err = real.Claim(ctx, "acme", id, 4, "resume")
		require.ErrorIs(t, err, durable.ErrForged)
		require.False(t, won)
		done()
	})
}

func TestForgedRequestAndRecordAreRefused(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		real, other := newProc(t, b.open(t), "node-a", key), newProc(t, b.open(t), "node-b", key)
		t3 := blobstore.New(b.open(t), blobstore.Options{})
		done := healthy(t, other, id+"h")

		a := parkChain(t, real, "acme", id, 1, `{"to":"bob"}`)
		ab := parkChain(t, real, "acme", id+"b", 1, `{"to":"eve"}`)
		req := "approvals/" + a.ID + "/req"
		orig := raw(t, t3, "acme", req)
		for _, tc := range []struct {
			name string
			rec  []byte
		}{
			{"edited arguments", bytes.ReplaceAll(orig, []byte("bob"), []byte("eve"))},
			{"another chain's request", raw(t, t3, "acme", "approvals/"+ab.ID+"/req")},
		} {
			t.Run(tc.name, func(t *testing.T) {
				plant(t, t3, "acme", req, tc.rec)
				_, _, err := real.GetApproval(ctx, "acme", a.ID)
				require.ErrorIs(t, err, durable.ErrForged)
				require.ErrorIs(t, err, durable.ErrNotFound)
				_, err = real.Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash})
				require.ErrorIs(t, err, durable.ErrForged, "nothing is decided on a forged request")
				require.NoError(t, real.ListApprovals(ctx, "acme", func(x *durable.Approval, _ *durable.Decision) error {
					require.NotEqual(t, a.ID, x.ID, "a forged request is not listed")
					return nil
				}))
			})
		}
		require.Greater(t, real.refused(t, durable.KindRequest), 0.0)
		plant(t, t3, "acme", req, orig)

		// The chain's record, edited to show an end: refused, not listed.
		rec := "chains/" + id + "/rec"
		origRec := raw(t, t3, "acme", rec)
		plant(t, t3, "acme", rec, bytes.Replace(origRec, []byte(`"status":"parked"`), []byte(`"status":"ok"`), 1))
		_, err := real.GetChain(ctx, "acme", id)
		require.ErrorIs(t, err, durable.ErrForged)
		require.NoError(t, real.ListChains(ctx, "acme", func(c *durable.Chain) error {
			require.NotEqual(t, id, c.ID, "a forged record is not listed")
			return nil
		}))
		require.Greater(t, real.refused(t, durable.KindChain), 0.0)
		// Another chain's record, renamed: its body names the other chain,
		// and its MAC binds it there.
		plant(t, t3, "acme", rec, raw(t, t3, "acme", "chains/"+id+"b/rec"))
		_, err = real.GetChain(ctx, "acme", id)
		require.ErrorIs(t, err, durable.ErrForged)
		plant(t, t3, "acme", rec, origRec)
		c, err := real.GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, durable.StatusParked, c.Status)
		done()
	})
}

func TestForgedIndexEntryIsRefused(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		real, other := newProc(t, b.open(t), "node-a", key), newProc(t, b.open(t), "node-b", key)
		t3 := blobstore.New(b.open(t), blobstore.Options{})
		done := healthy(t, other, id+"h")

		c := &durable.Chain{ID: id, Tenant: "acme", Status: durable.StatusRunning, Node: "node-a", Lease: time.Now().Add(time.Hour), Created: time.Now()}
		require.NoError(t, real.PutChain(ctx, c))
		name := "live/acme/" + id
		orig := raw(t, t3, blobstore.FleetTenant, name)
		// Edited to show a lapsed lease (so that a process interrupts the
		// chain), and a made-up entry of a chain that does not exist.
		var l durable.Live
		require.NoError(t, json.Unmarshal(body(orig), &l))
		l.Lease = time.Now().Add(-time.Hour)
		edited, _ := json.Marshal(l)
		hdr, _, _ := bytes.Cut(orig, []byte("\n"))
		plant(t, t3, blobstore.FleetTenant, name, append(append(hdr, '\n'), edited...))
		ghost, _ := json.Marshal(durable.Live{Tenant: "acme", ID: id + "g", Status: durable.StatusParked, Decided: true})
		plant(t, t3, blobstore.FleetTenant, "live/acme/"+id+"g", ghost)
		// Another tenant's entry of the same chain id, renamed.
		require.NoError(t, other.PutChain(ctx, &durable.Chain{ID: id + "t", Tenant: "globex", Status: durable.StatusRunning, Node: "node-b",
			Lease: time.Now().Add(time.Hour), Created: time.Now()}))
		plant(t, t3, blobstore.FleetTenant, "live/acme/"+id+"t", raw(t, t3, blobstore.FleetTenant, "live/globex/"+id+"t"))
		seen := map[string]bool{}
		require.NoError(t, real.Scan(ctx, func(l durable.Live) error {
			if strings.HasPrefix(l.ID, id) && l.ID != id+"h" {
				seen[l.Tenant+"/"+l.ID] = true
			}
			return nil
		}))
		require.Equal(t, map[string]bool{"globex/" + id + "t": true}, seen, "only the authentic entry is scanned")
		require.GreaterOrEqual(t, real.refused(t, durable.KindIndex), 3.0)
		won, err := real.Interrupt(ctx, "acme", id)
		require.NoError(t, err)
		require.False(t, won, "the chain's record vouches for it")
		// The next write of the record puts the entry right.
		require.NoError(t, real.PutChain(ctx, c))
		seen = map[string]bool{}
		require.NoError(t, real.Scan(ctx, func(l durable.Live) error {
			seen[l.Tenant+"/"+l.ID] = true
			return nil
		}))
		require.True(t, seen["acme/"+id])
		done()
	})
}

func TestReplacedResultBlobIsRefused(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		drv := b.open(t)
		real := newProc(t, drv, "node-a", key)
		big := `"` + strings.Repeat("v", 900<<10) + `"`
		won, err := real.Finish(ctx, &durable.Chain{ID: id, Tenant: "acme", Status: "ok",
			Result: &chain.RunResult{ID: id, Status: chain.StatusOK, Value: json.RawMessage(big)}})
		require.NoError(t, err)
		require.True(t, won)
		c, err := real.GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.NotEmpty(t, c.ResultRef)
		require.Len(t, c.Result.Value, len(big))
		// T3 replaces the blob's bytes with a result of its own.
		var k string
		require.NoError(t, drv.List(ctx, "", func(e blobstore.Entry) error {
			if strings.Contains(e.Key, c.ResultRef[len("blob_"):]) && strings.HasSuffix(e.Key, "/data") {
				k = e.Key
			}
			return nil
		}))
		require.NotEmpty(t, k)
		rc, err := drv.Get(ctx, k, 0, -1)
		require.NoError(t, err)
		data, _ := io.ReadAll(rc)
		rc.Close()
		data = bytes.Replace(data, []byte(`"vvvv`), []byte(`"pwnd`), 1)
		require.NoError(t, drv.Put(ctx, k, bytes.NewReader(data), blobstore.PutOptions{}))
		c, err = real.GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.Nil(t, c.Result, "a replaced result is not reported")
		require.Equal(t, 1.0, real.refused(t, durable.KindResult))
	})
}

// TestKeyRotation rotates the fleet key across processes on one bucket, in
// the three steps of docs/durability.md: every object written under either
// key during the rotation is accepted by every process, and once the old
// key is dropped its objects are refused.
func TestKeyRotation(t *testing.T) {
	oldKey, newKey := key, []byte("durable-test-key-rotated-to-0123")
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		// Step 1: every process accepts the new key; all still write the
		// old one. Step 2: they write the new key and accept the old.
		step1 := newProc(t, b.open(t), "node-a", oldKey, newKey)
		step2 := newProc(t, b.open(t), "node-b", newKey, oldKey)
		old := newProc(t, b.open(t), "node-o", oldKey)

		a := parkChain(t, step1, "acme", id, 1, `{"to":"x"}`) // under the old key
		// A process of step 2 decides (under the new key); one of step 1
		// reads the decision and resumes; step 2 reads the end.
		_, err := step2.Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash})
		require.NoError(t, err)
		_, d, err := step1.GetApproval(ctx, "acme", a.ID)
		require.NoError(t, err)
		require.NotNil(t, d, "a step-1 process accepts the new key's decision")
		require.True(t, d.Approved)
		finishChain(t, step1, "acme", id, 1, "rotated")
		c, err := step2.GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.JSONEq(t, `"rotated"`, string(c.Result.Value))

		// A chain parked under the new key resumes on a step-1 process
		// (the state's seal and cipher too).
		a2 := parkChain(t, step2, "acme", id+"n", 1, `{"to":"y"}`)
		_, err = step1.Decide(ctx, "acme", a2.ID, durable.Decision{Approved: true, ArgsHash: a2.ArgsHash})
		require.NoError(t, err)
		finishChain(t, step1, "acme", id+"n", 1, "new")

		// A process still on the old key alone refuses the new key's
		// objects: why step 1 comes first.
		a4 := parkChain(t, step2, "acme", id+"m", 1, `{"to":"w"}`)
		_, _, err = old.GetApproval(ctx, "acme", a4.ID)
		require.ErrorIs(t, err, durable.ErrForged)
		_, err = old.GetChain(ctx, "acme", id+"m")
		require.ErrorIs(t, err, durable.ErrForged)
		_, err = old.LoadPark(ctx, "acme", id+"m", 1)
		require.ErrorIs(t, err, durable.ErrTampered)

		// Step 3: the old key dropped: what it wrote is refused, what the
		// new key wrote is read.
		step3 := newProc(t, b.open(t), "node-c", newKey)
		a3 := parkChain(t, step1, "acme", id+"o", 1, `{"to":"z"}`)
		_, _, err = step3.GetApproval(ctx, "acme", a3.ID)
		require.ErrorIs(t, err, durable.ErrForged)
		_, err = step3.GetChain(ctx, "acme", id+"o")
		require.ErrorIs(t, err, durable.ErrForged)
		_, err = step3.LoadPark(ctx, "acme", id+"o", 1)
		require.ErrorIs(t, err, durable.ErrTampered)
		c, err = step3.GetChain(ctx, "acme", id+"m")
		require.NoError(t, err)
		require.Equal(t, durable.StatusParked, c.Status)
		_, err = step3.LoadPark(ctx, "acme", id+"m", 1)
		require.NoError(t, err)
	})
}

func TestNewRefusesWeakPreviousKeys(t *testing.T) {
	bs := blobstore.New(memblob.New(), blobstore.Options{})
	_, err := durable.New(durable.Options{Blobs: bs, Key: key, PreviousKeys: [][]byte{[]byte("short")}})
	require.ErrorIs(t, err, durable.ErrInvalidOptions)
	require.ErrorContains(t, err, "PreviousKeys[0]")
	reg := prometheus.NewRegistry()
	_, err = durable.New(durable.Options{Blobs: bs, Key: key, Registerer: reg})
	require.NoError(t, err)
	require.Equal(t, len(durable.Kinds())+1, testutil.CollectAndCount(reg, "airlock_fleet_refused_total"), "every kind's series from the start")
}

// TestRefusalsAreLogged: each refusal is a warning naming the kind, tenant
// and object, at most one line a second; the metric counts every one.
func TestRefusalsAreLogged(t *testing.T) {
	var out syncBuffer
	drv := memblob.New()
	bs := blobstore.New(drv, blobstore.Options{})
	reg := prometheus.NewRegistry()
	s, err := durable.New(durable.Options{Blobs: bs, Key: key, Registerer: reg,
		Logger: slog.New(slog.NewTextHandler(&out, nil))})
	require.NoError(t, err)
	p := proc{s, reg}
	ctx := context.Background()
	a := parkChain(t, p, "acme", "ch_logged", 1, `{"to":"x"}`)
	plant(t, bs, "acme", "approvals/"+a.ID+"/decision", []byte(`{"approved":true}`))
	for range 3 {
		_, d, err := s.GetApproval(ctx, "acme", a.ID)
		require.NoError(t, err)
		require.Nil(t, d)
	}
	require.Equal(t, 3.0, p.refused(t, durable.KindDecision))
	log := out.String()
	require.Equal(t, 1, strings.Count(log, "\n"), "%s", log)
	require.Contains(t, log, "level=WARN")
	require.Contains(t, log, "kind=decision tenant=acme object="+a.ID)
	require.Contains(t, log, "reason=forged")
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
