package storetest

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
)

// testOnce: on a driver that locks versions (blobstore.OnceDriver with
// Locked true), the first version of a key written with PutOnce is what
// ReadOnce reads, whatever a bucket writer overwrites or deletes after it,
// and of writers racing on a fresh key exactly one wins. On any other
// driver, PutRecordOnce and GetRecordOnce are the plain create-only record
// calls.
func testOnce(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	ctx := e.ctx
	s := e.store(blobstore.Options{})
	d := e.open()
	defer d.Close()
	od, ok := d.(blobstore.OnceDriver)
	if !ok || !od.Locked() {
		require.False(t, s.Locked())
		_, err := s.PutRecordOnce(ctx, tenantA, "once/a", []byte("first"), time.Now().Add(time.Minute))
		require.NoError(t, err)
		_, err = s.PutRecordOnce(ctx, tenantA, "once/a", []byte("second"), time.Now().Add(time.Minute))
		require.ErrorIs(t, err, blobstore.ErrExist)
		b, _, err := s.GetRecordOnce(ctx, tenantA, "once/a")
		require.NoError(t, err)
		require.Equal(t, "first", string(b))
		if ok {
			_, err := od.PutOnce(ctx, "once/b", strings.NewReader("x"), blobstore.OnceOptions{RetainUntil: time.Now().Add(time.Minute)})
			require.ErrorIs(t, err, blobstore.ErrNotLocked)
		}
		return
	}
	require.True(t, s.Locked())
	until := blobstore.OnceOptions{RetainUntil: time.Now().Add(time.Minute)}
	read := func(d blobstore.OnceDriver, key string) (string, blobstore.Version, error) {
		t.Helper()
		v, rc, err := d.ReadOnce(ctx, key)
		if err != nil {
			return "", v, err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.EqualValues(t, len(b), v.Size)
		return string(b), v, nil
	}

	key := "once/claim/1"
	_, _, err := od.ReadOnce(ctx, key)
	require.ErrorIs(t, err, blobstore.ErrNotFound)
	v1, err := od.PutOnce(ctx, key, strings.NewReader("first"), until)
	require.NoError(t, err)
	require.NotEmpty(t, v1)
	_, err = od.PutOnce(ctx, key, strings.NewReader("second"), until)
	require.ErrorIs(t, err, blobstore.ErrExist, "a key with a current object is not written again")

	// Longer keys sharing the prefix are other keys.
	for _, k := range []string{key + ".1", key + "0", key + "/x"} {
		_, err := od.PutOnce(ctx, k, strings.NewReader("other "+k), until)
		require.NoError(t, err)
	}
	other := e.open().(blobstore.OnceDriver) // another process
	defer other.Close()
	for _, rd := range []blobstore.OnceDriver{od, other} {
		got, v, err := read(rd, key)
		require.NoError(t, err)
		require.Equal(t, "first", got)
		require.Equal(t, v1, v.ID)
	}
	_, _, err = od.ReadOnce(ctx, "once/claim")
	require.ErrorIs(t, err, blobstore.ErrNotFound, "a prefix of written keys is not one")

	// A bucket writer overwrites the key, deletes it, and writes it
	// create-only again: each only adds a newer version.
	require.NoError(t, d.Put(ctx, key, strings.NewReader("overwritten"), blobstore.PutOptions{}))
	got, v, err := read(other, key)
	require.NoError(t, err)
	require.Equal(t, "first", got, "an overwrite is a newer version")
	require.Equal(t, v1, v.ID)
	require.NoError(t, d.Delete(ctx, key))
	_, err = d.Stat(ctx, key)
	require.ErrorIs(t, err, blobstore.ErrNotFound, "a deleted key reads as absent")
	got, _, err = read(other, key)
	require.NoError(t, err)
	require.Equal(t, "first", got, "a delete marker does not hide the locked version")
	if _, err := other.PutOnce(ctx, key, strings.NewReader("after delete"), until); err != nil {
		require.ErrorIs(t, err, blobstore.ErrExist)
	}
	got, _, err = read(od, key)
	require.NoError(t, err)
	require.Equal(t, "first", got, "a create-only write over a delete marker is not the first")

	// Of writers racing on a fresh key, exactly one wins, and the first
	// version is the winner's.
	const n = 8
	var (
		mu   sync.Mutex
		wins []string
		wg   sync.WaitGroup
	)
	for i := range n {
		w := e.open().(blobstore.OnceDriver)
		defer w.Close()
		wg.Go(func() {
			v, err := w.PutOnce(ctx, "once/race", strings.NewReader(strings.Repeat("w", i+1)), until)
			if errors.Is(err, blobstore.ErrExist) {
				return
			}
			require.NoError(t, err)
			mu.Lock()
			wins = append(wins, v)
			mu.Unlock()
		})
	}
	wg.Wait()
	require.Len(t, wins, 1)
	_, v, err = read(od, "once/race")
	require.NoError(t, err)
	require.Equal(t, wins[0], v.ID)

	// Through a Store.
	_, err = s.PutRecordOnce(ctx, tenantA, "claim/1", []byte("mine"), until.RetainUntil)
	require.NoError(t, err)
	_, err = s.PutRecordOnce(ctx, tenantA, "claim/1", []byte("yours"), until.RetainUntil)
	require.ErrorIs(t, err, blobstore.ErrExist)
	require.NoError(t, s.DeleteRecord(ctx, tenantA, "claim/1"))
	b, _, err := s.GetRecordOnce(ctx, tenantA, "claim/1")
	require.NoError(t, err)
	require.Equal(t, "mine", string(b))
	_, _, err = s.GetRecordOnce(ctx, tenantB, "claim/1")
	require.ErrorIs(t, err, blobstore.ErrNotFound, "records are per tenant")
}
