package toolbox

import (
	"fmt"
	"strings"
)

// Risk is how much harm a tool call can do. The levels are ordered:
// Safe < High < Critical, so they compare with < and >. The zero value is Safe.
type Risk int

const (
	// Safe tools read or compute and have no side effect worth approving.
	Safe Risk = iota
	// High tools change state outside the chain (write, send, pay).
	High
	// Critical tools do irreversible or wide-reaching harm when misused.
	Critical
)

// String returns "SAFE", "HIGH" or "CRITICAL" (or "Risk(n)" for an unknown level).
func (r Risk) String() string {
	switch r {
	case Safe:
		return "SAFE"
	case High:
		return "HIGH"
	case Critical:
		return "CRITICAL"
	}
	return fmt.Sprintf("Risk(%d)", int(r))
}

// Valid reports whether r is one of Safe, High or Critical.
func (r Risk) Valid() bool { return r >= Safe && r <= Critical }

// ParseRisk parses "SAFE", "HIGH" or "CRITICAL" (case-insensitive).
func ParseRisk(s string) (Risk, error) {
	switch strings.ToUpper(s) {
	case "SAFE":
		return Safe, nil
	case "HIGH":
		return High, nil
	case "CRITICAL":
		return Critical, nil
	}
	return Safe, fmt.Errorf("toolbox: unknown risk %q (want SAFE, HIGH or CRITICAL)", s)
}

// MarshalText encodes r as its String form.
func (r Risk) MarshalText() ([]byte, error) {
	if !r.Valid() {
		return nil, fmt.Errorf("toolbox: cannot encode invalid risk %d", int(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText decodes the forms accepted by ParseRisk.
func (r *Risk) UnmarshalText(b []byte) error {
	v, err := ParseRisk(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}
