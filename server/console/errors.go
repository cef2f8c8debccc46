package console

import "github.com/airlockrt/airlock/service"

// Reason codes of the console's own error answers. They are part of the
// API and never change meaning.
const (
	// ReasonUnauthenticated (401): no session cookie, or one that is not
	// (or no longer) valid: unknown, expired, signed out, or its key was
	// removed. Also a sign-in with a key that is not configured.
	ReasonUnauthenticated = "unauthenticated"
	// ReasonForbiddenRole (403): a sign-in with a key that may not decide
	// approvals (role submit).
	ReasonForbiddenRole = service.ReasonForbiddenRole
	// ReasonCSRF (403): a request that changes state came without the
	// session's CSRF token (X-CSRF-Token) or with another.
	ReasonCSRF = "csrf_token_invalid"
	// ReasonForbiddenOrigin (403): a request that changes state came
	// without an Origin header naming this server (a page of another site).
	ReasonForbiddenOrigin = "forbidden_origin"
	// ReasonTooManySignIns (429): too many failed sign-ins from this
	// address in the last minute; retry later.
	ReasonTooManySignIns = "too_many_sign_ins"
	// ReasonTooManySessions (503): the console holds Options.MaxSessions
	// sessions; retry when one expires.
	ReasonTooManySessions = "too_many_sessions"
	// ReasonBodyTooLarge (413): a sign-in body above MaxSignInBytes.
	ReasonBodyTooLarge = service.ReasonBodyTooLarge
	// ReasonInvalidRequest (400): a sign-in body that is not
	// {"key": "…"}.
	ReasonInvalidRequest = service.ReasonInvalidRequest
	// ReasonNotFound (404): no such page or file.
	ReasonNotFound = "not_found"
)
