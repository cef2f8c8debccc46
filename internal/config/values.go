package config

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/airlockrt/airlock/internal/setting"
)

// Duration is a time.Duration written as "30s", "1m30s" or "250ms" in the
// file. A bare "0" is accepted; negative durations are rejected.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func parseDuration(s string) (Duration, error) {
	d, err := setting.ParseDuration(s)
	return Duration(d), err
}

// MarshalText writes d in time.Duration's form.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Size is a number of bytes written as a plain integer or with a unit: B,
// KB/MB/GB (powers of 1000) or KiB/MiB/GiB (powers of 1024), e.g. "64MiB".
// Negative sizes are rejected.
type Size int64

func parseSize(s string) (Size, error) {
	n, err := setting.ParseSize(s)
	return Size(n), err
}

// String writes s with the largest binary unit that divides it exactly.
func (s Size) String() string { return setting.FormatSize(int64(s)) }

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
	// ApprovalPark parks the whole chain in the fleet's store until the
	// decision (airlock serve with fleet.key only; docs/durability.md).
	ApprovalPark ApprovalMode = "park"
)

var errApprovalMode = errors.New("must be ask, deny, allow, queue or park")

func parseApprovalMode(s string) (ApprovalMode, error) {
	switch m := ApprovalMode(strings.ToLower(strings.TrimSpace(s))); m {
	case ApprovalAsk, ApprovalDeny, ApprovalAllow, ApprovalQueue, ApprovalPark:
		return m, nil
	}
	return "", fmt.Errorf("%q %w", s, errApprovalMode)
}
