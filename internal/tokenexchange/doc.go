// Package tokenexchange obtains delegated credentials: it exchanges the
// token of the user a chain acts for (toolbox.Identity) for a short-lived
// token of one audience at the operator's token service, by OAuth 2.0
// Token Exchange (RFC 8693), and caches the result per (tenant, subject,
// audience, scopes) until shortly before it expires.
//
//	ex, err := tokenexchange.New(tokenexchange.Options{
//		TokenURL: "https://sts.example.com/oauth2/token",
//		ClientID: "airlock", ClientSecret: secret,
//	})
//	tok, err := ex.Token(ctx, tokenexchange.Request{Tenant: "acme", Identity: id, Audience: "crm"})
//
// The request is a form POST with the client's credentials in HTTP Basic
// authentication (RFC 6749 §2.3.1): grant_type token-exchange,
// subject_token and subject_token_type, actor_token when the identity
// names an agent, audience, scope when scopes are asked for, and
// requested_token_type access_token. Only a 200 answer with an
// access_token of type Bearer (or N_A) is a token; nothing else is
// guessed at.
//
// The cache is keyed by a SHA-256 hash of the tenant, the subject token
// and its type, the actor, the audience and the scopes: it never holds a
// subject token, and one tenant's entry is never another's even for the
// same user token. An entry lives until the token's expiry minus
// the lesser of ExpirySkew and a quarter of its lifetime; a token issued
// without expires_in is not cached. At most Options.CacheMaxEntries
// entries are held; the least recently used goes first. Concurrent
// requests for one key share one exchange. Refusals are not cached.
//
// # Concurrency
//
// An Exchanger is safe for concurrent use.
//
// # Errors
//
// Token returns a *Error: Expired when the token service refused the
// subject (or actor) token itself (OAuth error invalid_grant,
// invalid_token or invalid_request: RFC 8693 §2.2.2 answers
// invalid_request for an invalid subject token), otherwise a credential
// that cannot be had for now (the service refused the audience, the
// scopes or airlock's client, failed, could not be reached, or answered
// something that is not a token). No error holds a token, the token
// service's error_description (which may reflect one) or its body.
package tokenexchange
