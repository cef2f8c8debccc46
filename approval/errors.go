package approval

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound is returned by Get and Decide when no pending request has
	// that id for that tenant: it never existed, it belongs to another tenant,
	// or it is no longer known. The answer is the same in each case, so one
	// tenant learns nothing about another's requests.
	ErrNotFound = errors.New("approval: no such pending request")

	// ErrExpired is returned by Decide for a request of the caller's tenant
	// whose wait ended (approval timeout or the chain ended) before a
	// decision arrived. It wraps ErrNotFound.
	ErrExpired = fmt.Errorf("%w: the request expired before it was decided", ErrNotFound)

	// ErrAlreadyDecided is returned by Decide for a request that was already
	// decided. The second decision is a no-op; the returned Outcome holds the
	// first one.
	ErrAlreadyDecided = errors.New("approval: the request was already decided; this decision changed nothing")

	// ErrArgsMismatch is returned by Decide when the arguments hash given with
	// the decision is not the hash of the request's arguments: the decision
	// was made on other arguments than the ones that would run. The request
	// stays pending.
	ErrArgsMismatch = errors.New("approval: the decision was made for other arguments than the request's; it was refused")

	// ErrQueueFull is wrapped by Approve when Options.MaxPending requests are
	// already waiting, or Options.MaxPendingPerTenant of the request's
	// tenant, or the request would take the queue past
	// Options.MaxPendingBytes; the message says which. The invoker denies
	// the call with approval_failed.
	ErrQueueFull = errors.New("approval: too many requests are waiting for a decision")

	// ErrArgsTooLarge is wrapped by Approve when a request's arguments are
	// larger than Options.PreviewBytes and no Options.Store is configured to
	// keep them for review. The invoker denies the call with
	// approval_failed.
	ErrArgsTooLarge = errors.New("approval: the arguments are too large to queue for review")

	// ErrNoAnswer is returned by a Terminal whose input ended (EOF or a read
	// error) before the user answered. The invoker denies the call with
	// approval_failed.
	ErrNoAnswer = errors.New("approval: the terminal input ended before an answer")
)
