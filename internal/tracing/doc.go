// Package tracing records OpenTelemetry spans for chains and their tool
// calls on a tracer provider it is given (internal/assemble builds the one
// the configuration asks for). Tracing is off unless configured: with a nil
// provider every method is a cheap no-op.
//
//	tr := tracing.New(tp, "queue")
//	inv, _ := invoker.New(box, invoker.Options{Hooks: invoker.Hooks{
//		StartCall: tr.StartCall, OnToolEnd: tr.ToolEnd, OnEvent: tr.Parked}})
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
//	airlock.call.seq, airlock.approval.mode, airlock.approval.outcome,
//	airlock.policy.gate, airlock.policy.decision_id, airlock.policy.rule
//
// where the approval outcome is not_required, approved, denied, timeout,
// no_handler, failed or cancelled (invoker's Approval* values). A span whose status or call status is not
// ok has the OpenTelemetry status Error with the reason code as its
// description. Spans never carry argument values, results or secrets.
//
// The approval outcome is the one the invoker recorded on the event
// (invoker.Event.Approval), not a guess from the reason code.
//
// A chain span is the child of the span in its context, local or remote:
// a client's traceparent header is continued. The sampler internal/assemble
// sets up samples a chain under a remote parent by a draw of its own, so a
// client can neither force spans with its sampled flag nor with a trace id
// picked to pass the ratio sampler; it carries on at most 512 characters of
// the client's tracestate (W3C's truncation rule).
//
// The tool-call span starts before the call's first gate (StartCall, the
// invoker's hook), so the tool runs under it and sends its trace context on
// (toolbox.TraceContext); it ends with the call (ToolEnd), or when the call
// parks (Parked: call status parked; the resumption is a span of its own).
// ToolEnd and Parked find that span in the call's context by the event's
// session id, so a span a later hook (an embedder's StartCall) put on top
// does not hide it, and a chain started inside the tool does not end it.
// Without the StartCall hook, ToolEnd records a span covering the call's
// duration.
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
