package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// MaxChainList is the most chains Chains returns: the newest.
const MaxChainList = 500

// ChainSummary is one line of a tenant's chain list (GET /v1/chains): a
// chain without its result.
type ChainSummary struct {
	ID       string    `json:"id"`
	Status   string    `json:"status"`
	Reason   string    `json:"reason,omitempty"`
	Language string    `json:"language"`
	Created  time.Time `json:"created"`
	Finished time.Time `json:"finished,omitzero"`
	// Pending counts the approvals a parked chain waits for.
	Pending int `json:"pending,omitempty"`
}

func summaryOf(v ChainView) ChainSummary {
	c := ChainSummary{ID: v.ID, Status: v.Status, Language: v.Language, Created: v.Created, Finished: v.Finished, Pending: len(v.Pending)}
	if v.Result != nil {
		c.Reason = v.Result.Reason
	}
	return c
}

// Chains lists the tenant's chains, newest first, at most MaxChainList:
// those this process runs or retains, and in a fleet those of the shared
// store (a parked chain, or one another process runs or ran). status, when
// set, keeps only the chains of that status.
func (s *Service) Chains(ctx context.Context, tenant, status string) ([]ChainSummary, error) {
	s.mu.Lock()
	s.evictLocked(s.now())
	var local []*run
	for _, rn := range s.runs {
		if rn.tenant == tenant {
			local = append(local, rn)
		}
	}
	s.mu.Unlock()
	seen := map[string]bool{}
	out := []ChainSummary{}
	add := func(c ChainSummary) {
		if seen[c.ID] {
			return
		}
		seen[c.ID] = true
		if status == "" || c.Status == status {
			out = append(out, c)
		}
	}
	var parked []string
	for _, rn := range local {
		if rn.parked() {
			parked = append(parked, rn.id) // its record says what became of it
			continue
		}
		add(summaryOf(rn.view()))
	}
	if s.opts.Fleet != nil {
		err := s.opts.Fleet.ListChains(ctx, tenant, func(c *durable.Chain) error {
			add(summaryOf(storedView(c)))
			return nil
		})
		if err != nil {
			s.log.Error("fleet: listing chains failed", "err", err)
			return nil, fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
		}
	}
	for _, id := range parked {
		if rn := s.lookup(tenant, id); rn != nil {
			add(summaryOf(rn.view()))
		}
	}
	slices.SortFunc(out, func(a, b ChainSummary) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(out) > MaxChainList {
		out = out[:MaxChainList]
	}
	return out, nil
}

// ApprovalContext is what a person deciding an approval request sees
// beside its arguments (GET /v1/approvals/{id}/context; the console).
type ApprovalContext struct {
	// Request is the request, with its arguments while it is pending.
	Request approval.Request `json:"request"`
	// Description is the tool's description; empty for a tool this
	// process does not have.
	Description string `json:"description"`
	// Gate, Rule and DecisionID say why the call needs a decision: the
	// gate it met (confirm or preview), the governance rule that chose it
	// and the policy decision's id (docs/governance.md): from the chain's
	// events while it waits in this process, from the call's approval
	// record (authenticated with the fleet key) while it is parked.
	Gate       string `json:"gate,omitempty"`
	Rule       string `json:"rule,omitempty"`
	DecisionID string `json:"decision_id,omitempty"`
	// Script is the chain's source: while it runs in this process, and
	// for a parked chain the copy its first park kept
	// (durable.Store.GetScript). Empty for a module, and for a parked
	// chain whose script was above durable.MaxScriptBytes. The line that
	// made the call is Request.Line.
	Script string `json:"script,omitempty"`
	// Calls are the chain's calls that ended so far, oldest first: from
	// its event stream while it runs here, from its record's trace while
	// it is parked.
	Calls []ToolResultEvent `json:"calls"`
}

// ApprovalContext returns the tenant's approval request id with its
// context. ErrNotFound for a request the tenant does not have.
func (s *Service) ApprovalContext(ctx context.Context, tenant, id string) (ApprovalContext, error) {
	var stored *durable.Approval
	var req approval.Request
	if s.parkedApproval(id) {
		a, _, err := s.opts.Fleet.GetApproval(ctx, tenant, id)
		if err != nil {
			return ApprovalContext{}, ErrNotFound
		}
		req, stored = requestOf(a), a
	} else {
		var err error
		if req, err = s.Approval(ctx, tenant, id); err != nil {
			return ApprovalContext{}, err
		}
	}
	out := ApprovalContext{Request: req, Calls: []ToolResultEvent{}}
	if e, ok := s.box.Lookup(req.Tool); ok {
		out.Description = e.Info().Description
	}
	if rn := s.lookup(tenant, req.SessionID); stored == nil && rn != nil && !rn.parked() {
		rn.describe(id, &out)
		return out, nil
	}
	if stored != nil {
		out.Gate, out.Rule, out.DecisionID = stored.Gate, stored.Rule, stored.DecisionID
		if src, err := s.opts.Fleet.GetScript(ctx, tenant, stored.ChainID); err == nil {
			out.Script = src
		}
	}
	if c, ok := s.storedChain(ctx, tenant, req.SessionID); ok {
		for _, r := range c.Trace {
			out.Calls = append(out.Calls, callOf(r))
		}
	}
	return out, nil
}

func callOf(r session.Record) ToolResultEvent {
	risk, _ := toolbox.ParseRisk(r.Risk)
	return ToolResultEvent{Seq: r.Seq, Tool: r.Tool, Risk: risk, Status: r.Status, Reason: r.Reason,
		DurationMS: float64(r.Duration.Microseconds()) / 1000}
}

// describe fills what the run's events say of approval id: the gate that
// required it, the calls that ended, and the script.
func (r *run) describe(id string, out *ApprovalContext) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out.Script = r.script
	var gate struct {
		Tool       string `json:"tool"`
		Gate       string `json:"gate"`
		Rule       string `json:"rule"`
		DecisionID string `json:"decision_id"`
	}
	for _, e := range r.events {
		switch {
		case e.name == EventToolResult:
			var c ToolResultEvent
			if json.Unmarshal(e.data, &c) == nil {
				out.Calls = append(out.Calls, c)
			}
		case e.name == "gate.required":
			_ = json.Unmarshal(e.data, &gate)
		case e.name == EventApprovalRequired && e.approval == id && gate.Tool == out.Request.Tool:
			// The gate.required event just before it is its call's.
			out.Gate, out.Rule, out.DecisionID = gate.Gate, gate.Rule, gate.DecisionID
		}
	}
}
