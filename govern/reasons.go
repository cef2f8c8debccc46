package govern

// Reason codes of governance refusals. Package invoker re-exports each as
// a Reason constant; they are part of the API.
const (
	// ReasonScopeViolation: the tool requires a scope the chain's profile
	// does not grant. Never worth retrying.
	ReasonScopeViolation = "scope_violation"
	// ReasonGateDenied: the gate matrix answers deny for the call's
	// autonomy level and risk.
	ReasonGateDenied = "gate_denied"
	// ReasonPreviewRequired: the gate matrix answers preview; the tool did
	// not run and the result carries its preview.
	ReasonPreviewRequired = "preview_required"
	// ReasonApprovalModeUpgraded: evaluated again just before it would run,
	// the call met a stricter gate than the one it passed (the profile or
	// the chain's history changed meanwhile); it did not run.
	ReasonApprovalModeUpgraded = "approval_mode_upgraded"
	// ReasonDependencyUnmet: a Sequential policy: a tool that must succeed
	// first in this chain has not.
	ReasonDependencyUnmet = "dependency_unmet"
	// ReasonReadBeforeWrite: a ReadBeforeWrite policy: the target was not
	// read successfully in this chain first.
	ReasonReadBeforeWrite = "read_before_write"
	// ReasonCallLimit: a CallLimit policy: the tool was called as often as
	// the profile allows in one chain.
	ReasonCallLimit = "call_limit_exceeded"
	// ReasonArgumentNotAllowed: an ArgConstraint: the value is not in the
	// allow-list.
	ReasonArgumentNotAllowed = "argument_not_allowed"
	// ReasonArgumentPattern: an ArgConstraint: the value does not match the
	// pattern.
	ReasonArgumentPattern = "argument_pattern_mismatch"
	// ReasonArgumentTooLong: an ArgConstraint: the value is longer than
	// allowed.
	ReasonArgumentTooLong = "argument_too_long"
	// ReasonToolUnavailable: the tool failed too often in a row, or its
	// upstream rate-limited it; it rests until its quiet period ends.
	ReasonToolUnavailable = "tool_unavailable"
	// ReasonRateLimited: the tenant's egress rate for the tool is spent;
	// the message says when to retry.
	ReasonRateLimited = "rate_limited"
	// ReasonOutcomeUnknown: an earlier call with the same idempotency key
	// may or may not have taken effect; airlock does not run it again.
	ReasonOutcomeUnknown = "outcome_unknown"
	// ReasonIdempotencyPending: an earlier call with the same idempotency
	// key is still running (here or on another process).
	ReasonIdempotencyPending = "idempotency_pending"
	// ReasonPolicyFailed: a call policy panicked while checking the call;
	// the call is refused (fail closed).
	ReasonPolicyFailed = "policy_failed"
	// ReasonIdempotencyKeyReused: the idempotency key was used before for
	// the same tool with other arguments; the call did not run.
	ReasonIdempotencyKeyReused = "idempotency_key_reused"
)
