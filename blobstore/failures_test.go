package blobstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
)

// scriptedDriver fails chosen operations of the memory driver: fail(op,
// key) says whether the next such operation fails before reaching the
// store ("before") or after it happened ("lost"), or neither ("").
type scriptedDriver struct {
	*memblob.Driver
	mu   sync.Mutex
	fail func(op, key string) string
}

var errScripted = errors.New("scripted failure")

func (d *scriptedDriver) plan(op, key string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail == nil {
		return ""
	}
	return d.fail(op, key)
}

func (d *scriptedDriver) Put(ctx context.Context, key string, r io.Reader, opts blobstore.PutOptions) error {
	switch d.plan("put", key) {
	case "before":
		return errScripted
	case "lost":
		if err := d.Driver.Put(ctx, key, r, opts); err != nil {
			return err
		}
		return errScripted
	case "raced":
		// A client retry raced the first attempt, which answered.
		if err := d.Driver.Put(ctx, key, r, opts); err != nil {
			return err
		}
		return fmt.Errorf("retried: %w", blobstore.ErrExist)
	}
	return d.Driver.Put(ctx, key, r, opts)
}

func (d *scriptedDriver) Delete(ctx context.Context, key string) error {
	switch d.plan("delete", key) {
	case "before":
		return errScripted
	case "lost":
		_ = d.Driver.Delete(ctx, key)
		return errScripted
	}
	return d.Driver.Delete(ctx, key)
}

// once fails the first operation op on a key with suffix, as how.
func once(op, suffix, how string) func(string, string) string {
	done := false
	return func(o, key string) string {
		if done || o != op || !strings.Contains(key, suffix) {
			return ""
		}
		done = true
		return how
	}
}

func allKeys(t *testing.T, d blobstore.Driver, prefix string) []string {
	var out []string
	require.NoError(t, d.List(t.Context(), prefix, func(e blobstore.Entry) error {
		out = append(out, e.Key)
		return nil
	}))
	return out
}

// A pin the store wrote but whose answer was lost leaves no marker its
// owner does not know of: Pin fails, and the marker is gone.
func TestPinWithLostAnswerLeavesNoMarker(t *testing.T) {
	mem := memblob.New()
	d := &scriptedDriver{Driver: mem}
	s := blobstore.New(d, blobstore.Options{})
	defer s.Close()
	ctx := t.Context()
	a, err := s.Put(ctx, "acme", strings.NewReader("x"), "")
	require.NoError(t, err)
	d.fail = once("put", "/pin/", "lost")
	require.Error(t, s.Pin(ctx, "acme", a.Ref, "chain-1"))
	for _, k := range allKeys(t, mem, "b/") {
		require.NotContains(t, k, "/pin/", "a pin marker its owner was told failed")
	}
}

// A Delete that fails part way is finished by the next one: no pin
// marker (nor anything else) is left for Sweep's hour of grace.
func TestDeleteFinishesAnEarlierPartialRemoval(t *testing.T) {
	for _, tc := range []struct{ name, suffix, how string }{
		{"pin marker delete fails", "/pin/", "before"},
		{"data delete fails", "/data", "before"},
		{"data delete answer lost", "/data", "lost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memblob.New()
			d := &scriptedDriver{Driver: mem}
			s := blobstore.New(d, blobstore.Options{})
			defer s.Close()
			ctx := t.Context()
			a, err := s.Put(ctx, "acme", strings.NewReader("x"), "")
			require.NoError(t, err)
			require.NoError(t, s.Pin(ctx, "acme", a.Ref, "park:c:1"))
			d.fail = once("delete", tc.suffix, tc.how)
			require.Error(t, s.Delete(ctx, "acme", a.Ref), "the first Delete fails part way")
			require.Equal(t, blobstore.ErrNotFound, s.Delete(ctx, "acme", a.Ref))
			require.Empty(t, allKeys(t, mem, "b/"))
		})
	}
}

// Unpinning a blob a removal left half gone deletes the owner's marker.
func TestUnpinDropsTheMarkerOfARemovedBlob(t *testing.T) {
	mem := memblob.New()
	d := &scriptedDriver{Driver: mem}
	s := blobstore.New(d, blobstore.Options{})
	defer s.Close()
	ctx := t.Context()
	a, err := s.Put(ctx, "acme", strings.NewReader("x"), "")
	require.NoError(t, err)
	require.NoError(t, s.Pin(ctx, "acme", a.Ref, "chain-1"))
	d.fail = func(op, key string) string {
		if op == "delete" && strings.Contains(key, "/pin/") {
			return "before"
		}
		return ""
	}
	require.Error(t, s.Delete(ctx, "acme", a.Ref))
	d.fail = nil
	require.Equal(t, blobstore.ErrNotFound, s.Unpin(ctx, "acme", a.Ref, "chain-1"))
	for _, k := range allKeys(t, mem, "b/") {
		require.NotContains(t, k, "/pin/")
	}
}

// UnpinOwner lists at most MaxUnpinOwnerKeys keys of a tenant: it
// withdraws the pins it found and says it stopped.
func TestUnpinOwnerIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100,000 keys")
	}
	mem := memblob.New()
	s := blobstore.New(mem, blobstore.Options{})
	defer s.Close()
	ctx := t.Context()
	a, err := s.Put(ctx, "acme", strings.NewReader("x"), "")
	require.NoError(t, err)
	require.NoError(t, s.Pin(ctx, "acme", a.Ref, "chain-1"))
	// Listed after the blob's keys ("zz…" sorts last): keys past the cap.
	for i := range blobstore.MaxUnpinOwnerKeys {
		require.NoError(t, mem.Put(ctx, fmt.Sprintf("b/acme/zz%07d", i), bytes.NewReader(nil), blobstore.PutOptions{}))
	}
	n, err := s.UnpinOwner(ctx, "acme", "chain-1")
	require.ErrorIs(t, err, blobstore.ErrTooManyKeys)
	require.Equal(t, 1, n, "the pin found before the cap is withdrawn")
}

// A create-only write under a fresh random key (a blob's bytes or
// metadata, a removal's claim) that hears "exists" was raced by its own
// retry: it succeeded, and a Store never returns ErrExist.
func TestOwnRacedCreateIsAWin(t *testing.T) {
	for _, tc := range []struct{ name, op, suffix string }{
		{"put data", "put", "/data"},
		{"put meta", "put", "/meta"},
		{"delete claim", "put", "/claim/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memblob.New()
			d := &scriptedDriver{Driver: mem}
			s := blobstore.New(d, blobstore.Options{})
			defer s.Close()
			ctx := t.Context()
			d.fail = once(tc.op, tc.suffix, "raced")
			a, err := s.Put(ctx, "acme", strings.NewReader("x"), "")
			require.NoError(t, err)
			require.NoError(t, s.Pin(ctx, "acme", a.Ref, "park:c:1"))
			require.NoError(t, s.Delete(ctx, "acme", a.Ref))
			require.Empty(t, allKeys(t, mem, "b/"))
		})
	}
}
