package service

import (
	"strings"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
)

// DefaultTenant is the tenant of every caller when no API keys are
// configured, and of `airlock run`.
const DefaultTenant = blobstore.DefaultTenant

// Role is what an API key may do for its tenant. Every role may read the
// tenant's chains, events, approval requests, artifacts and tools.
type Role string

// Roles, as the configuration spells them (server.api_keys[].role).
const (
	// RoleAll may do everything: the role of a key without one.
	RoleAll Role = "all"
	// RoleSubmit may submit and cancel chains, but not decide approvals:
	// the key to give an agent loop, so it cannot approve its own calls.
	RoleSubmit Role = "submit"
	// RoleApprover may decide approval requests, but not submit or cancel
	// chains: the key of the people (or UI) who approve.
	RoleApprover Role = "approver"
)

// Roles lists every Role.
func Roles() []Role { return []Role{RoleAll, RoleSubmit, RoleApprover} }

// Allows reports whether a key of role r may do what needs role need:
// RoleAll may do everything, any role may do what needs RoleAll (reading),
// and otherwise the roles must be equal. The empty role is RoleAll.
func (r Role) Allows(need Role) bool {
	return need == RoleAll || need == "" || r == RoleAll || r == "" || r == need
}

// Profile is what a profile sets for the chains of the keys bound to it.
type Profile struct {
	// Name is the profile's name, for logs, errors and resuming a parked
	// chain under the profile it started with.
	Name string
	// Governance is enforced by the invoker for each of the chains. Nil:
	// the zero govern.Profile.
	Governance *govern.Profile
	// Policy, when set, replaces the service's policy as the base of a
	// submission's own. Under a profile a submission may only lower the
	// policy's values (MaxPolicy does not apply).
	Policy *invoker.Policy
	// Tools, when non-nil, is the profile's tool allow-list; a
	// submission's "tools" narrows it further.
	Tools []string
}

// Caller is who acts on the service: the tenant its chains run for, the
// role of its key and the profile its chains run under.
type Caller struct {
	// Tenant is the tenant the caller acts for.
	Tenant string
	// Role is what the caller may do; "" is RoleAll.
	Role Role
	// Profile is the profile of the caller's chains. Nil: the zero
	// govern.Profile, the service's policy and every tool.
	Profile *Profile
}

// MayApprove reports whether the caller may decide its tenant's approval
// requests: a key of role all, or the local caller. A submit-only key may
// not, so an agent loop cannot approve its own calls through any face.
func (c Caller) MayApprove() bool { return c.Role.Allows(RoleApprover) }

// MaySubmit reports whether the caller may submit and cancel chains.
func (c Caller) MaySubmit() bool { return c.Role.Allows(RoleSubmit) }

// NeedsKeys reports whether the service has API keys (Options.Keys).
func (s *Service) NeedsKeys() bool { return s.opts.Keys != nil }

// CallerOf returns the caller of an API key, false for a key that is not
// configured. Without API keys every key (none included) is the local
// caller.
func (s *Service) CallerOf(key string) (Caller, bool) {
	if s.opts.Keys == nil {
		return s.LocalCaller(), true
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return Caller{}, false
	}
	c, ok := s.opts.Keys(key)
	if ok && c.Role == "" {
		c.Role = RoleAll
	}
	return c, ok
}

// LocalCaller is the caller of a face on the service's own machine with no
// API key (the stdio MCP server, a server without keys): DefaultTenant,
// role all, under Options.DefaultProfile.
func (s *Service) LocalCaller() Caller {
	return Caller{Tenant: DefaultTenant, Role: RoleAll, Profile: s.opts.DefaultProfile}
}
