// Package console is airlock's approval console: the web pages a person
// signs in to with an API key to see the approval requests of their
// tenant and decide them, and to follow, read and cancel its chains.
// server.Server mounts it at /ui; its pages are files embedded in the
// binary (HTML, CSS and plain JavaScript; nothing is fetched from
// elsewhere, nothing is built).
//
//	c := console.New(svc, console.Options{})
//	h := c.Handler(api) // api: the HTTP API, which /ui/api/v1/… reaches
//
// Signing in (POST /ui/session with {"key": …}) takes a key of role
// approver or all and answers with a session cookie (HttpOnly,
// SameSite=Strict, Secure over TLS, path /ui) that holds a random token,
// never the key; the server maps the token to the key and re-checks the
// key on every request, so a key removed from the configuration ends its
// sessions. The pages then call the HTTP API under /ui/api (GET
// /ui/api/v1/approvals is GET /v1/approvals as the signed-in key): the
// face is the API's, with the cookie in place of the bearer key. Every
// request that changes state (sign-out, decide, cancel) must carry the
// session's CSRF token in the X-CSRF-Token header and an Origin header
// naming this server. Every answer carries a strict Content-Security-Policy
// (default-src 'self', no inline script or style, frame-ancestors 'none').
// docs/console.md describes the pages.
//
// # Bounds
//
// Sessions are capped per tenant (Options.MaxSessionsPerTenant: a new
// sign-in ends the tenant's oldest) and in all (Options.MaxSessions: a
// sign-in beyond it is refused until one expires). Failed sign-ins are
// counted per client address, an IPv6 one by its /64
// (Options.MaxFailedSignIns a minute); a sign-in body is at most
// MaxSignInBytes.
//
// # Concurrency
//
// A Console is safe for concurrent use. It starts no goroutine: expired
// sessions are swept when a session is created.
//
// # Errors
//
// Its answers are the HTTP API's JSON errors ({"error":{"reason":…}}),
// with the reasons of errors.go besides the API's.
package console
