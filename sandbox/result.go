package sandbox

import (
	"encoding/json"
	"time"
)

// Result is what a run produced. Run returns it also when the guest failed,
// with the logs captured until then.
type Result struct {
	// Value is the JSON encoding of the script's return value ("null" when
	// it returned nothing); nil when the run failed.
	Value json.RawMessage
	// Logs are the console lines, in order.
	Logs []LogEntry
	// LogsTruncated is set when Limits.MaxLogBytes cut the logs short.
	LogsTruncated bool
	// Stats describes the run.
	Stats Stats
	// Parked is set when the run parked (Script.Park): Value is then
	// empty and the run continues with ScriptEngine.Resume.
	Parked *Parked
}

// LogLevel is a console level.
type LogLevel string

// Console levels, as Node's streams imply: console.debug logs LogDebug;
// log, info, dir, table, group, count and time* LogInfo; warn, assert and
// the console's own warnings LogWarn; error and trace LogError.
const (
	LogDebug LogLevel = "debug"
	LogInfo  LogLevel = "info"
	LogWarn  LogLevel = "warn"
	LogError LogLevel = "error"
)

// LogEntry is one console line: its arguments rendered and joined by spaces
// (strings as is, Errors with their stack, other values as JSON).
type LogEntry struct {
	Level LogLevel `json:"level"`
	Text  string   `json:"text"`
}

// Stats describes one run.
type Stats struct {
	// Wall is the run's wall time, from Run's start to its return.
	Wall time.Duration
	// Instantiate is the part of Wall spent obtaining a fresh instance
	// (near zero when it came from the pool).
	Instantiate time.Duration
	// Calls is the number of tool calls handed to the Bridge.
	Calls int
	// Entries is the number of times the host entered a script's guest:
	// once to start it, then once per event handed to it (a tool call's
	// completion or a due timer). A script waiting for tools or timers
	// costs no entries while it waits. Zero for modules.
	Entries int
	// MemoryBytes is the guest's peak linear memory size, capped at
	// Limits.MemoryBytes (the script engine's linear memory may exceed the
	// limit by the engine's own headroom, which the script cannot use).
	MemoryBytes uint64
	// Pooled is set when the instance came from the engine's pool.
	Pooled bool
}
