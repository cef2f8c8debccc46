package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/session"
)

// refs returns n real refs of tenant from an in-memory store.
func refs(t *testing.T, tenant string, n int) []string {
	store := blobstore.New(memblob.New(), blobstore.Options{})
	t.Cleanup(func() { _ = store.Close() })
	out := make([]string, n)
	for i := range out {
		a, err := store.Put(context.Background(), tenant, strings.NewReader("x"), "text/plain")
		require.NoError(t, err)
		out[i] = a.Ref
	}
	return out
}

// viaJSON sends st through JSON, as a parked chain's state travels.
func viaJSON(t *testing.T, st session.State) session.State {
	b, err := json.Marshal(st)
	require.NoError(t, err)
	var out session.State
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// TestStateRoundTrip: a session exported, sent through JSON and restored
// continues where it was: calls, trace, readable and pinned refs, file
// indexes, artifact bytes, allow-list, park mode and governance history;
// its Close unpins exactly what it had pinned.
func TestStateRoundTrip(t *testing.T) {
	ctx := context.Background()
	pins := newPinLog()
	r := refs(t, "acme", 3) // granted, pinned, pinned
	s := session.New(session.Options{ID: "s_park", Tenant: "acme", Pins: pins, Grants: r[:1],
		Tools: []string{"a", "b"}, ParkApprovals: true})
	for i := 0; i < 3; i++ {
		require.True(t, s.Acquire(10))
	}
	s.Append(session.Record{Tool: "a", Status: session.StatusOK, Refs: []string{r[1]}})
	s.Append(session.Record{Tool: "b", Status: session.StatusDenied, Reason: "approval_denied"})
	require.NoError(t, s.Pin(ctx, r[1]))
	require.NoError(t, s.Pin(ctx, r[2]))
	require.Equal(t, 0, s.NextFileIndex("img"))
	_, ok := s.ChargeArtifacts(1234, 1<<20)
	require.True(t, ok)
	require.NoError(t, s.Governance().RestoreHistory(govern.HistoryState{Facts: map[string]int{"read:x": 2}}))
	g := govern.New(govern.Options{})
	c := govern.Call{Tool: "a"}
	require.Nil(t, g.Admit(s.Governance(), c))
	g.Done(s.Governance(), c, true)

	st := viaJSON(t, s.State())
	require.NoError(t, st.Validate(0))
	pins2 := newPinLog() // another process: the pins live in the shared store
	for _, ref := range r[1:] {
		require.NoError(t, pins2.Pin(ctx, "acme", ref, "s_park"))
	}
	ch := govern.NewChain(&govern.Profile{Name: "re-resolved"})
	got, err := session.Restore(st, session.Options{Pins: pins2, Governance: ch, ID: "ignored", Tenant: "ignored"})
	require.NoError(t, err)

	require.Equal(t, "s_park", got.ID())
	require.Equal(t, "acme", got.Tenant())
	require.Equal(t, 3, got.Calls())
	require.Equal(t, s.Trace(), got.Trace())
	for _, ref := range r {
		require.True(t, got.CanRead(ref), ref)
	}
	require.False(t, got.CanRead("blob_other"))
	require.Equal(t, []string{r[1], r[2]}, got.Pinned())
	require.Equal(t, 1, got.NextFileIndex("img"), "file indexes continue")
	require.Equal(t, 0, got.NextFileIndex("pdf"))
	require.EqualValues(t, 1234, got.ArtifactBytes())
	require.True(t, got.Allows("a"))
	require.False(t, got.Allows("c"))
	require.True(t, got.ParksApprovals())
	require.Same(t, ch, got.Governance())
	require.Equal(t, "re-resolved", got.Governance().Profile().Name)
	require.Equal(t, s.Governance().History().State(), got.Governance().History().State())
	require.Equal(t, 3, got.Append(session.Record{Tool: "a", Status: session.StatusOK}).Seq, "numbering continues")
	n, ok := got.AcquireNumber(4)
	require.True(t, ok)
	require.Equal(t, 4, n, "the budget continues")

	require.NoError(t, got.Close(ctx))
	require.Equal(t, 0, pins2.count(), "Close unpins exactly the restored pins")
}

// TestStateAllowList: nil (every tool) and empty (no tool) allow-lists
// survive JSON.
func TestStateAllowList(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tools []string
		allow bool
	}{{"nil allows all", nil, true}, {"empty allows none", []string{}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			st := viaJSON(t, session.New(session.Options{Tools: tc.tools}).State())
			got, err := session.Restore(st, session.Options{})
			require.NoError(t, err)
			require.Equal(t, tc.allow, got.Allows("x"))
			require.False(t, got.ParksApprovals())
		})
	}
}

// TestStateFullTrace: a trace that was full stays full after a restore
// under a larger MaxTrace, so its numbering stays whole.
func TestStateFullTrace(t *testing.T) {
	s := session.New(session.Options{MaxTrace: 2})
	for i := 0; i < 3; i++ {
		s.Append(session.Record{Status: session.StatusOK})
	}
	got, err := session.Restore(viaJSON(t, s.State()), session.Options{MaxTrace: 100})
	require.NoError(t, err)
	require.Equal(t, 4, got.Append(session.Record{Status: session.StatusOK}).Seq)
	require.Len(t, got.Trace(), 2)
	require.Equal(t, 2, got.Dropped())
	require.NoError(t, got.State().Validate(100))
}

// TestRestoreRefusesBadStates: Restore checks what it is given and says
// what is wrong; it never panics.
func TestRestoreRefusesBadStates(t *testing.T) {
	r := refs(t, "acme", 1)
	other := refs(t, "globex", 1)
	good := func() session.State {
		return session.State{ID: "s_1", Tenant: "acme", Calls: 2, Seq: 1,
			Trace:    []session.Record{{Seq: 1, Tool: "a", Status: session.StatusOK}},
			Readable: r, Pinned: r, Files: map[string]int{"img": 1}}
	}
	_, err := session.Restore(good(), session.Options{})
	require.NoError(t, err)
	tests := []struct {
		name   string
		mutate func(*session.State)
		opts   session.Options
		want   string
	}{
		{"empty id", func(s *session.State) { s.ID = "" }, session.Options{}, "id must be"},
		{"long id", func(s *session.State) { s.ID = strings.Repeat("x", 257) }, session.Options{}, "id must be"},
		{"bad utf-8 id", func(s *session.State) { s.ID = "\xff" }, session.Options{}, "id must be"},
		{"empty tenant", func(s *session.State) { s.Tenant = "" }, session.Options{}, "tenant"},
		{"bad tenant", func(s *session.State) { s.Tenant = "Acme/../x" }, session.Options{}, "tenant"},
		{"empty tool", func(s *session.State) { s.Tools = []string{""} }, session.Options{}, "empty tool"},
		{"negative calls", func(s *session.State) { s.Calls = -1 }, session.Options{}, "negative"},
		{"negative bytes", func(s *session.State) { s.ArtifactBytes = -1 }, session.Options{}, "negative"},
		{"negative dropped", func(s *session.State) { s.Dropped = -1; s.Seq = 0 }, session.Options{}, "negative"},
		{"seq mismatch", func(s *session.State) { s.Seq = 5 }, session.Options{}, "seq 5"},
		{"trace too long", func(s *session.State) {
			s.Trace = append(s.Trace, session.Record{Seq: 2, Status: session.StatusOK})
			s.Seq = 2
		}, session.Options{MaxTrace: 1}, "at most 1"},
		{"dropped from nothing", func(s *session.State) { s.Trace, s.Dropped, s.Seq = nil, 1, 1 }, session.Options{}, "empty trace"},
		{"misnumbered trace", func(s *session.State) { s.Trace[0].Seq = 7 }, session.Options{}, "numbered 7"},
		{"bad status", func(s *session.State) { s.Trace[0].Status = session.StatusParked }, session.Options{}, "status"},
		{"not a ref", func(s *session.State) { s.Readable, s.Pinned = []string{"r1"}, nil }, session.Options{}, "not a ref"},
		{"another tenant's ref", func(s *session.State) { s.Readable, s.Pinned = other, nil }, session.Options{}, "not a ref"},
		{"unsorted refs", func(s *session.State) { s.Readable = []string{"b", "a"} }, session.Options{}, "sorted"},
		{"twice", func(s *session.State) { s.Readable = []string{r[0], r[0]} }, session.Options{}, "twice"},
		{"pinned unreadable", func(s *session.State) { s.Readable = nil }, session.Options{}, "pinned ref"},
		{"negative file index", func(s *session.State) { s.Files["img"] = -1 }, session.Options{}, "file index"},
		{"empty file tool", func(s *session.State) { s.Files[""] = 0 }, session.Options{}, "file index"},
		{"bad history", func(s *session.State) { s.Governance.Facts = map[string]int{"": 1} }, session.Options{}, "governance"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := good()
			tc.mutate(&st)
			s, err := session.Restore(st, tc.opts)
			require.ErrorIs(t, err, session.ErrInvalidState)
			require.ErrorContains(t, err, tc.want)
			require.Nil(t, s)
			require.ErrorIs(t, st.Validate(tc.opts.MaxTrace), session.ErrInvalidState)
		})
	}
}
