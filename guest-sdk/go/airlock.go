// Package airlock is the guest side of a compiled airlock chain: a Go
// program built with GOOS=wasip1 GOARCH=wasm whose main reads its input,
// calls tools through the host bridge and writes one JSON result.
//
//	func main() {
//		var in struct{ City string }
//		airlock.Must(airlock.Input(&in))
//		var weather struct{ TempC float64 }
//		if err := airlock.Call("weather", map[string]any{"city": in.City}, &weather); err != nil {
//			airlock.Fail(err)
//		}
//		airlock.Must(airlock.Output(map[string]any{"temp": weather.TempC}))
//	}
//
// The host functions and envelopes are specified in ../ABI.md. Outside wasm
// (go test, go vet on the host) every function returns ErrNoHost.
//
// # Concurrency
//
// The wasip1 port of Go runs one goroutine at a time and a Call blocks the
// whole guest until the host answers, so calls are sequential.
//
// # Errors
//
// Call returns a *ToolError when the tool answered with status "error" or
// "denied"; other errors mean the arguments or result could not be
// (un)marshalled. A failure of the host itself ends the guest.
package airlock

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// ErrNoHost is returned outside a wasm guest.
var ErrNoHost = errors.New("airlock: not running inside an airlock host")

// ToolError is a tool call that did not succeed.
type ToolError struct {
	// Tool is the name that was called.
	Tool string
	// Status is "error" or "denied".
	Status string
	// Reason is the host's stable reason code, e.g. "unknown_tool".
	Reason string
	// Message is the host's human-readable explanation.
	Message string
	// Preview is what the tool would have done, for reason
	// "preview_required"; nil otherwise.
	Preview json.RawMessage
	// RetryAfterMs is how long to wait before calling again, for reasons
	// "rate_limited" and "tool_unavailable"; 0 otherwise.
	RetryAfterMs int64
}

// Error returns e.g. "airlock: tool search: denied (approval_denied): no".
func (e *ToolError) Error() string {
	s := fmt.Sprintf("airlock: tool %s: %s", e.Tool, e.Status)
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// envelope is the host's answer to a call (ABI.md).
type envelope struct {
	Status  string          `json:"status"`
	Value   json.RawMessage `json:"value"`
	Reason  string          `json:"reason"`
	Message string          `json:"message"`
	Preview json.RawMessage `json:"preview"`
	Retry   int64           `json:"retry_after_ms"`
}

// CallRaw calls tool with JSON arguments (nil means {}) and returns the
// JSON value of a successful result, or a *ToolError.
func CallRaw(tool string, args []byte) (json.RawMessage, error) {
	if len(args) == 0 {
		args = []byte("{}")
	}
	raw, err := hostCall(tool, args)
	if err != nil {
		return nil, err
	}
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("airlock: tool %s: malformed envelope: %w", tool, err)
	}
	if env.Status != "ok" {
		return nil, &ToolError{Tool: tool, Status: env.Status, Reason: env.Reason, Message: env.Message,
			Preview: env.Preview, RetryAfterMs: env.Retry}
	}
	if len(env.Value) == 0 {
		return json.RawMessage("null"), nil
	}
	return env.Value, nil
}

// Call calls tool with args marshalled to JSON (nil means {}) and, on
// success, unmarshals the result into out (which may be nil to discard it).
// An artifact result ({"$artifact": ref, ...}) arrives like any other value
// and can be passed as is in another call's arguments.
func Call(tool string, args any, out any) error {
	var b []byte
	if args != nil {
		var err error
		if b, err = json.Marshal(args); err != nil {
			return fmt.Errorf("airlock: tool %s: marshalling arguments: %w", tool, err)
		}
	}
	v, err := CallRaw(tool, b)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(v, out); err != nil {
		return fmt.Errorf("airlock: tool %s: unmarshalling result: %w", tool, err)
	}
	return nil
}

// InputBytes returns the run's input, the JSON value given to Module.Run.
func InputBytes() ([]byte, error) { return hostInput() }

// Input unmarshals the run's input into v.
func Input(v any) error {
	b, err := InputBytes()
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Output sets the run's result to v marshalled as JSON. The last call wins.
func Output(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("airlock: marshalling output: %w", err)
	}
	return hostOutput(b)
}

// Log writes one log line at level "debug", "info", "warn" or "error"
// (anything else is "info"). Writing to os.Stdout and os.Stderr is captured
// too, as "info" and "error" lines.
func Log(level, msg string) { hostLog(level, msg) }

// Fail reports err as the guest's error and exits with status 1; the run
// ends with a script error carrying err's text.
func Fail(err error) {
	hostError(err.Error())
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// Must calls Fail if err is non-nil.
func Must(err error) {
	if err != nil {
		Fail(err)
	}
}
