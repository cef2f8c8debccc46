package chain

import (
	"crypto/rand"
	"encoding/json"
	"strings"
	"time"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
)

// Status is where a chain stands: how it ended, or, while it has not,
// running, waiting_approval or parked. Statuses lists them all; every other
// package (the service's views, the fleet's records, the metrics, the API's
// schema) takes its chain statuses from here.
type Status string

const (
	// StatusRunning: the chain runs (not a RunResult's status: the
	// service's view of a chain that has not ended, and the fleet's record
	// of a chain some process runs).
	StatusRunning Status = "running"
	// StatusWaitingApproval: the chain runs and one of its calls waits for
	// a decision in the approval queue (the service's view).
	StatusWaitingApproval Status = "waiting_approval"
	// StatusInterrupted: the process running the chain was lost (a fleet's
	// record; its reason is process_lost).
	StatusInterrupted Status = "interrupted"
	// StatusOK: the script returned; Value holds its result.
	StatusOK Status = "ok"
	// StatusError: the script failed (syntax error, uncaught exception, a trap,
	// a host failure). Reason is script_error, trap or host_error.
	StatusError Status = "error"
	// StatusTimeout: the chain's wall-clock limit or ctx deadline passed.
	StatusTimeout Status = "timeout"
	// StatusCancelled: the ctx was cancelled.
	StatusCancelled Status = "cancelled"
	// StatusLimitExceeded: a sandbox limit was crossed; Reason names it
	// (memory, logs, result, args, in_flight).
	StatusLimitExceeded Status = "limit_exceeded"
	// StatusParked: the chain stopped to wait for approvals (Options.Park);
	// Parked holds it, for Runner.Resume. Reason is awaiting_approval.
	StatusParked Status = "parked"
)

// Statuses returns every Status, those of a chain that has not ended
// first.
func Statuses() []Status {
	return []Status{StatusRunning, StatusWaitingApproval, StatusParked, StatusOK, StatusError, StatusTimeout,
		StatusCancelled, StatusLimitExceeded, StatusInterrupted}
}

// Final reports whether s is how a chain ended (interrupted included):
// not running, waiting_approval or parked.
func (s Status) Final() bool {
	return s != StatusRunning && s != StatusWaitingApproval && s != StatusParked
}

// NewID returns a fresh chain id: "ch_" and 26 lower-case base32
// characters (128 random bits). Every face names its chains with it.
func NewID() string { return "ch_" + strings.ToLower(rand.Text()) }

// ReasonAwaitingApproval is the Reason of a parked chain.
const ReasonAwaitingApproval = "awaiting_approval"

// RunResult is everything one chain produced. It is complete whatever the
// status: the trace holds every call made before the chain ended.
type RunResult struct {
	// ID is the chain's session id.
	ID     string `json:"id"`
	Status Status `json:"status"`
	// Reason is a stable code for a non-ok status: script_error, trap,
	// host_error, timeout, cancelled, or the limit's name.
	Reason string `json:"reason,omitempty"`
	// Error describes a failure; Line and Column locate a script error in the
	// source as submitted (1-based; 0 when unknown).
	Error  string `json:"error,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Value is the script's return value as JSON; nil unless ok.
	Value json.RawMessage `json:"value,omitempty"`
	// Logs are the console lines the script wrote.
	Logs          []sandbox.LogEntry `json:"logs"`
	LogsTruncated bool               `json:"logs_truncated,omitempty"`
	// Trace has one record per tool call, in completion order.
	Trace []session.Record `json:"trace"`
	// TraceDropped counts records past the session's trace cap.
	TraceDropped int `json:"trace_dropped,omitempty"`
	// Files are the media files tools returned.
	Files []invoker.ChainFile `json:"files"`
	// Artifacts are the results that were offloaded to the blob store.
	Artifacts []invoker.Artifact `json:"artifacts"`
	Stats     Stats              `json:"stats"`
	// Parked is set when Status is parked: the approvals the chain waits
	// for, and its state. It is not part of the JSON (the state is for
	// the host to keep).
	Parked *Parked `json:"-"`
}

// Stats describes one chain run.
type Stats struct {
	// Wall is the whole run, session open to session close.
	Wall time.Duration `json:"wall_ns"`
	// Instantiate is the time spent getting a fresh sandbox instance.
	Instantiate time.Duration `json:"instantiate_ns"`
	// Calls is the number of tool calls the guest made (trace records).
	Calls int `json:"calls"`
	// ArgBytes and ResultBytes sum the sizes in the trace.
	ArgBytes    int64 `json:"arg_bytes"`
	ResultBytes int64 `json:"result_bytes"`
	// MemoryBytes is the guest's peak memory.
	MemoryBytes uint64 `json:"memory_bytes"`
}
