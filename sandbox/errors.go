package sandbox

import "errors"

// ErrClosed is returned by Run, Compile and the constructors' products once
// their engine's Close has been called.
var ErrClosed = errors.New("sandbox: engine closed")

// ErrInvalidLimits is wrapped by Run when a Limits field is out of range;
// the message names the field.
var ErrInvalidLimits = errors.New("sandbox: invalid limits")

// ErrInvalidGuest is wrapped by Run and Guest.Set for a Guest setting
// that is not valid; the message names the setting.
var ErrInvalidGuest = errors.New("sandbox: invalid guest setting")

// ErrInvalidScript is wrapped by Run and Check when a Script cannot be run
// at all: an unknown Lang or a nil Bridge. Syntax errors are *ExitError.
var ErrInvalidScript = errors.New("sandbox: invalid script")

// ErrInvalidModule is wrapped by ModuleEngine.Compile when the bytes are not
// a usable module (not wasm, or no exported "run" function).
var ErrInvalidModule = errors.New("sandbox: invalid module")
