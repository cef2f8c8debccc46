package invoker

import "errors"

// ErrInvalidPolicy is wrapped by New and WithPolicy when a Policy field is out
// of range; the message names the field and the allowed range.
var ErrInvalidPolicy = errors.New("chain policy")

// ErrNilToolbox is returned by New for a nil *toolbox.Toolbox.
var ErrNilToolbox = errors.New("invoker: nil toolbox")

// ErrInvalidOptions is wrapped by New when an Options field is out of range.
var ErrInvalidOptions = errors.New("invoker options")
