package toolbox

import (
	"context"
	"log/slog"
)

// Token types of RFC 8693 (OAuth 2.0 Token Exchange), for
// Identity.SubjectTokenType.
const (
	// TokenTypeAccessToken is an OAuth 2.0 access token: the default
	// subject token type.
	TokenTypeAccessToken = "urn:ietf:params:oauth:token-type:access_token"
	// TokenTypeIDToken is an OpenID Connect ID token.
	TokenTypeIDToken = "urn:ietf:params:oauth:token-type:id_token"
	// TokenTypeJWT is a JWT of no more specific kind.
	TokenTypeJWT = "urn:ietf:params:oauth:token-type:jwt"
	// TokenTypeRefreshToken is an OAuth 2.0 refresh token.
	TokenTypeRefreshToken = "urn:ietf:params:oauth:token-type:refresh_token"
)

// Identity is the delegated identity a chain acts for: the token of the
// user it works on behalf of, and optionally the agent that acts. Tools
// that declare an audience exchange SubjectToken for a token of their own
// audience (docs/identity.md); no tool ever sees it otherwise.
//
// An Identity never prints its token: String, GoString, LogValue and
// MarshalJSON show only whether one is set, so a %v, a log attribute or a
// JSON encoding of a struct holding one does not leak it.
type Identity struct {
	// SubjectToken is the user's token, as the token service issued it.
	// Required.
	SubjectToken string
	// SubjectTokenType is its RFC 8693 token type. Default
	// TokenTypeAccessToken.
	SubjectTokenType string
	// Actor names the agent acting for the user (an RFC 8693 actor
	// token). Empty: none is sent.
	Actor string
}

const redactedIdentity = "toolbox.Identity{[REDACTED]}"

// String implements fmt.Stringer without the token.
func (Identity) String() string { return redactedIdentity }

// GoString implements fmt.GoStringer without the token.
func (Identity) GoString() string { return redactedIdentity }

// LogValue implements slog.LogValuer without the token.
func (Identity) LogValue() slog.Value { return slog.StringValue("[REDACTED]") }

// MarshalJSON encodes no token: an Identity is never stored.
func (Identity) MarshalJSON() ([]byte, error) { return []byte(`"[REDACTED]"`), nil }

// TokenType returns SubjectTokenType, or TokenTypeAccessToken when unset.
func (id Identity) TokenType() string {
	if id.SubjectTokenType == "" {
		return TokenTypeAccessToken
	}
	return id.SubjectTokenType
}

type identityKey struct{}

// WithIdentity returns a context carrying id, for IdentityFrom. The chain
// runner puts the chain's identity into the context of its calls; a nil id
// returns ctx unchanged.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	if id == nil {
		return ctx
	}
	return WithIdentitySource(ctx, func() *Identity { return id })
}

// WithIdentitySource returns a context whose calls act for the identity
// src returns at the moment of each call (nil: none), for an identity that
// may be replaced while the chain runs (a fresh token handed to a running
// chain). src must be safe for concurrent use; a nil src returns ctx
// unchanged.
func WithIdentitySource(ctx context.Context, src func() *Identity) context.Context {
	if src == nil {
		return ctx
	}
	return context.WithValue(ctx, identityKey{}, src)
}

// IdentityFrom returns the delegated identity of the calling chain, if it
// has one with a subject token. The Identity is shared: do not modify it.
func IdentityFrom(ctx context.Context) (*Identity, bool) {
	src, ok := ctx.Value(identityKey{}).(func() *Identity)
	if !ok {
		return nil, false
	}
	id := src()
	return id, id != nil && id.SubjectToken != ""
}
