package blobstore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/blobstore/storetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestSentinelErrors(t *testing.T) {
	for _, err := range []error{
		blobstore.ErrNotFound, blobstore.ErrInvalidTenant, blobstore.ErrInvalidOwner,
		blobstore.ErrInvalidContentType, blobstore.ErrInvalidRange, blobstore.ErrTooLarge,
		blobstore.ErrClosed, blobstore.ErrCorrupt, blobstore.ErrExist, blobstore.ErrInvalidKey, blobstore.ErrTooManyKeys,
	} {
		require.True(t, strings.HasPrefix(err.Error(), "blobstore: "), err.Error())
	}
}

func TestDefaultTTL(t *testing.T) {
	ctx := t.Context()
	clk := &clock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := blobstore.New(memblob.New(), blobstore.Options{Clock: clk.Now})
	defer s.Close()
	require.Equal(t, blobstore.DefaultTTL, s.TTL())
	short := blobstore.New(memblob.New(), blobstore.Options{TTL: time.Minute})
	defer short.Close()
	require.Equal(t, time.Minute, short.TTL())
	a, err := s.Put(ctx, "acme", strings.NewReader("x"), "")
	require.NoError(t, err)
	require.Equal(t, clk.Now(), a.Created)
	clk.Advance(blobstore.DefaultTTL - time.Nanosecond)
	_, err = s.Stat(ctx, "acme", a.Ref)
	require.NoError(t, err)
	clk.Advance(time.Nanosecond)
	_, err = s.Stat(ctx, "acme", a.Ref)
	require.Equal(t, blobstore.ErrNotFound, err)
}

// discardDriver swallows Puts, to push large streams through a Store.
type discardDriver struct{ *memblob.Driver }

func (d discardDriver) Put(ctx context.Context, key string, r io.Reader, opts blobstore.PutOptions) error {
	if strings.HasSuffix(key, "/data") {
		_, err := io.Copy(io.Discard, r)
		return err
	}
	return d.Driver.Put(ctx, key, r, opts)
}

func TestDefaultMaxBlobBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 1 GiB; skipped with -short")
	}
	s := blobstore.New(discardDriver{memblob.New()}, blobstore.Options{})
	defer s.Close()
	a, err := s.Put(t.Context(), "acme", storetest.NewDataReader(1, blobstore.DefaultMaxBlobBytes), "")
	require.NoError(t, err)
	require.Equal(t, blobstore.DefaultMaxBlobBytes, a.Size)
	_, err = s.Put(t.Context(), "acme", storetest.NewDataReader(1, blobstore.DefaultMaxBlobBytes+1), "")
	require.ErrorIs(t, err, blobstore.ErrTooLarge)
}

// lazyDriver returns from Put without reading everything: a driver bug the
// Store must not turn into a truncated blob.
type lazyDriver struct{ *memblob.Driver }

func (d lazyDriver) Put(ctx context.Context, key string, r io.Reader, opts blobstore.PutOptions) error {
	if strings.HasSuffix(key, "/data") {
		return d.Driver.Put(ctx, key, io.LimitReader(r, 3), opts)
	}
	return d.Driver.Put(ctx, key, r, opts)
}

func TestPutRejectsShortDriverRead(t *testing.T) {
	d := memblob.New()
	s := blobstore.New(lazyDriver{d}, blobstore.Options{})
	defer s.Close()
	_, err := s.Put(t.Context(), "acme", strings.NewReader("more than three bytes"), "")
	require.ErrorContains(t, err, "driver bug")
	require.NoError(t, d.List(t.Context(), "", func(e blobstore.Entry) error {
		return fmt.Errorf("left behind: %s", e.Key)
	}))
}

func TestSweepLeavesForeignKeysAlone(t *testing.T) {
	ctx := t.Context()
	d := memblob.New()
	for _, k := range []string{"b/x", "b/acme/short/data", "other/thing", "b/acme/" + strings.Repeat("a", 32)} {
		require.NoError(t, d.Put(ctx, k, strings.NewReader("x"), blobstore.PutOptions{}))
	}
	clk := &clock{now: time.Now()}
	s := blobstore.New(d.Reopen(), blobstore.Options{Clock: clk.Now})
	defer s.Close()
	clk.Advance(1000 * time.Hour)
	stats, err := s.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, blobstore.SweepStats{}, stats)
	n := 0
	require.NoError(t, d.List(ctx, "", func(blobstore.Entry) error { n++; return nil }))
	require.Equal(t, 4, n)
}

func TestCorruptMetadata(t *testing.T) {
	ctx := t.Context()
	d := memblob.New()
	s := blobstore.New(d.Reopen(), blobstore.Options{})
	defer s.Close()
	a, err := s.Put(ctx, "acme", strings.NewReader("x"), "")
	require.NoError(t, err)
	meta := "b/acme/" + strings.TrimPrefix(a.Ref, "blob_") + "/meta"
	require.NoError(t, d.Put(ctx, meta, strings.NewReader("{not json"), blobstore.PutOptions{}))
	_, err = s.Stat(ctx, "acme", a.Ref)
	require.ErrorIs(t, err, blobstore.ErrCorrupt)
}

// countingDriver counts the reads that reach the driver.
type countingDriver struct {
	*memblob.Driver
	calls atomic.Int64
}

func (d *countingDriver) Get(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	d.calls.Add(1)
	return d.Driver.Get(ctx, key, off, n)
}

func (d *countingDriver) Stat(ctx context.Context, key string) (blobstore.Entry, error) {
	d.calls.Add(1)
	return d.Driver.Stat(ctx, key)
}

func TestBadRefsNeverReachTheDriver(t *testing.T) {
	d := &countingDriver{Driver: memblob.New()}
	s := blobstore.New(d, blobstore.Options{})
	defer s.Close()
	a, err := s.Put(t.Context(), "acme", strings.NewReader("x"), "")
	require.NoError(t, err)
	d.calls.Store(0)
	for _, ref := range []string{"", "../../etc/passwd", a.Ref + "x", a.Ref[:36], strings.ToUpper(a.Ref)} {
		_, err := s.Stat(t.Context(), "acme", ref)
		require.Equal(t, blobstore.ErrNotFound, err)
		_, err = s.Stat(t.Context(), "other", a.Ref)
		require.Equal(t, blobstore.ErrNotFound, err)
	}
	require.Zero(t, d.calls.Load())
}

func TestRunSweeper(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	clk := &clock{now: time.Now()}
	s := blobstore.New(memblob.New(), blobstore.Options{Clock: clk.Now, TTL: time.Minute})
	defer s.Close()
	a, err := s.Put(ctx, "acme", strings.NewReader("x"), "")
	require.NoError(t, err)
	require.NoError(t, s.Pin(ctx, "acme", a.Ref, "s"))
	b, err := s.Put(ctx, "acme", strings.NewReader("y"), "")
	require.NoError(t, err)

	done := make(chan struct{})
	go func() {
		defer close(done)
		s.RunSweeper(ctx, time.Millisecond)
	}()
	clk.Advance(2 * time.Minute)
	require.Eventually(t, func() bool {
		_, err := s.OpenRange(ctx, "acme", b.Ref, 0, 1)
		return errors.Is(err, blobstore.ErrNotFound)
	}, 10*time.Second, time.Millisecond)
	_, err = s.Stat(ctx, "acme", a.Ref)
	require.NoError(t, err)
	cancel()
	<-done
}

// TestHammer runs every operation from many goroutines on two Stores over
// shared storage; run it with -race.
func TestHammer(t *testing.T) {
	ctx := t.Context()
	d := memblob.New()
	clk := &clock{now: time.Now()}
	stores := []*blobstore.Store{
		blobstore.New(d.Reopen(), blobstore.Options{Clock: clk.Now, TTL: time.Minute}),
		blobstore.New(d.Reopen(), blobstore.Options{Clock: clk.Now, TTL: time.Minute}),
	}
	defer func() {
		for _, s := range stores {
			s.Close()
		}
	}()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			s := stores[g%2]
			for i := range 50 {
				data := fmt.Sprintf("g%d-i%d", g, i)
				a, err := s.Put(ctx, "acme", strings.NewReader(data), "text/plain")
				if err != nil {
					t.Errorf("put: %v", err)
					return
				}
				owner := fmt.Sprintf("g%d", g)
				if err := s.Pin(ctx, "acme", a.Ref, owner); err != nil {
					t.Errorf("pin: %v", err)
					return
				}
				clk.Advance(time.Second)
				if _, err := stores[(g+1)%2].Sweep(ctx); err != nil {
					t.Errorf("sweep: %v", err)
				}
				rc, _, err := stores[(g+1)%2].Open(ctx, "acme", a.Ref)
				if err != nil {
					t.Errorf("open pinned: %v", err)
					return
				}
				b, _ := io.ReadAll(rc)
				rc.Close()
				if string(b) != data {
					t.Errorf("read %q, want %q", b, data)
				}
				if err := s.Unpin(ctx, "acme", a.Ref, owner); err != nil {
					t.Errorf("unpin: %v", err)
				}
			}
		})
	}
	wg.Wait()
	clk.Advance(time.Hour)
	_, err := stores[0].Sweep(ctx)
	require.NoError(t, err)
	n := 0
	require.NoError(t, d.List(ctx, "", func(blobstore.Entry) error { n++; return nil }))
	require.Zero(t, n)
}

// TestOptionsDocumented keeps the Options fields in step with the defaults
// that New applies.
func TestOptionsDocumented(t *testing.T) {
	fields := reflect.VisibleFields(reflect.TypeFor[blobstore.Options]())
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	require.Equal(t, []string{"TTL", "MaxBlobBytes", "RecordTTL", "Clock", "Logger"}, names)
}
