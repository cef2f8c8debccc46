package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// Profile is one profile of the profiles section: the rule set of the
// chains of the API keys bound to it (docs/governance.md).
type Profile struct {
	// Scopes are granted to the profile's chains; "*" grants every scope.
	Scopes []string `yaml:"scopes"`
	// Autonomy is restricted, supervised (the default) or autonomous.
	Autonomy string `yaml:"autonomy"`
	// Gates override cells of the default gate matrix: autonomy level →
	// risk (SAFE, HIGH, CRITICAL) → allow, confirm, preview or deny.
	Gates map[string]map[string]string `yaml:"gates,omitempty"`
	// Policies are call policies, all of which must allow a call.
	Policies []govern.PolicySpec `yaml:"policies,omitempty"`
	// Limits are policy values for the profile's chains, under the keys of
	// the policy section; they may only tighten it.
	Limits invoker.Policy `yaml:"limits"`
	// Tools, when set, is the profile's tool allow-list: tool names or
	// tool set names (demo, http).
	Tools []string `yaml:"tools,omitempty"`
}

// Spec returns the profile's governance for govern.ProfileSpec.Build.
func (p Profile) Spec() govern.ProfileSpec {
	return govern.ProfileSpec{Scopes: p.Scopes, Autonomy: p.Autonomy, Gates: p.Gates, Policies: p.Policies}
}

// Governance is the process-wide part of governance.
type Governance struct {
	// DedupWindow is how long an idempotency outcome answers for its key.
	// Default 24h.
	DedupWindow Duration `yaml:"dedup_window"`
	// Idempotency is on (the default: outcomes are recorded in the store)
	// or off.
	Idempotency string `yaml:"idempotency"`
	// Health sets the tool-health thresholds.
	Health Health `yaml:"health"`
	// Tools are per-tool operator rules and overrides of the tools'
	// declarations, by tool name.
	Tools map[string]ToolRules `yaml:"tools"`
}

// Health sets the tool-health thresholds; zero fields take govern's
// defaults (3, 5, 30s).
type Health struct {
	// DegradedAfter is how many failures in a row mark a tool degraded.
	// Default 3.
	DegradedAfter int `yaml:"degraded_after"`
	// UnavailableAfter is how many failures in a row mark a tool
	// unavailable. Default 5.
	UnavailableAfter int `yaml:"unavailable_after"`
	// Quiet is how long an unavailable tool rests before a call may try
	// it again. Default 30s.
	Quiet Duration `yaml:"quiet"`
}

// ToolRules are an operator's rules for one tool.
type ToolRules struct {
	// Rate is the egress rate per tenant: "10/s", "100/m", "5/10s".
	Rate string `yaml:"rate,omitempty"`
	// LatencyBudget tightens the call timeout for this tool.
	LatencyBudget Duration `yaml:"latency_budget,omitempty"`
	// MaxOutputChars cuts every string of an inline result.
	MaxOutputChars int `yaml:"max_output_chars,omitempty"`
	// Scopes replace the scopes the tool requires.
	Scopes []string `yaml:"scopes,omitempty"`
	// Class replaces the tool's capability class.
	Class string `yaml:"class,omitempty"`
	// ActionRisk replaces the tool's per-action risks.
	ActionRisk map[string]toolbox.Risk `yaml:"action_risk,omitempty"`
}

// IdempotencyOn reports whether idempotency records are on.
func (g Governance) IdempotencyOn() bool { return g.Idempotency != "off" }

// HealthOptions returns the health thresholds for govern.
func (g Governance) HealthOptions() govern.HealthOptions {
	return govern.HealthOptions{DegradedAfter: g.Health.DegradedAfter, UnavailableAfter: g.Health.UnavailableAfter, Quiet: time.Duration(g.Health.Quiet)}
}

// Rates returns the configured egress rates by tool name. Call it on a
// validated Config.
func (g Governance) Rates() map[string]govern.Rate {
	out := map[string]govern.Rate{}
	for name, r := range g.Tools {
		if r.Rate != "" {
			if rate, err := govern.ParseRate(r.Rate); err == nil {
				out[name] = rate
			}
		}
	}
	return out
}

// validateGovernance checks profiles, their bindings and the governance
// section.
func (c *Config) validateGovernance(v *validator) {
	names := slices.Sorted(maps.Keys(c.Profiles))
	for _, name := range names {
		p := c.Profiles[name]
		key := "profiles." + name
		if _, err := p.Spec().Build(name); err != nil {
			v.fail(profileField(key, err), "%v", err)
		}
		if p.Limits == (invoker.Policy{}) {
			continue // nothing of the policy to tighten or to blame
		}
		if c.Policy.Validate() != nil {
			// The policy section's own error is reported at its line; the
			// profile's values can only be checked on their own.
			v.owner(key+".limits", p.Limits.Validate())
			continue
		}
		if _, err := c.Policy.Tighten(p.Limits, invoker.Policy{}); err != nil {
			v.owner(key+".limits", err, "(a profile may only tighten the policy section)")
		}
	}
	known := func(key, name string) {
		if _, ok := c.Profiles[name]; !ok {
			v.fail(key, "no profile named %q (profiles: %s)", name, cmpOr(strings.Join(names, ", "), "none"))
		}
	}
	if c.DefaultProfile != "" {
		known("default_profile", c.DefaultProfile)
	}
	for i, k := range c.Server.APIKeys {
		if k.Profile != "" {
			known(fmt.Sprintf("server.api_keys[%d].profile", i), k.Profile)
		}
	}
	g := c.Governance
	switch g.Idempotency {
	case "", "on", "off":
	default:
		v.fail("governance.idempotency", "%q must be on or off", g.Idempotency)
	}
	if d := time.Duration(g.DedupWindow); d > blobstore.DefaultRecordTTL {
		v.fail("governance.dedup_window", "%s is longer than the store keeps idempotency records (%s)", d, blobstore.DefaultRecordTTL)
	}
	if err := g.HealthOptions().Validate(); err != nil {
		v.fail("governance.health", "%v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(g.Tools)) {
		r := g.Tools[name]
		key := "governance.tools." + name
		if !toolbox.ValidName(name) {
			v.fail(key, "%q is not a tool name", name)
		}
		if r.Rate != "" {
			if _, err := govern.ParseRate(r.Rate); err != nil {
				v.fail(key+".rate", "%v", err)
			}
		}
		if r.Class != "" {
			if _, err := toolbox.ParseClass(r.Class); err != nil {
				v.fail(key+".class", "%v", err)
			}
		}
	}
}

// profileField returns the key of the profile's field a govern.ProfileSpec
// error names ("autonomy", "gates", "policies[1]", "scopes"), or the
// profile's key when it names none.
func profileField(key string, err error) string {
	msg := err.Error()
	for _, f := range []string{"autonomy", "gates", "scopes", "policies"} {
		i := strings.Index(msg, f)
		if i < 0 {
			continue
		}
		if f == "policies" {
			if m := policyIndex.FindStringSubmatch(msg[i:]); m != nil {
				return key + "." + m[0]
			}
		}
		return key + "." + f
	}
	return key
}

var policyIndex = regexp.MustCompile(`^policies\[\d+\]`)
