package invoker

import "github.com/airlockrt/airlock/govern"

// Reason codes are part of airlock's API: every non-ok Result carries exactly
// one (but a parked one, which has not ended), tests assert them, and they never change meaning. The gate that
// produces each is listed in doc.go; docs/limits.md maps limits to them.
const (
	// ReasonBudgetExhausted: the session already made Policy.MaxToolCalls calls.
	ReasonBudgetExhausted = "budget_exhausted"
	// ReasonUnknownTool: no tool of that name is registered.
	ReasonUnknownTool = "unknown_tool"
	// ReasonNotCallable: hosted and provider-defined tools and the chain tool
	// cannot be called from a chain.
	ReasonNotCallable = "not_callable_from_chain"
	// ReasonArgumentsTooLarge: the arguments exceed Policy.MaxArgumentBytes.
	ReasonArgumentsTooLarge = "arguments_too_large"
	// ReasonInvalidArguments: the arguments are not a JSON object matching the
	// tool's input schema (unknown fields included). The message carries the
	// schema error.
	ReasonInvalidArguments = "invalid_arguments"
	// ReasonNoApprovalHandler: the tool needs approval and none is configured.
	ReasonNoApprovalHandler = "no_approval_handler"
	// ReasonApprovalTimeout: no decision within Policy.ApprovalTimeout.
	ReasonApprovalTimeout = "approval_timeout"
	// ReasonApprovalDenied: the handler refused the call.
	ReasonApprovalDenied = "approval_denied"
	// ReasonApprovalFailed: the handler returned an error or panicked, or
	// the arguments of a resumed call changed since its decision.
	ReasonApprovalFailed = "approval_failed"
	// ReasonApprovalExpired: the call parked for a decision
	// (session.Options.ParkApprovals) and none came before the chain's
	// deadline; it did not run.
	ReasonApprovalExpired = "approval_expired"
	// ReasonArtifactNotFound: an {"$artifact": ref} argument names a blob that
	// does not exist, is malformed, or is not readable by this session. The
	// three cases are indistinguishable on purpose.
	ReasonArtifactNotFound = "artifact_not_found"
	// ReasonArtifactTooLarge: the artifacts of one call resolve to more than
	// Policy.MaxResolvedBytes.
	ReasonArtifactTooLarge = "artifact_too_large"
	// ReasonHostBusy: the process already holds Options.MaxResolvingBytes of
	// resolved artifacts for other calls; retrying later may succeed.
	ReasonHostBusy = "host_busy"
	// ReasonTenantMemory: the tenant's calls in progress (waiting for
	// approval or running) already hold Options.MaxTenantInFlightBytes of
	// host memory, or this call's arguments would take them past it; the
	// call did not run. Retrying once some of them ended may succeed;
	// large data belongs in an artifact ref.
	ReasonTenantMemory = "tenant_memory"
	// ReasonCancelled: the chain's context ended before or during the call.
	ReasonCancelled = "cancelled"
	// ReasonCallTimeout: the tool ran longer than Policy.CallTimeout. The trace
	// records such a call with status timeout.
	ReasonCallTimeout = "call_timeout"
	// ReasonToolError: the tool returned an error; the message is its text.
	ReasonToolError = "tool_error"
	// ReasonToolPanic: the tool panicked; the panic was contained.
	ReasonToolPanic = "tool_panic"
	// ReasonInvalidResult: the tool returned bytes that are not valid JSON.
	ReasonInvalidResult = "invalid_result"
	// ReasonQuotaExceeded: storing the call's large result or media files
	// would take the chain past Policy.MaxArtifactBytes or its tenant past
	// Options.MaxTenantArtifactBytes; nothing was stored. The tool ran and
	// its effects stand. (Also the chain reason, status limit_exceeded, of
	// a chain whose park would take its tenant past that limit: package
	// service, ChargeTenantBytes.)
	ReasonQuotaExceeded = "quota_exceeded"
	// ReasonStoreError: a large result or a media file could not be stored.
	ReasonStoreError = "store_error"
	// ReasonInternal: the invoker itself failed; the failure was contained.
	ReasonInternal = "internal_error"

	// Governance (package govern; docs/governance.md).

	// ReasonScopeViolation: the tool requires a scope the chain's profile
	// does not grant. Status denied; retrying cannot help.
	ReasonScopeViolation = govern.ReasonScopeViolation
	// ReasonGateDenied: the profile's gate matrix answers deny for the
	// call's autonomy level and risk. Status denied.
	ReasonGateDenied = govern.ReasonGateDenied
	// ReasonPreviewRequired: the gate matrix answers preview: the tool did
	// not run; Result.Preview holds what it would do. Status denied.
	ReasonPreviewRequired = govern.ReasonPreviewRequired
	// ReasonApprovalModeUpgraded: evaluated again just before it would
	// run, the call met a stricter gate than the one it passed. Status
	// denied; the invoker logs it as a security event.
	ReasonApprovalModeUpgraded = govern.ReasonApprovalModeUpgraded
	// ReasonDependencyUnmet, ReasonReadBeforeWrite, ReasonCallLimit,
	// ReasonArgumentNotAllowed, ReasonArgumentPattern,
	// ReasonArgumentTooLong and ReasonPolicyFailed: a call policy refused
	// the call (status denied); see govern's policies.
	ReasonDependencyUnmet    = govern.ReasonDependencyUnmet
	ReasonReadBeforeWrite    = govern.ReasonReadBeforeWrite
	ReasonCallLimit          = govern.ReasonCallLimit
	ReasonArgumentNotAllowed = govern.ReasonArgumentNotAllowed
	ReasonArgumentPattern    = govern.ReasonArgumentPattern
	ReasonArgumentTooLong    = govern.ReasonArgumentTooLong
	ReasonPolicyFailed       = govern.ReasonPolicyFailed
	// ReasonToolUnavailable: the tool failed too often in a row or its
	// upstream rate-limited it; it rests until Result.RetryAfter. Status
	// error.
	ReasonToolUnavailable = govern.ReasonToolUnavailable
	// ReasonRateLimited: the tenant's egress rate for the tool is spent,
	// or the tool's upstream refused the call for now; retry after
	// Result.RetryAfter. Status error.
	ReasonRateLimited = govern.ReasonRateLimited
	// ReasonOutcomeUnknown: an earlier call with the same idempotency key
	// may or may not have taken effect; it is never run again. Status
	// error.
	ReasonOutcomeUnknown = govern.ReasonOutcomeUnknown
	// ReasonIdempotencyPending: an earlier call with the same idempotency
	// key is still running, here or on another process. Status error.
	ReasonIdempotencyPending = govern.ReasonIdempotencyPending
	// ReasonIdempotencyKeyReused: the key was used before for the same
	// tool with other arguments; the call did not run. Status error.
	ReasonIdempotencyKeyReused = govern.ReasonIdempotencyKeyReused
	// ReasonCallInterrupted: the call had started when the process running
	// its chain was lost (a fleet's interrupted chain): it may or may not
	// have taken effect, and it is never run again. Status error; only in
	// the trace of an interrupted chain.
	ReasonCallInterrupted = "call_interrupted"
	// ReasonCredentialUnavailable: the tool could not obtain a credential
	// the call needs (a ${tenant:NAME} or ${env:NAME} secret that is not
	// set for the calling tenant, unreadable or not usable), so nothing
	// was sent; the message names the reference, never a value. Status
	// error; docs/identity.md.
	ReasonCredentialUnavailable = "credential_unavailable"
	// ReasonCredentialExpired: the tool needs a delegated credential (a
	// token exchanged for its audience from the chain's identity) and the
	// token service refused the chain's subject token as invalid, expired
	// or revoked, so nothing was sent; a fresh subject token is needed.
	// The message names the audience, never a token. Status error;
	// docs/identity.md.
	ReasonCredentialExpired = "credential_expired"
)

// Reasons returns every reason code a Result may carry, in the order of
// this file.
func Reasons() []string {
	return []string{
		ReasonBudgetExhausted, ReasonUnknownTool, ReasonNotCallable, ReasonArgumentsTooLarge,
		ReasonInvalidArguments, ReasonNoApprovalHandler, ReasonApprovalTimeout, ReasonApprovalDenied,
		ReasonApprovalFailed, ReasonApprovalExpired, ReasonArtifactNotFound, ReasonArtifactTooLarge, ReasonHostBusy,
		ReasonTenantMemory, ReasonCancelled, ReasonCallTimeout, ReasonToolError, ReasonToolPanic, ReasonInvalidResult,
		ReasonQuotaExceeded, ReasonStoreError, ReasonInternal,
		ReasonScopeViolation, ReasonGateDenied, ReasonPreviewRequired, ReasonApprovalModeUpgraded,
		ReasonDependencyUnmet, ReasonReadBeforeWrite, ReasonCallLimit, ReasonArgumentNotAllowed,
		ReasonArgumentPattern, ReasonArgumentTooLong, ReasonPolicyFailed, ReasonToolUnavailable,
		ReasonRateLimited, ReasonOutcomeUnknown, ReasonIdempotencyPending, ReasonIdempotencyKeyReused,
		ReasonCallInterrupted,
		ReasonCredentialUnavailable, ReasonCredentialExpired,
	}
}
