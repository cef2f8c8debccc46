package service

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
)

// storedPoll is how often the record of a chain streamed from the store is
// read.
const storedPoll = 500 * time.Millisecond

// A stream of a chain read from the store (parked, or running on another
// process) follows a watch: one goroutine per chain and process reads the
// chain's record every storedPoll while the chain has followers here, and
// wakes them when its status changes. N streams of one chain cost one read
// per poll, not N.
type watch struct {
	key  string
	mu   sync.Mutex
	c    *durable.Chain
	subs int           // followers; guarded by Service.wmu
	ch   chan struct{} // closed when c's status changes, then replaced
}

// current returns the chain as last read and a channel closed when it
// changes.
func (w *watch) current() (*durable.Chain, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c, w.ch
}

// watchStored subscribes to the watch of chain c (read just now), starting
// it when c has none; call the returned function to unsubscribe.
func (s *Service) watchStored(c *durable.Chain) (*watch, func()) {
	key := c.Tenant + "/" + c.ID
	s.wmu.Lock()
	w := s.watches[key]
	if w == nil {
		w = &watch{key: key, c: c, ch: make(chan struct{})}
		s.watches[key] = w
		go s.pollStored(w, c.Tenant, c.ID)
	}
	w.subs++
	s.wmu.Unlock()
	return w, func() {
		s.wmu.Lock()
		w.subs--
		s.wmu.Unlock()
	}
}

// pollStored reads w's chain every storedPoll until it has no follower,
// its status is final, or the service is closed.
func (s *Service) pollStored(w *watch, tenant, id string) {
	tick := time.NewTicker(storedPoll)
	defer tick.Stop()
	stop := func() bool {
		s.wmu.Lock()
		defer s.wmu.Unlock()
		w.mu.Lock()
		final := chain.Status(w.c.Status).Final()
		w.mu.Unlock()
		if w.subs > 0 && !final && s.baseCtx.Err() == nil {
			return false
		}
		delete(s.watches, w.key)
		return true
	}
	for !stop() {
		select {
		case <-tick.C:
		case <-s.baseCtx.Done():
			continue
		}
		ctx, cancel := context.WithTimeout(s.baseCtx, storeWait)
		next, ok := s.storedChain(ctx, tenant, id)
		cancel()
		if !ok {
			continue
		}
		w.mu.Lock()
		// A new generation is a new park: a chain that resumed and
		// parked again between two reads waits for other calls.
		changed := next.Status != w.c.Status || next.Gen != w.c.Gen
		w.c = next
		if changed {
			close(w.ch)
			w.ch = make(chan struct{})
		}
		w.mu.Unlock()
	}
}

// followStored sends the status events of a stored chain after cursor:
// its status now, each change of status or generation (a chain parked
// again is a change, even when it resumed and parked between two reads),
// and done with its view once its status is final (a parked chain's
// record has a result too: the stretch's).
func (s *Service) followStored(ctx context.Context, c *durable.Chain, cursor int, sink EventSink) error {
	w, unwatch := s.watchStored(c)
	defer unwatch()
	keep := time.NewTicker(KeepAlive)
	defer keep.Stop()
	last := ""
	for {
		c, changed := w.current()
		if now := c.Status + "/" + strconv.Itoa(c.Gen); now != last {
			last = now
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
		case <-changed:
		case <-keep.C:
			if err := sink.KeepAlive(); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		case <-s.baseCtx.Done():
			return nil
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
	// Discarding the state closes its session, which withdraws its pins;
	// a state that cannot be read leaves them to be withdrawn by owner.
	lost := true
	if p, err := s.loadPark(ctx, c.Tenant, c.ID, c.Gen); err == nil {
		if _, state, err := decodePayload(p.State); err == nil {
			if out, err := s.runner.Discard(ctx, state, chain.StatusCancelled, "cancelled", errCancelled.Error()); err == nil {
				res, lost = out, false
			}
		}
	}
	c.Status, c.Finished, c.Result, c.Pending = string(chain.StatusCancelled), s.now().UTC(), res, nil
	// Released before the end is recorded (see settle).
	s.releaseEnded(ctx, c, lost)
	if _, err := s.opts.Fleet.Finish(ctx, c); err != nil {
		s.log.Error("fleet: recording a cancelled chain failed", "chain", c.ID, "err", err)
	}
	return nil
}
