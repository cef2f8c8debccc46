package durable_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/session"
)

// The fleet's answers to THREATS.md T6 (a store call fails or loses its
// answer, a process dies between two writes), one fault at a time on a
// driver that fails the calls a test names.

// flaky fails the driver calls its rules match: "before" (the call does
// not reach the store) or "lost" (it happens, its answer is an error).
// A rule with times < 0 matches for ever.
type flaky struct {
	blobstore.Driver
	mu    sync.Mutex
	rules []*rule
}

type rule struct {
	op, has, how string
	times        int
}

var errFlaky = errors.New("flaky: injected")

func (f *flaky) fail(op, key, how string, times int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, &rule{op: op, has: key, how: how, times: times})
}

func (f *flaky) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = nil
}

func (f *flaky) plan(op, key string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules {
		if r.op == op && strings.Contains(key, r.has) && r.times != 0 {
			r.times--
			return r.how
		}
	}
	return ""
}

func (f *flaky) Put(ctx context.Context, key string, r io.Reader, o blobstore.PutOptions) error {
	switch f.plan("put", key) {
	case "before":
		return fmt.Errorf("put %s: %w", key, errFlaky)
	case "lost":
		if err := f.Driver.Put(ctx, key, r, o); err != nil {
			return err
		}
		return fmt.Errorf("put %s: %w (answer lost)", key, errFlaky)
	}
	return f.Driver.Put(ctx, key, r, o)
}

func (f *flaky) Delete(ctx context.Context, key string) error {
	switch f.plan("delete", key) {
	case "before":
		return fmt.Errorf("delete %s: %w", key, errFlaky)
	case "lost":
		_ = f.Driver.Delete(ctx, key)
		return fmt.Errorf("delete %s: %w (answer lost)", key, errFlaky)
	}
	return f.Driver.Delete(ctx, key)
}

func (f *flaky) Stat(ctx context.Context, key string) (blobstore.Entry, error) {
	if f.plan("stat", key) != "" {
		return blobstore.Entry{}, fmt.Errorf("stat %s: %w", key, errFlaky)
	}
	return f.Driver.Stat(ctx, key)
}

// flakyFleet is a process on a flaky driver, and one that reads the same
// storage without faults.
func flakyFleet(t *testing.T, lease time.Duration) (*durable.Store, *durable.Store, *flaky, *memblob.Driver) {
	mem := memblob.New()
	f := &flaky{Driver: mem.Reopen()}
	s, err := durable.New(durable.Options{Blobs: blobstore.New(f, blobstore.Options{}), Key: key, Node: "node-a", Lease: lease})
	require.NoError(t, err)
	clean, err := durable.New(durable.Options{Blobs: blobstore.New(mem.Reopen(), blobstore.Options{}), Key: key, Node: "node-b", Lease: lease})
	require.NoError(t, err)
	return s, clean, f, mem
}

// entries lists the fleet index as Scan reads it.
func entries(t *testing.T, s *durable.Store) map[string]durable.Live {
	out := map[string]durable.Live{}
	require.NoError(t, s.Scan(context.Background(), func(l durable.Live) error {
		out[l.ID] = l
		return nil
	}))
	return out
}

// pinsOf counts the pin markers in the storage.
func pinsOf(t *testing.T, d blobstore.Driver) int {
	n := 0
	require.NoError(t, d.List(context.Background(), "", func(e blobstore.Entry) error {
		if strings.Contains(e.Key, "/pin/") {
			n++
		}
		return nil
	}))
	return n
}

// A chain's index entry is written before its record: a record the index
// does not list would be lost with its process, since the reaper finds
// chains through the index.
func TestPutChainWritesTheIndexFirst(t *testing.T) {
	ctx := context.Background()
	const lease = 100 * time.Millisecond
	s, clean, f, _ := flakyFleet(t, lease)
	c := &durable.Chain{ID: "ch_indexfirst", Tenant: "acme", Status: durable.StatusRunning, Node: "node-a",
		Lease: time.Now().Add(lease), Created: time.Now()}
	f.fail("put", "r/_fleet/live/", "before", -1)
	require.Error(t, s.PutChain(ctx, c))
	_, err := clean.GetChain(ctx, "acme", c.ID)
	require.ErrorIs(t, err, durable.ErrNotFound, "no record without its index entry")

	// The record's write fails after the entry's: the entry is there,
	// and the reaper (Reconcile, then Interrupt) ends the chain.
	f.clear()
	require.NoError(t, s.PutChain(ctx, c))
	c.Status, c.Gen, c.Lease = durable.StatusParked, 1, time.Time{}
	f.fail("put", "/chains/"+c.ID+"/rec", "before", -1)
	require.Error(t, s.PutChain(ctx, c))
	l := entries(t, clean)[c.ID]
	require.Equal(t, durable.StatusParked, l.Status, "the entry went first")
	time.Sleep(2*lease + 50*time.Millisecond) // the record's lease lapses by a lease
	l, ok, err := clean.Reconcile(ctx, l)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, durable.StatusRunning, l.Status, "the record wins")
	require.Equal(t, durable.StatusRunning, entries(t, clean)[c.ID].Status, "and the entry is rewritten")
	won, err := clean.Interrupt(ctx, "acme", c.ID)
	require.NoError(t, err)
	require.False(t, won, "seen lapsed once")
	time.Sleep(lease / 2)
	won, err = clean.Interrupt(ctx, "acme", c.ID)
	require.NoError(t, err)
	require.True(t, won)
}

// Reconcile puts an index entry right by the chain's record.
func TestReconcile(t *testing.T) {
	ctx := context.Background()
	past := time.Now().Add(-time.Hour)
	for _, tc := range []struct {
		name   string
		record *durable.Chain // nil: none
		ended  bool
		decide bool
		entry  durable.Live
		want   string // the entry's status after, "" for dropped
		wantOK bool
	}{
		{name: "no record, lease lapsed: forgotten", entry: durable.Live{Status: durable.StatusRunning, Lease: past}},
		{name: "no record, lease live: kept", entry: durable.Live{Status: durable.StatusRunning, Lease: time.Now().Add(time.Hour)},
			want: durable.StatusRunning, wantOK: true},
		{name: "record parked, entry running: parked, decided", record: &durable.Chain{Status: durable.StatusParked, Gen: 1},
			decide: true, entry: durable.Live{Status: durable.StatusRunning, Lease: past}, want: durable.StatusParked, wantOK: true},
		{name: "record running, entry parked: running", record: &durable.Chain{Status: durable.StatusRunning, Lease: past, Node: "node-x"},
			entry: durable.Live{Status: durable.StatusParked, Gen: 1}, want: durable.StatusRunning, wantOK: true},
		{name: "chain ended: forgotten", record: &durable.Chain{Status: durable.StatusRunning}, ended: true,
			entry: durable.Live{Status: durable.StatusParked, Gen: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clean, _, _ := flakyFleet(t, time.Second)
			id := "ch_reconcile"
			if rec := tc.record; rec != nil {
				rec.ID, rec.Tenant, rec.Created = id, "acme", time.Now()
				if rec.Status == durable.StatusParked {
					a := approval(id, 1, `{"to":"x"}`)
					require.NoError(t, s.SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 1, Created: time.Now(),
						Expires: time.Now().Add(time.Hour), Approvals: []durable.Approval{a}, State: []byte("s")}))
					if tc.decide {
						_, err := s.Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: a.ArgsHash})
						require.NoError(t, err)
					}
					a.Args = nil
					rec.Pending = []durable.Approval{a}
				}
				require.NoError(t, s.PutChain(ctx, rec))
				if tc.ended {
					rec.Status = "ok"
					won, err := s.Finish(ctx, rec)
					require.NoError(t, err)
					require.True(t, won)
				}
			}
			l := tc.entry
			l.Tenant, l.ID = "acme", id
			b, _ := json.Marshal(l)
			plantLive(t, clean, l, b)
			got, ok, err := clean.Reconcile(ctx, l)
			require.NoError(t, err)
			require.Equal(t, tc.wantOK, ok)
			stored, listed := entries(t, clean)[id]
			if tc.want == "" {
				require.False(t, listed, "the entry is dropped")
				return
			}
			require.Equal(t, tc.want, got.Status)
			require.Equal(t, tc.want, stored.Status)
			require.Equal(t, tc.decide, stored.Decided)
		})
	}
}

// plantLive writes an authentic index entry, as a process would have.
func plantLive(t *testing.T, s *durable.Store, l durable.Live, body []byte) {
	// The chain's own record write puts the entry; to make it disagree,
	// write it the way PutChain does (signed under the fleet key).
	bs := s.Blobs()
	require.NoError(t, bs.PutRecord(context.Background(), blobstore.FleetTenant, "live/"+l.Tenant+"/"+l.ID,
		durable.SignForTest(s, durable.KindIndex, l.Tenant, l.ID, 0, body), false))
}

// A park survives one failed or lost store call at each of its writes:
// each is tried again, and a create-only seal whose answer was lost is
// recognised as written.
func TestParkSurvivesATransientStoreError(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ op, has, how string }{
		{"put", "/data", "before"},
		{"put", "/approvals/", "before"},
		{"put", "/park/1", "before"},
		{"put", "/park/1", "lost"},
		{"put", "/pin/", "before"},
		{"put", "/pin/", "lost"},
		{"stat", "/end", "before"},
		{"put", "r/_fleet/live/", "before"},
		{"put", "/rec", "lost"},
	} {
		t.Run(tc.op+" "+tc.has+" "+tc.how, func(t *testing.T) {
			s, clean, f, mem := flakyFleet(t, time.Minute)
			id := "ch_transient"
			require.NoError(t, s.PutChain(ctx, &durable.Chain{ID: id, Tenant: "acme", Status: durable.StatusRunning, Node: "node-a",
				Lease: time.Now().Add(time.Minute), Created: time.Now()}))
			a := approval(id, 1, `{"to":"x"}`)
			f.fail(tc.op, tc.has, tc.how, 1)
			require.NoError(t, s.SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 1, Created: time.Now(),
				Expires: time.Now().Add(time.Hour), Approvals: []durable.Approval{a}, State: []byte("state")}))
			a.Args = nil
			require.NoError(t, s.PutChain(ctx, &durable.Chain{ID: id, Tenant: "acme", Status: durable.StatusParked, Gen: 1,
				Node: "node-a", Created: time.Now(), Pending: []durable.Approval{a}}))
			p, err := clean.LoadPark(ctx, "acme", id, 1)
			require.NoError(t, err)
			require.Equal(t, "state", string(p.State))
			c, err := clean.GetChain(ctx, "acme", id)
			require.NoError(t, err)
			require.Equal(t, durable.StatusParked, c.Status)
			require.Equal(t, durable.StatusParked, entries(t, clean)[id].Status)
			require.Equal(t, 1, pinsOf(t, mem), "the state is pinned once")
		})
	}
}

// A chain interrupted after its process was lost releases every pin it
// held: an artifact its session pinned before any record named it, and a
// parked state written after its record was read (or an earlier one a
// release failed to delete).
func TestInterruptReleasesUnrecordedPins(t *testing.T) {
	ctx := context.Background()
	s, clean, _, mem := flakyFleet(t, time.Millisecond)
	id := "ch_unrecorded"
	start := time.Now().Add(-time.Minute)
	require.NoError(t, s.PutChain(ctx, &durable.Chain{ID: id, Tenant: "acme", Status: durable.StatusRunning, Node: "node-a",
		Lease: start, Created: start, Trace: []session.Record{{Seq: 1, Tool: "lookup", Status: session.StatusOK}}}))
	bs := s.Blobs()
	art, err := bs.Put(ctx, "acme", strings.NewReader("artifact"), "text/plain")
	require.NoError(t, err)
	require.NoError(t, bs.Pin(ctx, "acme", art.Ref, id), "pinned by the session; no record names it")
	for _, gen := range []int{1, 2} {
		require.NoError(t, s.SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: gen, Created: time.Now(),
			Expires: time.Now().Add(time.Hour), State: []byte(fmt.Sprint("state ", gen))}))
	}
	require.Equal(t, 3, pinsOf(t, mem))
	won, err := clean.Interrupt(ctx, "acme", id)
	require.NoError(t, err)
	require.False(t, won, "seen lapsed once")
	time.Sleep(time.Millisecond)
	won, err = clean.Interrupt(ctx, "acme", id)
	require.NoError(t, err)
	require.True(t, won)
	require.Zero(t, pinsOf(t, mem), "no pin is left")
	_, err = clean.LoadPark(ctx, "acme", id, 1)
	require.ErrorIs(t, err, durable.ErrNotFound)
}

// ReleaseParks deletes every parked generation a chain left.
func TestReleaseParksDeletesEveryGeneration(t *testing.T) {
	ctx := context.Background()
	s, clean, _, mem := flakyFleet(t, time.Minute)
	id := "ch_gens"
	for _, gen := range []int{1, 2, 4} {
		require.NoError(t, s.SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: gen, Created: time.Now(),
			Expires: time.Now().Add(time.Hour), State: []byte("same state")}))
	}
	require.Equal(t, 3, pinsOf(t, mem))
	require.NoError(t, clean.ReleaseParks(ctx, "acme", id))
	require.Zero(t, pinsOf(t, mem))
	for _, gen := range []int{1, 2, 4} {
		_, err := clean.LoadPark(ctx, "acme", id, gen)
		require.ErrorIs(t, err, durable.ErrNotFound)
	}
}
