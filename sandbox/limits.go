package sandbox

import (
	"fmt"
	"time"
)

// Defaults applied to the zero fields of Limits.
const (
	DefaultTimeout        = 300 * time.Second
	DefaultMemoryBytes    = 64 << 20
	DefaultMaxLogBytes    = 1 << 20
	DefaultMaxResultBytes = 1 << 20
	DefaultMaxInFlight    = 64
	DefaultMaxArgsBytes   = 1 << 20
	DefaultMaxLogEntries  = 10000
)

// LogEntryOverhead is what each console entry costs against
// Limits.MaxLogBytes on top of its text, in bytes: the host keeps a
// LogEntry for it whatever its length, so empty entries are not free.
const LogEntryOverhead = 64

// Limits bounds one run. The zero value of every field means its default;
// negative values are invalid. Which limit ended a run is reported in
// ExitError.Limit (the Limit* constants).
type Limits struct {
	// Timeout is the run's wall-clock limit, default 300s. A run whose ctx has
	// an earlier deadline ends at that deadline. Exceeding it ends the run
	// with Kind Timeout.
	Timeout time.Duration
	// MemoryBytes caps the guest's memory, default 64 MiB. For scripts it is
	// the QuickJS heap limit; the wasm linear memory is capped a little above
	// it (the next power of two at or above MemoryBytes + 16 MiB, for the
	// engine's own static data and stack).
	// For modules it caps the linear memory. Exceeding it ends the run with
	// LimitExceeded/LimitMemory, unless the script catches the out-of-memory
	// error and carries on.
	MemoryBytes uint64
	// MaxLogBytes caps the captured console output, default 1 MiB: the sum
	// over the entries of len(LogEntry.Text) + LogEntryOverhead. The line
	// that crosses it is truncated (or dropped when not even its overhead
	// fits), the run ends with LimitExceeded/LimitLogs and
	// Result.LogsTruncated is set.
	MaxLogBytes int
	// MaxLogEntries caps the number of console entries, default 10000. The
	// call that would add one more ends the run with LimitExceeded/LimitLogs
	// and sets Result.LogsTruncated.
	MaxLogEntries int
	// MaxResultBytes caps the JSON encoding of the script's result, default
	// 1 MiB. Exceeding it ends the run with LimitExceeded/LimitResult.
	MaxResultBytes int
	// MaxInFlight caps the tool calls in flight at once, default 64. Further
	// calls wait, in the guest, for a slot; they are not failed. The module
	// engine's guests call synchronously, so they never have more than one.
	MaxInFlight int
	// MaxArgsBytes caps the JSON arguments of one tool call, default 1 MiB.
	// Exceeding it ends the run with LimitExceeded/LimitArgs.
	MaxArgsBytes int
	// MaxStackBytes caps the script engine's C stack, which bounds recursion
	// depth (roughly 250 bytes per JavaScript call). Zero and values above
	// the engine's maximum (56 KiB: the build reserves 64 KiB, less a safety
	// margin) mean that maximum. Exceeding it ends the run with
	// LimitExceeded/LimitStack; scripts cannot catch it. Modules ignore it:
	// their stack is their own.
	MaxStackBytes int
}

// Values of ExitError.Limit for Kind LimitExceeded.
const (
	LimitMemory = "memory"
	LimitLogs   = "logs"
	LimitResult = "result"
	LimitArgs   = "args"
	LimitStack  = "stack"
	// LimitInFlight is reported only when a guest bypasses the prelude's
	// queue and starts more than MaxInFlight calls itself.
	LimitInFlight = "in_flight"
)

// withDefaults returns l with zero fields set to their defaults, or an error
// naming the first negative field.
func (l Limits) withDefaults() (Limits, error) {
	switch {
	case l.Timeout < 0:
		return l, fmt.Errorf("%w: Timeout (%v) must not be negative", ErrInvalidLimits, l.Timeout)
	case l.MaxLogBytes < 0:
		return l, fmt.Errorf("%w: MaxLogBytes (%d) must not be negative", ErrInvalidLimits, l.MaxLogBytes)
	case l.MaxResultBytes < 0:
		return l, fmt.Errorf("%w: MaxResultBytes (%d) must not be negative", ErrInvalidLimits, l.MaxResultBytes)
	case l.MaxInFlight < 0:
		return l, fmt.Errorf("%w: MaxInFlight (%d) must not be negative", ErrInvalidLimits, l.MaxInFlight)
	case l.MaxStackBytes < 0:
		return l, fmt.Errorf("%w: MaxStackBytes (%d) must not be negative", ErrInvalidLimits, l.MaxStackBytes)
	case l.MaxLogEntries < 0:
		return l, fmt.Errorf("%w: MaxLogEntries (%d) must not be negative", ErrInvalidLimits, l.MaxLogEntries)
	case l.MaxArgsBytes < 0:
		return l, fmt.Errorf("%w: MaxArgsBytes (%d) must not be negative", ErrInvalidLimits, l.MaxArgsBytes)
	case l.MemoryBytes > 3<<30:
		return l, fmt.Errorf("%w: MemoryBytes (%d) must be at most 3 GiB (wasm32)", ErrInvalidLimits, l.MemoryBytes)
	}
	if l.Timeout == 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.MaxLogBytes == 0 {
		l.MaxLogBytes = DefaultMaxLogBytes
	}
	if l.MaxResultBytes == 0 {
		l.MaxResultBytes = DefaultMaxResultBytes
	}
	if l.MaxInFlight == 0 {
		l.MaxInFlight = DefaultMaxInFlight
	}
	if l.MaxLogEntries == 0 {
		l.MaxLogEntries = DefaultMaxLogEntries
	}
	if l.MaxArgsBytes == 0 {
		l.MaxArgsBytes = DefaultMaxArgsBytes
	}
	return l, nil
}
