package faultblob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/faultblob"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/blobstore/storetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestConformance: with its faults off, the wrapper is its driver.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		d := memblob.New()
		return func() blobstore.Driver {
			f := faultblob.New(d.Reopen(), faultblob.Options{Seed: 1, Faults: faultblob.Faults{ErrorRate: 1}})
			f.SetFaults(false)
			return f
		}
	})
}

func get(t *testing.T, d blobstore.Driver, key string) (string, error) {
	t.Helper()
	rc, err := d.Get(context.Background(), key, 0, -1)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return string(b), nil
}

func TestFaults(t *testing.T) {
	ctx := context.Background()
	put := func(f *faultblob.Driver, key, v string, createOnly bool) error {
		return f.Put(ctx, key, bytes.NewReader([]byte(v)), blobstore.PutOptions{CreateOnly: createOnly})
	}
	for _, tc := range []struct {
		name   string
		faults faultblob.Faults
		check  func(t *testing.T, f *faultblob.Driver, under blobstore.Driver)
	}{
		{"error: nothing reaches the store", faultblob.Faults{ErrorRate: 1}, func(t *testing.T, f *faultblob.Driver, under blobstore.Driver) {
			require.ErrorIs(t, put(f, "a", "1", false), faultblob.ErrInjected)
			_, err := under.Stat(ctx, "a")
			require.ErrorIs(t, err, blobstore.ErrNotFound)
			_, err = f.Get(ctx, "a", 0, -1)
			require.ErrorIs(t, err, faultblob.ErrInjected)
			require.ErrorIs(t, f.List(ctx, "", func(blobstore.Entry) error { return nil }), faultblob.ErrInjected)
			require.Equal(t, int64(3), f.Stats().Errors)
		}},
		{"lost: the write happened", faultblob.Faults{LostRate: 1}, func(t *testing.T, f *faultblob.Driver, under blobstore.Driver) {
			require.ErrorIs(t, put(f, "a", "1", true), faultblob.ErrInjected)
			v, err := get(t, under, "a")
			require.NoError(t, err)
			require.Equal(t, "1", v)
			require.ErrorIs(t, f.Delete(ctx, "a"), faultblob.ErrInjected)
			_, err = under.Stat(ctx, "a")
			require.ErrorIs(t, err, blobstore.ErrNotFound)
			v, err = get(t, f, "missing")
			require.ErrorIs(t, err, blobstore.ErrNotFound, "reads are not lost: %q", v)
			require.Equal(t, int64(2), f.Stats().Lost)
		}},
		{"race: stored once, either answer", faultblob.Faults{RaceRate: 1}, func(t *testing.T, f *faultblob.Driver, under blobstore.Driver) {
			answers := map[bool]int{}
			for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
				err := put(f, k, k, true)
				if err != nil {
					require.ErrorIs(t, err, blobstore.ErrExist)
				}
				answers[err == nil]++
				v, err := get(t, under, k)
				require.NoError(t, err)
				require.Equal(t, k, v)
			}
			require.Len(t, answers, 2, "some writers hear they won, some that they lost: %v", answers)
			require.NoError(t, put(f, "z", "1", false), "a replacing write does not race")
			require.Equal(t, int64(12), f.Stats().Races)
		}},
		{"latency: bounded by the context", faultblob.Faults{LatencyRate: 1, MaxLatency: time.Hour}, func(t *testing.T, f *faultblob.Driver, _ blobstore.Driver) {
			cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			defer cancel()
			_, err := f.Stat(cctx, "a")
			require.ErrorIs(t, err, context.DeadlineExceeded)
		}},
		{"off: passes through", faultblob.Faults{ErrorRate: 1, LostRate: 1}, func(t *testing.T, f *faultblob.Driver, _ blobstore.Driver) {
			f.SetFaults(false)
			require.NoError(t, put(f, "a", "1", true))
			require.ErrorIs(t, put(f, "a", "1", true), blobstore.ErrExist)
			require.Equal(t, faultblob.Stats{Ops: 2}, f.Stats())
		}},
		{"kill: nothing more reaches the store", faultblob.Faults{}, func(t *testing.T, f *faultblob.Driver, under blobstore.Driver) {
			require.NoError(t, put(f, "a", "1", false))
			f.Kill()
			require.ErrorIs(t, put(f, "b", "1", false), faultblob.ErrKilled)
			_, err := under.Stat(ctx, "b")
			require.ErrorIs(t, err, blobstore.ErrNotFound)
			_, err = f.Stat(ctx, "a")
			require.ErrorIs(t, err, faultblob.ErrKilled)
			require.True(t, faultblob.IsInjected(err))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			under := memblob.New()
			f := faultblob.New(under.Reopen(), faultblob.Options{Seed: 7, Faults: tc.faults})
			defer f.Close()
			tc.check(t, f, under)
		})
	}
}

// TestSeed: one seed draws the same faults in the same order.
func TestSeed(t *testing.T) {
	run := func(seed uint64) []bool {
		f := faultblob.New(memblob.New(), faultblob.Options{Seed: seed, Faults: faultblob.Faults{ErrorRate: 0.5}})
		defer f.Close()
		var out []bool
		for range 64 {
			_, err := f.Stat(context.Background(), "k")
			out = append(out, errors.Is(err, faultblob.ErrInjected))
		}
		return out
	}
	require.Equal(t, run(3), run(3))
	require.NotEqual(t, run(3), run(4))
}

func TestSkew(t *testing.T) {
	f := faultblob.New(memblob.New(), faultblob.Options{Skew: -time.Hour})
	defer f.Close()
	require.WithinDuration(t, time.Now().Add(-time.Hour), f.Now(), time.Minute)
}
