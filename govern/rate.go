package govern

import "time"

// Rate is how many calls may start per Per, with bursts of up to Burst.
type Rate struct {
	// N calls per Per.
	N   int
	Per time.Duration
	// Burst is the bucket size. Default N.
	Burst int
}

// ParseRate parses "N/s", "N/m", "N/h" or "N/<duration>" such as
// "5/10s". The error wraps ErrInvalidRate.
func ParseRate(s string) (Rate, error) {
	// TODO(health helper)
	return Rate{}, nil
}

// Limiter is a token bucket per (tenant, tool).
type Limiter struct {
	// TODO(health helper)
}

// NewLimiter returns a limiter for rates, by tool name.
func NewLimiter(rates map[string]Rate, now Clock) *Limiter { return &Limiter{} }

// Take takes one call of tool for tenant. When the bucket is empty it
// reports false and how long until a call may start.
func (l *Limiter) Take(tenant, tool string) (ok bool, retryAfter time.Duration) { return true, 0 }
