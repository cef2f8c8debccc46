package govern

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Rate is how many calls may start per Per, with bursts of up to Burst.
type Rate struct {
	// N calls per Per.
	N   int
	Per time.Duration
	// Burst is the bucket size. Default N.
	Burst int
}

// MinRateInterval is the shortest Per/N a Rate may have: 1µs.
const MinRateInterval = time.Microsecond

// burst returns r.Burst, or N when it is zero.
func (r Rate) burst() int {
	if r.Burst == 0 {
		return r.N
	}
	return r.Burst
}

// Validate reports whether r can be enforced: N at least 1, Per positive,
// Per/N at least MinRateInterval (1µs), Burst not negative (zero means N)
// and Burst×Per within an int64 of nanoseconds. The error wraps
// ErrInvalidRate.
func (r Rate) Validate() error {
	switch {
	case r.N < 1:
		return fmt.Errorf("%w: N %d is less than 1", ErrInvalidRate, r.N)
	case r.Per <= 0:
		return fmt.Errorf("%w: Per %v is not positive", ErrInvalidRate, r.Per)
	case r.Per/time.Duration(r.N) < MinRateInterval:
		return fmt.Errorf("%w: %d per %v is more than one per %v", ErrInvalidRate, r.N, r.Per, MinRateInterval)
	case r.Burst < 0:
		return fmt.Errorf("%w: Burst %d is negative", ErrInvalidRate, r.Burst)
	case int64(r.burst()) > (math.MaxInt64-int64(r.N))/int64(r.Per):
		return fmt.Errorf("%w: Burst %d of %v is too large", ErrInvalidRate, r.burst(), r.Per)
	}
	return nil
}

// ParseRate parses "N/s", "N/m", "N/h" or "N/<duration>" such as
// "5/10s", where N is a decimal integer of at least 1 and the duration is
// positive (time.ParseDuration syntax). Per/N must be at least 1µs. Burst
// is left zero, which means N. The error wraps ErrInvalidRate and quotes
// s.
func ParseRate(s string) (Rate, error) {
	bad := func(why string) (Rate, error) {
		return Rate{}, fmt.Errorf("%w %q: %s", ErrInvalidRate, s, why)
	}
	ns, per, found := strings.Cut(s, "/")
	if !found {
		return bad(`want "N/s", "N/m", "N/h" or "N/<duration>"`)
	}
	if ns == "" || strings.TrimLeft(ns, "0123456789") != "" {
		return bad("the count is not a decimal integer")
	}
	n, err := strconv.Atoi(ns)
	if err != nil {
		return bad("the count is out of range")
	}
	r := Rate{N: n}
	switch per {
	case "s":
		r.Per = time.Second
	case "m":
		r.Per = time.Minute
	case "h":
		r.Per = time.Hour
	default:
		d, err := time.ParseDuration(per)
		if err != nil {
			return bad("the period is not s, m, h or a duration")
		}
		r.Per = d
	}
	if err := r.Validate(); err != nil {
		return bad(strings.TrimPrefix(err.Error(), ErrInvalidRate.Error()+": "))
	}
	return r, nil
}

// String returns r as ParseRate reads it: "N/s", "N/m", "N/h" or
// "N/<duration>". Burst is not part of the text form.
func (r Rate) String() string {
	n := strconv.Itoa(r.N)
	switch r.Per {
	case time.Second:
		return n + "/s"
	case time.Minute:
		return n + "/m"
	case time.Hour:
		return n + "/h"
	}
	return n + "/" + r.Per.String()
}

// MarshalText returns r.String(). Burst is not part of the text form.
func (r Rate) MarshalText() ([]byte, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return []byte(r.String()), nil
}

// UnmarshalText parses text with ParseRate.
func (r *Rate) UnmarshalText(text []byte) error {
	p, err := ParseRate(string(text))
	if err != nil {
		return err
	}
	*r = p
	return nil
}

// MaxBuckets bounds how many (tenant, tool) buckets a Limiter keeps.
const MaxBuckets = 65536

// invalidRateRetry is the retryAfter of a tool whose Rate fails Validate.
const invalidRateRetry = time.Second

// toolRate is one tool's rate in the units a bucket counts in: a token is
// per units, and a bucket gains n units per nanosecond.
type toolRate struct {
	valid bool
	n     int64 // units gained per nanosecond
	per   int64 // units in one token (Per in nanoseconds)
	cap   int64 // units in a full bucket: Burst×per
}

type bucketKey struct{ tenant, tool string }

type bucket struct {
	level int64 // units held
	last  time.Time
}

// Limiter is a token bucket per (tenant, tool), for the tools that have a
// Rate. It is safe for concurrent use. Calls of a tool without a Rate are
// never limited, and cost neither a lock nor an allocation.
//
// The bucket of (tenant, tool) holds up to Burst tokens (default N) and
// gains N tokens per Per, exactly (integer arithmetic, no rounding drift).
// A bucket not yet created is full.
//
// A Limiter keeps at most MaxBuckets (65536) buckets. When that many exist
// and a new (tenant, tool) takes a call, the buckets that have refilled
// are forgotten (a full bucket is the same as none); when none has, the
// call is refused with retryAfter Per/N (rounded up to the millisecond):
// the limiter fails closed rather than forget a tenant's spent tokens.
type Limiter struct {
	now   Clock
	rates map[string]toolRate // read-only after NewLimiter

	mu      sync.Mutex
	buckets map[bucketKey]*bucket
	// noSweepBefore is when the earliest bucket becomes full, after a
	// sweep that freed nothing; until then a full table refuses without
	// sweeping.
	noSweepBefore time.Time
}

// NewLimiter returns a limiter for rates, by tool name. A Rate that fails
// Validate refuses every call of its tool (retryAfter 1s), so that a bad
// limit is noticed rather than lifted. A nil now means time.Now.
func NewLimiter(rates map[string]Rate, now Clock) *Limiter {
	if now == nil {
		now = time.Now
	}
	l := &Limiter{now: now, rates: make(map[string]toolRate, len(rates)), buckets: make(map[bucketKey]*bucket)}
	for tool, r := range rates {
		if r.Validate() != nil {
			l.rates[tool] = toolRate{}
			continue
		}
		l.rates[tool] = toolRate{valid: true, n: int64(r.N), per: int64(r.Per), cap: int64(r.burst()) * int64(r.Per)}
	}
	return l
}

// refill brings b up to now.
func (r toolRate) refill(b *bucket, now time.Time) {
	el := now.Sub(b.last)
	if el <= 0 {
		return
	}
	b.last = now
	need := r.cap - b.level
	if need <= 0 {
		return
	}
	if int64(el) >= (need+r.n-1)/r.n {
		b.level = r.cap
		return
	}
	b.level += int64(el) * r.n
}

// wait returns how long until b holds a token, rounded up to the
// millisecond.
func (r toolRate) wait(b *bucket) time.Duration {
	deficit := r.per - b.level
	if deficit <= 0 {
		return 0
	}
	return ceilMilli(time.Duration((deficit + r.n - 1) / r.n))
}

// ceilMilli rounds d up to the millisecond.
func ceilMilli(d time.Duration) time.Duration {
	if m := d % time.Millisecond; m != 0 {
		d += time.Millisecond - m
	}
	return d
}

// Take takes one call of tool for tenant. When the bucket is empty it
// reports false and how long until a call may start: the exact time until
// the bucket holds a token, rounded up to the millisecond.
func (l *Limiter) Take(tenant, tool string) (ok bool, retryAfter time.Duration) {
	r, limited := l.rates[tool]
	if !limited {
		return true, 0
	}
	if !r.valid {
		return false, invalidRateRetry
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	k := bucketKey{tenant, tool}
	b := l.buckets[k]
	if b == nil {
		if len(l.buckets) >= MaxBuckets && !l.sweep(now) {
			return false, ceilMilli(time.Duration(r.per / r.n))
		}
		b = &bucket{level: r.cap, last: now}
		l.buckets[k] = b
	} else {
		r.refill(b, now)
	}
	if b.level < r.per {
		return false, r.wait(b)
	}
	b.level -= r.per
	return true, 0
}

// sweep forgets every bucket that has refilled and reports whether it
// forgot any. l.mu must be held.
func (l *Limiter) sweep(now time.Time) bool {
	if now.Before(l.noSweepBefore) {
		return false
	}
	var earliest time.Time
	dropped := false
	for k, b := range l.buckets {
		r := l.rates[k.tool]
		r.refill(b, now)
		if b.level >= r.cap {
			delete(l.buckets, k)
			dropped = true
			continue
		}
		full := now.Add(time.Duration((r.cap - b.level + r.n - 1) / r.n))
		if earliest.IsZero() || full.Before(earliest) {
			earliest = full
		}
	}
	if !dropped {
		l.noSweepBefore = earliest
	}
	return dropped
}

// Refund returns the token of a call Take admitted but that did not start,
// up to the bucket's Burst. It does nothing for a tool without a Rate or a
// bucket that was forgotten.
func (l *Limiter) Refund(tenant, tool string) {
	r, limited := l.rates[tool]
	if !limited || !r.valid {
		return
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[bucketKey{tenant, tool}]
	if b == nil {
		return
	}
	r.refill(b, now)
	b.level += r.per
	if b.level >= r.cap {
		b.level = r.cap
		l.noSweepBefore = time.Time{}
	}
}
