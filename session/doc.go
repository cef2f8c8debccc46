// Package session holds the state of one chain: how many tool calls it made, a
// trace with one record per call whatever its outcome, and the blobs it pinned,
// which Close releases.
//
//	sess := session.New(session.Options{Tenant: "acme", Pins: store})
//	defer sess.Close(context.WithoutCancel(ctx))
//	res := inv.Invoke(ctx, sess, invoker.Call{Tool: "search", Args: args})
//	for _, r := range sess.Trace() { fmt.Println(r.Tool, r.Status, r.Reason) }
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
// failures are wrapped with %w. Close joins the unpin failures and can be
// called again to retry them.
package session
