package durable_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
)

// Rollback (THREATS.md, T3; docs/durability.md, "Rollback"): a bucket
// writer without the fleet key copies a chain's authentic objects and puts
// them back after the chain moved on. On a store that locks versions the
// create-only records that decide "at most once" are read as first
// written, so putting back, overwriting or deleting changes nothing a
// process acts on. Each test runs on the stores that lock (memblob's
// model, MinIO); fsblob does not, and CheckStore refuses it
// (TestCheckStore).

// eachLocked runs f against every backend that locks versions.
func eachLocked(t *testing.T, f func(t *testing.T, b backend, id string)) {
	each(t, func(t *testing.T, b backend, id string) {
		if b.name == "fs" {
			t.Skip("fsblob keeps no version a bucket writer cannot remove: CheckStore refuses it (TestCheckStore)")
		}
		f(t, b, id)
	})
}

// bucketCopy is what a bucket writer copied of a chain: the raw objects
// (driver keys and bytes) of its records, its approval's records, its
// index entry and the tenant's blobs (the parked state and its pins).
type bucketCopy map[string][]byte

// chainPrefixes are the driver key prefixes of what chain id of tenant,
// waiting on approval aid, is made of (blobstore's layout: r/<tenant>/
// for records, r/_fleet/ for the index, b/<tenant>/ for blobs).
func chainPrefixes(tenant, id, aid string) []string {
	return []string{"r/" + tenant + "/chains/" + id + "/", "r/" + tenant + "/approvals/" + aid + "/",
		"r/" + blobstore.FleetTenant + "/live/" + tenant + "/" + id, "b/" + tenant + "/"}
}

// copyChain copies, as T3 can, every object under prefixes.
func copyChain(t *testing.T, drv blobstore.Driver, prefixes []string) bucketCopy {
	t.Helper()
	ctx := context.Background()
	out := bucketCopy{}
	for _, p := range prefixes {
		require.NoError(t, drv.List(ctx, p, func(e blobstore.Entry) error {
			rc, err := drv.Get(ctx, e.Key, 0, -1)
			if err != nil {
				return err
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			out[e.Key] = b
			return err
		}))
	}
	require.NotEmpty(t, out)
	return out
}

// rollBack puts the chain back as it was copied: it deletes the records
// written since (an end, claims, a later generation; never a blob) and
// writes the copy back over what is there.
func rollBack(t *testing.T, drv blobstore.Driver, tenant, id string, cp bucketCopy) {
	t.Helper()
	ctx := context.Background()
	var gone []string
	require.NoError(t, drv.List(ctx, "r/"+tenant+"/chains/"+id+"/", func(e blobstore.Entry) error {
		if _, ok := cp[e.Key]; !ok {
			gone = append(gone, e.Key)
		}
		return nil
	}))
	require.NotEmpty(t, gone, "the end and the claim are deleted")
	for _, k := range gone {
		require.NoError(t, drv.Delete(ctx, k))
	}
	for k, b := range cp {
		require.NoError(t, drv.Put(ctx, k, strings.NewReader(string(b)), blobstore.PutOptions{}))
	}
}

// resumeOnce continues a parked, approved chain as the service does
// (claim generation gen, load it, release it, end ok) and reports whether
// its call "ran": whether this process won the claim and loaded a state
// whose decision approves.
func resumeOnce(t *testing.T, p proc, tenant, id, aid string, gen int) bool {
	t.Helper()
	ctx := context.Background()
	won, err := p.Claim(ctx, tenant, id, gen, "resume")
	if err != nil || !won {
		return false
	}
	if _, err := p.LoadPark(ctx, tenant, id, gen); err != nil {
		return false
	}
	_, d, err := p.GetApproval(ctx, tenant, aid)
	require.NoError(t, err)
	if d == nil || !d.Approved {
		return false
	}
	require.NoError(t, p.ReleasePark(ctx, tenant, id, gen))
	c, err := p.GetChain(ctx, tenant, id)
	require.NoError(t, err)
	c.Status, c.Pending = "ok", nil
	c.Result = &chain.RunResult{ID: id, Status: chain.StatusOK, Value: json.RawMessage(`"sent"`)}
	_, err = p.Finish(ctx, c)
	require.NoError(t, err)
	return true
}

// TestRollbackDoesNotRunApprovedCallTwice (was the hostile review's
// TestAttackRollbackRunsApprovedCallTwice) — T3 copies a parked chain
// whose call was approved (record, index entry, seal, encrypted state,
// pins), lets it resume once and end, then deletes the end and the claim
// and puts the copies back. Every object is authentic, but the claim of
// generation 1 and the end are locked versions read as first written: the
// chain still reads as ended, and generation 1 is not claimed again.
func TestRollbackDoesNotRunApprovedCallTwice(t *testing.T) {
	eachLocked(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		drv := b.open(t)
		real, other := newProc(t, drv, "node-a", key), newProc(t, b.open(t), "node-b", key)
		require.NoError(t, real.CheckStore(ctx))
		done := healthy(t, other, id+"h")

		a := parkChain(t, real, "acme", id, 1, `{"to":"ceo","amount":1000000}`)
		_, err := real.Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash, By: "alice"})
		require.NoError(t, err)
		cp := copyChain(t, drv, chainPrefixes("acme", id, a.ID))

		ran := 0
		if resumeOnce(t, other, "acme", id, a.ID, 1) {
			ran++
		}
		require.Equal(t, 1, ran, "the approved call runs once")

		rollBack(t, drv, "acme", id, cp)

		c, err := real.GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, "ok", c.Status, "an ended chain stays ended")
		for _, p := range []proc{real, other} {
			won, err := p.Claim(ctx, "acme", id, 1, "resume")
			require.NoError(t, err)
			require.False(t, won, "generation 1 was continued once already; it is not claimed again")
			if resumeOnce(t, p, "acme", id, a.ID, 1) {
				ran++
			}
		}
		require.Equal(t, 1, ran, "the approved call ran once, rollback or not")
		done()
	})
}

// versionsOf lists the version ids of driver key k, oldest first, as T3
// can.
func versionsOf(t *testing.T, drv blobstore.Driver, k string) []string {
	t.Helper()
	switch d := drv.(type) {
	case *memblob.Driver:
		return d.Versions(k)
	case *s3blob.Driver:
		var ids []string
		for o := range d.Client().ListObjectsIter(t.Context(), d.Bucket(), minio.ListObjectsOptions{Prefix: k, WithVersions: true}) {
			require.NoError(t, o.Err)
			if o.Key == k {
				ids = append([]string{o.VersionID}, ids...)
			}
		}
		return ids
	}
	t.Fatalf("no versions on %T", drv)
	return nil
}

// deleteVersion deletes one version of driver key k by its id, as T3 can
// try.
func deleteVersion(t *testing.T, drv blobstore.Driver, k, id string) error {
	t.Helper()
	switch d := drv.(type) {
	case *memblob.Driver:
		return d.DeleteVersion(k, id)
	case *s3blob.Driver:
		return d.Client().RemoveObject(t.Context(), d.Bucket(), k, minio.RemoveObjectOptions{VersionID: id, GovernanceBypass: true})
	}
	t.Fatalf("no versions on %T", drv)
	return nil
}

// TestLockedClaimWithstandsBucketWriter — T3 goes at the claim of a
// parked generation directly: it overwrites it with a newer version (an
// authentic claim of another generation, or garbage), deletes it (a
// delete marker), and tries to delete the locked version by its id (the
// store refuses: compliance mode). The claimant's claim still reads as
// the first, no other process wins it, and a healthy chain of another
// tenant finishes alongside.
func TestLockedClaimWithstandsBucketWriter(t *testing.T) {
	eachLocked(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		drv := b.open(t)
		real, rival := newProc(t, drv, "node-a", key), newProc(t, b.open(t), "node-b", key)
		done := healthy(t, rival, id+"h")
		a := parkChain(t, real, "acme", id, 1, `{"to":"ceo"}`)
		_, err := real.Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash})
		require.NoError(t, err)
		parkChain(t, real, "acme", id+"x", 1, `{"to":"cfo"}`)
		won, err := real.Claim(ctx, "acme", id+"x", 1, "resume")
		require.NoError(t, err)
		require.True(t, won)

		won, err = real.Claim(ctx, "acme", id, 1, "resume")
		require.NoError(t, err)
		require.True(t, won)
		claimKey := "r/acme/chains/" + id + "/claim/1"
		otherClaim := copyChain(t, drv, []string{"r/acme/chains/" + id + "x/claim/1"})["r/acme/chains/"+id+"x/claim/1"]
		first := versionsOf(t, drv, claimKey)
		require.Len(t, first, 1)

		for _, attack := range []struct {
			name string
			do   func() error
		}{
			{"overwrite with garbage", func() error {
				return drv.Put(ctx, claimKey, strings.NewReader("ALR1 garbage"), blobstore.PutOptions{})
			}},
			{"overwrite with another chain's authentic claim", func() error {
				return drv.Put(ctx, claimKey, strings.NewReader(string(otherClaim)), blobstore.PutOptions{})
			}},
			{"delete (a delete marker)", func() error { return drv.Delete(ctx, claimKey) }},
		} {
			require.NoError(t, attack.do(), attack.name)
			for _, p := range []proc{real, rival} {
				won, err := p.Claim(ctx, "acme", id, 1, "resume")
				require.NoError(t, err, attack.name)
				require.False(t, won, "%s: generation 1 is claimed once", attack.name)
			}
			require.Equal(t, first[0], versionsOf(t, drv, claimKey)[0], attack.name)
		}
		err = deleteVersion(t, drv, claimKey, first[0])
		require.Error(t, err, "the locked version of the claim is not deleted, even by its id")
		if b.name == "mem" {
			require.ErrorIs(t, err, blobstore.ErrLocked)
		}
		won, err = rival.Claim(ctx, "acme", id, 1, "resume")
		require.NoError(t, err)
		require.False(t, won, "generation 1 is claimed once")
		stale, err := rival.StaleClaim(ctx, "acme", id, 1)
		require.NoError(t, err)
		require.False(t, stale, "the claim still reads as the claimant's, just written")
		done()
	})
}

// TestLockedDecisionAndEndWithstandBucketWriter — T3 deletes a decision
// and an end, and overwrites them with authentic records of other
// approvals and chains: the first decision still decides, a second
// decider gets it back, and the ended chain stays ended.
func TestLockedDecisionAndEndWithstandBucketWriter(t *testing.T) {
	eachLocked(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		drv := b.open(t)
		p := newProc(t, drv, "node-a", key)
		a := parkChain(t, p, "acme", id, 1, `{"to":"ceo"}`)
		_, err := p.Decide(ctx, "acme", a.ID, durable.Decision{Approved: false, ArgsHash: a.ArgsHash, By: "alice"})
		require.NoError(t, err)
		decKey := "r/acme/approvals/" + a.ID + "/decision"
		require.NoError(t, drv.Delete(ctx, decKey))
		d, err := p.Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash, By: "mallory"})
		require.ErrorIs(t, err, durable.ErrAlreadyDecided, "a deleted decision still decides")
		require.False(t, d.Approved)
		require.Equal(t, "alice", d.By)

		parkChain(t, p, "acme", id+"e", 1, `{"to":"cfo"}`) // another chain, which ends
		c := finishChain(t, p, "acme", id+"e", 1, "done")
		endKey := "r/acme/chains/" + c.ID + "/end"
		require.NoError(t, drv.Delete(ctx, endKey))
		got, err := p.GetChain(ctx, "acme", c.ID)
		require.NoError(t, err)
		require.Equal(t, "ok", got.Status, "a deleted end still ends the chain")
	})
}

// TestStaleParkIsRefused — a parked generation more than ResumeGrace past
// its expiry is not loaded (ErrStale): by then the records that kept it
// from running twice may have left their lock (Store.Retention), so a
// rollback after that time runs nothing.
func TestStaleParkIsRefused(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ctx := context.Background()
		later := time.Now()
		ss, _ := stores(t, b, 1, durable.Options{ParkTTL: time.Hour, Clock: func() time.Time { return later }})
		s := ss[0]
		require.Equal(t, time.Hour+durable.ResumeGrace+time.Hour, s.Retention())
		require.NoError(t, s.SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 1, Created: time.Now(),
			Expires: time.Now().Add(time.Hour), State: []byte("state")}))
		later = time.Now().Add(time.Hour + durable.ResumeGrace - time.Minute)
		_, err := s.LoadPark(ctx, "acme", id, 1)
		require.NoError(t, err, "within the grace")
		later = time.Now().Add(time.Hour + durable.ResumeGrace + time.Minute)
		_, err = s.LoadPark(ctx, "acme", id, 1)
		require.ErrorIs(t, err, durable.ErrStale)

		// An expiry further than ParkTTL is taken as ParkTTL.
		require.NoError(t, s.SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 2, Created: time.Now(),
			Expires: time.Now().Add(100 * time.Hour), State: []byte("state")}))
		_, err = s.LoadPark(ctx, "acme", id, 2)
		require.ErrorIs(t, err, durable.ErrStale)
	})
}
