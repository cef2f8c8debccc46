// Package approval provides human approval for risky tool calls: a Queue
// that parks each request until someone decides it (through the HTTP API, a
// UI, a chat bot), and a terminal prompt for `airlock run --approve ask`.
// Both implement invoker.ApprovalHandler.
//
//	q := approval.NewQueue(approval.Options{})
//	stop := q.Subscribe(func(ev approval.Event) {
//		if ev.Kind == approval.Pending { notify(ev.Request) } // e.g. an SSE approval_required
//	})
//	defer stop()
//	inv, _ := invoker.New(box, invoker.Options{Approver: q})
//	…
//	// elsewhere, once a person has looked at the request:
//	out, err := q.Decide(tenant, req.ID, invoker.Approved, req.ArgsHash)
//
// A decision is bound to the arguments it was shown: Decide takes the
// request's ArgsHash, and refuses a decision carrying another hash. The
// invoker runs exactly the canonical arguments the request holds. A request
// expires with its context (the policy's approval timeout); a decision after
// that, or a second decision, changes nothing and says so.
//
// The queue holds a request's arguments only while it is pending, and at
// most Options.PreviewBytes (4 KiB) of them: larger arguments are kept whole
// in Options.Store, in the request's tenant, pinned until the request is
// settled (Request.ArgsRef, whose SHA-256 is the ArgsHash), and the queue
// keeps only their start (Request.ArgsPreview); without a store such a
// request is refused with ErrArgsTooLarge. Listings and events carry the
// preview. A decided or expired request is remembered (for Options.Remember
// requests) with its ArgsHash and ArgsSize only. Options.MaxPending bounds
// the pending requests, Options.MaxPendingPerTenant those of each tenant
// and Options.MaxPendingBytes the bytes they hold in memory.
//
// # Concurrency
//
// Queue and TerminalApprover are safe for concurrent use. Subscribers are
// called one event at a time, in order, on the goroutine of the Approve or
// Decide call that caused the event.
//
// # Errors
//
// Decide returns ErrNotFound (also for another tenant's request),
// ErrExpired (which wraps ErrNotFound), ErrAlreadyDecided or
// ErrArgsMismatch. Approve returns the context's error when the wait ends
// undecided, ErrQueueFull when too many requests wait (in all, of the
// request's tenant, or in bytes), ErrArgsTooLarge when arguments larger
// than a preview have no store to go to (both also wrap
// invoker.ErrApprovalRefused, so the chain reads why), and, for the
// terminal, ErrNoAnswer when the input ended.
package approval
