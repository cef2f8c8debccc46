package session

import "errors"

var (
	// ErrClosed is returned by Pin after Close.
	ErrClosed = errors.New("session: closed")

	// ErrNoStore is returned by Pin when the session was built without a Pinner.
	ErrNoStore = errors.New("session: no blob store to pin in")

	// ErrInvalidState is returned by Restore and State.Validate for a state
	// no session could have exported; the error names the first fault.
	ErrInvalidState = errors.New("session: invalid state")
)
