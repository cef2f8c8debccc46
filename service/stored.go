package service

import (
	"context"
	"fmt"
	"time"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
)

// storedPoll is how often a stream of a chain read from the store looks at
// its record.
const storedPoll = 500 * time.Millisecond

// followStored sends the status events of a stored chain after cursor:
// its status now, each change, and done with its view once its status is
// final (a parked chain's record has a result too: the stretch's).
func (s *Service) followStored(ctx context.Context, c *durable.Chain, cursor int, sink EventSink) error {
	tick := time.NewTicker(storedPoll)
	defer tick.Stop()
	last, quiet := "", 0
	for {
		if c != nil && c.Status != last {
			last = c.Status
			cursor++
			if !chain.Status(c.Status).Final() {
				if err := sendJSON(sink, cursor, EventStatus, storedView(c)); err != nil {
					return err
				}
			} else {
				return sendJSON(sink, cursor, EventDone, storedView(c))
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return nil
		}
		if quiet++; quiet*int(storedPoll) >= int(KeepAlive) {
			quiet = 0
			if err := sink.KeepAlive(); err != nil {
				return err
			}
		}
		if next, ok := s.storedChain(ctx, c.Tenant, c.ID); ok {
			c = next
		}
	}
}

// cancelWait is how long Cancel waits for a cancelled chain to end.
const cancelWait = 5 * time.Second

// Cancel cancels the tenant's chain id: a chain running here is cancelled
// and Cancel waits up to 5s for it to end (its view then says whether it
// did: Finished is set); a parked chain ends at once, its pins released,
// its waiting calls never run. Errors: ErrNotFound; ErrFinished and
// ErrRunningElsewhere (wrapped, with a message for people);
// ErrStoreUnavailable.
func (s *Service) Cancel(ctx context.Context, tenant, id string) (ChainView, error) {
	rn := s.lookup(tenant, id)
	if rn == nil || rn.parked() {
		if c, ok := s.storedChain(ctx, tenant, id); ok {
			if err := s.cancelParked(ctx, c); err != nil {
				return ChainView{}, err
			}
			return storedView(c), nil
		}
	}
	if rn == nil {
		return ChainView{}, ErrNotFound
	}
	select {
	case <-rn.done:
		return ChainView{}, fmt.Errorf("%w: chain %s already finished with status %s; nothing to cancel", ErrFinished, rn.id, rn.view().Status)
	default:
	}
	rn.cancel(errCancelled)
	t := time.NewTimer(cancelWait)
	defer t.Stop()
	select {
	case <-rn.done:
	case <-t.C:
	case <-ctx.Done():
	}
	return rn.view(), nil
}

func (s *Service) cancelParked(ctx context.Context, c *durable.Chain) error {
	switch c.Status {
	case durable.StatusParked:
	case durable.StatusRunning:
		return fmt.Errorf("%w: chain %s runs on another airlock process (%s); send the cancellation to that process", ErrRunningElsewhere, c.ID, clip(c.Node))
	default:
		return fmt.Errorf("%w: chain %s already finished with status %s; nothing to cancel", ErrFinished, c.ID, c.Status)
	}
	won, err := s.opts.Fleet.Claim(ctx, c.Tenant, c.ID, c.Gen, "cancel")
	if err != nil {
		s.log.Error("fleet: cancelling a parked chain failed", "chain", c.ID, "err", err)
		return fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
	}
	if !won {
		return fmt.Errorf("%w: chain %s is resuming or ending elsewhere; read it again", ErrFinished, c.ID)
	}
	res := &chain.RunResult{ID: c.ID, Status: chain.StatusCancelled, Reason: "cancelled", Error: errCancelled.Error(), Trace: c.Trace}
	if p, err := s.opts.Fleet.LoadPark(ctx, c.Tenant, c.ID, c.Gen); err == nil {
		if _, state, err := decodePayload(p.State); err == nil {
			if out, err := s.runner.Discard(ctx, state, chain.StatusCancelled, "cancelled", errCancelled.Error()); err == nil {
				res = out
			}
		}
	}
	c.Status, c.Finished, c.Result, c.Pending = string(chain.StatusCancelled), time.Now().UTC(), res, nil
	if _, err := s.opts.Fleet.Finish(ctx, c); err != nil {
		s.log.Error("fleet: recording a cancelled chain failed", "chain", c.ID, "err", err)
	}
	s.releasePark(ctx, c.Tenant, c.ID, c.Gen)
	return nil
}
