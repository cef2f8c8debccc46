package service

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
)

// maintain renews the leases of the chains running here every third of a
// lease and reaps the fleet's every lease: lapsed leases become interrupted
// chains, decided or expired parks resume. It runs until the server shuts
// down.
func (s *Service) maintain(ctx context.Context) {
	// Renewals have a loop of their own: a long reaping pass must never
	// delay them past the lease.
	go every(ctx, s.opts.Fleet.Lease()/3, s.renew)
	every(ctx, s.opts.Fleet.Lease(), s.reap)
}

// every calls f every d until ctx ends.
func every(ctx context.Context, d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f()
	}
}

// renew extends the lease of every chain running here and writes its open
// calls.
func (s *Service) renew() {
	ctx, cancel := context.WithTimeout(s.baseCtx, storeWait)
	defer cancel()
	s.live.Range(func(_, v any) bool {
		rn := v.(*run)
		if rn.fleet == nil {
			return true
		}
		if err := s.putRunning(ctx, rn); err != nil {
			s.log.Warn("fleet: renewing a chain's lease failed", "chain", rn.id, "err", err)
		}
		return true
	})
}

// reap interrupts the chains whose lease lapsed and resumes the parked
// ones that can go on. An index entry is a hint: where it may disagree
// with the chain's record (a running entry whose lease lapsed, a parked
// entry this process has not checked yet), the record is read and wins
// (durable.Store.Reconcile): a parked record is resumed or expired as
// parked, a running one whose lease lapsed is interrupted, an entry with
// no record left is forgotten.
func (s *Service) reap() {
	ctx, cancel := context.WithTimeout(s.baseCtx, storeWait)
	defer cancel()
	f := s.opts.Fleet
	margin := f.Lease()
	now := s.now()
	lapsed := func(l durable.Live) bool { return now.After(l.Lease.Add(margin)) }
	verified := make(map[string]bool, len(s.verified))
	err := f.Scan(ctx, func(l durable.Live) error {
		if l.Status == durable.StatusRunning && l.Node == f.Node() {
			if _, here := s.live.Load(l.ID); here {
				return nil
			}
		}
		key := l.Tenant + "/" + l.ID + "/" + strconv.Itoa(l.Gen)
		check := l.Status == durable.StatusRunning && lapsed(l) ||
			l.Status == durable.StatusParked && (!s.verified[key] || !l.Expires.IsZero() && now.After(l.Expires)) ||
			l.Status != durable.StatusRunning && l.Status != durable.StatusParked
		if check {
			var ok bool
			var err error
			if l, ok, err = f.Reconcile(ctx, l); err != nil || !ok {
				return nil
			}
			key = l.Tenant + "/" + l.ID + "/" + strconv.Itoa(l.Gen)
		}
		switch l.Status {
		case durable.StatusRunning:
			if lapsed(l) {
				if won, err := f.Interrupt(ctx, l.Tenant, l.ID); err == nil && won {
					s.metrics.Interrupted()
					s.log.Warn("fleet: a chain's process stopped renewing its lease; the chain is interrupted", "chain", l.ID, "node", l.Node)
				}
			}
		case durable.StatusParked:
			verified[key] = true
			if l.Decided || !l.Expires.IsZero() && now.After(l.Expires) || !l.Wake.IsZero() && !now.Before(l.Wake) {
				s.tryResume(l.Tenant, l.ID)
			}
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		s.log.Warn("fleet: scanning the fleet's chains failed", "err", err)
		maps.Copy(verified, s.verified) // a pass cut short forgets nothing
	}
	if err == nil {
		// A state charged here whose chain the index no longer lists as
		// parked on it was resumed or ended elsewhere.
		s.unchargeGone(verified, now.Add(-storeWait))
	}
	s.verified = verified
}

// recordCall follows the calls of a fleet chain that end, for its record.
func (s *Service) recordCall(ev invoker.Event) {
	rn := s.liveRun(ev.SessionID)
	if rn == nil || rn.fleet == nil {
		return
	}
	end := s.now().UTC()
	rn.fleet.callRecorded(session.Record{Seq: ev.Seq, Tool: ev.Tool, Status: ev.Status, Reason: ev.Reason,
		Start: end.Add(-ev.Duration), End: end, Duration: ev.Duration, Risk: ev.Risk.String(), Gate: ev.Gate,
		DecisionID: ev.DecisionID, Rule: ev.Rule, Refs: slices.Clone(ev.Refs)})
}

// watchCalls follows a fleet chain's calls for its record.
func (s *Service) watchCalls(ev invoker.Event) {
	rn := s.liveRun(ev.SessionID)
	if rn == nil || rn.fleet == nil {
		return
	}
	switch ev.Kind {
	case invoker.ToolCall:
		rn.fleet.callStarted(ev.Tool, s.now())
	case invoker.ToolResult:
		rn.fleet.callEnded(ev.Tool)
	}
}

// flushOpen writes a fleet chain's record soon after a call starts, so a
// process that dies during the call leaves it listed.
func (s *Service) flushOpen(ctx context.Context, rn *run) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-rn.fleet.dirty:
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
			if err := s.putRunning(wctx, rn); err != nil {
				s.log.Warn("fleet: recording a chain's open calls failed", "chain", rn.id, "err", err)
			}
			cancel()
		}
	}
}
