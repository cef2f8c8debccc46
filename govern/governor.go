package govern

import (
	"context"
	"time"
)

// Options configure New. The zero value works: no rate limits, the
// default health thresholds, no outcome store (idempotency off), the real
// clock.
type Options struct {
	// Rates limit calls per (tenant, tool), by tool name. Nil: none.
	Rates map[string]Rate
	// Health sets the thresholds of tool health.
	Health HealthOptions
	// Outcomes keeps idempotency records. Nil: write-class calls get no
	// dedup.
	Outcomes Outcomes
	// DedupWindow is how long an outcome record answers for its key.
	// Default 24h.
	DedupWindow time.Duration
	// Clock tells the time. Nil: time.Now.
	Clock Clock
}

// Governor is the process-wide part of governance: tool health, rate
// buckets and the outcome store, shared by every chain.
type Governor struct {
	opts   Options
	now    Clock
	health *Health
	rates  *Limiter
}

// New returns a Governor.
func New(opts Options) *Governor {
	now := opts.Clock
	if now == nil {
		now = time.Now
	}
	if opts.DedupWindow <= 0 {
		opts.DedupWindow = DefaultDedupWindow
	}
	return &Governor{opts: opts, now: now, health: NewHealth(opts.Health, now), rates: NewLimiter(opts.Rates, now)}
}

// DefaultDedupWindow is the default of Options.DedupWindow.
const DefaultDedupWindow = 24 * time.Hour

// Now returns the Governor's clock reading.
func (g *Governor) Now() time.Time { return g.now() }

// Health returns the tool-health tracker.
func (g *Governor) Health() *Health { return g.health }

// Limiter returns the rate limiter.
func (g *Governor) Limiter() *Limiter { return g.rates }

// Outcomes returns the outcome store; nil when idempotency is off.
func (g *Governor) Outcomes() Outcomes { return g.opts.Outcomes }

// DedupWindow returns how long an outcome record answers for its key.
func (g *Governor) DedupWindow() time.Duration { return g.opts.DedupWindow }

// Outcome is one idempotency record.
type Outcome struct {
	// State is pending (the call is executing or its process died), ok,
	// failed (the tool reported a definite failure) or unknown.
	State OutcomeState `json:"state"`
	// Result is the encoded result the chain received, for ok and failed.
	Result []byte `json:"result,omitempty"`
	// Created is when the record was first written.
	Created time.Time `json:"created"`
	// ArgsHash identifies the call's arguments (hex SHA-256 of their
	// canonical form): a key reused with other arguments is refused, not
	// answered with another call's result.
	ArgsHash string `json:"args_hash,omitempty"`
	// Call names the call that wrote the record (its chain id and number,
	// as the invoker writes them): a call run again for a fresh credential
	// claims anew only a refusal its own park recorded, never one of
	// another chain that used the same key. Empty in a record of an older
	// build.
	Call string `json:"call,omitempty"`
}

// OutcomeState is the state of an Outcome.
type OutcomeState string

// States of an Outcome.
const (
	OutcomePending OutcomeState = "pending"
	OutcomeOK      OutcomeState = "ok"
	OutcomeFailed  OutcomeState = "failed"
	OutcomeUnknown OutcomeState = "unknown"
)

// Outcomes stores idempotency records per (tenant, tool, key). Several
// processes sharing one store share the records.
type Outcomes interface {
	// Begin creates the record for (tenant, tool, key) in state pending,
	// with argsHash, by a create-only write. When a record exists and is
	// younger than window, Begin returns it and creates nothing; an older
	// one is replaced.
	Begin(ctx context.Context, tenant, tool, key, argsHash string, window time.Duration) (existing *Outcome, err error)
	// Finish records the final state of a call Begin created.
	Finish(ctx context.Context, tenant, tool, key string, o Outcome) error
}
