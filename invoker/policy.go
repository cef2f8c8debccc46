package invoker

import (
	"fmt"
	"time"

	"github.com/airlockrt/airlock/internal/setting"
	"github.com/airlockrt/airlock/toolbox"
)

// Policy is the per-chain rule set the invoker enforces. The zero value of
// every field means its default, so Policy{} is the default policy.
//
// Policy owns these settings: their keys (PolicySettings), defaults,
// validation (Validate) and the merge of a request's values (Tighten).
// Configuration files, flags and HTTP requests only load values into it
// (Set).
type Policy struct {
	// MaxToolCalls is how many calls one session may make. Default 50. Key
	// "max_tool_calls".
	MaxToolCalls int
	// CallTimeout bounds one tool execution. Default 60s. Key
	// "call_timeout".
	CallTimeout time.Duration
	// ApprovalTimeout bounds the wait for an approval decision. It must be
	// shorter than CallTimeout. Default 55s, or 11/12 of a CallTimeout of
	// 60s or less. Key "approval_timeout".
	ApprovalTimeout time.Duration
	// MaxRiskUnapproved is the highest risk that runs without approval.
	// Default toolbox.Safe. Key "max_risk_unapproved" (SAFE, HIGH or
	// CRITICAL).
	MaxRiskUnapproved toolbox.Risk
	// MaxInlineResultBytes is the largest encoded result returned inline;
	// larger results are offloaded to the store. Default 4096. Key
	// "max_inline_result_bytes".
	MaxInlineResultBytes int
	// MaxGuestValueBytes is the largest offloaded result the chain still
	// gets as a plain value: stored and pinned like any offloaded result,
	// and passed on by ref, but a script can filter it with ordinary code.
	// A larger one reaches the chain as its Artifact envelope, whose content
	// a script reads with text(), json() or bytes(). Default 1 MiB; set it
	// to MaxInlineResultBytes for the strict form. Key
	// "max_guest_value_bytes".
	MaxGuestValueBytes int
	// MaxFinalValueBytes is the largest final chain value returned to the
	// agent as it is; a larger one is stored and returned as an Artifact
	// envelope (ref and preview), to keep the agent's context small.
	// Default 64 KiB. Key "max_final_value_bytes".
	MaxFinalValueBytes int
	// PreviewChars is how many characters of an offloaded result its preview
	// holds. Default 256. Key "preview_chars".
	PreviewChars int
	// MaxArgumentBytes caps the encoded arguments of one call. Default 1 MiB.
	// Key "max_argument_bytes".
	MaxArgumentBytes int
	// MaxResolvedBytes caps the bytes the artifact refs of one call may expand
	// to. Default 64 MiB. Key "max_resolved_bytes".
	MaxResolvedBytes int64
	// MaxArtifactBytes caps the bytes one chain may store as artifacts:
	// offloaded results and media files, counted over the session's whole
	// life. A result that would exceed it is not stored and the call fails
	// with quota_exceeded. Default 256 MiB. Key "max_artifact_bytes".
	MaxArtifactBytes int64
}

// Defaults of Policy's fields.
const (
	DefaultMaxToolCalls         = 50
	DefaultCallTimeout          = 60 * time.Second
	DefaultApprovalTimeout      = 55 * time.Second
	DefaultMaxInlineResultBytes = 4096
	DefaultPreviewChars         = 256
	DefaultMaxGuestValueBytes   = 1 << 20
	DefaultMaxFinalValueBytes   = 64 << 10
	DefaultMaxArgumentBytes     = 1 << 20
	DefaultMaxResolvedBytes     = 64 << 20
	DefaultMaxArtifactBytes     = 256 << 20
)

// policyTable is the one description of every Policy field.
var policyTable = setting.Table[Policy]{
	setting.Of("max_tool_calls", setting.Count, DefaultMaxToolCalls, func(p *Policy) *int { return &p.MaxToolCalls },
		"tool calls one chain may make"),
	setting.Of("call_timeout", setting.Duration, DefaultCallTimeout, func(p *Policy) *time.Duration { return &p.CallTimeout },
		"one tool execution"),
	setting.Of("approval_timeout", setting.Duration, DefaultApprovalTimeout, func(p *Policy) *time.Duration { return &p.ApprovalTimeout },
		"the wait for an approval decision; shorter than call_timeout"),
	riskField(setting.Of("max_risk_unapproved", setting.Level, toolbox.Safe, func(p *Policy) *toolbox.Risk { return &p.MaxRiskUnapproved },
		"highest risk that runs without approval: SAFE, HIGH or CRITICAL")),
	setting.Of("max_inline_result_bytes", setting.Bytes, DefaultMaxInlineResultBytes, func(p *Policy) *int { return &p.MaxInlineResultBytes },
		"largest result returned inline; larger ones are stored as artifacts"),
	setting.Of("max_guest_value_bytes", setting.Bytes, DefaultMaxGuestValueBytes, func(p *Policy) *int { return &p.MaxGuestValueBytes },
		"largest offloaded result a chain still gets as a plain value"),
	setting.Of("max_final_value_bytes", setting.Bytes, DefaultMaxFinalValueBytes, func(p *Policy) *int { return &p.MaxFinalValueBytes },
		"largest final chain value returned as it is; larger ones are stored"),
	setting.Of("preview_chars", setting.Count, DefaultPreviewChars, func(p *Policy) *int { return &p.PreviewChars },
		"characters of an offloaded result's preview"),
	setting.Of("max_argument_bytes", setting.Bytes, DefaultMaxArgumentBytes, func(p *Policy) *int { return &p.MaxArgumentBytes },
		"encoded arguments of one call"),
	setting.Of("max_resolved_bytes", setting.Bytes, DefaultMaxResolvedBytes, func(p *Policy) *int64 { return &p.MaxResolvedBytes },
		"bytes the artifact refs of one call may expand to"),
	setting.Of("max_artifact_bytes", setting.Bytes, DefaultMaxArtifactBytes, func(p *Policy) *int64 { return &p.MaxArtifactBytes },
		"bytes one chain may store as artifacts (offloaded results and media)"),
}

func riskField(f setting.Field[Policy]) setting.Field[Policy] {
	f.Max = int64(toolbox.Critical)
	f.ParseLevel = func(s string) (int64, error) {
		r, err := toolbox.ParseRisk(s)
		if err != nil {
			return 0, fmt.Errorf("%q is not a risk level (write SAFE, HIGH or CRITICAL)", s)
		}
		return int64(r), nil
	}
	f.FormatLevel = func(v int64) string { return toolbox.Risk(v).String() }
	return f
}

// PolicySettings describes every setting of Policy: its key, kind, default
// and what it bounds, in documentation order.
func PolicySettings() []setting.Doc { return policyTable.Docs() }

// WithDefaults returns p with every zero field set to its default. A zero
// ApprovalTimeout with a CallTimeout of 60s or less becomes 11/12 of the
// CallTimeout, so the invariant holds without a value the operator never set.
func (p Policy) WithDefaults() Policy {
	if p.ApprovalTimeout == 0 {
		call := p.CallTimeout
		if call == 0 {
			call = DefaultCallTimeout
		}
		if DefaultApprovalTimeout >= call {
			p.ApprovalTimeout = call * 11 / 12
		}
	}
	policyTable.WithDefaults(&p)
	return p
}

// Validate reports the first field of p (after defaults) that is out of
// range, naming it by its key. The error wraps ErrInvalidPolicy.
func (p Policy) Validate() error {
	p = p.WithDefaults()
	if err := policyTable.Check(&p); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidPolicy, err)
	}
	if p.ApprovalTimeout >= p.CallTimeout {
		return fmt.Errorf("%w: %w", ErrInvalidPolicy,
			setting.Errorf("approval_timeout", "(%s) must be shorter than call_timeout (%s)", p.ApprovalTimeout, p.CallTimeout))
	}
	return nil
}

// Set sets the field named key (see PolicySettings) from text: a duration
// such as "30s", a size such as "64KiB", a whole number or a risk level.
// "0" means the default.
func (p *Policy) Set(key, text string) error { return policyTable.Parse(p, key, text) }

// Get returns the field named key written as text, and whether p has it.
func (p Policy) Get(key string) (string, bool) {
	f, ok := policyTable.Lookup(key)
	if !ok {
		return "", false
	}
	return f.Format(f.Get(&p)), true
}

// Tighten returns p (defaults filled in) with every non-zero field of req
// applied: a request's own policy. A value may exceed p's only up to
// ceiling's value for it; a zero ceiling field means p's value, so without a
// ceiling a request may only lower a setting (and cannot, for instance, lift
// MaxRiskUnapproved to skip approvals). A request that lowers CallTimeout
// below p's ApprovalTimeout without setting its own gets 11/12 of its
// CallTimeout. The error names the first field refused by its key; the
// result is validated.
func (p Policy) Tighten(req, ceiling Policy) (Policy, error) {
	base := p.WithDefaults()
	if req.CallTimeout != 0 && req.ApprovalTimeout == 0 && base.ApprovalTimeout >= req.CallTimeout {
		req.ApprovalTimeout = req.CallTimeout * 11 / 12
	}
	out, err := policyTable.Tighten(base, req, ceiling)
	if err != nil {
		return out, fmt.Errorf("%w: %w", ErrInvalidPolicy, err)
	}
	return out, out.Validate()
}

// Or returns p with each zero field set to q's value: a ceiling's unset
// fields filled with the configured values, for instance.
func (p Policy) Or(q Policy) Policy {
	policyTable.Or(&p, q)
	return p
}

// CheckCeiling reports a non-zero field of ceiling below p's effective
// value: a ceiling that would refuse the configured policy itself.
func (p Policy) CheckCeiling(ceiling Policy) error {
	return policyTable.Below(ceiling, p.WithDefaults())
}
