package server

import "errors"

var (
	// ErrNoRunner is returned by New without Options.Runner.
	ErrNoRunner = errors.New("server: Options.Runner is required")
	// ErrNoEngine is returned by New when the Runner has no script engine.
	ErrNoEngine = errors.New("server: Options.Runner needs a script engine")
	// ErrParkNeedsFleet is returned by New when Options.Park is set
	// without Options.Fleet.
	ErrParkNeedsFleet = errors.New("server: Options.Park needs Options.Fleet: a parked chain is kept in the fleet's store (configure fleet.key)")
	// ErrNeedsAPIKeys is returned by ListenAndServe and Serve when no API
	// keys are configured (Options.Authenticate is nil) and the address is
	// not a loopback address.
	ErrNeedsAPIKeys = errors.New("server: without API keys airlock serves only on a loopback address (127.0.0.1, ::1 or localhost); configure server.api_keys to listen on another address")
	// errShuttingDown is the cancellation cause of chains still running
	// when a shutdown's grace period ends.
	errShuttingDown = errors.New("the server shut down before the chain finished")
	// errEndedElsewhere is the cancellation cause of a chain another
	// process of the fleet ended (its lease lapsed here).
	errEndedElsewhere = errors.New("another process of the fleet ended the chain after its lease lapsed here")
	// errCancelledByClient is the cancellation cause of DELETE /v1/chains/{id}.
	errCancelledByClient = errors.New("cancelled through the API")
	// errClientGone is the cancellation cause of a synchronous chain whose
	// client disconnected.
	errClientGone = errors.New("the client of a synchronous request disconnected")
)

// Reason codes of error responses: {"error":{"reason":…}}. They are part of
// the API and never change meaning.
const (
	// ReasonMalformedJSON (400): the body is not one JSON object.
	ReasonMalformedJSON = "malformed_json"
	// ReasonUnknownField (400): the body has a field the endpoint does not
	// define.
	ReasonUnknownField = "unknown_field"
	// ReasonInvalidRequest (400): a field has the wrong type or an invalid
	// value, or a required field is missing.
	ReasonInvalidRequest = "invalid_request"
	// ReasonInvalidLanguage (400): language is not javascript, typescript or
	// wasm (or wasm is not enabled).
	ReasonInvalidLanguage = "invalid_language"
	// ReasonInvalidScript (400): the script does not parse; the error has
	// line and column.
	ReasonInvalidScript = "invalid_script"
	// ReasonInvalidModule (400): a wasm module is not valid base64 or not a
	// chain module.
	ReasonInvalidModule = "invalid_module"
	// ReasonUnknownTools (400): tools names a tool or tool set that is not
	// configured.
	ReasonUnknownTools = "unknown_tools"
	// ReasonInvalidPolicy (400): the policy after overrides breaks a rule
	// (approval_timeout not shorter than call_timeout).
	ReasonInvalidPolicy = "invalid_policy"
	// ReasonAboveLimit (400): a policy or limits override is above the
	// operator's ceiling (server.max).
	ReasonAboveLimit = "above_operator_limit"
	// ReasonUnauthenticated (401): no bearer API key, or one that is not
	// configured.
	ReasonUnauthenticated = "unauthenticated"
	// ReasonTenantMismatch (403): the body names a tenant other than the
	// API key's.
	ReasonTenantMismatch = "tenant_mismatch"
	// ReasonForbiddenRole (403): the API key's role does not allow the
	// request: a submit key deciding an approval, an approver key
	// submitting or cancelling a chain.
	ReasonForbiddenRole = "forbidden_role"
	// ReasonForbiddenHost (403): without API keys, the request's Host is not
	// a loopback name (127.0.0.0/8, [::1], localhost): a DNS-rebinding
	// attempt, or a client that should use a loopback address.
	ReasonForbiddenHost = "forbidden_host"
	// ReasonForbiddenOrigin (403): without API keys, the request comes from
	// a web page (Origin header) that is not on a loopback host.
	ReasonForbiddenOrigin = "forbidden_origin"
	// ReasonNotFound (404): no such route.
	ReasonNotFound = "not_found"
	// ReasonChainNotFound (404): no chain of this tenant has that id (also
	// for another tenant's chain, and a result past its retention).
	ReasonChainNotFound = "chain_not_found"
	// ReasonApprovalNotFound (404): no approval request of this tenant has
	// that id.
	ReasonApprovalNotFound = "approval_not_found"
	// ReasonArtifactNotFound (404): no live artifact of this tenant has that
	// ref.
	ReasonArtifactNotFound = "artifact_not_found"
	// ReasonMethodNotAllowed (405): the route exists for other methods.
	ReasonMethodNotAllowed = "method_not_allowed"
	// ReasonChainFinished (409): DELETE of a chain that already ended.
	ReasonChainFinished = "chain_finished"
	// ReasonAlreadyDecided (409): the approval request was decided before;
	// this decision changed nothing. The error has the first decision.
	ReasonAlreadyDecided = "already_decided"
	// ReasonArgsMismatch (409): args_hash is not the hash of the request's
	// arguments; the request stays pending.
	ReasonArgsMismatch = "args_mismatch"
	// ReasonApprovalExpired (410): the request's wait ended before the
	// decision arrived.
	ReasonApprovalExpired = "approval_expired"
	// ReasonBodyTooLarge (413): the body exceeds server.max_request_bytes.
	ReasonBodyTooLarge = "body_too_large"
	// ReasonBodyTimeout (408): the body did not arrive within
	// server.body_timeout.
	ReasonBodyTimeout = "body_timeout"
	// ReasonUnsupportedMediaType (415): a body sent without Content-Type:
	// application/json.
	ReasonUnsupportedMediaType = "unsupported_media_type"
	// ReasonTooManyChains (429): server.max_concurrent_chains chains are
	// running.
	ReasonTooManyChains = "too_many_chains"
	// ReasonInternal (500): the server failed; the message says where.
	ReasonInternal = "internal_error"
	// ReasonShuttingDown (503): the server is draining and takes no new
	// chains.
	ReasonShuttingDown = "shutting_down"
	// ReasonStateRefused: a parked chain's stored state failed its checks
	// (edited, forged, or written by an incompatible engine); the chain
	// ended without running any more of it.
	ReasonStateRefused = "state_refused"
	// ReasonStoreUnavailable: the fleet's shared store could not be read or
	// written; retry.
	ReasonStoreUnavailable = "store_unavailable"
	// ReasonRunningElsewhere: the chain runs on another process of the
	// fleet, which alone can cancel it.
	ReasonRunningElsewhere = "running_elsewhere"
)
