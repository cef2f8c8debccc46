package govern

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/airlockrt/airlock/toolbox"
)

// PolicySpec is a call policy as the config file writes it. Kind chooses
// the policy; the other fields are that policy's:
//
//	{kind: sequential, tool: deploy, after: [run_tests]}
//	{kind: read_before_write, read: read_file, write: write_file, arg: path}
//	{kind: call_limit, tool: send_email, max: 3}
//	{kind: argument, tool: git, arg: branch, allow: [main], pattern: "release/.*", max_length: 64, required: true}
type PolicySpec struct {
	Kind      string   `yaml:"kind"`
	Tool      string   `yaml:"tool,omitempty"`
	After     []string `yaml:"after,omitempty"`
	Read      string   `yaml:"read,omitempty"`
	Write     string   `yaml:"write,omitempty"`
	Arg       string   `yaml:"arg,omitempty"`
	Max       int      `yaml:"max,omitempty"`
	Allow     []string `yaml:"allow,omitempty"`
	Pattern   string   `yaml:"pattern,omitempty"`
	MaxLength int      `yaml:"max_length,omitempty"`
	Required  bool     `yaml:"required,omitempty"`
}

// PolicyKinds are the values of PolicySpec.Kind.
var PolicyKinds = []string{"sequential", "read_before_write", "call_limit", "argument"}

// Build returns the policy s describes. The error wraps ErrInvalidPolicy
// and names the field to change.
func (s PolicySpec) Build() (CallPolicy, error) {
	switch s.Kind {
	case "sequential":
		return Sequential(s.Tool, s.After...)
	case "read_before_write":
		return ReadBeforeWrite(s.Read, s.Write, s.Arg)
	case "call_limit":
		return CallLimit(s.Tool, s.Max)
	case "argument":
		return ArgConstraint(ArgRule{Tool: s.Tool, Arg: s.Arg, Allow: s.Allow, Pattern: s.Pattern, MaxLen: s.MaxLength, Required: s.Required})
	}
	return nil, fmt.Errorf("%w: kind %q is not one of %s", ErrInvalidPolicy, s.Kind, strings.Join(PolicyKinds, ", "))
}

// ParseMatrix builds a Matrix from autonomy level → risk → gate names, as
// the config file writes it. Cells it does not name keep the DefaultMatrix's.
func ParseMatrix(m map[string]map[string]string) (Matrix, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := Matrix{}
	for a, row := range DefaultMatrix {
		out[a] = row
	}
	seenRow := map[Autonomy]string{}
	for an, row := range m {
		a, err := ParseAutonomy(an)
		if err != nil {
			return nil, fmt.Errorf("%w: gates: %w", ErrInvalidProfile, err)
		}
		if other, dup := seenRow[a]; dup {
			return nil, fmt.Errorf("%w: gates: %q and %q name the same autonomy level", ErrInvalidProfile, other, an)
		}
		seenRow[a] = an
		cells := out[a]
		seenCell := map[toolbox.Risk]string{}
		for rn, gn := range row {
			r, err := toolbox.ParseRisk(rn)
			if err != nil {
				return nil, fmt.Errorf("%w: gates.%s: %w", ErrInvalidProfile, an, err)
			}
			if other, dup := seenCell[r]; dup {
				return nil, fmt.Errorf("%w: gates.%s: %q and %q name the same risk", ErrInvalidProfile, an, other, rn)
			}
			seenCell[r] = rn
			g, err := ParseGate(gn)
			if err != nil {
				return nil, fmt.Errorf("%w: gates.%s.%s: %w", ErrInvalidProfile, an, rn, err)
			}
			cells[r] = g
		}
		out[a] = cells
	}
	return out, nil
}

// ProfileSpec is a profile's governance as the config file writes it.
type ProfileSpec struct {
	Scopes   []string                     `yaml:"scopes,omitempty"`
	Autonomy string                       `yaml:"autonomy,omitempty"`
	Gates    map[string]map[string]string `yaml:"gates,omitempty"`
	Policies []PolicySpec                 `yaml:"policies,omitempty"`
}

// Build returns the profile named name that s describes, validated. The
// error names the field to change.
func (s ProfileSpec) Build(name string) (*Profile, error) {
	p := &Profile{Name: name, Scopes: slices.Clone(s.Scopes)}
	if s.Autonomy != "" {
		a, err := ParseAutonomy(s.Autonomy)
		if err != nil {
			return nil, fmt.Errorf("%w: autonomy: %w", ErrInvalidProfile, err)
		}
		p.Autonomy = a
	}
	m, err := ParseMatrix(s.Gates)
	if err != nil {
		return nil, err
	}
	p.Matrix = m
	for i, ps := range s.Policies {
		pol, err := ps.Build()
		if err != nil {
			return nil, fmt.Errorf("policies[%d]: %w", i, err)
		}
		p.Policies = append(p.Policies, pol)
	}
	return p, p.Validate()
}

var (
	profileNameRE = regexp.MustCompile(`^[a-z0-9_-]{0,64}$`)
	scopeRE       = regexp.MustCompile(`^(\*|[a-z0-9_:.-]{1,64})$`)
)

// Validate reports a profile that cannot be enforced: a bad name, scope,
// autonomy level or gate, a nil policy, an adjuster without a name or a
// function. The error wraps ErrInvalidProfile and names the field.
func (p *Profile) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: profile %q: %s", ErrInvalidProfile, p.Name, fmt.Sprintf(format, args...))
	}
	if !profileNameRE.MatchString(p.Name) {
		return bad("name must be at most 64 of a-z, 0-9, '_' and '-'")
	}
	if len(p.Scopes) > 256 {
		return bad("scopes: at most 256")
	}
	for i, s := range p.Scopes {
		if !scopeRE.MatchString(s) {
			return bad("scopes[%d] (%q) must be \"*\" or 1 to 64 of a-z, 0-9, '_', ':', '.' and '-'", i, s)
		}
	}
	if !p.Autonomy.Valid() {
		return bad("autonomy %d is not a level", int(p.Autonomy))
	}
	for a, row := range p.Matrix {
		if !a.Valid() {
			return bad("gates: %d is not an autonomy level", int(a))
		}
		for r, g := range row {
			if g < Allow || g > Deny {
				return bad("gates.%s.%s: %d is not a gate", a, toolbox.Risk(r), int(g))
			}
		}
	}
	for i, pol := range p.Policies {
		if pol == nil {
			return bad("policies[%d] is nil", i)
		}
	}
	for i, a := range p.Adjusters {
		if a.Name == "" || a.Adjust == nil {
			return bad("adjusters[%d] needs a name and a function", i)
		}
	}
	return nil
}
