package faultblob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airlockrt/airlock/blobstore"
)

// Faults are the probabilities, each from 0 to 1, of the faults injected
// into one operation. The zero value injects nothing.
type Faults struct {
	// LatencyRate is the probability that an operation first waits a
	// random time up to MaxLatency. Default 0.
	LatencyRate float64
	// MaxLatency is the longest injected wait. Default 0 (no wait).
	MaxLatency time.Duration
	// ErrorRate is the probability that an operation fails with
	// ErrInjected before reaching the wrapped driver. Default 0.
	ErrorRate float64
	// LostRate is the probability that a Put or Delete that succeeded
	// reports ErrInjected. Default 0.
	LostRate float64
	// RaceRate is the probability that a create-only Put is sent twice at
	// once and answered by either attempt. Default 0.
	RaceRate float64
}

// Options configure New. The zero value injects nothing and skews nothing.
type Options struct {
	// Faults are injected from the start (see SetFaults). Default none.
	Faults Faults
	// Seed seeds the generator that draws the faults. Default 0 (a fixed
	// seed, like any other).
	Seed uint64
	// Skew is added to the real time by Now: this process's clock error.
	// Default 0.
	Skew time.Duration
}

// Stats counts a Driver's operations and the faults injected into them.
type Stats struct {
	Ops     int64 // operations called (Put, Get, Stat, Delete, List, PutOnce, ReadOnce)
	Latency int64 // operations that waited first
	Errors  int64 // failed before reaching the wrapped driver
	Lost    int64 // writes that happened, reported as failed
	Races   int64 // create-only writes sent twice at once
	Killed  int64 // operations refused after Kill
}

// Add returns the sum of s and o.
func (s Stats) Add(o Stats) Stats {
	return Stats{Ops: s.Ops + o.Ops, Latency: s.Latency + o.Latency, Errors: s.Errors + o.Errors, Lost: s.Lost + o.Lost,
		Races: s.Races + o.Races, Killed: s.Killed + o.Killed}
}

// String reports the counts on one line.
func (s Stats) String() string {
	return fmt.Sprintf("ops=%d latency=%d errors=%d lost=%d races=%d killed=%d", s.Ops, s.Latency, s.Errors, s.Lost, s.Races, s.Killed)
}

// Driver is a blobstore.Driver that injects faults into the one it wraps.
// Create one with New.
type Driver struct {
	d    blobstore.Driver
	skew time.Duration

	on     atomic.Bool
	killed atomic.Bool

	mu     sync.Mutex // guards rng and faults
	rng    *rand.Rand
	faults Faults

	ops, latency, errs, lost, races, killedOps atomic.Int64
}

var (
	_ blobstore.Driver     = (*Driver)(nil)
	_ blobstore.OnceDriver = (*Driver)(nil)
)

// New returns a Driver that injects opts.Faults into d's operations.
// Closing it closes d.
func New(d blobstore.Driver, opts Options) *Driver {
	f := &Driver{d: d, skew: opts.Skew, rng: rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)), faults: opts.Faults}
	f.on.Store(true)
	return f
}

// SetFaults turns the injection of faults on or off (it is on after New).
// Off, the Driver passes every operation through, still counting them;
// Kill still holds.
func (f *Driver) SetFaults(on bool) { f.on.Store(on) }

// Kill makes every later operation fail with ErrKilled, and every one in
// flight report ErrKilled when it returns, whatever it did: the process
// this Driver stands for was killed. There is no way back; a restarted
// process gets a new Driver.
func (f *Driver) Kill() { f.killed.Store(true) }

// Now returns the real time plus Options.Skew: this process's clock, for
// durable.Options.Clock and blobstore.Options.Clock.
func (f *Driver) Now() time.Time { return time.Now().Add(f.skew) }

// Stats returns the operations and the faults injected so far.
func (f *Driver) Stats() Stats {
	return Stats{Ops: f.ops.Load(), Latency: f.latency.Load(), Errors: f.errs.Load(), Lost: f.lost.Load(),
		Races: f.races.Load(), Killed: f.killedOps.Load()}
}

// plan is what one operation suffers.
type plan struct {
	wait time.Duration
	fail bool // before the operation
	lose bool // after a write
	race bool // a create-only write sent twice
	coin bool // which racing attempt answers
}

// draw picks the faults of one operation.
func (f *Driver) draw(write, createOnly bool) plan {
	f.ops.Add(1)
	if !f.on.Load() {
		return plan{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var p plan
	fs := f.faults
	if fs.MaxLatency > 0 && f.rng.Float64() < fs.LatencyRate {
		p.wait = time.Duration(f.rng.Int64N(int64(fs.MaxLatency)) + 1)
	}
	switch x := f.rng.Float64(); {
	case x < fs.ErrorRate:
		p.fail = true
	case write && x < fs.ErrorRate+fs.LostRate:
		p.lose = true
	case createOnly && x < fs.ErrorRate+fs.LostRate+fs.RaceRate:
		p.race, p.coin = true, f.rng.IntN(2) == 0
	}
	return p
}

// before applies a plan's latency and failure; a non-nil error ends the
// operation.
func (f *Driver) before(ctx context.Context, p plan, op, key string) error {
	if f.killed.Load() {
		f.killedOps.Add(1)
		return ErrKilled
	}
	if p.wait > 0 {
		f.latency.Add(1)
		t := time.NewTimer(p.wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	if p.fail {
		f.errs.Add(1)
		return fmt.Errorf("%w: %s %q failed before reaching the store", ErrInjected, op, key)
	}
	return nil
}

// after turns a write's result into what the caller hears.
func (f *Driver) after(p plan, op, key string, err error) error {
	if f.killed.Load() {
		f.killedOps.Add(1)
		return ErrKilled
	}
	if err == nil && p.lose {
		f.lost.Add(1)
		return fmt.Errorf("%w: %s %q succeeded but its response was lost", ErrInjected, op, key)
	}
	return err
}

// maxRace bounds the bytes a racing create-only write buffers.
const maxRace = 1 << 20

// Put implements blobstore.Driver.
func (f *Driver) Put(ctx context.Context, key string, r io.Reader, opts blobstore.PutOptions) error {
	p := f.draw(true, opts.CreateOnly)
	if err := f.before(ctx, p, "put", key); err != nil {
		return err
	}
	if p.race {
		buf, err := io.ReadAll(io.LimitReader(r, maxRace+1))
		if err != nil {
			return err
		}
		if len(buf) <= maxRace {
			f.races.Add(1)
			var errs [2]error
			var wg sync.WaitGroup
			for i := range errs {
				wg.Go(func() { errs[i] = f.d.Put(ctx, key, bytes.NewReader(buf), opts) })
			}
			wg.Wait()
			err := errs[0]
			if p.coin {
				err = errs[1]
			}
			return f.after(p, "put", key, err)
		}
		r = io.MultiReader(bytes.NewReader(buf), r)
	}
	return f.after(p, "put", key, f.d.Put(ctx, key, r, opts))
}

// Get implements blobstore.Driver.
func (f *Driver) Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	p := f.draw(false, false)
	if err := f.before(ctx, p, "get", key); err != nil {
		return nil, err
	}
	rc, err := f.d.Get(ctx, key, offset, length)
	if err == nil && f.killed.Load() {
		rc.Close()
		return nil, ErrKilled
	}
	return rc, err
}

// Stat implements blobstore.Driver.
func (f *Driver) Stat(ctx context.Context, key string) (blobstore.Entry, error) {
	p := f.draw(false, false)
	if err := f.before(ctx, p, "stat", key); err != nil {
		return blobstore.Entry{}, err
	}
	return f.d.Stat(ctx, key)
}

// Delete implements blobstore.Driver.
func (f *Driver) Delete(ctx context.Context, key string) error {
	p := f.draw(true, false)
	if err := f.before(ctx, p, "delete", key); err != nil {
		return err
	}
	return f.after(p, "delete", key, f.d.Delete(ctx, key))
}

// List implements blobstore.Driver. A killed Driver's listing stops at
// the next entry.
func (f *Driver) List(ctx context.Context, prefix string, fn func(blobstore.Entry) error) error {
	p := f.draw(false, false)
	if err := f.before(ctx, p, "list", prefix); err != nil {
		return err
	}
	return f.d.List(ctx, prefix, func(e blobstore.Entry) error {
		if f.killed.Load() {
			return ErrKilled
		}
		return fn(e)
	})
}

// Locked implements blobstore.OnceDriver: the wrapped driver's, false
// when it is not a blobstore.OnceDriver.
func (f *Driver) Locked() bool {
	o, ok := f.d.(blobstore.OnceDriver)
	return ok && o.Locked()
}

// PutOnce implements blobstore.OnceDriver, with the faults of a
// create-only Put (a race sends it twice: two versions, the older one
// first). It fails with blobstore.ErrNotLocked when the wrapped driver is
// not locked.
func (f *Driver) PutOnce(ctx context.Context, key string, r io.Reader, opts blobstore.OnceOptions) (string, error) {
	if !f.Locked() {
		return "", fmt.Errorf("faultblob: put once %q: %w", key, blobstore.ErrNotLocked)
	}
	o := f.d.(blobstore.OnceDriver)
	p := f.draw(true, true)
	if err := f.before(ctx, p, "put once", key); err != nil {
		return "", err
	}
	if p.race {
		buf, err := io.ReadAll(io.LimitReader(r, maxRace+1))
		if err != nil {
			return "", err
		}
		if len(buf) <= maxRace {
			f.races.Add(1)
			var (
				vs   [2]string
				errs [2]error
				wg   sync.WaitGroup
			)
			for i := range errs {
				wg.Go(func() { vs[i], errs[i] = o.PutOnce(ctx, key, bytes.NewReader(buf), opts) })
			}
			wg.Wait()
			i := 0
			if p.coin {
				i = 1
			}
			return vs[i], f.after(p, "put once", key, errs[i])
		}
		r = io.MultiReader(bytes.NewReader(buf), r)
	}
	v, err := o.PutOnce(ctx, key, r, opts)
	return v, f.after(p, "put once", key, err)
}

// ReadOnce implements blobstore.OnceDriver.
func (f *Driver) ReadOnce(ctx context.Context, key string) (blobstore.Version, io.ReadCloser, error) {
	o, ok := f.d.(blobstore.OnceDriver)
	if !ok {
		return blobstore.Version{}, nil, fmt.Errorf("faultblob: read once %q: %w", key, blobstore.ErrNotLocked)
	}
	p := f.draw(false, false)
	if err := f.before(ctx, p, "read once", key); err != nil {
		return blobstore.Version{}, nil, err
	}
	v, rc, err := o.ReadOnce(ctx, key)
	if err == nil && f.killed.Load() {
		rc.Close()
		return blobstore.Version{}, nil, ErrKilled
	}
	return v, rc, err
}

// Close implements blobstore.Driver: it closes the wrapped driver.
func (f *Driver) Close() error { return f.d.Close() }

// Unwrap returns the wrapped driver, for a test that writes to the
// storage behind the faults' back (as a bucket writer would).
func (f *Driver) Unwrap() blobstore.Driver { return f.d }

// IsInjected reports whether err is a fault this package injected,
// ErrInjected or ErrKilled.
func IsInjected(err error) bool { return errors.Is(err, ErrInjected) || errors.Is(err, ErrKilled) }
