package quickjs

import (
	"io"
	"math/rand"
	"time"
)

// sysState is one instance's clock and random source. The package supplies
// them itself, instead of leaving the defaults to wazero, so that it knows
// how far each has advanced: a Snapshot records that, and an instance
// restored from it continues from the same point, exactly as the instance
// the snapshot was taken from would have. Only the goroutine running the
// guest uses it.
type sysState struct {
	walltime func() time.Time // nil: deterministic
	rand     io.Reader        // the source, counted; nil until first read when deterministic
	granted  bool             // rand is the host's (Config.Rand), not deterministic

	wallReads, monoReads int64 // clock readings so far
	randBytes            int64 // random bytes read so far

	// clock, when set (Instance.SetClock), is read instead of the above:
	// a run's own clock, installed after a snapshot was restored.
	clock Clock
}

// Clock is a run's clock: Wall returns the time in Unix nanoseconds and
// Mono a monotonic reading in nanoseconds. Both are called on the
// goroutine running the guest.
type Clock interface {
	Wall() int64
	Mono() int64
}

// Deterministic clock: wazero's default epoch and step.
const (
	fakeEpochNanos = 1640995200 * int64(time.Second) // 2022-01-01T00:00:00Z
	fakeStep       = int64(time.Millisecond)
	// fakeRandSeed is the seed of wazero's default random source
	// (math/rand), which the deterministic source reproduces.
	fakeRandSeed = 42
)

func (r *Runtime) newSysState() *sysState {
	s := &sysState{walltime: r.walltime}
	if r.rand != nil {
		s.rand, s.granted = r.rand, true
	}
	return s
}

func (s *sysState) readWall() (int64, int32) {
	if s.clock != nil {
		ns := s.clock.Wall()
		return ns / 1e9, int32(ns % 1e9)
	}
	var ns int64
	if s.walltime != nil {
		t := s.walltime()
		ns = t.UnixNano()
	} else {
		ns = fakeEpochNanos + s.wallReads*fakeStep
	}
	s.wallReads++
	return ns / 1e9, int32(ns % 1e9)
}

func (s *sysState) readMono() int64 {
	if s.clock != nil {
		return s.clock.Mono()
	}
	var ns int64
	if s.walltime != nil {
		ns = s.walltime().UnixNano()
	} else {
		ns = s.monoReads * fakeStep
	}
	s.monoReads++
	return ns
}

type countingReader struct{ s *sysState }

func (c countingReader) Read(p []byte) (int, error) {
	s := c.s
	if s.rand == nil {
		// Deterministic by design: the same bytes as wazero's default
		// source, from where the instance's history left it. Seeding
		// costs ~10 µs, so only instances that read randomness pay it.
		s.rand = rand.New(rand.NewSource(fakeRandSeed)) //nolint:gosec
		if _, err := io.CopyN(io.Discard, s.rand, s.randBytes); err != nil {
			return 0, err
		}
	}
	n, err := s.rand.Read(p)
	s.randBytes += int64(n)
	return n, err
}

// monoNow is the deterministic clock's next monotonic reading.
func (s *sysState) monoNow() int64 { return s.monoReads * fakeStep }

// readsHost reports whether the instance has read the host's clock or
// random source, whose readings a snapshot must not hand to other instances.
func (s *sysState) readsHost() bool {
	return s.walltime != nil && s.wallReads+s.monoReads > 0 || s.granted && s.randBytes > 0
}

// resume returns a state for a new instance that continues where s is now.
func (s *sysState) resume(r *Runtime) *sysState {
	n := r.newSysState()
	n.wallReads, n.monoReads = s.wallReads, s.monoReads
	if !n.granted {
		n.randBytes = s.randBytes
	}
	return n
}
