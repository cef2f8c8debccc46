package invoker

import (
	"fmt"
	"time"

	"github.com/airlockrt/airlock/toolbox"
)

// Policy is the per-chain rule set the invoker enforces. The zero value of
// every field means its default, so Policy{} is the default policy.
type Policy struct {
	// MaxToolCalls is how many calls one session may make. Default 50.
	MaxToolCalls int
	// CallTimeout bounds one tool execution. Default 60s.
	CallTimeout time.Duration
	// ApprovalTimeout bounds the wait for an approval decision. It must be
	// shorter than CallTimeout. Default 55s.
	ApprovalTimeout time.Duration
	// MaxRiskUnapproved is the highest risk that runs without approval.
	// Default toolbox.Safe.
	MaxRiskUnapproved toolbox.Risk
	// MaxInlineResultBytes is the largest encoded result returned inline;
	// larger results are offloaded to the store. Default 4096.
	MaxInlineResultBytes int
	// PreviewChars is how many characters of an offloaded result its preview
	// holds. Default 256.
	PreviewChars int
	// MaxArgumentBytes caps the encoded arguments of one call. Default 1 MiB.
	MaxArgumentBytes int
	// MaxResolvedBytes caps the bytes the artifact refs of one call may expand
	// to. Default 64 MiB.
	MaxResolvedBytes int64
	// MaxArtifactBytes caps the bytes one chain may store as artifacts:
	// offloaded results and media files, counted over the session's whole
	// life. A result that would exceed it is not stored and the call fails
	// with quota_exceeded. Default 256 MiB.
	MaxArtifactBytes int64
}

// Defaults of Policy's fields.
const (
	DefaultMaxToolCalls         = 50
	DefaultCallTimeout          = 60 * time.Second
	DefaultApprovalTimeout      = 55 * time.Second
	DefaultMaxInlineResultBytes = 4096
	DefaultPreviewChars         = 256
	DefaultMaxArgumentBytes     = 1 << 20
	DefaultMaxResolvedBytes     = 64 << 20
	DefaultMaxArtifactBytes     = 256 << 20
)

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	if p.MaxToolCalls == 0 {
		p.MaxToolCalls = DefaultMaxToolCalls
	}
	if p.CallTimeout == 0 {
		p.CallTimeout = DefaultCallTimeout
	}
	if p.ApprovalTimeout == 0 {
		p.ApprovalTimeout = DefaultApprovalTimeout
		if p.ApprovalTimeout >= p.CallTimeout {
			// A short CallTimeout with no explicit approval wait: keep the
			// invariant rather than fail on a value the operator never set.
			p.ApprovalTimeout = p.CallTimeout * 11 / 12
		}
	}
	if p.MaxInlineResultBytes == 0 {
		p.MaxInlineResultBytes = DefaultMaxInlineResultBytes
	}
	if p.PreviewChars == 0 {
		p.PreviewChars = DefaultPreviewChars
	}
	if p.MaxArgumentBytes == 0 {
		p.MaxArgumentBytes = DefaultMaxArgumentBytes
	}
	if p.MaxResolvedBytes == 0 {
		p.MaxResolvedBytes = DefaultMaxResolvedBytes
	}
	if p.MaxArtifactBytes == 0 {
		p.MaxArtifactBytes = DefaultMaxArtifactBytes
	}
	return p
}

// Validate reports the first field of p (after defaults) that is out of range.
// The error wraps ErrInvalidPolicy.
func (p Policy) Validate() error {
	p = p.WithDefaults()
	switch {
	case p.MaxToolCalls < 0:
		return fmt.Errorf("%w: MaxToolCalls (%d) must not be negative", ErrInvalidPolicy, p.MaxToolCalls)
	case p.CallTimeout < 0:
		return fmt.Errorf("%w: CallTimeout (%s) must not be negative", ErrInvalidPolicy, p.CallTimeout)
	case p.ApprovalTimeout < 0:
		return fmt.Errorf("%w: ApprovalTimeout (%s) must not be negative", ErrInvalidPolicy, p.ApprovalTimeout)
	case p.ApprovalTimeout >= p.CallTimeout:
		return fmt.Errorf("%w: ApprovalTimeout (%s) must be shorter than CallTimeout (%s)", ErrInvalidPolicy, p.ApprovalTimeout, p.CallTimeout)
	case !p.MaxRiskUnapproved.Valid():
		return fmt.Errorf("%w: MaxRiskUnapproved (%d) is not a risk level", ErrInvalidPolicy, int(p.MaxRiskUnapproved))
	case p.MaxInlineResultBytes < 0:
		return fmt.Errorf("%w: MaxInlineResultBytes (%d) must not be negative", ErrInvalidPolicy, p.MaxInlineResultBytes)
	case p.PreviewChars < 0:
		return fmt.Errorf("%w: PreviewChars (%d) must not be negative", ErrInvalidPolicy, p.PreviewChars)
	case p.MaxArgumentBytes < 0:
		return fmt.Errorf("%w: MaxArgumentBytes (%d) must not be negative", ErrInvalidPolicy, p.MaxArgumentBytes)
	case p.MaxResolvedBytes < 0:
		return fmt.Errorf("%w: MaxResolvedBytes (%d) must not be negative", ErrInvalidPolicy, p.MaxResolvedBytes)
	case p.MaxArtifactBytes < 0:
		return fmt.Errorf("%w: MaxArtifactBytes (%d) must not be negative", ErrInvalidPolicy, p.MaxArtifactBytes)
	}
	return nil
}
