package oidctest

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/airlockrt/airlock/toolbox"
)

// AsUser is a tool named crm with audience crm that refuses calls as a
// tool with a token exchange does, without a token service, for tests of
// what happens around such a refusal: a chain with no identity gets
// credential_unavailable, one whose subject token starts with "expired"
// credential_expired; any other token is accepted and the call answers
// with the part of the token after its first dot (the user it names),
// never the token.
type AsUser struct{}

// Info implements toolbox.Tool.
func (AsUser) Info() toolbox.Info {
	return toolbox.Info{Name: "crm", Description: "the CRM, as the user", Audience: "crm", InputSchema: &jsonschema.Schema{Type: "object"}}
}

// Call implements toolbox.Tool.
func (AsUser) Call(ctx context.Context, _ json.RawMessage) (toolbox.Output, error) {
	id, ok := toolbox.IdentityFrom(ctx)
	switch {
	case !ok:
		return toolbox.Output{}, &toolbox.CredentialUnavailableError{Ref: `audience "crm"`, Reason: "the chain has no delegated identity"}
	case strings.HasPrefix(id.SubjectToken, "expired"):
		return toolbox.Output{}, &toolbox.CredentialExpiredError{Audience: "crm", Reason: "the token service refused the chain's token"}
	}
	_, user, _ := strings.Cut(id.SubjectToken, ".")
	b, _ := json.Marshal(user)
	return toolbox.Output{JSON: b}, nil
}
