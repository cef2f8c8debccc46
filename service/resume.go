package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// decisionFor answers a resumed chain's waiting calls from the store; a
// call waiting for a fresh credential runs again once the resumed stretch
// has an identity (rn's, handed to this process: it is never stored).
func (s *Service) decisionFor(rn *run, expired bool) func(context.Context, chain.Approval) (chain.Decision, bool, error) {
	tenant, id := rn.tenant, rn.id
	return func(ctx context.Context, a chain.Approval) (chain.Decision, bool, error) {
		if a.Kind == durable.KindCredential {
			switch {
			case expired:
				return chain.Decision{Expired: true}, true, nil
			case rn.identity.Load() != nil:
				return chain.Decision{}, true, nil
			}
			return chain.Decision{}, false, nil
		}
		_, d, err := s.opts.Fleet.GetApproval(ctx, tenant, durable.PendingID(id, a.Seq, a.Kind))
		call := a.Kind == durable.KindCall
		switch {
		case err != nil && !errors.Is(err, durable.ErrNotFound):
			// The store failed: the call stays undecided (the chain parks
			// again) rather than failing the chain.
			s.log.Warn("fleet: reading a decision failed; the call waits on", "chain", id, "err", err)
			return chain.Decision{}, false, nil
		case d != nil && call && d.ArgsHash == a.Request.ArgsHash:
			return chain.Decision{Answer: d.Answer}, true, nil
		case d != nil && !call:
			return chain.Decision{Approved: d.Approved, ArgsHash: d.ArgsHash}, true, nil
		case expired && call:
			return chain.Decision{Answer: &invoker.Answer{Expired: true}}, true, nil
		case expired:
			return chain.Decision{Expired: true}, true, nil
		}
		return chain.Decision{}, false, nil
	}
}

// tryResume resumes the tenant's parked chain id on this process when one
// of its calls has been decided (or its park expired) and this process wins
// the claim. It is safe to call any number of times, from any process.
func (s *Service) tryResume(tenant, id string) {
	if _, err := s.resumeNow(tenant, id, nil); err != nil && !errors.Is(err, ErrNotResumable) {
		s.log.Warn("fleet: resuming a parked chain failed", "chain", id, "err", err)
	}
}

// resumeNow is tryResume, returning the resumed run. ident, when set, is
// a fresh delegated identity for a chain parked on a call waiting for
// one: the chain resumes here acting for it, decided or not.
func (s *Service) resumeNow(tenant, id string, ident *toolbox.Identity) (*run, error) {
	f := s.opts.Fleet
	if f == nil || s.draining.Load() {
		return nil, fmt.Errorf("%w: this process is not part of a fleet, or it is shutting down", ErrNotResumable)
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, storeWait)
	defer cancel()
	c, err := f.GetChain(ctx, tenant, id)
	if err != nil {
		if errors.Is(err, durable.ErrNotFound) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	if c.Status != durable.StatusParked {
		return nil, fmt.Errorf("%w: it is %s, not parked", ErrNotResumable, c.Status)
	}
	expired := !c.Expires.IsZero() && s.now().After(c.Expires)
	woken := !c.Wake.IsZero() && !s.now().Before(c.Wake)
	if ident != nil && !waitsForCredential(c) {
		return nil, fmt.Errorf("%w: chain %s is parked waiting for a decision or an answer, not for a credential; hand it the identity once it runs again", ErrNotResumable, c.ID)
	}
	if ident == nil && !expired && !woken && !s.anyDecided(ctx, tenant, id, c.Pending) {
		return nil, fmt.Errorf("%w: none of its calls has been decided and no timer is due", ErrNotResumable)
	}
	select {
	case s.slots <- struct{}{}:
	default:
		return nil, fmt.Errorf("%w: this process runs as many chains as it may", ErrNotResumable) // the reaper tries again
	}
	// Counted as running before the claim, under the lock Shutdown takes:
	// a claimed chain must not be left behind by a process shutting down.
	s.mu.Lock()
	if s.draining.Load() {
		s.mu.Unlock()
		<-s.slots
		return nil, fmt.Errorf("%w: this process is shutting down", ErrNotResumable)
	}
	s.running.Add(1)
	s.mu.Unlock()
	release := func() {
		<-s.slots
		s.running.Done()
	}
	kind := "resume"
	if expired {
		kind = "expire"
	}
	won, err := f.Claim(ctx, tenant, id, c.Gen, kind)
	if err != nil || !won {
		release()
		if err == nil {
			err = fmt.Errorf("%w: another process resumed it first", ErrNotResumable)
			if stale, _ := f.StaleClaim(ctx, tenant, id, c.Gen); stale {
				// Its claimant died before running it: end it, its
				// waiting calls unknown, rather than wait for ever.
				if ok, _ := f.Abandon(ctx, tenant, id); ok {
					s.metrics.Interrupted()
					s.log.Warn("fleet: the process that claimed a parked chain stopped before resuming it; the chain is interrupted", "chain", id)
				}
			}
		}
		return nil, err
	}
	p, err := s.loadPark(ctx, tenant, id, c.Gen)
	var meta parkMeta
	var state []byte
	if err == nil {
		if meta, state, err = decodePayload(p.State); err != nil {
			err = fmt.Errorf("%w: %v", durable.ErrIncompatible, err)
		}
	}
	if err != nil {
		release()
		if errors.Is(err, durable.ErrTampered) || errors.Is(err, durable.ErrIncompatible) || errors.Is(err, durable.ErrStale) {
			s.log.Error("fleet: a parked chain's state was refused; the chain ends with state_refused", "chain", id, "err", err)
			s.endUnresumable(ctx, c, err)
		} else {
			// The store failed: the claim stands, so after two leases any
			// process ends the chain interrupted (StaleClaim).
			s.log.Error("fleet: reading a claimed parked chain failed", "chain", id, "err", err)
		}
		return nil, err
	}
	// A claimed generation is never continued again: its state may go
	// now, rather than after the chain's end or next park, so that a
	// process killed in between leaves no pin behind (the fault run).
	s.releasePark(ctx, tenant, id, c.Gen)
	return s.resume(c, meta, state, expired, ident), nil
}

// waitsForCredential reports whether parked chain c has a call waiting
// for a fresh delegated credential.
func waitsForCredential(c *durable.Chain) bool {
	return slices.ContainsFunc(c.Pending, func(p durable.Approval) bool { return p.Kind == durable.KindCredential })
}

// loadPark reads a claimed parked state, trying again a few times when the
// store fails (a refused state is not tried again).
func (s *Service) loadPark(ctx context.Context, tenant, id string, gen int) (*durable.Park, error) {
	var err error
	for try := range 3 {
		var p *durable.Park
		if p, err = s.opts.Fleet.LoadPark(ctx, tenant, id, gen); err == nil || errors.Is(err, durable.ErrTampered) ||
			errors.Is(err, durable.ErrIncompatible) || errors.Is(err, durable.ErrStale) || ctx.Err() != nil {
			return p, err
		}
		time.Sleep(time.Duration(try+1) * 200 * time.Millisecond)
	}
	return nil, err
}

// Resume resumes the tenant's parked chain id in this process, when one of
// its calls has been decided or its park has expired, and waits until it
// ends or parks again (airlock chains resume).
func (s *Service) Resume(ctx context.Context, tenant, id string) (ChainView, error) {
	rn, err := s.resumeNow(tenant, id, nil)
	if err != nil {
		return ChainView{}, err
	}
	select {
	case <-rn.done:
	case <-ctx.Done():
		rn.cancel(context.Cause(ctx))
		<-rn.done
	}
	if c, ok := s.storedChain(context.WithoutCancel(ctx), tenant, id); ok {
		return storedView(c), nil
	}
	return rn.view(), nil
}

func (s *Service) anyDecided(ctx context.Context, tenant, id string, pending []durable.Approval) bool {
	for _, a := range pending {
		if a.Kind == durable.KindCredential {
			continue // decided by a fresh identity, never in the store
		}
		if _, d, err := s.opts.Fleet.GetApproval(ctx, tenant, a.ID); err == nil && d != nil {
			return true
		}
	}
	return false
}

// endUnresumable finishes a parked chain whose state cannot be resumed
// (tampered, or from an incompatible engine): nothing of it runs again.
func (s *Service) endUnresumable(ctx context.Context, c *durable.Chain, cause error) {
	msg := "the chain's parked state could not be resumed: " + cause.Error()
	c.Status, c.Finished = string(chain.StatusError), s.now().UTC()
	c.Result = &chain.RunResult{ID: c.ID, Status: chain.StatusError, Reason: ReasonStateRefused, Error: msg,
		Trace: c.Trace, Logs: nil}
	// Released before the end is recorded (see settle): the state never
	// restores, so its session's pins go by owner.
	s.opts.Fleet.Release(ctx, c)
	if _, err := s.opts.Fleet.Finish(ctx, c); err != nil {
		s.log.Error("fleet: recording an unresumable chain failed", "chain", c.ID, "err", err)
	}
	s.metrics.StateRefused()
}

// resume runs a claimed parked chain here. The caller holds a slot and has
// counted it running.
func (s *Service) resume(c *durable.Chain, meta parkMeta, state []byte, expired bool, ident *toolbox.Identity) *run {
	// The resumed stretch's span continues the trace of the one that
	// parked (sampled by the server's own draw, like any remote parent).
	ctx, cancel := context.WithCancelCause(tracing.WithTraceparent(s.baseCtx, meta.Traceparent))
	rn := newRun(c.ID, c.Tenant, meta.Language, cancel)
	rn.created = meta.Created
	rn.fleet = newFleetRun(meta.Profile, c.Gen)
	rn.fleet.wakes, rn.fleet.parkBytes = meta.Wakes+1, meta.ParkBytes
	rn.fleet.trace, rn.fleet.dropped = c.Trace, c.TraceDropped
	rn.identity.Store(ident)
	tools, toolsErr := s.chainTools(meta.CallerTools)
	if toolsErr == nil && len(tools) > 0 {
		rn.callers, _ = toolbox.New(tools...)
		rn.callerSpecs = meta.CallerTools
	}
	s.mu.Lock()
	s.runs[rn.id] = rn
	s.live.Store(rn.id, rn)
	s.mu.Unlock()
	s.announce(ctx, rn)
	if expired {
		s.metrics.Expired()
	} else {
		s.metrics.Resumed()
	}
	var prof *Profile
	if meta.Profile != "" {
		prof = s.opts.Profiles[meta.Profile]
	}
	go s.execute(ctx, rn, func(ctx context.Context) (*chain.RunResult, error) {
		if toolsErr != nil {
			// Declared under rules this process no longer accepts (a
			// configured tool took a caller tool's name): nothing runs.
			return s.runner.Discard(ctx, state, chain.StatusError, ReasonStateRefused,
				fmt.Sprintf("the chain could not be resumed: %v", toolsErr))
		}
		ro := chain.ResumeOptions{Decide: s.decisionFor(rn, expired), Park: true,
			Logger: s.log, Observer: s.observer(), ChainTools: tools}
		if prof != nil {
			ro.Profile = prof.Governance
		} else if meta.Profile != "" {
			// Never looser than it started: a chain whose profile is no
			// longer configured does not run on under none.
			return s.runner.Discard(ctx, state, chain.StatusError, ReasonStateRefused,
				fmt.Sprintf("the chain's profile %q is no longer configured; it was not resumed", meta.Profile))
		}
		// A parked state holds no identity: the resumed stretch has one
		// only when SetIdentity resumed it with one, or hands it one
		// (docs/identity.md).
		res, err := s.runner.Resume(toolbox.WithIdentitySource(ctx, rn.identity.Load), state, ro)
		if errors.Is(err, chain.ErrBadState) {
			// Sealed by the fleet, yet not a state this engine continues
			// (another engine build): nothing of it runs.
			s.metrics.StateRefused()
			return &chain.RunResult{ID: c.ID, Status: chain.StatusError, Reason: ReasonStateRefused, Trace: c.Trace,
				Error: "the chain's parked state could not be resumed: " + err.Error()}, nil
		}
		return res, err
	})
	return rn
}
