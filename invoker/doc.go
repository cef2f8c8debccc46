// Package invoker is the single gate every tool call from a chain passes
// through. One Invoker serves every chain of a process; the per-chain state
// (call count, trace, pins) lives in the session.Session given to Invoke.
//
//	inv, err := invoker.New(box, invoker.Options{Store: store, Approver: approver})
//	sess := inv.NewSession(session.Options{Tenant: "acme"})
//	defer sess.Close(context.WithoutCancel(ctx))
//	res := inv.Invoke(ctx, sess, invoker.Call{Tool: "search", Args: args})
//	if !res.OK() { log.Print(res.Reason) }
//
// Invoke runs the gates in this order; the first that fails decides the
// Result (status / reason):
//
//  1. budget: more than Policy.MaxToolCalls calls → error / budget_exhausted
//     (a resumed call, Call.Resume, takes no new number: its Seq must be one
//     the chain made → else error / internal_error)
//  2. registry lookup → error / unknown_tool
//  3. type gate: hosted, provider-defined and chain tools → error / not_callable_from_chain
//     3a. argument size → error / arguments_too_large; the tenant's host
//     memory: the arguments, what decoding them may take, and each further
//     copy the call keeps (its canonical form included) count against
//     Options.MaxTenantInFlightBytes
//     until the call ends → error / tenant_memory; schema → error /
//     invalid_arguments
//     (arguments holding artifact refs are schema-checked after step 5)
//     3b. governance (docs/governance.md; package govern): tool health →
//     error / tool_unavailable; scopes → denied / scope_violation; risk
//     (per action, adjusters) and the profile's gate matrix → denied /
//     gate_denied, or preview_required (the tool's Preview runs instead)
//     3c. a resumed call whose gate no longer confirms: expired → denied /
//     approval_expired, denied → denied / approval_denied; approved goes on
//  4. the confirm gate (lifted to allow for risks at or below
//     Policy.MaxRiskUnapproved) → the ApprovalHandler, within
//     Policy.ApprovalTimeout → denied / no_approval_handler, approval_timeout,
//     approval_denied, approval_failed. The handler sees a canonical encoding
//     of the arguments, and exactly those bytes run; artifact refs in it are
//     described by the store (sha256, size, mime), not by the script.
//     In a session that parks approvals (session.Options.ParkApprovals) the
//     call parks instead: status parked, Result.Parked holds the request,
//     no record yet, no handler needed. Its resumption brings the decision
//     → denied / approval_expired, approval_denied, or approval_failed when
//     the canonical arguments' hash is no longer the one decided on.
//  5. {"$artifact": ref} arguments are replaced by the blob's content
//     → error / artifact_not_found, artifact_too_large, host_busy,
//     store_error
//     5b. the decision again if the chain's profile or the tool changed
//     meanwhile → denied / approval_mode_upgraded or the new refusal
//     5c. call policies → denied / dependency_unmet, read_before_write,
//     call_limit_exceeded, argument_*, policy_failed
//  6. cancellation → error / cancelled
//     6a. egress rate per (tenant, tool) → error / rate_limited
//     6b. idempotency (write-class tools): a recorded outcome is returned
//     (deduped) → or error / outcome_unknown, idempotency_pending
//  7. ToolCall progress event
//  8. execution within Policy.CallTimeout (or the tool's shorter
//     LatencyBudget), panics contained → error / call_timeout, tool_error,
//     tool_panic, rate_limited, credential_unavailable, credential_expired,
//     cancelled
//  9. ToolResult progress event
//  10. shaping: ≤ MaxInlineResultBytes inline; larger stored, pinned to the
//     session and returned as an Artifact envelope; media stored as ChainFiles
//     → error / invalid_result, quota_exceeded, store_error
//
// # Artifacts
//
// A result whose JSON encoding exceeds Policy.MaxInlineResultBytes is stored
// (a JSON string as text/plain, anything else as application/json), pinned to
// the session and returned as {"$artifact": ref, "preview", "size", "mime"}.
// Passing that object, or just {"$artifact": ref}, anywhere in a later call's
// arguments hands the tool the content, decoded by media type:
// application/json (and +json) → the JSON value; text/* → a JSON string;
// anything else → a base64 JSON string (a Go []byte field). Without a store
// everything stays inline and every ref is artifact_not_found. Media (Output
// .Media) become ChainFiles at /workspace/media/<tool>_<n>.<ext>.
//
// What a chain stores is charged first to two quotas: the chain's
// (Policy.MaxArtifactBytes, over the session's life) and its tenant's
// (Options.MaxTenantArtifactBytes, over the artifacts this process stored
// for the tenant that are pinned or unpinned less than the store's TTL
// ago). A result that would exceed either stores nothing and fails with
// quota_exceeded; the tool ran, so its effects stand.
//
// A tool that ignores its context keeps running after its call timed out;
// the caller is not blocked, the result is dropped, and Abandoned counts it.
//
// # Parking
//
// A chain waiting on a human need not hold a goroutine, or even its
// process: with session.Options.ParkApprovals a call that meets the
// confirm gate returns at once with status session.StatusParked and a
// ParkedCall (its number, start, the exact ApprovalRequest and the
// decision id), fires approval.parked, and appends no trace record. The
// session travels as session.State (RestoreSession rebuilds it); the call
// is resumed by invoking it again with Call.Resume, which re-runs every
// gate but the budget, uses the decision at the confirm gate, and appends
// the call's one record, starting when the call began. A write-class call
// resumed twice runs once when idempotency records are on: its derived
// key comes from the parked call's number.
//
// # Concurrency
//
// An Invoker is immutable and safe for concurrent use; so is a Session, so a
// chain may have many calls in flight. Hooks and the progress func run on the
// calling goroutine.
//
// # Errors
//
// New and WithPolicy return ErrNilToolbox or an error wrapping
// ErrInvalidPolicy that names the field. Invoke never returns a Go error and
// never panics: every outcome is a Result with a stable reason code
// (reasons.go).
package invoker
