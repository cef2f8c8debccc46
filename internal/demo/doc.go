// Package demo provides the built-in DEMO tools that let `airlock run` do
// something real offline, with no setup: an in-memory key-value store, a text
// search over a few bundled documents, a CSV generator whose result is large
// enough to be offloaded as an artifact, CSV statistics that take such an
// artifact back, a PNG chart renderer producing media, a HIGH-risk
// send_message that needs approval, and slow and fail tools for trying
// timeouts and errors. They are demonstrations, not production tools: every
// description starts with "[demo]".
//
//	box, state := demo.Toolbox()
//	inv, _ := invoker.New(box, invoker.Options{Store: store})
//	…
//	for _, m := range state.Messages("acme") { fmt.Println(m.To, m.Text) }
//
// # Concurrency
//
// A State and its tools are safe for concurrent use; calls of one chain or of
// many chains may run at once and share the same key-value store and message
// log.
//
// # Errors
//
// Tools report bad input (out-of-range counts, malformed CSV, a full store)
// as errors, which the invoker turns into tool_error results. fail always
// returns an error; slow returns the context's error when it is cancelled.
package demo
