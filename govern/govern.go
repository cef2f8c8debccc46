package govern

import (
	"encoding/json"
	"time"

	"github.com/airlockrt/airlock/toolbox"
)

// Call is what the Governor knows of one call when it decides.
type Call struct {
	// Tool is the registered tool's name.
	Tool string
	// Info is the tool's Info as registered.
	Info toolbox.Info
	// Action is the string value of the call's "action" argument, "" when
	// it has none.
	Action string
	// Args is the arguments object, valid against the tool's schema.
	Args json.RawMessage
	// Tenant is the calling chain's tenant.
	Tenant string
	// ChainID is the calling session's id.
	ChainID string
	// Seq is the call's number in its chain, from 1 (the budget count).
	Seq int
}

// Decision is the Governor's answer for one call: the gate it meets, the
// risk it was judged at, and the rule that decided.
type Decision struct {
	// ID is the policy decision id: the same for the same chain, call
	// number and rule, so a trace record, a span and an approval name one
	// decision. "pd_" and 16 hex digits.
	ID string `json:"id"`
	// Gate is what the call meets.
	Gate Gate `json:"gate"`
	// Risk is the call's risk after ActionRisk and the adjusters.
	Risk toolbox.Risk `json:"risk"`
	// Rule names what produced the decision: "matrix[supervised][HIGH]",
	// "scope", "policy:read_before_write", "adjuster:<name>", ….
	Rule string `json:"rule"`
	// Reason is the stable reason code when the call is refused before the
	// gate (scope, call policy); "" otherwise.
	Reason string `json:"reason,omitempty"`
	// Message explains a refusal to the chain; "" otherwise.
	Message string `json:"message,omitempty"`
}

// Denied reports whether the decision refuses the call outright (a
// Reason, or the Deny gate).
func (d Decision) Denied() bool { return d.Reason != "" || d.Gate == Deny }

// Clock tells the time; tests inject a fake one.
type Clock func() time.Time
