package sandbox

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/airlockrt/airlock/internal/setting"
)

// Guest is what a script sees of time and chance. The zero value is the
// default: the real clock, and randomness of its own for every run.
//
// Guest owns these settings: their keys (GuestKeys), defaults, validation
// (Validate) and parsing (Set). Unlike Limits, a chain may choose any
// value: neither setting gives a script more than it has.
type Guest struct {
	// Clock is ClockReal (the default, also when empty) or ClockVirtual.
	// Key "clock".
	//
	// The real clock: Date reads the host's wall clock, coarsened to 1 ms;
	// performance.now and timers follow the host's monotonic clock, and a
	// script waiting for a timer waits for it, costing no CPU.
	//
	// The virtual clock, for tests and replay: it starts at
	// 2022-01-01T00:00:00Z and advances 1 ms at every reading; a tool call
	// takes no virtual time (the run waits for it), and when the script
	// waits for nothing but timers the clock jumps to the next one. Calls
	// in flight together still complete in the order they really do.
	Clock string
	// Seed, when non-zero, fixes the run's randomness: Math.random and the
	// crypto functions give the same sequence in every run with the same
	// seed. Zero, the default, draws Math.random's seed from the engine's
	// random source (ScriptOptions.Rand, crypto/rand by default) for every
	// run and gives crypto the host's CSPRNG, so no two runs share a
	// sequence. (In Or, zero means unset: a chain cannot ask for fresh
	// randomness where the configuration fixed a seed.) Key "seed".
	Seed uint64
}

// Values of Guest.Clock.
const (
	ClockReal    = "real"
	ClockVirtual = "virtual"
)

// GuestKeys are Guest's setting keys, in documentation order.
func GuestKeys() []string { return []string{"clock", "seed"} }

// Validate reports a Guest.Clock that is not a known clock.
func (g Guest) Validate() error {
	switch g.Clock {
	case "", ClockReal, ClockVirtual:
		return nil
	}
	return fmt.Errorf("%w: clock: %q is not %q or %q", ErrInvalidGuest, g.Clock, ClockReal, ClockVirtual)
}

// Set sets the field named key from text: "real" or "virtual" for clock, a
// whole number for seed.
func (g *Guest) Set(key, text string) error {
	switch key {
	case "clock":
		c := Guest{Clock: text}
		if err := c.Validate(); err != nil {
			return err
		}
		g.Clock = text
		return nil
	case "seed":
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: seed: %q is not a whole number from 0 to %d", ErrInvalidGuest, text, uint64(1<<64-1))
		}
		g.Seed = n
		return nil
	}
	return fmt.Errorf("%w: %w %q (known: clock, seed)", ErrInvalidGuest, setting.ErrUnknownKey, key)
}

// Get returns the field named key written as text, and whether g has it.
func (g Guest) Get(key string) (string, bool) {
	switch key {
	case "clock":
		if g.Clock == "" {
			return ClockReal, true
		}
		return g.Clock, true
	case "seed":
		return strconv.FormatUint(g.Seed, 10), true
	}
	return "", false
}

// Or returns g with each zero field set to q's value: a chain's own
// choices over the configured ones.
func (g Guest) Or(q Guest) Guest {
	if g.Clock == "" {
		g.Clock = q.Clock
	}
	if g.Seed == 0 {
		g.Seed = q.Seed
	}
	return g
}

// virtualEpoch is where the virtual clock starts: 2022-01-01T00:00:00Z.
const virtualEpoch = 1640995200 * int64(time.Second)

// runClock is one run's clock (quickjs.Clock), and the time base of its
// timers: milliseconds since the run began. Wall, Mono, elapsed and the lag
// are used on the goroutine driving the guest; stamp also from the
// goroutines of tool calls, where it only reads now and start.
type runClock struct {
	virtual bool
	now     func() time.Time // real mode's source
	start   time.Time        // real mode: when the run began
	origin  int64            // the instance's monotonic reading at the start
	vnow    int64            // virtual mode: ns since the start
	// lag, in real mode, is how far the guest's clock is behind the host's
	// while a resumed run catches up with the timers that fell due while
	// it was parked (catchUp); 0 otherwise.
	lag int64
}

func newRunClock(virtual bool, now func() time.Time, origin int64) *runClock {
	if now == nil {
		now = time.Now
	}
	return &runClock{virtual: virtual, now: now, start: now(), origin: origin}
}

// step is what one reading advances the virtual clock by.
const step = int64(time.Millisecond)

// Wall implements quickjs.Clock.
func (c *runClock) Wall() int64 {
	if c.virtual {
		t := virtualEpoch + c.vnow
		c.vnow += step
		return t
	}
	return c.now().Add(-time.Duration(c.lag)).Truncate(time.Millisecond).UnixNano()
}

// Mono implements quickjs.Clock.
func (c *runClock) Mono() int64 {
	if c.virtual {
		t := c.origin + c.vnow
		c.vnow += step
		return t
	}
	return c.origin + int64(c.now().Sub(c.start)) - c.lag
}

// elapsed is the timers' clock: milliseconds since the run began, with a
// fraction. Reading it does not advance the virtual clock.
func (c *runClock) elapsed() float64 {
	if c.virtual {
		return float64(c.vnow) / float64(time.Millisecond)
	}
	return float64(int64(c.now().Sub(c.start))-c.lag) / float64(time.Millisecond)
}

// stamp is when a completion arrived on the timers' clock, as the host
// sees it: elapsed without the lag.
func (c *runClock) stamp() float64 {
	if c.virtual {
		return c.elapsed()
	}
	return float64(c.now().Sub(c.start)) / float64(time.Millisecond)
}

// catchUp moves a lagging clock on to the earliest timer, wake, when it
// fell due while the run was parked, so that the timer runs at the time it
// was set for, as it would have had the run stayed in memory; once no
// timer is due before the host's time, the lag ends. The clock never goes
// back.
func (c *runClock) catchUp(wake float64) {
	if c.virtual || c.lag == 0 {
		return
	}
	real := int64(c.now().Sub(c.start))
	if w := int64(math.Ceil(wake * float64(time.Millisecond))); wake >= 0 && w <= real {
		c.lag = min(c.lag, real-w)
		return
	}
	c.lag = 0
}

// jump advances the virtual clock to ms milliseconds, if it is behind.
func (c *runClock) jump(ms float64) {
	if ns := int64(math.Ceil(ms * float64(time.Millisecond))); c.virtual && ns > c.vnow {
		c.vnow = ns
	}
}

// until is how long real time has to pass before the timers' clock reads
// ms, rounded up to the next nanosecond.
func (c *runClock) until(ms float64) time.Duration {
	return time.Duration(math.Ceil(ms*float64(time.Millisecond))) - c.now().Sub(c.start) + time.Duration(c.lag)
}

// Streams of a seeded run's randomness.
const (
	streamMathRandom = iota // Math.random's seed
	streamCrypto            // crypto.getRandomValues and randomUUID
)

// seeded is one stream of the randomness of a run with a Guest.Seed: the
// same bytes for the same seed and stream.
func seeded(seed uint64, stream byte) io.Reader {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	key[8] = stream
	return rand.NewChaCha8(key)
}
