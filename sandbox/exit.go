package sandbox

import (
	"context"
	"fmt"
	"strings"
)

// ExitKind classifies how a guest run failed.
type ExitKind int

// Exit kinds. The zero value is not a valid kind.
const (
	// ScriptError: a syntax error, an uncaught exception (also a thrown value
	// that is not an Error), a result that is not JSON, or a script whose
	// promise can never settle.
	ScriptError ExitKind = iota + 1
	// Timeout: Limits.Timeout or the ctx deadline passed. For Limits.Timeout
	// the message names the setting and its value: "the script ran past its
	// time limit (limits.timeout = 2s)".
	Timeout
	// Cancelled: the ctx was cancelled, or the engine closed, mid-run.
	Cancelled
	// LimitExceeded: a limit in Limits was crossed; ExitError.Limit says which.
	LimitExceeded
	// Trap: the wasm guest trapped (a module's unreachable, out-of-bounds
	// access or stack exhaustion; the script engine's own traps are mapped to
	// the limits that caused them).
	Trap
	// HostError: the Bridge returned an error, panicked or returned an
	// envelope that is not a JSON object with a "status".
	HostError
)

var kindNames = [...]string{"", "script_error", "timeout", "cancelled", "limit_exceeded", "trap", "host_error"}

// String returns the kind's stable snake_case name, e.g. "limit_exceeded".
func (k ExitKind) String() string {
	if k <= 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("ExitKind(%d)", int(k))
	}
	return kindNames[k]
}

// ExitError is the error Run returns when the guest did not finish normally.
type ExitError struct {
	// Kind classifies the failure.
	Kind ExitKind
	// Message describes it, e.g. "ReferenceError: x is not defined"; for an
	// uncaught exception, "Name: message" in V8's words
	// (guest-sdk/js/README.md, "Errors").
	Message string
	// Line and Column locate a ScriptError in the script as submitted (also
	// for TypeScript), both 1-based, as Node 20 would: the fault of an
	// uncaught exception (the first frame of its stack, in the file
	// Script.Filename names; a ToolError's is its tool call), or a syntax
	// error's token. 0 when unknown: a thrown value that is not an Error, an
	// error raised with no frame in the script, a stack overflow.
	Line, Column int
	// Limit names the limit crossed, for Kind LimitExceeded (Limit* constants);
	// Message then names the Limits setting and its value, e.g. "(limits.memory
	// = 64MiB)".
	Limit string
	// Err is the underlying error, if any: the Bridge's error for HostError,
	// the context's error for Timeout and Cancelled.
	Err error
}

// Error returns e.g. "sandbox: script_error at 3:5: ReferenceError: x is not defined".
func (e *ExitError) Error() string {
	var b strings.Builder
	b.WriteString("sandbox: ")
	b.WriteString(e.Kind.String())
	if e.Limit != "" {
		b.WriteString(" (" + e.Limit + ")")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, " at %d:%d", e.Line, e.Column)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap returns Err.
func (e *ExitError) Unwrap() error { return e.Err }

// Is makes a Timeout match context.DeadlineExceeded and a Cancelled match
// context.Canceled, and matches a target *ExitError of the same Kind whose
// Limit is empty or equal.
func (e *ExitError) Is(target error) bool {
	switch target {
	case context.DeadlineExceeded:
		return e.Kind == Timeout
	case context.Canceled:
		return e.Kind == Cancelled
	}
	t, ok := target.(*ExitError)
	return ok && t.Kind == e.Kind && (t.Limit == "" || t.Limit == e.Limit)
}
