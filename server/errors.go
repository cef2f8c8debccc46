package server

import (
	"errors"

	"github.com/airlockrt/airlock/service"
)

var (
	// ErrNoService is returned by New without a service.
	ErrNoService = errors.New("server: a service.Service is required")
	// ErrNeedsAPIKeys is returned by ListenAndServe and Serve when no API
	// keys are configured (the service has no Options.Keys) and the address is
	// not a loopback address.
	ErrNeedsAPIKeys = errors.New("server: without API keys airlock serves only on a loopback address (127.0.0.1, ::1 or localhost); configure server.api_keys to listen on another address")
)

// Reason codes of error responses: {"error":{"reason":…}}. They are part of
// the API and never change meaning. Those of refused submissions are the
// service's (service.SubmitError), named here too.
const (
	// ReasonMalformedJSON (400): the body is not one JSON object.
	ReasonMalformedJSON = "malformed_json"
	// ReasonUnknownField (400): the body has a field the endpoint does not
	// define.
	ReasonUnknownField = service.ReasonUnknownField
	// ReasonInvalidRequest (400): a field has the wrong type or an invalid
	// value, or a required field is missing.
	ReasonInvalidRequest = service.ReasonInvalidRequest
	// ReasonInvalidLanguage (400): language is not javascript, typescript or
	// wasm (or wasm is not enabled).
	ReasonInvalidLanguage = service.ReasonInvalidLanguage
	// ReasonInvalidScript (400): the script does not parse; the error has
	// line and column.
	ReasonInvalidScript = service.ReasonInvalidScript
	// ReasonInvalidModule (400): a wasm module is not valid base64 or not a
	// chain module.
	ReasonInvalidModule = service.ReasonInvalidModule
	// ReasonUnknownTools (400): tools names a tool or tool set that is not
	// configured.
	ReasonUnknownTools = service.ReasonUnknownTools
	// ReasonInvalidCallerTools: a caller tool's declaration breaks a rule.
	ReasonInvalidCallerTools = service.ReasonInvalidCallerTools
	// ReasonInvalidPolicy (400): the policy after overrides breaks a rule
	// (approval_timeout not shorter than call_timeout).
	ReasonInvalidPolicy = service.ReasonInvalidPolicy
	// ReasonAboveLimit (400): a policy or limits override is above the
	// operator's ceiling (server.max).
	ReasonAboveLimit = service.ReasonAboveLimit
	// ReasonUnauthenticated (401): no bearer API key, or one that is not
	// configured.
	ReasonUnauthenticated = "unauthenticated"
	// ReasonTenantMismatch (403): the body names a tenant other than the
	// API key's.
	ReasonTenantMismatch = service.ReasonTenantMismatch
	// ReasonForbiddenRole (403): the API key's role does not allow the
	// request: a submit key deciding an approval, an approver key
	// submitting or cancelling a chain.
	ReasonForbiddenRole = service.ReasonForbiddenRole
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
	// ReasonCallNotFound: no pending call of a caller tool by that id for
	// this key's tenant.
	ReasonCallNotFound = "call_not_found"
	// ReasonAlreadyAnswered: the call was answered before.
	ReasonAlreadyAnswered = "already_answered"
	// ReasonCallExpired: the call ended before the answer came.
	ReasonCallExpired = "call_expired"
	// ReasonResultTooLarge: an answer's result (or error) is above the
	// server's bound; the call still waits.
	ReasonResultTooLarge = "result_too_large"
	// ReasonOutputSchemaMismatch: an answer's result breaks the caller
	// tool's output schema; the call still waits.
	ReasonOutputSchemaMismatch = "output_schema_mismatch"
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
	ReasonBodyTooLarge = service.ReasonBodyTooLarge
	// ReasonBodyTimeout (408): the body did not arrive within
	// server.body_timeout.
	ReasonBodyTimeout = "body_timeout"
	// ReasonUnsupportedMediaType (415): a body sent without Content-Type:
	// application/json.
	ReasonUnsupportedMediaType = "unsupported_media_type"
	// ReasonTooManyChains (429): server.max_concurrent_chains chains are
	// running.
	ReasonTooManyChains = service.ReasonTooManyChains
	// ReasonTooManyStreams (429): the tenant has
	// server.max_streams_per_tenant event streams open on this process.
	ReasonTooManyStreams = service.ReasonTooManyStreams
	// ReasonInternal (500): the server failed; the message says where.
	ReasonInternal = service.ReasonInternal
	// ReasonShuttingDown (503): the server is draining and takes no new
	// chains.
	ReasonShuttingDown = service.ReasonShuttingDown
	// ReasonStateRefused: a parked chain's stored state failed its checks
	// (edited, forged, or written by an incompatible engine); the chain
	// ended without running any more of it.
	ReasonStateRefused = service.ReasonStateRefused
	// ReasonWakes, ReasonParkBytes and ReasonParkedChains are chain
	// reasons (status limit_exceeded) of a chain that would park past its
	// budget: approval.max_wakes, approval.max_park_bytes,
	// approval.max_parked_per_tenant (docs/limits.md).
	ReasonWakes        = service.ReasonWakes
	ReasonParkBytes    = service.ReasonParkBytes
	ReasonParkedChains = service.ReasonParkedChains
	// ReasonTenantQuota (quota_exceeded) is the chain reason (status
	// limit_exceeded) of a chain whose park would take its tenant past
	// store.max_tenant_artifact_bytes, which counts the parked states a
	// process stored beside the tenant's artifacts (docs/limits.md).
	ReasonTenantQuota = service.ReasonTenantQuota
	// ReasonStoreUnavailable: the fleet's shared store could not be read or
	// written; retry.
	ReasonStoreUnavailable = service.ReasonStoreUnavailable
	// ReasonRunningElsewhere: the chain runs on another process of the
	// fleet, which alone can cancel it.
	ReasonRunningElsewhere = "running_elsewhere"
	// ReasonChainParked (409): POST /v1/chains/{id}/identity for a parked
	// chain, which holds no identity; send it once the chain runs again.
	ReasonChainParked = "chain_parked"
)
