package govern

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/airlockrt/airlock/toolbox"
)

// Decide judges c for chain ch: scopes, then risk (the tool's ActionRisk
// for c.Action, then the profile's adjusters, which may only raise it),
// then the gate of the profile's matrix for its autonomy level and that
// risk. It does not check call policies (Admit does) and reserves nothing.
//
// A missing scope is Reason ReasonScopeViolation (rule "scope"); a Deny
// gate is Reason ReasonGateDenied. Decide never panics: an adjuster that
// panics or answers an invalid level makes the call Critical.
func (g *Governor) Decide(ch *Chain, c Call) Decision {
	p := ch.Profile()
	for _, s := range c.Info.Scopes {
		if !granted(p.Scopes, s) {
			d := Decision{Gate: Deny, Risk: c.Info.Risk, Rule: "scope", Reason: ReasonScopeViolation,
				Message: fmt.Sprintf("tool %q requires scope %q, which profile %q does not grant; this chain cannot call it", c.Tool, s, profileName(p))}
			d.ID = decisionID(c, d)
			return d
		}
	}
	risk, rule := c.Info.Risk, "risk"
	if r, ok := c.Info.ActionRisk[c.Action]; ok && c.Info.ActionRisk != nil {
		risk, rule = r, "risk_map["+clipRule(c.Action)+"]"
	}
	for _, a := range p.Adjusters {
		if r := adjust(a, c, risk); r > risk {
			risk, rule = r, "adjuster:"+a.Name
		}
	}
	gate, mrule := p.Matrix.Gate(p.Autonomy, risk)
	if rule != "risk" {
		mrule += " " + rule
	}
	d := Decision{Gate: gate, Risk: risk, Rule: mrule}
	if gate == Deny {
		d.Reason = ReasonGateDenied
		d.Message = fmt.Sprintf("tool %q at risk %s is denied at autonomy level %s (profile %q, %s)", c.Tool, risk, p.Autonomy, profileName(p), d.Rule)
	}
	d.ID = decisionID(c, d)
	return d
}

// adjust runs one adjuster, failing closed: a panic or an invalid answer
// is Critical.
func adjust(a RiskAdjuster, c Call, risk toolbox.Risk) (r toolbox.Risk) {
	defer func() {
		if recover() != nil {
			r = toolbox.Critical
		}
	}()
	if a.Adjust == nil {
		return risk
	}
	r = a.Adjust(c, risk)
	if !r.Valid() {
		return toolbox.Critical
	}
	return r
}

// granted reports whether scopes grant s ("*" grants every scope).
func granted(scopes []string, s string) bool {
	return slices.Contains(scopes, s) || slices.Contains(scopes, "*")
}

func profileName(p *Profile) string {
	if p.Name == "" {
		return "default"
	}
	return p.Name
}

// clipRule bounds a guest-chosen action before it reaches a rule name.
func clipRule(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "…"
	}
	return s
}

// decisionID is "pd_" and 16 hex digits of the 64-bit FNV-1a hash of the
// chain id, the call's number, the rule and the gate: the same decision for
// the same call always has the same id, on any process. It names a
// decision in an audit; it is not a secret and not a signature.
func decisionID(c Call, d Decision) string {
	h := uint64(14695981039346656037)
	mix := func(s string) {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		h ^= 0
		h *= 1099511628211
	}
	var n [20]byte
	mix(c.ChainID)
	mix(string(strconv.AppendInt(n[:0], int64(c.Seq), 10)))
	mix(d.Rule)
	h ^= uint64(d.Gate)
	h *= 1099511628211
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], h)
	var out [3 + 16]byte
	copy(out[:], "pd_")
	hex.Encode(out[3:], sum[:])
	return string(out[:])
}

// Admit checks the chain's call policies for c and, when they all allow,
// counts c in flight (HistoryView.InFlight) atomically with the check: the
// caller must then call Done exactly once. The first refusal, in profile
// order, is returned; a policy that panics refuses with ReasonPolicyFailed
// (fail closed).
func (g *Governor) Admit(ch *Chain, c Call) *Denial {
	p := ch.Profile()
	h := &ch.hist
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.locked()
	for _, pol := range p.Policies {
		if d := check(pol, c, v); d != nil {
			return d
		}
	}
	if h.inflight == nil {
		h.inflight = map[string]int{}
	}
	h.inflight[c.Tool]++
	return nil
}

func check(pol CallPolicy, c Call, v *HistoryView) (d *Denial) {
	defer func() {
		if recover() != nil {
			d = &Denial{Reason: ReasonPolicyFailed, Message: fmt.Sprintf("call policy %q failed while checking tool %q; the call is refused", pol.Name(), c.Tool)}
		}
	}()
	d = pol.Check(c, v)
	if d != nil && d.Reason == "" {
		// A refusal without a code is still a refusal, with the code of a
		// failing policy.
		d = &Denial{Reason: ReasonPolicyFailed, Message: fmt.Sprintf("call policy %q refused tool %q without a reason code", pol.Name(), c.Tool)}
	}
	return d
}

// Done ends a call Admit admitted: it leaves the in-flight count and, when
// ok, records the fact "ok:<tool>" and lets every policy of the chain's
// profile Observe it (a panicking Observe is contained). A failed call
// leaves the history as it was.
func (g *Governor) Done(ch *Chain, c Call, ok bool) {
	h := &ch.hist
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.inflight[c.Tool] > 0 {
		h.inflight[c.Tool]--
	}
	if !ok {
		return
	}
	h.succeed(c.Tool)
	v := h.locked()
	for _, pol := range ch.Profile().Policies {
		func() {
			defer func() { _ = recover() }()
			pol.Observe(c, v)
		}()
	}
}

// SucceededFact is the fact Done records for every successful call of tool.
func SucceededFact(tool string) string { return succeededPrefix + tool }
