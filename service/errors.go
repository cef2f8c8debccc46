package service

import (
	"errors"
	"fmt"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/invoker"
)

var (
	// ErrNoRunner is returned by New without a runner.
	ErrNoRunner = errors.New("service: a chain.Runner is required")
	// ErrNoEngine is returned by New when the runner has no script engine.
	ErrNoEngine = errors.New("service: the chain.Runner needs a script engine")
	// ErrParkNeedsFleet is returned by New when Options.Park is set
	// without Options.Fleet.
	ErrParkNeedsFleet = errors.New("service: Options.Park needs Options.Fleet: a parked chain is kept in the fleet's store (configure fleet.key)")
	// ErrNotFound is returned for a chain or approval request the caller's
	// tenant does not have: it never existed, belongs to another tenant,
	// or is past its retention. The answer is the same in each case.
	ErrNotFound = errors.New("service: no such chain or approval request")
	// ErrFinished is wrapped by Cancel for a chain that already ended.
	ErrFinished = errors.New("service: the chain already finished")
	// ErrRunningElsewhere is wrapped by Cancel for a chain another process
	// of the fleet runs: only that process can cancel it.
	ErrRunningElsewhere = errors.New("service: the chain runs on another process of the fleet")
	// ErrStoreUnavailable is wrapped when the fleet's shared store could
	// not be read or written; retry.
	ErrStoreUnavailable = errors.New("service: the fleet's store is unavailable")
	// ErrNotResumable is wrapped by Resume when the chain cannot be resumed
	// now: it is not parked, none of its calls was decided and no timer is
	// due, this process is busy or shutting down, or another process
	// claimed it first.
	ErrNotResumable = errors.New("service: the chain cannot be resumed now")
	// ErrTooManyStreams is returned by Follow, before calling its sink,
	// when the tenant follows Options.MaxStreamsPerTenant streams on this
	// process already (ReasonTooManyStreams); close one, or retry later.
	ErrTooManyStreams = errors.New("service: the tenant follows as many chain event streams as it may (" + ReasonTooManyStreams + ")")

	// errShuttingDown is the cancellation cause of chains still running
	// when Close's grace period ends.
	errShuttingDown = errors.New("the server shut down before the chain finished")
	// errEndedElsewhere is the cancellation cause of a chain another
	// process of the fleet ended (its lease lapsed here).
	errEndedElsewhere = errors.New("another process of the fleet ended the chain after its lease lapsed here")
	// errCancelled is the cancellation cause of Cancel.
	errCancelled = errors.New("cancelled through the API")
	// errClientGone is the cancellation cause of a synchronous chain whose
	// submitter went away.
	errClientGone = errors.New("the client of a synchronous request disconnected")
)

// Reason codes of refused submissions (SubmitError.Reason) and of the
// chains the service ends itself. They are part of the API (the HTTP face
// answers them in {"error":{"reason":…}}) and never change meaning.
const (
	// ReasonInvalidRequest: a field has the wrong type or an invalid value,
	// or a required field is missing.
	ReasonInvalidRequest = "invalid_request"
	// ReasonUnknownField: a policy, limits or guest key that is not a
	// setting.
	ReasonUnknownField = "unknown_field"
	// ReasonInvalidLanguage: language is not javascript, typescript or
	// wasm (or wasm is not enabled).
	ReasonInvalidLanguage = "invalid_language"
	// ReasonInvalidScript: the script does not parse or cannot run as a
	// chain; the error has line and column.
	ReasonInvalidScript = "invalid_script"
	// ReasonInvalidModule: a wasm module is not valid base64 or not a
	// chain module.
	ReasonInvalidModule = "invalid_module"
	// ReasonUnknownTools: tools names a tool or tool set that is not
	// configured.
	ReasonUnknownTools = "unknown_tools"
	// ReasonInvalidCallerTools: a caller tool's declaration breaks a rule
	// (name, description, schema bounds, count, a configured tool's name).
	ReasonInvalidCallerTools = "invalid_caller_tools"
	// ReasonInvalidPolicy: the policy after overrides breaks a rule
	// (approval_timeout not shorter than call_timeout).
	ReasonInvalidPolicy = "invalid_policy"
	// ReasonAboveLimit: a policy or limits override is above the
	// operator's ceiling (server.max).
	ReasonAboveLimit = "above_operator_limit"
	// ReasonTenantMismatch: the submission names a tenant other than the
	// caller's.
	ReasonTenantMismatch = "tenant_mismatch"
	// ReasonForbiddenRole: the caller's role does not allow the request.
	ReasonForbiddenRole = "forbidden_role"
	// ReasonBodyTooLarge: the script and input are above
	// server.max_request_bytes.
	ReasonBodyTooLarge = "body_too_large"
	// ReasonTooManyChains: server.max_concurrent_chains chains are running.
	ReasonTooManyChains = "too_many_chains"
	// ReasonInternal: the host failed; the message says where.
	ReasonInternal = "internal_error"
	// ReasonShuttingDown: the service is draining and takes no new chains.
	ReasonShuttingDown = "shutting_down"
	// ReasonStoreUnavailable: the fleet's shared store could not be read or
	// written (for a submission: the chain's first record), so nothing was
	// done; retry.
	ReasonStoreUnavailable = "store_unavailable"
	// ReasonHostError is the chain reason of a run the host failed (a panic
	// while it ran, or a chain that could not be parked).
	ReasonHostError = "host_error"
	// ReasonStateRefused is the chain reason of a parked chain whose stored
	// state failed its checks (edited, forged, or written by an
	// incompatible engine), expired more than durable.ResumeGrace ago, or
	// whose profile is gone; the chain ended
	// without running any more of it.
	ReasonStateRefused = "state_refused"
	// ReasonWakes is the chain reason (status limit_exceeded) of a chain
	// resumed from a park Options.MaxWakes times that would park again.
	ReasonWakes = "wakes"
	// ReasonParkBytes is the chain reason (status limit_exceeded) of a
	// chain whose parks would write more state bytes in all than
	// Options.MaxParkBytes.
	ReasonParkBytes = "park_bytes"
	// ReasonParkedChains is the chain reason (status limit_exceeded) of a
	// chain that would park while its tenant has
	// Options.MaxParkedPerTenant parked chains.
	ReasonParkedChains = "parked_chains"
	// ReasonTenantQuota is the chain reason (status limit_exceeded) of a
	// chain whose park would take its tenant past the invoker's
	// Options.MaxTenantArtifactBytes (store.max_tenant_artifact_bytes),
	// which counts the parked states this process stored beside the
	// tenant's artifacts: the invoker's quota_exceeded.
	ReasonTenantQuota = invoker.ReasonQuotaExceeded
	// ReasonTooManyStreams: the tenant follows Options.MaxStreamsPerTenant
	// chain event streams on this process already (ErrTooManyStreams).
	ReasonTooManyStreams = "too_many_streams"
)

// ChainReasons are the reasons of the chains the service ends itself,
// besides the sandbox's and the fleet's.
func ChainReasons() []string {
	return []string{ReasonHostError, ReasonStateRefused, ReasonWakes, ReasonParkBytes, ReasonParkedChains, ReasonTenantQuota}
}

// SubmitError is a submission the service refused. Reason is one of the
// Reason constants; Line and Column locate an invalid_script error.
type SubmitError struct {
	Reason, Message string
	Line, Column    int
}

func (e *SubmitError) Error() string { return e.Reason + ": " + e.Message }

func refuse(reason, format string, args ...any) *SubmitError {
	return &SubmitError{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// ExpiredError is returned by Decide for a request whose wait ended before
// the decision arrived; it matches approval.ErrExpired with errors.Is. Why
// says what ended the wait.
type ExpiredError struct{ Why string }

func (e *ExpiredError) Error() string {
	return "service: the request expired before this decision (" + e.Why + ")"
}

// Is matches approval.ErrExpired.
func (e *ExpiredError) Is(target error) bool { return target == approval.ErrExpired }
