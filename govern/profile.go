package govern

import (
	"encoding/json"
	"sync/atomic"

	"github.com/airlockrt/airlock/toolbox"
)

// Profile is an operator's rule set for the chains of an API key or
// tenant: one broad tool, a narrow policy per profile. The zero Profile is
// the default: no scopes granted, supervised, the DefaultMatrix, no call
// policies.
type Profile struct {
	// Name identifies the profile in traces and errors.
	Name string
	// Scopes are the scopes granted to chains under this profile. A tool
	// requiring a scope not listed is refused with scope_violation. "*"
	// grants every scope.
	Scopes []string
	// Autonomy is the chains' autonomy level. Default Supervised.
	Autonomy Autonomy
	// Matrix maps (autonomy, risk) to a gate. Nil: DefaultMatrix.
	Matrix Matrix
	// Policies must all allow a call before it runs (fail closed).
	Policies []CallPolicy
	// Adjusters may raise a call's risk, never lower it.
	Adjusters []RiskAdjuster
}

// RiskAdjuster may raise the risk of a call: "a write outside the workspace
// is CRITICAL". An adjuster that returns a lower risk than it was given is
// ignored.
type RiskAdjuster struct {
	// Name appears in the decision's Rule ("adjuster:<name>").
	Name string
	// Adjust returns the call's risk given the risk so far.
	Adjust func(c Call, risk toolbox.Risk) toolbox.Risk
}

// Chain is one chain's governance state: its profile (which an operator may
// replace while the chain runs) and its call-policy history.
type Chain struct {
	profile atomic.Pointer[Profile]
	hist    History
}

// NewChain returns the state of a chain running under p; nil means the
// zero Profile.
func NewChain(p *Profile) *Chain {
	c := &Chain{}
	c.SetProfile(p)
	return c
}

// Profile returns the profile in force.
func (c *Chain) Profile() *Profile { return c.profile.Load() }

// SetProfile replaces the profile; calls already past their gate are
// evaluated again before they execute (Governor.Recheck).
func (c *Chain) SetProfile(p *Profile) {
	if p == nil {
		p = &Profile{}
	}
	c.profile.Store(p)
}

// History returns the chain's call-policy history.
func (c *Chain) History() *History { return &c.hist }

// RestoreHistory replaces the chain's facts and successful calls with
// those of st (History.State of a parked chain), so its call policies
// continue where they were. It fails, changing nothing, with an error
// wrapping ErrInvalidHistory when st is not valid (HistoryState.Validate).
func (c *Chain) RestoreHistory(st HistoryState) error {
	if err := st.Validate(); err != nil {
		return err
	}
	c.hist.restore(st)
	return nil
}

// actionOf returns the string value of args' "action" member, "" when there
// is none or it is not a string.
func actionOf(args json.RawMessage) string {
	var v struct {
		Action *string `json:"action"`
	}
	if json.Unmarshal(args, &v) != nil || v.Action == nil {
		return ""
	}
	return *v.Action
}

// ActionOf returns the value of the call's action argument
// (toolbox.ActionArg) when the tool has an ActionRisk map, else "".
func ActionOf(info toolbox.Info, args json.RawMessage) string {
	if info.ActionRisk == nil {
		return ""
	}
	return actionOf(args)
}

// Callable reports whether a chain under the profile may call the tool of
// info at all: every scope it requires is granted and its risk is not
// denied at the profile's autonomy level (action risks and call policies
// may still refuse a call).
func (p *Profile) Callable(info toolbox.Info) bool {
	if !p.Grants(info.Scopes) {
		return false
	}
	gate, _ := p.Matrix.Gate(p.Autonomy, info.Risk)
	return gate != Deny
}

// Grants reports whether the profile grants every scope of scopes.
func (p *Profile) Grants(scopes []string) bool {
	for _, s := range scopes {
		if !granted(p.Scopes, s) {
			return false
		}
	}
	return true
}
