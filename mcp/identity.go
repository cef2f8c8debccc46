package mcp

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlockrt/airlock/service"
)

// The headers of an MCP request over HTTP that carry the delegated
// identity its chain acts for (docs/identity.md), as the fields of a
// submission's identity: the user's token, its type, the agent's token.
// The client's host sets them on its transport, as it sets its API key;
// they are never a tool argument, which the model would write and see,
// and which would keep the user's token in its transcript.
const (
	HeaderSubjectToken     = "Airlock-Subject-Token"
	HeaderSubjectTokenType = "Airlock-Subject-Token-Type"
	HeaderActorToken       = "Airlock-Actor-Token"
)

// identity is the delegated identity a run_chain request carries: over
// HTTP its headers', over stdio ServerOptions.Identity's. Nil: none. The
// service checks it (a malformed one refuses the submission with
// invalid_request, naming the field, never the value).
func (s *Server) identity(extra *sdk.RequestExtra) *service.SubmitIdentity {
	if extra != nil && extra.Header != nil {
		h := extra.Header
		if h.Get(HeaderSubjectToken) == "" && h.Get(HeaderActorToken) == "" && h.Get(HeaderSubjectTokenType) == "" {
			return nil
		}
		return &service.SubmitIdentity{SubjectToken: h.Get(HeaderSubjectToken), SubjectTokenType: h.Get(HeaderSubjectTokenType), Actor: h.Get(HeaderActorToken)}
	}
	if s.opts.Identity != nil {
		return s.opts.Identity()
	}
	return nil
}
