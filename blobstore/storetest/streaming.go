package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
)

// StreamingSize is the blob size RunStreaming moves through a Store: 256 MiB.
const StreamingSize = 256 << 20

// StreamingHeapLimit is the most the heap may grow while RunStreaming moves
// a StreamingSize blob in and out: 64 MiB.
const StreamingHeapLimit = 64 << 20

// RunStreaming puts a StreamingSize blob from a generated reader, reads it
// back, checks size and SHA-256, and fails if the heap grew by
// StreamingHeapLimit or more meanwhile. It is skipped with -short.
func RunStreaming(t *testing.T, newBackend NewBackend) {
	if testing.Short() {
		t.Skip("moves 256 MiB; skipped with -short")
	}
	open := newBackend(t)
	s := blobstore.New(open(), blobstore.Options{})
	defer s.Close()
	ctx := t.Context()

	want := sha256.New()
	_, err := io.Copy(want, NewDataReader(99, StreamingSize))
	require.NoError(t, err)
	wantSum := hex.EncodeToString(want.Sum(nil))

	h := StartHeapSampler()
	a, err := s.Put(ctx, "tenant-big", NewDataReader(99, StreamingSize), "application/octet-stream")
	putPeak := h.Stop()
	require.NoError(t, err)
	require.EqualValues(t, StreamingSize, a.Size)
	require.Equal(t, wantSum, a.SHA256)

	h = StartHeapSampler()
	rc, _, err := s.Open(ctx, "tenant-big", a.Ref)
	require.NoError(t, err)
	got := sha256.New()
	n, err := io.CopyBuffer(got, rc, make([]byte, 256<<10))
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	getPeak := h.Stop()
	require.EqualValues(t, StreamingSize, n)
	require.Equal(t, wantSum, hex.EncodeToString(got.Sum(nil)))

	t.Logf("256 MiB blob: peak heap growth %.1f MiB during Put, %.1f MiB during Open+read",
		float64(putPeak)/(1<<20), float64(getPeak)/(1<<20))
	require.Less(t, putPeak, uint64(StreamingHeapLimit), "Put buffered too much")
	require.Less(t, getPeak, uint64(StreamingHeapLimit), "Open buffered too much")
	require.NoError(t, s.Delete(ctx, "tenant-big", a.Ref))
}
