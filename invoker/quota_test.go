package invoker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
)

// bigObject asks the big tool for a JSON object result of n bytes, stored
// as exactly n bytes when offloaded.
func bigObject(n int) invoker.Call { return call("big", fmt.Sprintf(`{"n":%d,"object":true}`, n)) }

// TestChainArtifactQuota: a chain may store exactly Policy.MaxArtifactBytes;
// one byte more is quota_exceeded, and nothing is stored.
func TestChainArtifactQuota(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, Policy: invoker.Policy{MaxInlineResultBytes: 64, MaxArtifactBytes: 1000}})
	ctx := context.Background()

	sess := newSession(inv, "acme")
	defer sess.Close(ctx)
	require.True(t, inv.Invoke(ctx, sess, bigObject(600)).OK())
	res := inv.Invoke(ctx, sess, bigObject(400))
	require.True(t, res.OK(), "at the limit: %s", res.Message)
	require.EqualValues(t, 1000, sess.ArtifactBytes())

	res = inv.Invoke(ctx, sess, bigObject(65))
	require.Equal(t, session.StatusError, res.Status)
	require.Equal(t, invoker.ReasonQuotaExceeded, res.Reason)
	require.Equal(t, "the result needs 65 bytes of artifact storage and this chain has 0 of its 1000 left; the tool ran and its effects stand", res.Message)
	require.EqualValues(t, 3, f.ran("big"), "the tool ran")
	require.Len(t, sess.Pinned(), 2, "nothing more was stored")
	require.EqualValues(t, 1000, sess.ArtifactBytes())
	require.Equal(t, invoker.ReasonQuotaExceeded, sess.Trace()[2].Reason)

	require.True(t, inv.Invoke(ctx, sess, bigObject(64)).OK(), "an inline result needs no quota")

	// One byte past the limit in a single result.
	sess2 := newSession(inv, "acme")
	defer sess2.Close(ctx)
	res = inv.Invoke(ctx, sess2, bigObject(1001))
	require.Equal(t, invoker.ReasonQuotaExceeded, res.Reason)
	require.Equal(t, "the result needs 1001 bytes of artifact storage and this chain has 1000 of its 1000 left; the tool ran and its effects stand", res.Message)
	require.Empty(t, sess2.Pinned())
	require.Zero(t, sess2.ArtifactBytes())
}

// TestChainArtifactQuotaCountsMedia: media files are charged like
// offloaded results.
func TestChainArtifactQuotaCountsMedia(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, Policy: invoker.Policy{MaxArtifactBytes: 4}}) // img stores 4 bytes
	sess := newSession(inv, "acme")
	defer sess.Close(context.Background())
	res := inv.Invoke(context.Background(), sess, call("img", `{}`))
	require.True(t, res.OK(), res.Message)
	res = inv.Invoke(context.Background(), sess, call("img", `{}`))
	require.Equal(t, invoker.ReasonQuotaExceeded, res.Reason)
	require.Equal(t, "the result needs 4 bytes of artifact storage and this chain has 0 of its 4 left; the tool ran and its effects stand", res.Message)
	require.Len(t, sess.Pinned(), 1)
}

// TestTenantArtifactQuota: the chains of one tenant together may hold
// exactly Options.MaxTenantArtifactBytes; one byte more is quota_exceeded.
// Other tenants are not affected.
func TestTenantArtifactQuota(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, MaxTenantArtifactBytes: 1000, Policy: invoker.Policy{MaxInlineResultBytes: 64}})
	ctx := context.Background()
	a, b, c := newSession(inv, "acme"), newSession(inv, "acme"), newSession(inv, "acme")
	other := newSession(inv, "globex")
	for _, s := range []*session.Session{a, b, c, other} {
		defer s.Close(ctx)
	}
	require.True(t, inv.Invoke(ctx, a, bigObject(600)).OK())
	res := inv.Invoke(ctx, b, bigObject(400))
	require.True(t, res.OK(), "at the limit: %s", res.Message)

	res = inv.Invoke(ctx, c, bigObject(65))
	require.Equal(t, session.StatusError, res.Status)
	require.Equal(t, invoker.ReasonQuotaExceeded, res.Reason)
	require.Equal(t, "the result needs 65 bytes of artifact storage and the tenant has 0 of its 1000 left; the tool ran and its effects stand; retry once older artifacts expired", res.Message)
	require.Empty(t, c.Pinned())
	require.Zero(t, c.ArtifactBytes(), "a refused result is not charged to the chain either")

	res = inv.Invoke(ctx, other, bigObject(1000))
	require.True(t, res.OK(), "another tenant has its own quota: %s", res.Message)
	res = inv.Invoke(ctx, other, bigObject(65))
	require.Equal(t, invoker.ReasonQuotaExceeded, res.Reason)

	// A WithPolicy copy shares the tenant count.
	inv2, err := inv.WithPolicy(invoker.Policy{MaxInlineResultBytes: 64})
	require.NoError(t, err)
	d := inv2.NewSession(session.Options{Tenant: "acme"})
	defer d.Close(ctx)
	require.Equal(t, invoker.ReasonQuotaExceeded, inv2.Invoke(ctx, d, bigObject(65)).Reason)
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestTenantQuotaCountsUntilExpiry: an artifact counts against its tenant
// while pinned and, once its chain ended, for the store's TTL; at the TTL
// it stops counting.
func TestTenantQuotaCountsUntilExpiry(t *testing.T) {
	f := newFixture(t)
	clk := &fakeClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	store := blobstore.New(memblob.New(), blobstore.Options{TTL: time.Hour, Clock: clk.Now})
	defer store.Close()
	inv := f.invoker(t, invoker.Options{Store: store, MaxTenantArtifactBytes: 1000, Policy: invoker.Policy{MaxInlineResultBytes: 64}})
	invoker.SetLedgerClock(inv, clk.Now)
	ctx := context.Background()

	a := newSession(inv, "acme")
	require.True(t, inv.Invoke(ctx, a, bigObject(1000)).OK())
	clk.Advance(2 * time.Hour)
	probe := newSession(inv, "acme")
	defer probe.Close(ctx)
	require.Equal(t, invoker.ReasonQuotaExceeded, inv.Invoke(ctx, probe, bigObject(65)).Reason, "pinned: counted however long")

	require.NoError(t, a.Close(ctx))
	clk.Advance(time.Hour - time.Nanosecond)
	require.Equal(t, invoker.ReasonQuotaExceeded, inv.Invoke(ctx, probe, bigObject(65)).Reason, "unpinned, not yet expired")
	clk.Advance(time.Nanosecond)
	res := inv.Invoke(ctx, probe, bigObject(1000))
	require.True(t, res.OK(), "expired: no longer counted: %s", res.Message)
}

// TestTenantQuotaForeignSession: a session not opened by NewSession is
// counted for one TTL from when its artifact was stored.
func TestTenantQuotaForeignSession(t *testing.T) {
	f := newFixture(t)
	clk := &fakeClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	store := blobstore.New(memblob.New(), blobstore.Options{TTL: time.Hour, Clock: clk.Now})
	defer store.Close()
	inv := f.invoker(t, invoker.Options{Store: store, MaxTenantArtifactBytes: 1000, Policy: invoker.Policy{MaxInlineResultBytes: 64}})
	invoker.SetLedgerClock(inv, clk.Now)
	ctx := context.Background()
	foreign := session.New(session.Options{Tenant: "acme", Pins: store})
	defer foreign.Close(ctx)
	require.True(t, inv.Invoke(ctx, foreign, bigObject(1000)).OK())
	require.Equal(t, invoker.ReasonQuotaExceeded, inv.Invoke(ctx, foreign, bigObject(65)).Reason)
	clk.Advance(time.Hour)
	require.True(t, inv.Invoke(ctx, foreign, bigObject(1000)).OK())
}

// TestQuotaRefundedWhenStoreFails: bytes charged for a result the store
// refused are given back to the chain and the tenant.
func TestQuotaRefundedWhenStoreFails(t *testing.T) {
	f := newFixture(t)
	for _, panics := range []bool{false, true} {
		inv := f.invoker(t, invoker.Options{Store: failingStore{f.store, panics}, MaxTenantArtifactBytes: 100,
			Policy: invoker.Policy{MaxInlineResultBytes: 16, MaxArtifactBytes: 100}})
		sess := newSession(inv, "acme")
		for range 3 {
			res := inv.Invoke(context.Background(), sess, bigObject(100))
			require.NotEqual(t, invoker.ReasonQuotaExceeded, res.Reason, "nothing stayed charged")
		}
		require.Zero(t, sess.ArtifactBytes())
	}
}

// TestChargeTenantBytes: bytes stored outside the invoker (a parked state)
// count against the tenant's artifact quota beside its artifacts: a
// charge that would cross it is refused with ErrTenantQuota and charges
// nothing; charging a key again replaces what it counted; a release, or
// the end of the charge's life plus the store's TTL, frees the bytes;
// another tenant is not affected.
func TestChargeTenantBytes(t *testing.T) {
	f := newFixture(t)
	clk := &fakeClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	store := blobstore.New(memblob.New(), blobstore.Options{TTL: time.Hour, Clock: clk.Now})
	defer store.Close()
	inv := f.invoker(t, invoker.Options{Store: store, MaxTenantArtifactBytes: 1000, Policy: invoker.Policy{MaxInlineResultBytes: 64}})
	invoker.SetLedgerClock(inv, clk.Now)
	ctx := context.Background()
	until := clk.Now().Add(time.Hour)

	require.NoError(t, inv.ChargeTenantBytes(ctx, "acme", "c1/1", 600, until))
	err := inv.ChargeTenantBytes(ctx, "acme", "c2/1", 401, until)
	require.ErrorIs(t, err, invoker.ErrTenantQuota)
	var q *invoker.TenantQuotaError
	require.ErrorAs(t, err, &q)
	require.Equal(t, invoker.TenantQuotaError{Needed: 401, Left: 400, Limit: 1000}, *q)
	require.Equal(t, "invoker: tenant artifact quota exceeded: 401 bytes needed, 400 of the tenant's 1000 left (store.max_tenant_artifact_bytes)", err.Error())
	require.NoError(t, inv.ChargeTenantBytes(ctx, "globex", "g/1", 1000, until), "another tenant has its own quota")

	// The charge and the artifacts share the limit.
	a := newSession(inv, "acme")
	defer a.Close(ctx)
	require.Equal(t, invoker.ReasonQuotaExceeded, inv.Invoke(ctx, a, bigObject(401)).Reason)
	require.True(t, inv.Invoke(ctx, a, bigObject(300)).OK())
	require.ErrorIs(t, inv.ChargeTenantBytes(ctx, "acme", "c2/1", 101, until), invoker.ErrTenantQuota)

	// A key charged again replaces its bytes: 600 → 700 fits (700+300).
	require.NoError(t, inv.ChargeTenantBytes(ctx, "acme", "c1/1", 700, until))
	require.ErrorIs(t, inv.ChargeTenantBytes(ctx, "acme", "c1/1", 701, until), invoker.ErrTenantQuota)
	inv.ReleaseTenantBytes("acme", "c1/1")
	inv.ReleaseTenantBytes("acme", "c1/1") // twice: ignored
	inv.ReleaseTenantBytes("acme", "never")
	require.NoError(t, inv.ChargeTenantBytes(ctx, "acme", "c2/1", 700, until), "released: the bytes are free")

	// Never released: counted until its until and one TTL after.
	clk.Advance(2*time.Hour - time.Nanosecond)
	require.ErrorIs(t, inv.ChargeTenantBytes(ctx, "acme", "c3/1", 1, until), invoker.ErrTenantQuota)
	clk.Advance(time.Nanosecond)
	require.NoError(t, inv.ChargeTenantBytes(ctx, "acme", "c3/1", 700, until.Add(2*time.Hour)))
}

// A tenant's charge that does not fit asks the Reclaimer once, and is
// tried again only when it released something: for ChargeTenantBytes and
// for an artifact being stored alike.
func TestTenantQuotaReclaimer(t *testing.T) {
	f := newFixture(t)
	store := blobstore.New(memblob.New(), blobstore.Options{TTL: time.Hour})
	defer store.Close()
	inv := f.invoker(t, invoker.Options{Store: store, MaxTenantArtifactBytes: 1000, Policy: invoker.Policy{MaxInlineResultBytes: 64}})
	ctx := context.Background()
	until := time.Now().Add(time.Hour)
	var asked []string
	release := false
	inv.SetTenantQuotaReclaimer(func(_ context.Context, tenant string) bool {
		asked = append(asked, tenant)
		if release {
			inv.ReleaseTenantBytes(tenant, "stale")
		}
		return release
	})

	require.NoError(t, inv.ChargeTenantBytes(ctx, "acme", "stale", 900, until))
	require.ErrorIs(t, inv.ChargeTenantBytes(ctx, "acme", "new", 200, until), invoker.ErrTenantQuota)
	require.Equal(t, []string{"acme"}, asked, "asked once; it released nothing, so refused")
	a := newSession(inv, "acme")
	defer a.Close(ctx)
	require.Equal(t, invoker.ReasonQuotaExceeded, inv.Invoke(ctx, a, bigObject(200)).Reason)
	require.Equal(t, []string{"acme", "acme"}, asked)

	release = true
	require.True(t, inv.Invoke(ctx, a, bigObject(200)).OK(), "the stale charge released, the artifact is stored")
	require.Equal(t, []string{"acme", "acme", "acme"}, asked)
	require.NoError(t, inv.ChargeTenantBytes(ctx, "acme", "new", 700, until), "fits without asking")
	require.Len(t, asked, 3)

	inv.SetTenantQuotaReclaimer(nil)
	require.ErrorIs(t, inv.ChargeTenantBytes(ctx, "acme", "more", 500, until), invoker.ErrTenantQuota)
	require.Len(t, asked, 3, "removed: not asked")
}
