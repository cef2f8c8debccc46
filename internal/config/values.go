package config

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration written as "30s", "1m30s" or "250ms" in the
// file. A bare "0" is accepted; negative durations are rejected.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func parseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (write e.g. 30s, 1m30s or 250ms)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q must not be negative", s)
	}
	return Duration(d), nil
}

// MarshalText writes d in time.Duration's form.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Size is a number of bytes written as a plain integer or with a unit: B,
// KB/MB/GB (powers of 1000) or KiB/MiB/GiB (powers of 1024), e.g. "64MiB".
// Negative sizes are rejected.
type Size int64

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
	{"B", 1},
}

func parseSize(s string) (Size, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size (write e.g. 4096, 512KiB or 64MiB)", s)
	}
	if n < 0 {
		return 0, fmt.Errorf("%q must not be negative", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return Size(n * mult), nil
}

// String writes s with the largest binary unit that divides it exactly.
func (s Size) String() string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if s != 0 && int64(s)%u.mult == 0 {
			return strconv.FormatInt(int64(s)/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(s), 10)
}

// MarshalText writes s as String does.
func (s Size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Secret is a string that never prints: String, GoString, MarshalText and
// LogValue all show "[REDACTED]" (or "" when empty). Use Reveal to read it.
// In the file a secret may be written as ${env:NAME}, read when the
// configuration is loaded.
type Secret string

const redacted = "[REDACTED]"

// Reveal returns the secret's value.
func (s Secret) Reveal() string { return string(s) }

// String implements fmt.Stringer without the value.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// MarshalText writes "[REDACTED]", so no encoder prints the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LogValue implements slog.LogValuer without the value.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// ApprovalMode says how calls above the policy's MaxRiskUnapproved are
// decided.
type ApprovalMode string

// Approval modes. The empty mode means the command's default: ask on a
// terminal and deny otherwise for `airlock run`, queue for `airlock serve`.
const (
	// ApprovalAsk prompts on the terminal (airlock run only).
	ApprovalAsk ApprovalMode = "ask"
	// ApprovalDeny denies every such call.
	ApprovalDeny ApprovalMode = "deny"
	// ApprovalAllow approves every such call.
	ApprovalAllow ApprovalMode = "allow"
	// ApprovalQueue parks each call in the approval queue of the HTTP API.
	ApprovalQueue ApprovalMode = "queue"
)

var errApprovalMode = errors.New("must be ask, deny, allow or queue")

func parseApprovalMode(s string) (ApprovalMode, error) {
	switch m := ApprovalMode(strings.ToLower(strings.TrimSpace(s))); m {
	case ApprovalAsk, ApprovalDeny, ApprovalAllow, ApprovalQueue:
		return m, nil
	}
	return "", fmt.Errorf("%q %w", s, errApprovalMode)
}
