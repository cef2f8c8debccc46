package durable_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/session"
)

// Attacks on the authentication of the fleet's records (THREATS.md, T3: a
// bucket writer without the fleet key), by replaying older authentic
// objects rather than forging new ones. The tests named TestAttack… that
// fail show a weakness; those that pass are attacks the code withstands,
// kept as regression tests.

// TestAttackReplayedRunningRecordEndsLiveChain — a chain runs on node-a,
// which renews its record every fleet.lease/3. T3 keeps the record of a
// minute ago (authentic, lease long lapsed) and puts it back. Were node-b
// to end the chain interrupted/process_lost on that one reading, the
// recorded outcome would be the old record's trace, without the call
// node-a ran since (THREATS.md invariant 3: no result reported from a
// replayed object). Interrupt acts only on the same lapsed lease seen
// twice half a lease apart, and node-a's renewal in between replaces the
// replayed record: the chain is not ended.
func TestAttackReplayedRunningRecordEndsLiveChain(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		clk := time.Now()
		now := func() time.Time { return clk }
		open := func(node string) *durable.Store {
			s, err := durable.New(durable.Options{Blobs: blobstore.New(b.open(t), blobstore.Options{}), Key: key, Node: node,
				Lease: 15 * time.Second, Clock: now})
			require.NoError(t, err)
			return s
		}
		a, nb := open("node-a"), open("node-b")
		t3 := blobstore.New(b.open(t), blobstore.Options{})
		created := clk
		rec := func(trace ...session.Record) *durable.Chain {
			return &durable.Chain{ID: id, Tenant: "acme", Language: "javascript", Status: durable.StatusRunning, Node: "node-a",
				Lease: clk.Add(15 * time.Second), Created: created, Trace: trace}
		}
		lookup := session.Record{Seq: 1, Tool: "lookup", Status: session.StatusOK}
		require.NoError(t, a.PutChain(ctx, rec(lookup)))
		old := raw(t, t3, "acme", "chains/"+id+"/rec")
		oldLive := raw(t, t3, blobstore.FleetTenant, "live/acme/"+id)

		// A minute on: node-a is alive, renewed its lease, and "send" ran.
		clk = clk.Add(time.Minute)
		send := session.Record{Seq: 2, Tool: "send", Status: session.StatusOK}
		require.NoError(t, a.PutChain(ctx, rec(lookup, send)))

		plant(t, t3, "acme", "chains/"+id+"/rec", old)
		plant(t, t3, blobstore.FleetTenant, "live/acme/"+id, oldLive)
		won, err := nb.Interrupt(ctx, "acme", id)
		require.NoError(t, err)
		assert.False(t, won, "node-a renewed its lease a moment ago: a replayed record must not end its chain")
		// node-a renews (every lease/3); node-b's reaper passes again.
		clk = clk.Add(5 * time.Second)
		require.NoError(t, a.PutChain(ctx, rec(lookup, send)))
		clk = clk.Add(5 * time.Second)
		won, err = nb.Interrupt(ctx, "acme", id)
		require.NoError(t, err)
		assert.False(t, won, "renewed since: not interrupted")
		c, err := nb.GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, durable.StatusRunning, c.Status)
		if c.Status == durable.StatusInterrupted {
			var tools []string
			for _, r := range c.Result.Trace {
				tools = append(tools, r.Tool)
			}
			assert.Contains(t, tools, "send", "the recorded outcome leaves out a call that ran: a wrong result")
			assert.ErrorIs(t, a.PutChain(ctx, rec(lookup, send)), durable.ErrEnded, "(node-a is now told its chain ended)")
		}
	})
}

// TestAttackReplayedRecordsDoNotReopenEndedChain (passes) — after a chain
// ended, T3 puts back its parked record, index entry (parked, decided),
// seal and state from before, leaving the end in place: the end is read
// first, so the chain stays ended; the claimed generation is not claimed again; it is
// not abandoned; no process can write it running again.
func TestAttackReplayedRecordsDoNotReopenEndedChain(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		drv := b.open(t)
		real, other := newProc(t, drv, "node-a", key), newProc(t, b.open(t), "node-b", key)
		done := healthy(t, other, id+"h")
		a := parkChain(t, real, "acme", id, 1, `{"to":"ceo"}`)
		_, err := real.Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash})
		require.NoError(t, err)
		cp := copyChain(t, drv, chainPrefixes("acme", id, a.ID))
		ended := finishChain(t, other, "acme", id, 1, "once")
		require.Equal(t, "ok", ended.Status)

		for k, v := range cp { // put back, delete nothing
			require.NoError(t, drv.Put(ctx, k, strings.NewReader(string(v)), blobstore.PutOptions{}))
		}
		c, err := real.GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, "ok", c.Status)
		require.JSONEq(t, `"once"`, string(c.Result.Value))
		won, err := real.Claim(ctx, "acme", id, 1, "resume")
		require.NoError(t, err)
		require.False(t, won, "claimed once")
		stale, err := real.StaleClaim(ctx, "acme", id, 1)
		require.NoError(t, err)
		require.False(t, stale)
		won, err = real.Abandon(ctx, "acme", id)
		require.NoError(t, err)
		require.False(t, won)
		won, err = real.Interrupt(ctx, "acme", id)
		require.NoError(t, err)
		require.False(t, won)
		c.Status = durable.StatusRunning
		require.ErrorIs(t, real.PutChain(ctx, c), durable.ErrEnded)
		done()
	})
}

// TestAttackReplayedSealAcrossGenerationsAndChains (passes) — an authentic
// seal (and the state it names) copied to another generation of the same
// chain, or to another chain of the tenant, is refused as tampered: a
// state cannot be resumed as another generation's or another chain's.
func TestAttackReplayedSealAcrossGenerationsAndChains(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		real, other := newProc(t, b.open(t), "node-a", key), newProc(t, b.open(t), "node-b", key)
		t3 := blobstore.New(b.open(t), blobstore.Options{})
		done := healthy(t, other, id+"h")
		parkChain(t, real, "acme", id, 1, `{"to":"a"}`)
		parkChain(t, real, "acme", id+"b", 1, `{"to":"b"}`)
		seal1 := raw(t, t3, "acme", "chains/"+id+"/park/1")
		plant(t, t3, "acme", "chains/"+id+"/park/2", seal1)
		_, err := real.LoadPark(ctx, "acme", id, 2)
		require.ErrorIs(t, err, durable.ErrTampered, "generation 1's seal as generation 2's")
		plant(t, t3, "acme", "chains/"+id+"b/park/1", seal1)
		_, err = real.LoadPark(ctx, "acme", id+"b", 1)
		require.ErrorIs(t, err, durable.ErrTampered, "chain A's seal as chain B's")
		plant(t, t3, "globex", "chains/"+id+"/park/1", seal1)
		_, err = real.LoadPark(ctx, "globex", id, 1)
		require.ErrorIs(t, err, durable.ErrTampered, "acme's seal as globex's")
		require.GreaterOrEqual(t, real.refused(t, durable.KindSeal), 3.0)
		done()
	})
}

// TestAttackReplayedRequestAfterDecision (passes) — T3 puts back an
// approval request as it was before its decision (with its arguments):
// the decision stands, a second decision is refused as already decided,
// and the decision cannot be replayed onto another call of the chain.
func TestAttackReplayedRequestAfterDecision(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		real, other := newProc(t, b.open(t), "node-a", key), newProc(t, b.open(t), "node-b", key)
		t3 := blobstore.New(b.open(t), blobstore.Options{})
		done := healthy(t, other, id+"h")
		a := parkChain(t, real, "acme", id, 1, `{"to":"a"}`)
		before := raw(t, t3, "acme", "approvals/"+a.ID+"/req")
		_, err := real.Decide(ctx, "acme", a.ID, durable.Decision{Approved: false, ArgsHash: a.ArgsHash, By: "alice"})
		require.NoError(t, err)
		plant(t, t3, "acme", "approvals/"+a.ID+"/req", before)
		_, d, err := other.GetApproval(ctx, "acme", a.ID)
		require.NoError(t, err)
		require.NotNil(t, d)
		require.False(t, d.Approved, "the denial stands")
		_, err = other.Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash, By: "mallory"})
		require.ErrorIs(t, err, durable.ErrAlreadyDecided)

		// The denial's record copied onto call 2 of the same chain.
		a2 := approvalIn("acme", id, 2, `{"to":"b"}`)
		plant(t, t3, "acme", "approvals/"+a2.ID+"/req", before)
		plant(t, t3, "acme", "approvals/"+a2.ID+"/decision", raw(t, t3, "acme", "approvals/"+a.ID+"/decision"))
		_, _, err = other.GetApproval(ctx, "acme", a2.ID)
		require.ErrorIs(t, err, durable.ErrNotFound, "call 1's request is not call 2's")
		require.ErrorIs(t, err, durable.ErrForged)
		done()
	})
}

// TestAttackEditedWhyLineAndScript (passes) — what an approver is shown of
// a parked call besides its arguments (the gate, the governance rule, the
// decision id, the line that made the call) and the script kept for the
// console are authenticated: T3 editing any of them, or putting another
// chain's or tenant's script in its place, gets the record refused
// (ErrForged, counted), never shown altered; a healthy chain of another
// tenant finishes alongside.
func TestAttackEditedWhyLineAndScript(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		real, other := newProc(t, b.open(t), "node-a", key), newProc(t, b.open(t), "node-b", key)
		t3 := blobstore.New(b.open(t), blobstore.Options{})
		done := healthy(t, other, id+"h")
		const script = "const a = 1;\nawait tools.send({to: 'a'});\nreturn 'sent';"
		park := func(chainID, src string) durable.Approval {
			a := approvalIn("acme", chainID, 1, `{"to":"a"}`)
			a.Gate, a.Rule, a.DecisionID, a.Line, a.Column = "confirm", "matrix[supervised][HIGH]", "pd_0123456789abcdef", 2, 13
			require.NoError(t, real.SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: chainID, Gen: 1, Created: time.Now(),
				Expires: time.Now().Add(time.Hour), Approvals: []durable.Approval{a}, State: []byte("state"), Script: src}))
			return a
		}
		a := park(id, script)
		park(id+"b", "return 'the other chain';")
		require.NoError(t, real.PutChain(ctx, &durable.Chain{ID: id, Tenant: "acme", Language: "javascript", Status: durable.StatusParked,
			Node: real.Node(), Created: time.Now(), Gen: 1, Expires: a.Expires}))
		got, _, err := other.GetApproval(ctx, "acme", a.ID)
		require.NoError(t, err)
		require.Equal(t, "confirm", got.Gate)
		require.Equal(t, "matrix[supervised][HIGH]", got.Rule)
		require.Equal(t, "pd_0123456789abcdef", got.DecisionID)
		require.Equal(t, 2, got.Line)
		require.Equal(t, 13, got.Column)
		src, err := other.GetScript(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, script, src)

		req := raw(t, t3, "acme", "approvals/"+a.ID+"/req")
		for _, edit := range [][2]string{
			{`"rule":"matrix[supervised][HIGH]"`, `"rule":"matrix[supervised][SAFE]"`},
			{`"gate":"confirm"`, `"gate":"allow"`},
			{`"decision_id":"pd_0123456789abcdef"`, `"decision_id":"pd_fedcba9876543210"`},
			{`"line":2`, `"line":1`},
			{`"column":13`, `"column":1`},
		} {
			require.Contains(t, string(req), edit[0])
			plant(t, t3, "acme", "approvals/"+a.ID+"/req", []byte(strings.Replace(string(req), edit[0], edit[1], 1)))
			_, _, err := other.GetApproval(ctx, "acme", a.ID)
			require.ErrorIs(t, err, durable.ErrNotFound, edit[1])
			require.ErrorIs(t, err, durable.ErrForged, edit[1])
		}
		require.GreaterOrEqual(t, other.refused(t, durable.KindRequest), 5.0)
		plant(t, t3, "acme", "approvals/"+a.ID+"/req", req)

		kept := raw(t, t3, "acme", "chains/"+id+"/script")
		require.NotContains(t, string(kept), script, "kept encrypted")
		edited := bytes.Clone(kept)
		edited[len(edited)-1] ^= 1
		for name, rec := range map[string][]byte{
			"edited":             edited,
			"the other chain's":  raw(t, t3, "acme", "chains/"+id+"b/script"),
			"unauthenticated":    []byte("return 'forged';"),
			"the chain's record": raw(t, t3, "acme", "chains/"+id+"/rec"),
		} {
			plant(t, t3, "acme", "chains/"+id+"/script", rec)
			_, err := other.GetScript(ctx, "acme", id)
			require.ErrorIs(t, err, durable.ErrNotFound, name)
			require.ErrorIs(t, err, durable.ErrForged, name)
		}
		require.GreaterOrEqual(t, other.refused(t, durable.KindScript), 4.0)
		// acme's script under globex's name of the same chain.
		plant(t, t3, "globex", "chains/"+id+"/script", kept)
		_, err = other.GetScript(ctx, "globex", id)
		require.ErrorIs(t, err, durable.ErrForged, "acme's script as globex's")
		plant(t, t3, "acme", "chains/"+id+"/script", kept)
		src, err = other.GetScript(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, script, src)
		done()
	})
}

// TestParkKeepsTheScriptOnce: SavePark keeps Park.Script once; a later
// generation without one leaves it; a script above MaxScriptBytes is not
// kept (the park succeeds all the same); ReleaseParks deletes it.
func TestParkKeepsTheScriptOnce(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		s := newProc(t, b.open(t), "node-a", key)
		save := func(chainID string, gen int, src string) {
			a := approvalIn("acme", chainID, gen, `{"to":"a"}`)
			require.NoError(t, s.SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: chainID, Gen: gen, Created: time.Now(),
				Expires: time.Now().Add(time.Hour), Approvals: []durable.Approval{a}, State: []byte("state " + strconv.Itoa(gen)), Script: src}))
		}
		save(id, 1, "return 1;")
		save(id, 2, "")
		src, err := s.GetScript(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, "return 1;", src)
		_, err = s.GetScript(ctx, "globex", id)
		require.ErrorIs(t, err, durable.ErrNotFound)
		require.NotErrorIs(t, err, durable.ErrForged)

		big := "//" + strings.Repeat("x", durable.MaxScriptBytes-2)
		save(id+"m", 1, big)
		src, err = s.GetScript(ctx, "acme", id+"m")
		require.NoError(t, err)
		require.Len(t, src, durable.MaxScriptBytes, "the largest script kept")
		save(id+"x", 1, big+"x")
		_, err = s.GetScript(ctx, "acme", id+"x")
		require.ErrorIs(t, err, durable.ErrNotFound, "one byte more is not kept")
		require.NotErrorIs(t, err, durable.ErrForged)

		require.NoError(t, s.ReleaseParks(ctx, "acme", id))
		_, err = s.GetScript(ctx, "acme", id)
		require.ErrorIs(t, err, durable.ErrNotFound)
		require.NotErrorIs(t, err, durable.ErrForged)
	})
}
