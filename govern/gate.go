package govern

import (
	"fmt"
	"strings"

	"github.com/airlockrt/airlock/toolbox"
)

// Autonomy is how far a chain may act without a human. The zero value is
// Supervised.
type Autonomy int

const (
	// Supervised chains run safe calls and ask for the rest (the default).
	Supervised Autonomy = iota
	// Restricted chains run safe calls only.
	Restricted
	// Autonomous chains run safe and high-risk calls and ask for critical
	// ones.
	Autonomous
)

// String returns "supervised", "restricted" or "autonomous".
func (a Autonomy) String() string {
	switch a {
	case Supervised:
		return "supervised"
	case Restricted:
		return "restricted"
	case Autonomous:
		return "autonomous"
	}
	return fmt.Sprintf("Autonomy(%d)", int(a))
}

// Valid reports whether a is one of the three levels.
func (a Autonomy) Valid() bool { return a >= Supervised && a <= Autonomous }

// ParseAutonomy parses the String form (case-insensitive).
func ParseAutonomy(s string) (Autonomy, error) {
	for a := Supervised; a <= Autonomous; a++ {
		if strings.EqualFold(s, a.String()) {
			return a, nil
		}
	}
	return Supervised, fmt.Errorf("govern: unknown autonomy level %q (want restricted, supervised or autonomous)", s)
}

// MarshalText encodes a as its String form.
func (a Autonomy) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText decodes the forms ParseAutonomy accepts.
func (a *Autonomy) UnmarshalText(b []byte) error {
	v, err := ParseAutonomy(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Gate is what a call meets: it runs, a human confirms it, the tool
// previews it, or it is refused. Gates are ordered from the most to the
// least permissive, so a stricter gate compares greater.
type Gate int

const (
	// Allow runs the call.
	Allow Gate = iota
	// Confirm asks the approval handler first.
	Confirm
	// Preview runs the tool's Preview instead and returns it to the chain
	// with reason preview_required.
	Preview
	// Deny refuses the call with reason gate_denied.
	Deny
)

// String returns "allow", "confirm", "preview" or "deny".
func (g Gate) String() string {
	switch g {
	case Allow:
		return "allow"
	case Confirm:
		return "confirm"
	case Preview:
		return "preview"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Gate(%d)", int(g))
}

// ParseGate parses the String form (case-insensitive).
func ParseGate(s string) (Gate, error) {
	for g := Allow; g <= Deny; g++ {
		if strings.EqualFold(s, g.String()) {
			return g, nil
		}
	}
	return Deny, fmt.Errorf("govern: unknown gate %q (want allow, confirm, preview or deny)", s)
}

// MarshalText encodes g as its String form.
func (g Gate) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// UnmarshalText decodes the forms ParseGate accepts.
func (g *Gate) UnmarshalText(b []byte) error {
	v, err := ParseGate(string(b))
	if err != nil {
		return err
	}
	*g = v
	return nil
}

// Matrix maps (autonomy level, risk) to a gate. A missing row is the
// DefaultMatrix's row; the zero Matrix is the DefaultMatrix.
type Matrix map[Autonomy][3]Gate

// DefaultMatrix is the gate matrix of a profile that sets none:
//
//	             SAFE   HIGH     CRITICAL
//	restricted   allow  deny     deny
//	supervised   allow  confirm  confirm
//	autonomous   allow  allow    confirm
var DefaultMatrix = Matrix{
	Restricted: {Allow, Deny, Deny},
	Supervised: {Allow, Confirm, Confirm},
	Autonomous: {Allow, Allow, Confirm},
}

// Gate returns the gate of (a, r) and the rule that produced it, e.g.
// "matrix[supervised][HIGH]".
func (m Matrix) Gate(a Autonomy, r toolbox.Risk) (Gate, string) {
	row, ok := m[a]
	if !ok {
		row, ok = DefaultMatrix[a]
	}
	if !ok || !r.Valid() {
		return Deny, "matrix[" + a.String() + "][" + r.String() + "]"
	}
	return row[r], cellRules[a][r]
}

// cellRules are the rule names of the matrix cells, built once so a
// decision costs no allocation for them.
var cellRules = func() (out [Autonomous + 1][toolbox.Critical + 1]string) {
	for a := Supervised; a <= Autonomous; a++ {
		for r := toolbox.Safe; r <= toolbox.Critical; r++ {
			out[a][r] = "matrix[" + a.String() + "][" + r.String() + "]"
		}
	}
	return out
}()
