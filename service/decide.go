package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// Decision is a person's answer to an approval request.
type Decision struct {
	// Approve runs the call; false denies it.
	Approve bool
	// ArgsHash is the args_hash of the request as it was shown: a decision
	// is bound to the exact arguments it was made on. Required.
	ArgsHash string
	// Hold leaves a parked chain parked after the decision, for the caller
	// to Resume it itself (airlock chains, MCP elicitation). Otherwise a
	// started service resumes it here in the background, and an unstarted
	// one leaves it to another process's upkeep.
	Hold bool
}

// Approvals lists the tenant's pending approval requests: those of the
// chains waiting in this process's queue first, then, in a fleet, those of
// its parked chains.
func (s *Service) Approvals(ctx context.Context, tenant string) ([]approval.Request, error) {
	list := s.queue.List(tenant)
	if s.opts.Fleet != nil {
		stored, err := s.storedApprovals(ctx, tenant)
		if err != nil {
			s.log.Error("fleet: listing parked approvals failed", "err", err)
			return nil, fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
		}
		list = append(list, stored...)
	}
	return list, nil
}

// Approval returns the tenant's approval request id, with its arguments
// while it is pending: from the queue, or a parked chain's from the store.
func (s *Service) Approval(ctx context.Context, tenant, id string) (approval.Request, error) {
	if s.parkedApproval(id) {
		a, _, err := s.opts.Fleet.GetApproval(ctx, tenant, id)
		if err != nil {
			return approval.Request{}, ErrNotFound
		}
		return requestOf(a), nil
	}
	req, err := s.queue.Get(tenant, id)
	if err != nil {
		return approval.Request{}, ErrNotFound
	}
	return req, nil
}

// Decide decides the tenant's approval request id: a call waiting in the
// queue, or a parked chain's call (the decision goes to the fleet's store,
// where the first one wins). Errors: ErrNotFound; approval.ErrArgsMismatch
// (d.ArgsHash is not the request's: nothing changed, the request is still
// pending); approval.ErrAlreadyDecided (the Outcome holds the first
// decision); an *ExpiredError; ErrStoreUnavailable.
func (s *Service) Decide(ctx context.Context, tenant, id string, d Decision) (approval.Outcome, error) {
	if d.ArgsHash == "" {
		return approval.Outcome{}, approval.ErrArgsMismatch
	}
	if s.parkedApproval(id) {
		return s.decideParked(ctx, tenant, id, d)
	}
	verdict := invoker.Denied
	if d.Approve {
		verdict = invoker.Approved
	}
	out, err := s.queue.Decide(tenant, id, verdict, d.ArgsHash)
	switch {
	case err == nil, errors.Is(err, approval.ErrArgsMismatch), errors.Is(err, approval.ErrAlreadyDecided):
		return out, err
	case errors.Is(err, approval.ErrExpired):
		return out, &ExpiredError{Why: "approval timeout, or its chain ended; the call was denied"}
	}
	return out, ErrNotFound
}

// decideParked records a decision on a parked chain's call in the fleet's
// store and, unless d.Hold, resumes the chain here in the background when
// the service is started.
func (s *Service) decideParked(ctx context.Context, tenant, id string, d Decision) (approval.Outcome, error) {
	a, prev, err := s.opts.Fleet.GetApproval(ctx, tenant, id)
	if err != nil {
		return approval.Outcome{}, s.storeErr(err)
	}
	req := requestOf(a)
	req.Args = nil
	if prev == nil {
		// Only a call its chain still waits for can be decided.
		c, err := s.opts.Fleet.GetChain(ctx, tenant, a.ChainID)
		if err != nil {
			return approval.Outcome{}, s.storeErr(err)
		}
		if c.Status != durable.StatusRunning &&
			(c.Status != durable.StatusParked || !slices.ContainsFunc(c.Pending, func(p durable.Approval) bool { return p.ID == id })) {
			// Ended, or parked without it: nobody waits for this call. (A
			// chain running while it waits is one a timer woke; it parks
			// again and sees the decision.)
			return approval.Outcome{Request: req}, &ExpiredError{Why: "its parked chain's time to wait ran out; the call was not run"}
		}
	}
	first, err := s.opts.Fleet.Decide(ctx, tenant, id, durable.Decision{Approved: d.Approve, ArgsHash: d.ArgsHash, By: "api", At: s.now().UTC()})
	decided := invoker.Denied
	if first.Approved {
		decided = invoker.Approved
	}
	out := approval.Outcome{Request: req, Decision: decided, Decided: first.At}
	switch {
	case err == nil:
		if !d.Hold && s.started.Load() {
			go s.tryResume(tenant, a.ChainID)
		}
		return out, nil
	case errors.Is(err, durable.ErrHashMismatch):
		return out, approval.ErrArgsMismatch
	case errors.Is(err, durable.ErrAlreadyDecided):
		return out, approval.ErrAlreadyDecided
	case errors.Is(err, durable.ErrExpired):
		return out, &ExpiredError{Why: "its parked chain's time to wait ran out; the call was not run"}
	}
	s.log.Error("fleet: recording a decision failed", "approval", id, "err", err)
	return out, fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
}

// storeErr maps a store error: not found, or the store unavailable.
func (s *Service) storeErr(err error) error {
	if errors.Is(err, durable.ErrNotFound) {
		return ErrNotFound
	}
	return fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
}

// parkedApproval reports whether id names a parked chain's approval.
func (s *Service) parkedApproval(id string) bool {
	return s.opts.Fleet != nil && strings.HasPrefix(id, durable.ApprovalPrefix)
}

// requestOf shows a stored approval as the queue shows its requests.
func requestOf(a *durable.Approval) approval.Request {
	risk, _ := toolbox.ParseRisk(a.Risk)
	return approval.Request{ID: a.ID, Tenant: a.Tenant, SessionID: a.ChainID, Tool: a.Tool, Risk: risk,
		Args: a.Args, ArgsHash: a.ArgsHash, ArgsSize: a.ArgsSize, Created: a.Created, Expires: a.Expires,
		Line: a.Line, Column: a.Column}
}

// storedApprovals lists the tenant's parked approvals still waiting.
func (s *Service) storedApprovals(ctx context.Context, tenant string) ([]approval.Request, error) {
	var out []approval.Request
	now := s.now()
	budget := MaxListedArgsBytes
	parked := map[string]bool{} // chain id → still parked
	err := s.opts.Fleet.ListApprovals(ctx, tenant, func(a *durable.Approval, d *durable.Decision) error {
		if d != nil || !now.Before(a.Expires) || a.Kind != "" {
			return nil
		}
		p, seen := parked[a.ChainID]
		if !seen {
			// Parked, or running a while (a timer woke it; its undecided
			// calls still wait): the request can still be decided.
			c, ok := s.storedChain(ctx, tenant, a.ChainID)
			p = ok && (c.Status == durable.StatusParked || c.Status == durable.StatusRunning)
			parked[a.ChainID] = p
		}
		if p {
			r := requestOf(a)
			if budget -= len(r.Args); budget < 0 {
				r.Args = nil // past the listing's budget: GET /v1/approvals/{id} has them
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}
