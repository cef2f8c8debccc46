// Package session holds the state of one chain: how many tool calls it made, a
// trace with one record per call whatever its outcome, and the blobs it pinned,
// which Close releases.
//
//	sess := session.New(session.Options{Tenant: "acme", Pins: store})
//	defer sess.Close(context.WithoutCancel(ctx))
//	res := inv.Invoke(ctx, sess, invoker.Call{Tool: "search", Args: args})
//	for _, r := range sess.Trace() { fmt.Println(r.Tool, r.Status, r.Reason) }
//
// A chain that parks on a pending approval carries its session to the
// process that resumes it: State exports it (JSON-encodable, bounded) and
// Restore rebuilds it, checking it first, with the caller supplying the
// blob store, MaxTrace and the re-resolved governance profile.
//
// # Concurrency
//
// A Session is safe for concurrent use by many goroutines; a chain may have
// several calls in flight (Promise.all). Trace, Pinned and the other views
// return copies.
//
// # Errors
//
// Pin returns ErrClosed after Close and ErrNoStore without a Pinner; store
// failures are wrapped with %w. Restore refuses a state no session could
// have exported with an error wrapping ErrInvalidState. Close joins the unpin failures and can be
// called again to retry them.
package session
