package govern

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airlockrt/airlock/toolbox"
)

// HealthStatus is a tool's health.
type HealthStatus string

// Health states.
const (
	Healthy     HealthStatus = "healthy"
	Degraded    HealthStatus = "degraded"
	Unavailable HealthStatus = "unavailable"
)

// Defaults of HealthOptions.
const (
	DefaultDegradedAfter    = 3
	DefaultUnavailableAfter = 5
	DefaultQuiet            = 30 * time.Second
)

// MaxRateLimitRest caps how long RateLimited can make a tool unavailable.
const MaxRateLimitRest = 24 * time.Hour

// MaxTrackedTools bounds how many tools a Health tracks. See Health.
const MaxTrackedTools = 65536

// HealthOptions are the thresholds of tool health. Zero fields take their
// defaults.
type HealthOptions struct {
	// DegradedAfter consecutive failures make a tool degraded. Default 3.
	DegradedAfter int
	// UnavailableAfter consecutive failures make it unavailable. Default 5.
	UnavailableAfter int
	// Quiet is how long an unavailable tool rests before the next call may
	// try it again. Default 30s.
	Quiet time.Duration
}

// WithDefaults returns o with every zero field set to its default
// (DegradedAfter 3, UnavailableAfter 5, Quiet 30s). Negative fields are
// kept, for Validate to report.
func (o HealthOptions) WithDefaults() HealthOptions {
	if o.DegradedAfter == 0 {
		o.DegradedAfter = DefaultDegradedAfter
	}
	if o.UnavailableAfter == 0 {
		o.UnavailableAfter = DefaultUnavailableAfter
	}
	if o.Quiet == 0 {
		o.Quiet = DefaultQuiet
	}
	return o
}

// Validate reports whether o, after WithDefaults, can be enforced: no field
// is negative and UnavailableAfter is at least DegradedAfter.
func (o HealthOptions) Validate() error {
	if o.DegradedAfter < 0 {
		return fmt.Errorf("govern: health: DegradedAfter %d is negative", o.DegradedAfter)
	}
	if o.UnavailableAfter < 0 {
		return fmt.Errorf("govern: health: UnavailableAfter %d is negative", o.UnavailableAfter)
	}
	if o.Quiet < 0 {
		return fmt.Errorf("govern: health: Quiet %v is negative", o.Quiet)
	}
	d := o.WithDefaults()
	if d.UnavailableAfter < d.DegradedAfter {
		return fmt.Errorf("govern: health: UnavailableAfter %d is less than DegradedAfter %d", d.UnavailableAfter, d.DegradedAfter)
	}
	return nil
}

// ToolHealth is one tool's health as reported.
type ToolHealth struct {
	Status              HealthStatus `json:"status"`
	ConsecutiveFailures int          `json:"consecutive_failures"`
	// Until is when an unavailable tool may be tried again.
	Until time.Time `json:"until,omitzero"`
	// LastSuccess and LastFailure are zero when there was none.
	LastSuccess time.Time `json:"last_success,omitzero"`
	LastFailure time.Time `json:"last_failure,omitzero"`
	// LastError is what the last failure said, as the calling chain was
	// told (at most MaxLastError bytes), or the upstream's rate limit; it
	// stays after a success, beside LastSuccess.
	LastError string `json:"last_error,omitempty"`
}

// MaxLastError bounds ToolHealth.LastError, in bytes.
const MaxLastError = 512

// toolState is what Health keeps for one tool.
type toolState struct {
	failures    int
	failUntil   time.Time // end of the quiet period after the last failure that made it unavailable
	rateUntil   time.Time // the upstream's reset, from RateLimited
	lastSuccess time.Time
	lastFailure time.Time
	lastError   string
}

// until returns when the tool may be tried again, or zero when it may be
// now.
func (s *toolState) until(now time.Time) time.Time {
	var u time.Time
	if s.failUntil.After(now) {
		u = s.failUntil
	}
	if s.rateUntil.After(now) && s.rateUntil.After(u) {
		u = s.rateUntil
	}
	return u
}

// idle reports whether s says nothing beyond a healthy tool's state, so
// that forgetting it loses only LastSuccess and LastFailure.
func (s *toolState) idle(now time.Time) bool {
	return s.failures == 0 && s.until(now).IsZero()
}

// Health tracks the health of every tool, process-wide. It is safe for
// concurrent use.
//
// A tool's consecutive failures make it degraded at DegradedAfter and
// unavailable at UnavailableAfter, for Quiet after its last failure. Once
// the quiet period has passed, Check lets calls through again (half-open;
// Get reports degraded): a further failure makes it unavailable for
// another Quiet, a success makes it healthy. RateLimited makes a tool
// unavailable until the upstream's reset, independently of failures.
//
// Health tracks at most MaxTrackedTools (65536) tools. When that many are
// tracked, a new tool's failure first forgets one healthy tool with no
// rate limit in force; when there is none, the new tool is not tracked and
// reports healthy. Successes of untracked tools are not recorded when the
// table is full.
type Health struct {
	opts  HealthOptions
	now   Clock
	n     atomic.Int64 // len(tools), read by Check without the lock
	mu    sync.RWMutex
	tools map[string]*toolState
}

// NewHealth returns a tracker with opts' thresholds. Zero fields take their
// defaults; a negative field also takes its default, and an
// UnavailableAfter below DegradedAfter is raised to it (use Validate to
// refuse such options instead). A nil now means time.Now.
func NewHealth(opts HealthOptions, now Clock) *Health {
	if now == nil {
		now = time.Now
	}
	if opts.DegradedAfter < 0 {
		opts.DegradedAfter = 0
	}
	if opts.UnavailableAfter < 0 {
		opts.UnavailableAfter = 0
	}
	if opts.Quiet < 0 {
		opts.Quiet = 0
	}
	opts = opts.WithDefaults()
	if opts.UnavailableAfter < opts.DegradedAfter {
		opts.UnavailableAfter = opts.DegradedAfter
	}
	return &Health{opts: opts, now: now, tools: make(map[string]*toolState)}
}

// Check reports whether tool may be called now; when not, until when it
// rests. It does not allocate.
func (h *Health) Check(tool string) (ok bool, until time.Time) {
	if h.n.Load() == 0 {
		return true, time.Time{}
	}
	h.mu.RLock()
	s := h.tools[tool]
	if s == nil {
		h.mu.RUnlock()
		return true, time.Time{}
	}
	u := s.until(h.now())
	h.mu.RUnlock()
	return u.IsZero(), u
}

// state returns tool's state, creating it when room allows (forgetting an
// idle tool when evict and the table is full); nil when the tool cannot be
// tracked. h.mu must be held for writing.
func (h *Health) state(tool string, now time.Time, evict bool) *toolState {
	if s := h.tools[tool]; s != nil {
		return s
	}
	if len(h.tools) >= MaxTrackedTools {
		if !evict {
			return nil
		}
		dropped := false
		for name, s := range h.tools {
			if s.idle(now) {
				delete(h.tools, name)
				dropped = true
				break
			}
		}
		if !dropped {
			return nil
		}
	}
	s := &toolState{}
	h.tools[tool] = s
	h.n.Store(int64(len(h.tools)))
	return s
}

// Success records a successful call of tool: it is healthy again, with no
// consecutive failures. A rate limit recorded by RateLimited stays in
// force until its reset.
func (h *Health) Success(tool string) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.state(tool, now, false)
	if s == nil {
		return
	}
	s.failures = 0
	s.failUntil = time.Time{}
	s.lastSuccess = now
}

// Failure records a failed call of tool (an error, a panic, a timeout);
// text is what the failure said (see ToolHealth.LastError).
func (h *Health) Failure(tool, text string) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.state(tool, now, true)
	if s == nil {
		return
	}
	s.failures++
	s.lastFailure = now
	s.lastError = toolbox.ClipText(text, MaxLastError)
	if s.failures >= h.opts.UnavailableAfter {
		s.failUntil = now.Add(h.opts.Quiet)
	}
}

// RateLimited records that tool's upstream refuses calls until reset. A
// reset not after now is ignored; one more than MaxRateLimitRest (24h)
// away is capped there. A later reset already recorded is kept.
func (h *Health) RateLimited(tool string, reset time.Time) {
	now := h.now()
	if !reset.After(now) {
		return
	}
	if limit := now.Add(MaxRateLimitRest); reset.After(limit) {
		reset = limit
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.state(tool, now, true)
	if s == nil {
		return
	}
	if reset.After(s.rateUntil) {
		s.rateUntil = reset
		// Every tenant sees this entry: the upstream's word, never a
		// tenant's error text.
		s.lastError = "the upstream limits calls until " + reset.UTC().Format(time.RFC3339)
	}
}

// report returns s's health at now.
func (h *Health) report(s *toolState, now time.Time) ToolHealth {
	t := ToolHealth{
		Status:              Healthy,
		ConsecutiveFailures: s.failures,
		Until:               s.until(now),
		LastSuccess:         s.lastSuccess,
		LastFailure:         s.lastFailure,
		LastError:           s.lastError,
	}
	switch {
	case !t.Until.IsZero():
		t.Status = Unavailable
	case s.failures >= h.opts.DegradedAfter:
		t.Status = Degraded
	}
	return t
}

// Get returns tool's health at the current clock reading; a tool never
// called (or not tracked) is healthy.
func (h *Health) Get(tool string) ToolHealth {
	now := h.now()
	h.mu.RLock()
	defer h.mu.RUnlock()
	s := h.tools[tool]
	if s == nil {
		return ToolHealth{Status: Healthy}
	}
	return h.report(s, now)
}

// All returns the health of every tracked tool at the current clock
// reading, by tool name.
func (h *Health) All() map[string]ToolHealth {
	now := h.now()
	h.mu.RLock()
	defer h.mu.RUnlock()
	m := make(map[string]ToolHealth, len(h.tools))
	for name, s := range h.tools {
		m[name] = h.report(s, now)
	}
	return m
}
