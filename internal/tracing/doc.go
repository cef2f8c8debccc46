// Package tracing records OpenTelemetry spans for chains and their tool
// calls on a tracer provider it is given (internal/assemble builds the one
// the configuration asks for). Tracing is off unless configured: with a nil
// provider every method is a cheap no-op.
//
//	tr := tracing.New(tp, "queue")
//	inv, _ := invoker.New(box, invoker.Options{Hooks: invoker.Hooks{OnToolEnd: tr.ToolEnd}})
//	ctx, end := tr.StartChain(ctx, tracing.Chain{ID: id, Tenant: "acme", Language: "js"})
//	res, err := runner.Run(ctx, script, chain.Options{SessionID: id})
//	end(res)
//
// # Spans
//
// A chain is one span, "airlock.chain", with the attributes
//
//	airlock.chain.id, airlock.tenant, airlock.chain.language,
//	airlock.approval.mode, airlock.chain.status, airlock.chain.reason,
//	airlock.chain.calls, airlock.guest.memory_bytes
//
// and each tool call one child span, "airlock.tool_call", with
//
//	airlock.tool, airlock.tool.risk, airlock.call.status, airlock.call.reason,
//	airlock.call.seq, airlock.approval.mode, airlock.approval.outcome
//
// where the approval outcome is not_required, approved, denied, timeout,
// no_handler, failed or cancelled (invoker's Approval* values). A span whose status or call status is not
// ok has the OpenTelemetry status Error with the reason code as its
// description. Spans never carry argument values, results or secrets.
//
// The approval outcome is the one the invoker recorded on the event
// (invoker.Event.Approval), not a guess from the reason code.
//
// A chain span is the child of a local span in its context. A remote parent
// (a client's traceparent header) is only linked: the chain span starts a
// trace of its own, and the sampler internal/assemble sets up ignores a remote parent's sampled
// flag, so clients can neither force spans nor choose the sampled trace ids.
//
// The tool-call span is recorded when the call ends (from the invoker's
// ToolEnd event), with its start time set back by the call's duration, so
// concurrent calls of one chain need no bookkeeping.
//
// # Concurrency
//
// A Tracer is safe for concurrent use.
//
// # Errors
//
// Exporting errors go to the OpenTelemetry error handler and never affect a
// chain.
package tracing
