package storetest

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
)

// testRecords: records round-trip per tenant, create-only writes refuse an
// existing record, names and sizes are checked, and a sweep leaves them.
func testRecords(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	s := e.store(blobstore.Options{})
	ctx := e.ctx
	require.NoError(t, s.PutRecord(ctx, tenantA, "idem/send/abc", []byte(`{"state":"pending"}`), true))
	require.ErrorIs(t, s.PutRecord(ctx, tenantA, "idem/send/abc", []byte(`x`), true), blobstore.ErrExist)
	data, _, err := s.GetRecord(ctx, tenantA, "idem/send/abc")
	require.NoError(t, err)
	require.Equal(t, `{"state":"pending"}`, string(data))
	_, _, err = s.GetRecord(ctx, tenantB, "idem/send/abc")
	require.ErrorIs(t, err, blobstore.ErrNotFound, "records are per tenant")
	require.NoError(t, s.PutRecord(ctx, tenantA, "idem/send/abc", []byte(`{"state":"ok"}`), false))
	data, _, err = s.GetRecord(ctx, tenantA, "idem/send/abc")
	require.NoError(t, err)
	require.Equal(t, `{"state":"ok"}`, string(data))

	stats, err := e.store(blobstore.Options{Clock: func() time.Time { return time.Now().Add(6 * 24 * time.Hour) }}).Sweep(ctx)
	require.NoError(t, err)
	require.Zero(t, stats.Records)
	_, _, err = s.GetRecord(ctx, tenantA, "idem/send/abc")
	require.NoError(t, err, "a sweep leaves records younger than RecordTTL alone")

	require.NoError(t, s.DeleteRecord(ctx, tenantA, "idem/send/abc"))
	require.NoError(t, s.DeleteRecord(ctx, tenantA, "idem/send/abc"))
	_, _, err = s.GetRecord(ctx, tenantA, "idem/send/abc")
	require.ErrorIs(t, err, blobstore.ErrNotFound)

	// Past RecordTTL (by the backend's write time) a sweep removes it.
	require.NoError(t, s.PutRecord(ctx, tenantA, "old", []byte("x"), false))
	late := e.store(blobstore.Options{Clock: func() time.Time { return time.Now().Add(8 * 24 * time.Hour) }})
	stats, err = late.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Records)
	_, _, err = s.GetRecord(ctx, tenantA, "old")
	require.ErrorIs(t, err, blobstore.ErrNotFound)

	for _, name := range []string{"", "/a", "a//b", "a/../b", "A", "a b", strings.Repeat("a", 201)} {
		require.ErrorIs(t, s.PutRecord(ctx, tenantA, name, []byte("x"), false), blobstore.ErrInvalidRecordName, name)
		_, _, err := s.GetRecord(ctx, tenantA, name)
		require.ErrorIs(t, err, blobstore.ErrInvalidRecordName, name)
	}
	require.ErrorIs(t, s.PutRecord(ctx, "../x", "a", []byte("x"), false), blobstore.ErrInvalidTenant)
	require.ErrorIs(t, s.PutRecord(ctx, tenantA, "big", make([]byte, blobstore.MaxRecordBytes+1), false), blobstore.ErrRecordTooLarge)
}

// testRecordRace: two Stores over one storage race create-only writes of
// the same record; exactly one wins each round.
func testRecordRace(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	a := e.store(blobstore.Options{})
	b := e.store(blobstore.Options{})
	for round := 0; round < 10; round++ {
		name := fmt.Sprintf("race/%d", round)
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i, s := range []*blobstore.Store{a, b, a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.PutRecord(e.ctx, tenantA, name, []byte(fmt.Sprint(i)), true)
				if err == nil {
					wins.Add(1)
				} else {
					require.ErrorIs(t, err, blobstore.ErrExist)
				}
			}()
		}
		wg.Wait()
		require.EqualValues(t, 1, wins.Load(), "round %d", round)
	}
}

// testListRecords: ListRecords reports a tenant's records under a prefix,
// by name, and only that tenant's; the fleet namespace takes records but
// no blobs; fn's error stops the listing.
func testListRecords(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	s := e.store(blobstore.Options{})
	ctx := e.ctx
	for _, n := range []string{"chains/a/rec", "chains/a/end", "chains/b/rec", "approvals/x/req"} {
		require.NoError(t, s.PutRecord(ctx, tenantA, n, []byte("1"), false))
	}
	require.NoError(t, s.PutRecord(ctx, tenantB, "chains/c/rec", []byte("1"), false))
	var names []string
	require.NoError(t, s.ListRecords(ctx, tenantA, "chains/", func(name string, mod time.Time) error {
		require.False(t, mod.IsZero())
		names = append(names, name)
		return nil
	}))
	require.ElementsMatch(t, []string{"chains/a/rec", "chains/a/end", "chains/b/rec"}, names)
	names = nil
	require.NoError(t, s.ListRecords(ctx, tenantA, "", func(name string, _ time.Time) error {
		names = append(names, name)
		return nil
	}))
	require.Len(t, names, 4)
	stop := fmt.Errorf("stop")
	n := 0
	require.ErrorIs(t, s.ListRecords(ctx, tenantA, "", func(string, time.Time) error { n++; return stop }), stop)
	require.Equal(t, 1, n)
	require.ErrorIs(t, s.ListRecords(ctx, "../x", "", func(string, time.Time) error { return nil }), blobstore.ErrInvalidTenant)

	require.False(t, blobstore.ValidTenant(blobstore.FleetTenant))
	require.NoError(t, s.PutRecord(ctx, blobstore.FleetTenant, "live/acme/ch_1", []byte("{}"), false))
	names = nil
	require.NoError(t, s.ListRecords(ctx, blobstore.FleetTenant, "live/", func(name string, _ time.Time) error {
		names = append(names, name)
		return nil
	}))
	require.Equal(t, []string{"live/acme/ch_1"}, names)
	_, err := s.Put(ctx, blobstore.FleetTenant, strings.NewReader("x"), "text/plain")
	require.ErrorIs(t, err, blobstore.ErrInvalidTenant, "no blobs in the fleet namespace")
}
