package httptool

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/airlockrt/airlock/internal/tokenexchange"
	"github.com/airlockrt/airlock/toolbox"
)

// Bounds of Spec.Audience and Spec.Scopes.
const (
	MaxAudienceLen = tokenexchange.MaxAudienceLen
	MaxScopes      = 32
	MaxScopeLen    = 128
)

// checkAudience checks Spec.Audience and Spec.Scopes; "" when they are
// fine.
func checkAudience(spec Spec) string {
	word := func(s string, max int) bool {
		if len(s) < 1 || len(s) > max {
			return false
		}
		for i := 0; i < len(s); i++ {
			if s[i] <= ' ' || s[i] > '~' {
				return false
			}
		}
		return true
	}
	switch {
	case spec.Audience == "" && len(spec.Scopes) > 0:
		return "scopes are only for a tool with an audience"
	case spec.Audience == "":
		return ""
	case !word(spec.Audience, MaxAudienceLen):
		return fmt.Sprintf("audience must be 1 to %d printable ASCII bytes without spaces", MaxAudienceLen)
	case len(spec.Scopes) > MaxScopes:
		return fmt.Sprintf("%d scopes; at most %d", len(spec.Scopes), MaxScopes)
	}
	for _, s := range spec.Scopes {
		if !word(s, MaxScopeLen) {
			return fmt.Sprintf("scope %q must be 1 to %d printable ASCII bytes without spaces", s, MaxScopeLen)
		}
	}
	for name := range spec.Headers {
		if http.CanonicalHeaderKey(name) == "Authorization" {
			return "a tool with an audience sends its delegated token in Authorization: do not configure that header"
		}
	}
	return ""
}

// delegated obtains the call's token for the tool's audience from the
// calling chain's identity; it returns the token and the subject token
// (both to scrub). A credential that cannot be had is a
// *toolbox.CredentialUnavailableError, one the token service refused as
// expired a *toolbox.CredentialExpiredError; neither holds a token.
func (t *Tool) delegated(ctx context.Context) (tok, subject string, err error) {
	aud := t.spec.Audience
	unavailable := func(why string, cause error) error {
		return fmt.Errorf("http tool %q: %w", t.spec.Name,
			&toolbox.CredentialUnavailableError{Ref: "for audience " + strconv.Quote(aud), Reason: why, Err: cause})
	}
	id, ok := toolbox.IdentityFrom(ctx)
	if !ok {
		return "", "", unavailable("the chain has no delegated identity (submit one with identity.subject_token)", nil)
	}
	c, ok := toolbox.CallerFrom(ctx)
	if !ok || c.Tenant() == "" {
		return "", "", unavailable("the call has no tenant", nil)
	}
	tok, err = t.exchanger.Token(ctx, tokenexchange.Request{Tenant: c.Tenant(), Identity: *id, Audience: aud, Scopes: t.spec.Scopes})
	var xe *tokenexchange.Error
	switch {
	case err == nil:
		return tok, id.SubjectToken, nil
	case errors.As(err, &xe) && xe.Expired:
		return "", "", fmt.Errorf("http tool %q: %w", t.spec.Name,
			&toolbox.CredentialExpiredError{Audience: strconv.Quote(aud), Reason: xe.Reason, Err: err})
	case errors.As(err, &xe):
		return "", "", unavailable(xe.Reason, err)
	case ctx.Err() != nil:
		return "", "", ctx.Err()
	}
	return "", "", unavailable("the token exchange failed", err)
}

// Audience returns the audience the tool acts for, "" for none.
func (t *Tool) Audience() string { return t.spec.Audience }
