package server

import (
	"cmp"
	"fmt"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// serverValues is the ceiling of a server without Options.Ceiling: a
// request may lower the server's policy and limits, never raise them. The
// values compared are the effective ones, defaults filled in.
func serverValues(policy invoker.Policy, limits sandbox.Limits) func(invoker.Policy, sandbox.Limits) error {
	base, baseL := policy.WithDefaults(), limitsWithDefaults(limits)
	return func(p invoker.Policy, l sandbox.Limits) error {
		p, l = p.WithDefaults(), limitsWithDefaults(l)
		above := func(name string, got, max any) error {
			return fmt.Errorf("%s %v is above the server's value of %v (without an operator ceiling a request may only lower the server's values)", name, got, max)
		}
		switch {
		case p.MaxRiskUnapproved > base.MaxRiskUnapproved:
			return above("max_risk_unapproved", riskText(p.MaxRiskUnapproved), riskText(base.MaxRiskUnapproved))
		case p.MaxToolCalls > base.MaxToolCalls:
			return above("max_tool_calls", p.MaxToolCalls, base.MaxToolCalls)
		case p.CallTimeout > base.CallTimeout:
			return above("call_timeout", p.CallTimeout, base.CallTimeout)
		case p.ApprovalTimeout > base.ApprovalTimeout:
			return above("approval_timeout", p.ApprovalTimeout, base.ApprovalTimeout)
		case l.Timeout > baseL.Timeout:
			return above("timeout", l.Timeout, baseL.Timeout)
		case l.MemoryBytes > baseL.MemoryBytes:
			return above("memory", l.MemoryBytes, baseL.MemoryBytes)
		case l.MaxLogBytes > baseL.MaxLogBytes:
			return above("max_log_bytes", l.MaxLogBytes, baseL.MaxLogBytes)
		case l.MaxResultBytes > baseL.MaxResultBytes:
			return above("max_result_bytes", l.MaxResultBytes, baseL.MaxResultBytes)
		}
		return nil
	}
}

func riskText(r toolbox.Risk) string {
	if !r.Valid() {
		return fmt.Sprintf("Risk(%d)", int(r))
	}
	return r.String()
}

// limitsWithDefaults fills the zero fields a request may override with the
// sandbox's defaults.
func limitsWithDefaults(l sandbox.Limits) sandbox.Limits {
	l.Timeout = cmp.Or(l.Timeout, sandbox.DefaultTimeout)
	l.MemoryBytes = cmp.Or(l.MemoryBytes, sandbox.DefaultMemoryBytes)
	l.MaxLogBytes = cmp.Or(l.MaxLogBytes, sandbox.DefaultMaxLogBytes)
	l.MaxResultBytes = cmp.Or(l.MaxResultBytes, sandbox.DefaultMaxResultBytes)
	return l
}
