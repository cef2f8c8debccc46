// Package wire is the codec between the JavaScript prelude and the host: the
// operation codes of __airlock_host, the decoding of the guest's tool-call
// requests (untrusted input: fuzzed by FuzzDecodeCall) and the form of
// the completions handed back to the guest. guest-sdk/ABI.md specifies it.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Operation codes: the first argument of every __airlock_host call.
const (
	OpCall = 1 // (payload) → call id: start a tool call
	OpLog  = 2 // (level, text) → undefined: one console line
	OpDone = 3 // (result JSON) → undefined: the script finished, and nothing runs after the job in progress
	OpFail = 4 // (error JSON) → never returns: the script failed
	// 5 was TAKE, which handed the guest its completions: the host now
	// calls the prelude's __airlock_pump with each (guest-sdk/ABI.md).
	// 6 was SOURCE, which handed the guest the script: the host now passes
	// it to __airlock_start.
	// OpTooLarge (length) → never returns: the result's JSON has more than
	// length UTF-16 code units, which already exceeds the result limit.
	OpTooLarge = 7
	// OpTimer (due) → the timers' clock, in milliseconds since the run
	// began as a decimal string: due, a decimal string, is the guest's
	// earliest timer on that clock; -1 means it has none; -2 only reads the
	// clock.
	OpTimer = 8
	// OpRandom (n) → n bytes from the host's random source, as a byte
	// string (guest-sdk/ABI.md); n is at most 65536.
	OpRandom = 9
	// OpDigest (algorithm, data, state, final) → the digest (final 1) or
	// the hash state after data, as a byte string; algorithm is "SHA-1",
	// "SHA-256", "SHA-384" or "SHA-512".
	OpDigest = 10
	// OpIntl (request JSON) → answer JSON: one Intl operation
	// (sandbox/internal/intl).
	OpIntl = 11
	// OpRead (ref, mode) → an artifact's content as text (mode 0) or
	// standard base64 (mode 1), or -1 when refused; mode 2 then returns
	// why, as {"reason","message"}.
	OpRead = 12
	// OpWhere () → "js\n<file>" or "ts\n<file>": the script's language and
	// file name; (line, column) → "line:column": a position in the
	// JavaScript the guest runs mapped to the TypeScript source, or "" when
	// it maps to nothing (the error hook, guest-sdk/js/prelude/05-errors.js).
	OpWhere = 13
	// OpSubtle (request JSON, data, data2) → "E" + {"n","m"} (a
	// DOMException to throw), "J" + JSON or "B" + a byte string: one
	// crypto.subtle operation on the run's key table (sandbox/subtleops.go).
	OpSubtle = 14
	// OpPromise (promise, 0) → its state as an int: -1 not a promise, 0
	// pending, 1 fulfilled, 2 rejected; (promise, 1) → the value it was
	// fulfilled or rejected with (undefined when pending). For console's
	// Promise { … } (guest-sdk/js/prelude/20-console.js); it runs no
	// JavaScript.
	OpPromise = 15
	// OpPumped () → 1 the first time it is asked after the host called
	// __airlock_pump with an event, else 0: the prelude's pump acts only
	// on an event the host delivered, not on one a script calling it
	// made up.
	OpPumped = 16
	// OpIntlFormat (compiled prefix) → a handle (int) into the run's table
	// of Intl formats, -1 when the table is full or the prefix is not
	// UTF-8, or an error answer as OpIntl's; (handle, number) → the
	// number, or for a date format the time value, formatted, or undefined
	// when the handle is unknown, the value not a number or the format
	// fails (the prelude then asks OpIntl, which reports the error).
	OpIntlFormat = 17
	// OpCallValue (args, tool name, stub, frames) → call id, or undefined:
	// CALL with the arguments as the value itself, which the host writes
	// as JSON.stringify would when it is a plain value (no toJSON, getter,
	// Proxy, ... : quickjs.Instance.AppendJSON); undefined, having done
	// nothing, for any other value, and the prelude then sends CALL.
	OpCallValue = 18
)

// MaxToolNameBytes bounds a tool name.
const MaxToolNameBytes = 256

// ErrBadRequest is wrapped by DecodeCall for a malformed request.
var ErrBadRequest = errors.New("wire: malformed tool call request")

// DecodeCall splits a call payload, "<tool name>\n<arguments JSON>", and
// checks both halves: the name is 1..MaxToolNameBytes bytes of valid UTF-8
// without control characters; the arguments are one valid JSON value. The
// returned slices alias payload.
func DecodeCall(payload []byte) (tool string, args []byte, err error) {
	i := bytes.IndexByte(payload, '\n')
	if i < 0 {
		return "", nil, fmt.Errorf("%w: no separator", ErrBadRequest)
	}
	name, args := payload[:i], payload[i+1:]
	if err := CheckCall(name, args); err != nil {
		return "", nil, err
	}
	return string(name), args, nil
}

// CheckCall checks a call's tool name and arguments, given apart (the
// CALL operation's two strings), as DecodeCall checks the halves of its
// payload: CheckToolName, then CheckArgs.
func CheckCall(name, args []byte) error {
	if err := CheckToolName(name); err != nil {
		return err
	}
	return CheckArgs(args)
}

// CheckArgs reports whether args, a call's arguments, are one valid JSON
// value, in UTF-8: json.Valid alone accepts any byte in a string, such as
// the WTF-8 the engine writes a raw lone surrogate as.
func CheckArgs(args []byte) error {
	if !json.Valid(args) || !utf8.Valid(args) {
		return fmt.Errorf("%w: arguments are not valid JSON", ErrBadRequest)
	}
	return nil
}

// CheckToolName reports whether name is acceptable as a tool name.
func CheckToolName(name []byte) error {
	if len(name) == 0 || len(name) > MaxToolNameBytes {
		return fmt.Errorf("%w: tool name must be 1 to %d bytes", ErrBadRequest, MaxToolNameBytes)
	}
	if !utf8.Valid(name) {
		return fmt.Errorf("%w: tool name is not valid UTF-8", ErrBadRequest)
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("%w: tool name holds a control character", ErrBadRequest)
		}
	}
	return nil
}

// ErrBadEnvelope is wrapped by CheckEnvelope.
var ErrBadEnvelope = errors.New("wire: malformed bridge envelope")

// CheckEnvelope reports whether env, as returned by a Bridge, is one JSON
// object with a string "status" member. The guest receives it verbatim.
func CheckEnvelope(env []byte) error {
	if _, ok := OkValue(env); ok {
		return nil
	}
	var head struct {
		Status *string `json:"status"`
	}
	if err := json.Unmarshal(env, &head); err != nil {
		return fmt.Errorf("%w: %w", ErrBadEnvelope, err)
	}
	if head.Status == nil {
		return fmt.Errorf("%w: no string \"status\" member", ErrBadEnvelope)
	}
	return nil
}

// okPrefix starts the envelope of a plain ok result as chain.Envelope
// writes it.
const okPrefix = `{"status":"ok","value":`

// OkValue returns V when env is exactly {"status":"ok","value":V} (no
// spaces, no other member; the form chain.Envelope writes for a plain
// result), V one valid JSON value, aliasing env; ok is false for any other
// envelope. An envelope it accepts passes CheckEnvelope, and the guest
// settles its call with V as the envelope would have.
func OkValue(env []byte) (v []byte, ok bool) {
	n := len(env)
	if n < len(okPrefix)+2 || env[n-1] != '}' || string(env[:len(okPrefix)]) != okPrefix {
		return nil, false
	}
	v = env[len(okPrefix) : n-1]
	// Valid as one value: a second member after it ("1,\"status\":…") is not.
	if !json.Valid(v) {
		return nil, false
	}
	return v, true
}

// Completion is one finished call: its id and envelope, or, for a plain
// ok result, the envelope's value alone. The host hands it to the prelude's
// __airlock_pump as (id, 1, Value) or (id, 0, Envelope), each parsed as
// JSON; envelopes must already have passed CheckEnvelope.
type Completion struct {
	ID       int32
	Envelope []byte // when Value is nil
	Value    []byte // OkValue of the envelope, or nil
}

// Failure is the error report of OpFail.
type Failure struct {
	// Name is the error's constructor name ("TypeError"); empty for a thrown
	// value that is not an Error.
	Name string `json:"name"`
	// Message is the error message, or a description of the thrown value.
	Message string `json:"message"`
	// Stack is the QuickJS stack trace, frames "at f (<input>:line:col)".
	Stack string `json:"stack"`
	// Error is false when the script threw a value that is not an Error.
	Error bool `json:"error"`
	// Prefix is the length of the wrapper the prelude put before the
	// script's first line (columns on line 1 include it).
	Prefix int `json:"prefix"`
	// Compile is set when the script failed to compile.
	Compile bool `json:"compile"`
	// Line and Column locate the error in the script as submitted (1-based,
	// TypeScript mapped back), as the prelude's error hook found them; 0
	// when the error has no frame in the script.
	Line   int `json:"line"`
	Column int `json:"column"`
}

// DecodeFailure parses an OpFail payload; garbage yields a Failure saying so.
func DecodeFailure(b []byte) Failure {
	var f Failure
	if err := json.Unmarshal(b, &f); err != nil || (f.Name == "" && f.Message == "") {
		return Failure{Message: "the script failed with an error that could not be described"}
	}
	return f
}

// EngineText returns the JSON text b as the engine's JSON parser must read
// it to see what its UTF-8 decoder makes of b: b itself when it is valid UTF-8,
// else a copy in which every byte that is not part of a valid sequence
// reads as U+FFFD and an encoded surrogate (ED A0–BF xx) as that lone
// surrogate, written as a \u escape. A Bridge may answer with bytes that
// are not UTF-8 inside JSON strings (encoding/json does not check them);
// the engine's JSON.parse refuses them, where a string the engine decodes
// keeps them as those code points. Outside strings such bytes are not
// valid JSON, which CheckEnvelope has refused already.
func EngineText(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r != utf8.RuneError || n > 1:
			out = append(out, b[i:i+n]...)
			i += n
		case b[i] == 0xED && i+2 < len(b) && b[i+1] >= 0xA0 && b[i+1] <= 0xBF && b[i+2]&0xC0 == 0x80:
			u := 0xD000 | uint16(b[i+1]&0x3F)<<6 | uint16(b[i+2]&0x3F)
			out = fmt.Appendf(out, `\u%04x`, u)
			i += 3
		default:
			out = append(out, "\uFFFD"...)
			i++
		}
	}
	return out
}
