package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
)

// Chain returns the tenant's chain id: from this process, or in a fleet
// from the shared store (a chain another process runs, or one that
// parked). ErrNotFound for a chain the tenant does not have (or whose
// record the fleet key does not authenticate); ErrStoreUnavailable when
// the store could not be read and this process does not run the chain.
func (s *Service) Chain(ctx context.Context, tenant, id string) (ChainView, error) {
	rn := s.lookup(tenant, id)
	if rn != nil && !rn.parked() {
		return rn.view(), nil
	}
	c, err := s.readChain(ctx, tenant, id)
	switch {
	case err == nil:
		return storedView(c), nil
	case rn != nil:
		return rn.view(), nil
	case refused(err):
		return ChainView{}, ErrNotFound
	}
	return ChainView{}, fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
}

// refused reports whether err of a store read is about the object (none,
// or one the fleet key does not authenticate), not the store failing.
func refused(err error) bool {
	for _, e := range []error{durable.ErrNotFound, durable.ErrForged, durable.ErrMalformed, durable.ErrTampered, durable.ErrIncompatible, durable.ErrStale} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// endView is the view of a chain whose stretch here ended: when it parked,
// the record it parked with (with the approvals it waits for), even if a
// resume has started since.
func (s *Service) endView(ctx context.Context, rn *run) ChainView {
	if rn.parked() && rn.fleet != nil && rn.fleet.parkedAs != nil {
		// Set before the run finished (rn.done), read after.
		return storedView(rn.fleet.parkedAs)
	}
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

// storedView is a chain's view from its record in the store. A parked
// chain's result is what its record carries of the stretch that parked it
// (parkedResult) with the record's trace.
func storedView(c *durable.Chain) ChainView {
	v := ChainView{ID: c.ID, Tenant: c.Tenant, Status: c.Status, Language: c.Language, Created: c.Created,
		Finished: c.Finished, Result: withArrays(c.Result)}
	switch c.Status {
	case durable.StatusParked:
		v.Pending, v.Expires = c.Pending, c.Expires
		res := chain.RunResult{ID: c.ID, Status: chain.StatusParked, Reason: chain.ReasonAwaitingApproval}
		if c.Result != nil {
			res = *c.Result
		}
		res.Trace, res.TraceDropped = c.Trace, c.TraceDropped
		v.Result = withArrays(&res)
	case durable.StatusRunning:
		v.Open = c.Open
	}
	return v
}

// maxParkedLogBytes bounds the text of the console lines a parked chain's
// record carries (docs/http-api.md): a record stays well within the
// store's budget for one (durable.Store.PutChain), and the whole logs are
// in the result of the stretch that ends the chain.
const maxParkedLogBytes = 64 << 10

// parkedResult is what a parked chain's record carries of the stretch
// that parked it: its logs (the first maxParkedLogBytes of text, with
// LogsTruncated set when cut), files, artifacts and stats. Its trace is
// the record's own (durable.Chain.Trace), not stored twice.
func parkedResult(res *chain.RunResult) *chain.RunResult {
	out := *res
	out.Parked, out.Trace, out.TraceDropped = nil, nil, 0
	n := 0
	for i, l := range res.Logs {
		if n += len(l.Text); n > maxParkedLogBytes {
			out.Logs, out.LogsTruncated = res.Logs[:i:i], true
			break
		}
	}
	return &out
}

// withArrays returns res, or a copy of it whose nil lists (logs, trace,
// files, artifacts) are empty: the API's schema has arrays there, never
// null, whichever path built the result (a stored record, an interrupted
// or refused chain).
func withArrays(res *chain.RunResult) *chain.RunResult {
	if res == nil || (res.Logs != nil && res.Trace != nil && res.Files != nil && res.Artifacts != nil) {
		return res
	}
	out := *res
	if out.Logs == nil {
		out.Logs = []sandbox.LogEntry{}
	}
	if out.Trace == nil {
		out.Trace = []session.Record{}
	}
	if out.Files == nil {
		out.Files = []invoker.ChainFile{}
	}
	if out.Artifacts == nil {
		out.Artifacts = []invoker.Artifact{}
	}
	return &out
}

// storedChain reads tenant's chain id from the fleet's store.
func (s *Service) storedChain(ctx context.Context, tenant, id string) (*durable.Chain, bool) {
	c, err := s.readChain(ctx, tenant, id)
	return c, err == nil
}

// readChain is storedChain with the store's error (durable.ErrNotFound
// without a fleet).
func (s *Service) readChain(ctx context.Context, tenant, id string) (*durable.Chain, error) {
	if s.opts.Fleet == nil {
		return nil, durable.ErrNotFound
	}
	c, err := s.opts.Fleet.GetChain(ctx, tenant, id)
	if err != nil && !errors.Is(err, durable.ErrNotFound) {
		s.log.Warn("fleet: reading a chain record failed", "chain", id, "err", err)
	}
	return c, err
}

// Wait returns the view of the tenant's chain id once its stretch in this
// process ended (it finished, or parked), or at once for a chain this
// process does not run (from the fleet's store when it has it). ctx bounds
// the wait: when it ends first, Wait returns the chain's view as it is
// then, with ctx's error. ErrNotFound for a chain the tenant does not
// have. Faces use it to hand a long chain over to polling (MCP tasks).
func (s *Service) Wait(ctx context.Context, tenant, id string) (ChainView, error) {
	rn := s.lookup(tenant, id)
	if rn == nil {
		return s.Chain(ctx, tenant, id)
	}
	select {
	case <-rn.done:
		return s.endView(ctx, rn), nil
	case <-ctx.Done():
		return rn.view(), ctx.Err()
	}
}

// Undecided is Approval for a request a person may still answer: a
// parked chain's call that was decided, or whose wait ran out, is
// ErrNotFound here while its chain has not yet resumed (Approval still
// returns it). Faces use it to show what waits for a person (MCP tasks).
func (s *Service) Undecided(ctx context.Context, tenant, id string) (approval.Request, error) {
	if !s.parkedApproval(id) {
		return s.Approval(ctx, tenant, id)
	}
	a, d, err := s.opts.Fleet.GetApproval(ctx, tenant, id)
	if err != nil || d != nil || !s.now().Before(a.Expires) {
		return approval.Request{}, ErrNotFound
	}
	return requestOf(a), nil
}
