package faultblob

import "errors"

// ErrInjected is returned (wrapped) by an operation that failed by
// schedule: before it reached the wrapped driver (Faults.ErrorRate), or
// after a write that did happen (Faults.LostRate).
var ErrInjected = errors.New("faultblob: injected fault")

// ErrKilled is returned by every operation of a Driver after Kill: the
// process it stands for is gone.
var ErrKilled = errors.New("faultblob: the process was killed")
