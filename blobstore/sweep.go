package blobstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// SweepStats counts what one Sweep did.
type SweepStats struct {
	// Scanned is the number of blobs examined.
	Scanned int
	// Removed is the number of expired, unpinned blobs removed.
	Removed int
	// RemovedBytes is the total size of the removed blobs, in bytes.
	RemovedBytes int64
	// Pinned is the number of expired-or-not blobs kept because pinned.
	Pinned int
	// Orphans is the number of leftovers of interrupted writes or removals
	// reclaimed (objects without metadata, older than an hour).
	Orphans int
	// Records is the number of records removed: last written more than
	// Options.RecordTTL ago.
	Records int
}

// maxSweepErrors caps how many per-blob errors one Sweep reports.
const maxSweepErrors = 8

// Sweep removes every blob of every tenant that has expired: unpinned for
// longer than Options.TTL. It never removes a pinned blob, even while other
// processes pin, unpin and sweep the same blobs (see Pin). It also reclaims
// leftovers of writes and removals that crashed more than an hour ago.
//
// Sweep keeps going past errors on single blobs and returns them joined
// together with the stats of what it did. ctx bounds the whole sweep.
func (s *Store) Sweep(ctx context.Context) (SweepStats, error) {
	if s.closed.Load() {
		return SweepStats{}, ErrClosed
	}
	var (
		stats SweepStats
		errs  []error
		cur   groupState
		keys  blobKeys
		now   = s.clock()
	)
	flush := func() {
		if keys.group == "" {
			return
		}
		if err := s.sweepGroup(ctx, keys, cur, now, &stats); err != nil && len(errs) < maxSweepErrors {
			errs = append(errs, err)
		}
	}
	err := s.d.List(ctx, keyRoot, func(e Entry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		group, tenant, body, rest, ok := groupOf(e.Key)
		if !ok {
			return nil // not laid out by a Store: leave it alone
		}
		if group != keys.group {
			flush()
			keys = newBlobKeys(tenant, refPrefix+body, body)
			cur = groupState{}
		}
		cur.add(e, rest)
		return nil
	})
	if err == nil {
		flush()
	}
	if err != nil {
		errs = append(errs, s.driverErr("sweep", err))
	}
	// Records: whoever writes them may delete them; what is left past its
	// TTL goes here (by the backend's write time).
	err = s.d.List(ctx, keyRecords, func(e Entry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if now.Sub(e.ModTime) < s.rttl {
			return nil
		}
		if err := s.d.Delete(ctx, e.Key); err != nil {
			if len(errs) < maxSweepErrors {
				errs = append(errs, s.driverErr("sweep record", err))
			}
			return nil
		}
		stats.Records++
		return nil
	})
	if err != nil {
		errs = append(errs, s.driverErr("sweep records", err))
	}
	return stats, errors.Join(errs...)
}

// RunSweeper calls Sweep every interval until ctx ends or the Store is
// closed, and then returns. An interval of zero or less means one minute.
// Sweep errors go to Options.Logger; RunSweeper keeps going.
func (s *Store) RunSweeper(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
		}
		stats, err := s.Sweep(ctx)
		if err != nil && ctx.Err() == nil && !errors.Is(err, ErrClosed) {
			s.log.LogAttrs(ctx, slog.LevelWarn, "blobstore: sweep failed", slog.String("error", err.Error()))
		}
		s.log.LogAttrs(ctx, slog.LevelDebug, "blobstore: sweep done",
			slog.Int("scanned", stats.Scanned), slog.Int("removed", stats.Removed),
			slog.Int64("removed_bytes", stats.RemovedBytes), slog.Int("pinned", stats.Pinned),
			slog.Int("orphans", stats.Orphans))
	}
}

// groupState is what one List of a blob's group shows.
type groupState struct {
	hasMeta     bool
	unpinned    bool
	pins        int
	claims      int     // fresh claims: a sweep or delete is running
	staleClaims []Entry // claims whose owner died
	entries     []Entry
	newest      time.Time
}

func (g *groupState) add(e Entry, rest string) {
	switch {
	case rest == keyMeta:
		g.hasMeta = true
	case rest == keyUnpinned:
		g.unpinned = true
	case strings.HasPrefix(rest, keyPinDir):
		g.pins++
	case strings.HasPrefix(rest, keyClaimDir):
		if time.Since(e.ModTime) >= claimStale {
			g.staleClaims = append(g.staleClaims, e)
		} else {
			g.claims++
		}
	}
	g.entries = append(g.entries, e)
	if e.ModTime.After(g.newest) {
		g.newest = e.ModTime
	}
}

func (s *Store) scanGroup(ctx context.Context, k blobKeys) (groupState, error) {
	var g groupState
	err := s.d.List(ctx, k.group, func(e Entry) error {
		if rest, ok := strings.CutPrefix(e.Key, k.group); ok && rest != "" {
			g.add(e, rest)
		}
		return nil
	})
	if err != nil {
		return groupState{}, s.driverErr("list", err)
	}
	return g, nil
}

func (s *Store) sweepGroup(ctx context.Context, k blobKeys, g groupState, now time.Time, stats *SweepStats) error {
	if !g.hasMeta {
		// No metadata: an interrupted Put, Delete or sweep. Leave recent
		// ones alone, a Put may still be running.
		if time.Since(g.newest) < orphanGrace {
			return nil
		}
		var errs []error
		for _, e := range g.entries {
			if err := s.d.Delete(ctx, e.Key); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("blobstore: sweep: removing leftovers of %s: %w", k.group, errors.Join(errs...))
		}
		stats.Orphans++
		return nil
	}
	stats.Scanned++
	for _, e := range g.staleClaims {
		s.log.LogAttrs(ctx, slog.LevelWarn, "blobstore: removing stale sweep claim", slog.String("key", e.Key))
		if err := s.d.Delete(ctx, e.Key); err != nil {
			return s.driverErr("sweep", err)
		}
	}
	if g.pins > 0 {
		stats.Pinned++
		return nil
	}
	if g.claims > 0 {
		return nil // another sweep or a Delete is on it
	}
	m, err := s.readMeta(ctx, k)
	if errors.Is(err, ErrNotFound) {
		return nil // removed meanwhile
	}
	if err != nil {
		return fmt.Errorf("blobstore: sweep %s: %w", k.group, err)
	}
	alive, err := s.aliveAt(ctx, k, m, g, now)
	if err != nil || alive {
		return err
	}
	removed, err := s.remove(ctx, k, func(g groupState) (bool, error) {
		if g.pins > 0 {
			stats.Pinned++
			return false, nil
		}
		alive, err := s.aliveAt(ctx, k, m, g, now)
		return !alive, err
	})
	if removed {
		stats.Removed++
		stats.RemovedBytes += m.Size
		s.log.LogAttrs(ctx, slog.LevelDebug, "blobstore: swept expired blob",
			slog.String("tenant", k.tenant), slog.Int64("size", m.Size))
	}
	return err
}

// remove deletes a blob under a claim. If check is not nil it runs on a
// fresh scan taken after the claim is visible, and remove goes ahead only if
// it returns true: this is what keeps a concurrent Pin safe. The metadata
// goes first, so the blob vanishes at once; the other objects follow.
func (s *Store) remove(ctx context.Context, k blobKeys, check func(groupState) (bool, error)) (bool, error) {
	claim := k.newClaim()
	start := time.Now()
	// Cleaned up even when the write fails: it may have happened (its
	// answer lost).
	defer s.cleanup(ctx, claim)
	if err := ownCreate(writeRecord(ctx, s.d, claim, nil, true)); err != nil {
		return false, s.driverErr("claim", err)
	}
	if check != nil {
		g, err := s.scanGroup(ctx, k)
		if err != nil {
			return false, err
		}
		ok, err := check(g)
		if err != nil || !ok {
			return false, err
		}
		// Pins wait for fresh claims only; past claimStale a pinner may no
		// longer be waiting for this one.
		if time.Since(start) > claimStale/2 {
			return false, fmt.Errorf("blobstore: sweep %s: gave up, claim took longer than %s", k.group, claimStale/2)
		}
	}
	if err := s.d.Delete(ctx, k.meta()); err != nil {
		return false, s.driverErr("delete", err)
	}
	g, err := s.scanGroup(ctx, k)
	if err != nil {
		return true, err
	}
	var errs []error
	for _, e := range g.entries {
		if e.Key == claim {
			continue
		}
		if err := s.d.Delete(ctx, e.Key); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return true, fmt.Errorf("blobstore: delete: blob removed, leftovers stay for Sweep: %w", errors.Join(errs...))
	}
	return true, nil
}

// awaitClaims returns once no fresh claim on the blob is left, or
// ErrNotFound once its metadata is gone, whichever comes first; ctx bounds
// the wait.
func (s *Store) awaitClaims(ctx context.Context, k blobKeys) error {
	wait := 5 * time.Millisecond
	for {
		fresh := 0
		err := s.d.List(ctx, k.claimPrefix(), func(e Entry) error {
			if time.Since(e.ModTime) < claimStale {
				fresh++
			}
			return nil
		})
		if err != nil {
			return s.driverErr("pin", err)
		}
		if fresh == 0 {
			return nil
		}
		if _, err := s.d.Stat(ctx, k.meta()); err != nil {
			return s.driverErr("pin", err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("blobstore: pin: waiting for a concurrent sweep: %w", ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 250*time.Millisecond)
	}
}
