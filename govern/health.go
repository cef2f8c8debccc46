package govern

import "time"

// HealthStatus is a tool's health.
type HealthStatus string

// Health states.
const (
	Healthy     HealthStatus = "healthy"
	Degraded    HealthStatus = "degraded"
	Unavailable HealthStatus = "unavailable"
)

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

// ToolHealth is one tool's health as reported.
type ToolHealth struct {
	Status              HealthStatus `json:"status"`
	ConsecutiveFailures int          `json:"consecutive_failures"`
	// Until is when an unavailable tool may be tried again.
	Until time.Time `json:"until,omitzero"`
	// LastSuccess and LastFailure are zero when there was none.
	LastSuccess time.Time `json:"last_success,omitzero"`
	LastFailure time.Time `json:"last_failure,omitzero"`
}

// Health tracks the health of every tool.
type Health struct {
	// TODO(health helper)
}

// NewHealth returns a tracker with opts' thresholds.
func NewHealth(opts HealthOptions, now Clock) *Health {
	return &Health{}
}

// Check reports whether tool may be called now; when not, until when it
// rests.
func (h *Health) Check(tool string) (ok bool, until time.Time) { return true, time.Time{} }

// Success records a successful call of tool.
func (h *Health) Success(tool string) {}

// Failure records a failed call of tool (an error, a panic, a timeout).
func (h *Health) Failure(tool string) {}

// RateLimited records that tool's upstream refuses calls until reset.
func (h *Health) RateLimited(tool string, reset time.Time) {}

// Get returns tool's health; a tool never called is healthy.
func (h *Health) Get(tool string) ToolHealth { return ToolHealth{Status: Healthy} }
