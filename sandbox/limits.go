package sandbox

import (
	"context"
	"fmt"
	"time"

	"github.com/airlockrt/airlock/internal/setting"
)

// Defaults applied to the zero fields of Limits.
const (
	DefaultTimeout        = 300 * time.Second
	DefaultMemoryBytes    = 64 << 20
	DefaultMaxLogBytes    = 1 << 20
	DefaultMaxResultBytes = 1 << 20
	DefaultMaxInFlight    = 64
	DefaultMaxArgsBytes   = 1 << 20
	// DefaultMaxStackBytes is the script engine's largest stack: its stack
	// region of 512 KiB (quickjs.StackRegion), less a safety margin.
	DefaultMaxStackBytes = 512<<10 - 8<<10
	DefaultMaxLogEntries = 10000
	DefaultMaxReadBytes  = 64 << 20
)

// Bounds of Limits.MemoryBytes.
const (
	MinMemoryBytes = 1 << 20
	MaxMemoryBytes = 3 << 30 // wasm32 leaves room for 4 GiB, less the engine's own
)

// LogEntryOverhead is what each console entry costs against
// Limits.MaxLogBytes on top of its text, in bytes: the host keeps a
// LogEntry for it whatever its length, so empty entries are not free.
const LogEntryOverhead = 64

// Limits bounds one run. The zero value of every field means its default;
// negative values are invalid. Which limit ended a run is reported in
// ExitError.Limit (the Limit* constants).
//
// Limits owns these settings: their keys (LimitSettings), defaults,
// validation (Validate) and the merge of a request's values (Tighten).
// Configuration files, flags and HTTP requests only load values into it
// (Set).
type Limits struct {
	// Timeout is the run's wall-clock limit, default 300s. A run whose ctx has
	// an earlier deadline ends at that deadline. Exceeding it ends the run
	// with Kind Timeout. Key "timeout".
	Timeout time.Duration
	// MemoryBytes caps the guest's memory, default 64 MiB, 1 MiB to 3 GiB.
	// For scripts the wasm linear memory is capped at MemoryBytes +
	// quickjs.Headroom (6.5 MiB), for the engine's static data, its 512 KiB
	// stack region and the unwritten spacer below it (2 MiB, no memory
	// used), and the prelude's heap: a script can hold about MemoryBytes
	// + 2 MiB. For modules it
	// caps the linear memory. Exceeding it ends the run with
	// LimitExceeded/LimitMemory, unless the script catches the out-of-memory
	// error and carries on. Key "memory".
	MemoryBytes uint64
	// MaxLogBytes caps the captured console output, default 1 MiB: the sum
	// over the entries of len(LogEntry.Text) + LogEntryOverhead. The line
	// that crosses it is truncated (or dropped when not even its overhead
	// fits), the run ends with LimitExceeded/LimitLogs and
	// Result.LogsTruncated is set. Key "max_log_bytes".
	MaxLogBytes int
	// MaxLogEntries caps the number of console entries, default 10000. The
	// call that would add one more ends the run with LimitExceeded/LimitLogs
	// and sets Result.LogsTruncated. Key "max_log_entries".
	MaxLogEntries int
	// MaxResultBytes caps the JSON encoding of the script's result, default
	// 1 MiB. Exceeding it ends the run with LimitExceeded/LimitResult. Key
	// "max_result_bytes".
	MaxResultBytes int
	// MaxInFlight caps the tool calls in flight at once, default 64. Further
	// calls wait, in the guest, for a slot; they are not failed. The module
	// engine's guests call synchronously, so they never have more than one.
	// Key "max_in_flight".
	MaxInFlight int
	// MaxArgsBytes caps the JSON arguments of one tool call, default 1 MiB.
	// Exceeding it ends the run with LimitExceeded/LimitArgs. Key
	// "max_args_bytes".
	MaxArgsBytes int
	// MaxStackBytes caps the script engine's C stack, which bounds recursion
	// depth (roughly 420 bytes per JavaScript call: about 1,200 nested calls
	// at the default, where Node 20 allows some 10,000), default and maximum
	// DefaultMaxStackBytes; larger values mean the maximum. A script that
	// recurses too deep gets a RangeError "Maximum call stack size
	// exceeded" it can catch, thrown a margin above the cap
	// (quickjs.SoftStackMargin: 8 to 16 KiB, part of it the room its stack
	// is made in; under 20 KiB, the error has no stack); what passes that
	// check and reaches the cap itself (native recursion, a stack under ~16
	// KiB) ends the run with LimitExceeded/LimitStack, which scripts cannot
	// catch. It also bounds the Go heap wazero's native stack takes while
	// a script recurses (up to about 30 MiB a chain at the default;
	// proportional to it), so
	// a host that runs many chains at once may lower it.
	// Modules ignore it: their stack is their own. Key "max_stack_bytes".
	MaxStackBytes int
	// MaxReadBytes caps the artifact content one script reads into the
	// guest (artifact.text(), .json(), .bytes()), default 64 MiB. A read
	// that would pass it is refused (the promise rejects with reason
	// read_limit) before anything is loaded. Key "max_read_bytes".
	MaxReadBytes int64
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

// limitTable is the one description of every Limits field.
var limitTable = setting.Table[Limits]{
	setting.Of("timeout", setting.Duration, DefaultTimeout, func(l *Limits) *time.Duration { return &l.Timeout },
		"wall-clock limit of one chain"),
	setting.Of("memory", setting.Bytes, uint64(DefaultMemoryBytes), func(l *Limits) *uint64 { return &l.MemoryBytes },
		"guest memory (the script engine's heap, a module's linear memory)").Within(MinMemoryBytes, MaxMemoryBytes),
	setting.Of("max_log_bytes", setting.Bytes, DefaultMaxLogBytes, func(l *Limits) *int { return &l.MaxLogBytes },
		"captured console output of one chain"),
	setting.Of("max_result_bytes", setting.Bytes, DefaultMaxResultBytes, func(l *Limits) *int { return &l.MaxResultBytes },
		"JSON encoding of the chain's final result"),
	setting.Of("max_in_flight", setting.Count, DefaultMaxInFlight, func(l *Limits) *int { return &l.MaxInFlight },
		"tool calls in flight at once (more wait in the guest)"),
	setting.Of("max_args_bytes", setting.Bytes, DefaultMaxArgsBytes, func(l *Limits) *int { return &l.MaxArgsBytes },
		"JSON arguments of one tool call at the bridge"),
	setting.Of("max_stack_bytes", setting.Bytes, DefaultMaxStackBytes, func(l *Limits) *int { return &l.MaxStackBytes },
		"script engine stack, which bounds recursion depth"),
	setting.Of("max_log_entries", setting.Count, DefaultMaxLogEntries, func(l *Limits) *int { return &l.MaxLogEntries },
		"console entries one chain may write"),
	setting.Of("max_read_bytes", setting.Bytes, DefaultMaxReadBytes, func(l *Limits) *int64 { return &l.MaxReadBytes },
		"artifact content one script may read into the guest"),
}

// LimitSettings describes every setting of Limits: its key, kind, default
// and what it bounds, in documentation order.
func LimitSettings() []setting.Doc { return limitTable.Docs() }

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	limitTable.WithDefaults(&l)
	return l
}

// Validate reports the first field of l (defaults filled in) out of range.
// The error wraps ErrInvalidLimits and names the field by its key.
func (l Limits) Validate() error {
	l = l.WithDefaults()
	if err := limitTable.Check(&l); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidLimits, err)
	}
	return nil
}

// Set sets the field named key (see LimitSettings) from text: a duration
// such as "30s", a size such as "64MiB", or a whole number. "0" means the
// default.
func (l *Limits) Set(key, text string) error { return limitTable.Parse(l, key, text) }

// Get returns the field named key written as text, and whether l has it.
func (l Limits) Get(key string) (string, bool) {
	f, ok := limitTable.Lookup(key)
	if !ok {
		return "", false
	}
	return f.Format(f.Get(&l)), true
}

// Tighten returns l (defaults filled in) with every non-zero field of req
// applied: a request's own limits. A value may exceed l's only up to
// ceiling's value for it; a zero ceiling field means l's value, so without a
// ceiling a request may only lower a limit. The error names the first field
// refused by its key.
func (l Limits) Tighten(req, ceiling Limits) (Limits, error) {
	out, err := limitTable.Tighten(l.WithDefaults(), req, ceiling)
	if err != nil {
		return out, err
	}
	return out, out.Validate()
}

// Or returns l with each zero field set to q's value: a ceiling's unset
// fields filled with the configured values, for instance.
func (l Limits) Or(q Limits) Limits {
	limitTable.Or(&l, q)
	return l
}

// CheckCeiling reports a non-zero field of ceiling below l's effective
// value: a ceiling that would refuse the configured limits themselves.
func (l Limits) CheckCeiling(ceiling Limits) error {
	return limitTable.Below(ceiling, l.WithDefaults())
}

// setting names the field key of l and its value as error messages name a
// limit the run reached, e.g. "limits.timeout = 2s": the configuration key
// (a request's "limits" object uses the same key).
func (l Limits) setting(key string) string {
	v, _ := l.Get(key)
	return "limits." + key + " = " + v
}

// timeLimit is the cancellation cause of a run's context when its
// Limits.Timeout passes, as opposed to the deadline of the caller's context.
type timeLimit struct {
	what string // "script" or "module"
	lim  Limits
}

func (t *timeLimit) Error() string {
	return fmt.Sprintf("the %s ran past its time limit (%s)", t.what, t.lim.setting("timeout"))
}

// withTimeLimit returns ctx ending after d, the time lim.Timeout leaves
// the run, with a timeLimit as its cause; ctx's own earlier deadline still
// ends it first, with the cause ctx has.
func withTimeLimit(ctx context.Context, d time.Duration, lim Limits, what string) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, &timeLimit{what: what, lim: lim})
}

// withDefaults returns l with defaults filled in, or an error naming the
// first field out of range.
func (l Limits) withDefaults() (Limits, error) {
	if err := l.Validate(); err != nil {
		return l, err
	}
	return l.WithDefaults(), nil
}
