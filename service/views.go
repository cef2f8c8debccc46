package service

import (
	"context"
	"errors"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/sandbox"
)

// Chain returns the tenant's chain id: from this process, or in a fleet
// from the shared store (a chain another process runs, or one that
// parked). ErrNotFound for a chain the tenant does not have.
func (s *Service) Chain(ctx context.Context, tenant, id string) (ChainView, error) {
	rn := s.lookup(tenant, id)
	if rn != nil && !rn.parked() {
		return rn.view(), nil
	}
	if c, ok := s.storedChain(ctx, tenant, id); ok {
		return storedView(c), nil
	}
	if rn == nil {
		return ChainView{}, ErrNotFound
	}
	return rn.view(), nil
}

// endView is the view of a chain whose stretch here ended: from the store
// when it parked (with the approvals it waits for).
func (s *Service) endView(ctx context.Context, rn *run) ChainView {
	if rn.parked() {
		if c, ok := s.storedChain(ctx, rn.tenant, rn.id); ok {
			return storedView(c)
		}
	}
	return rn.view()
}

// StoredChains calls fn with the view of each of the tenant's chains in
// the fleet's store (none without a fleet), in the store's order.
func (s *Service) StoredChains(ctx context.Context, tenant string, fn func(ChainView) error) error {
	if s.opts.Fleet == nil {
		return nil
	}
	return s.opts.Fleet.ListChains(ctx, tenant, func(c *durable.Chain) error { return fn(storedView(c)) })
}

// storedView is a chain's view from its record in the store.
func storedView(c *durable.Chain) ChainView {
	v := ChainView{ID: c.ID, Tenant: c.Tenant, Status: c.Status, Language: c.Language, Created: c.Created,
		Finished: c.Finished, Result: c.Result}
	switch c.Status {
	case durable.StatusParked:
		v.Pending, v.Expires = c.Pending, c.Expires
		if v.Result == nil {
			v.Result = &chain.RunResult{ID: c.ID, Status: chain.StatusParked, Reason: chain.ReasonAwaitingApproval,
				Trace: c.Trace, TraceDropped: c.TraceDropped, Logs: []sandbox.LogEntry{}}
		}
	case durable.StatusRunning:
		v.Open = c.Open
	}
	return v
}

// storedChain reads tenant's chain id from the fleet's store.
func (s *Service) storedChain(ctx context.Context, tenant, id string) (*durable.Chain, bool) {
	if s.opts.Fleet == nil {
		return nil, false
	}
	c, err := s.opts.Fleet.GetChain(ctx, tenant, id)
	if err != nil {
		if !errors.Is(err, durable.ErrNotFound) {
			s.log.Warn("fleet: reading a chain record failed", "chain", id, "err", err)
		}
		return nil, false
	}
	return c, true
}
