package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// A fleet (RATIONALE.md, "Why share one bucket and nothing else?"): with
// Options.Fleet, every chain has a record in the shared store that any
// process reads; a running chain's record carries a lease its process
// renews, and a process that finds a lapsed lease marks the chain
// interrupted. With Options.Park, a call that needs approval parks its chain
// there, and a decision taken on any process resumes it on that process.

// DefaultParkTTL is the default of Options.ParkTTL.
const DefaultParkTTL = 24 * time.Hour

// parkPayload is what the server stores for a parked chain: the chain's
// state and what the server needs to resume it.
type parkMeta struct {
	Profile  string    `json:"profile,omitempty"`
	Language string    `json:"language"`
	Created  time.Time `json:"created"`
}

const payloadMagic = "ALSV"

func encodePayload(m parkMeta, state []byte) []byte {
	js, _ := json.Marshal(m)
	var b bytes.Buffer
	b.WriteString(payloadMagic)
	b.Write(binary.AppendUvarint(nil, uint64(len(js))))
	b.Write(js)
	b.Write(state)
	return b.Bytes()
}

func decodePayload(p []byte) (parkMeta, []byte, error) {
	var m parkMeta
	if len(p) < len(payloadMagic) || string(p[:len(payloadMagic)]) != payloadMagic {
		return m, nil, errors.New("server: not a parked chain of this server")
	}
	rest := p[len(payloadMagic):]
	n, k := binary.Uvarint(rest)
	if k <= 0 || n > uint64(len(rest)-k) || n > 1<<20 {
		return m, nil, errors.New("server: parked chain header cut short")
	}
	if err := json.Unmarshal(rest[k:k+int(n)], &m); err != nil {
		return m, nil, fmt.Errorf("server: parked chain header: %w", err)
	}
	return m, rest[k+int(n):], nil
}

// fleetRun is what the server keeps of a chain for its record.
type fleetRun struct {
	// wmu orders the writes of the chain's record: once settled (parked or
	// ended), no renewal or open-call write may land after the outcome.
	wmu     sync.Mutex
	settled bool

	mu      sync.Mutex
	open    map[int64]durable.OpenCall // calls running now, by a local counter
	trace   []session.Record           // the calls that ended, newest last (at most maxFleetTrace)
	dropped int                        // older records left out of trace
	next    int64
	gen     int // the park generation it resumed from
	profile string
	dirty   chan struct{} // a call started: write the record soon
}

func newFleetRun(profile string, gen int) *fleetRun {
	return &fleetRun{open: map[int64]durable.OpenCall{}, gen: gen, profile: profile, dirty: make(chan struct{}, 1)}
}

// maxFleetTrace bounds the trace records a running chain's record carries
// (the newest; the chain's own trace, in its result, has them all).
const maxFleetTrace = 2000

// callRecorded adds a call that ended to the trace the record carries, so
// that a chain interrupted later lists what it did before.
func (f *fleetRun) callRecorded(rec session.Record) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trace = append(f.trace, rec)
	if over := len(f.trace) - maxFleetTrace; over > 0 {
		f.trace = append(f.trace[:0:0], f.trace[over:]...)
		f.dropped += over
	}
}

func (f *fleetRun) traceSoFar() ([]session.Record, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.trace), f.dropped
}

// callStarted notes a call that runs now; the record is written soon, so
// that a process dying during the call leaves it listed as unknown.
func (f *fleetRun) callStarted(tool string) int64 {
	f.mu.Lock()
	f.next++
	id := f.next
	f.open[id] = durable.OpenCall{Tool: tool, Start: time.Now().UTC()}
	f.mu.Unlock()
	select {
	case f.dirty <- struct{}{}:
	default:
	}
	return id
}

func (f *fleetRun) openCalls() []durable.OpenCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]durable.OpenCall, 0, len(f.open))
	for _, c := range f.open {
		out = append(out, c)
	}
	return out
}

// callEnded forgets the oldest open call of tool.
func (f *fleetRun) callEnded(tool string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var oldest int64
	for id, c := range f.open {
		if c.Tool == tool && (oldest == 0 || id < oldest) {
			oldest = id
		}
	}
	delete(f.open, oldest)
}

// record is rn's chain record as it runs.
func (s *Server) record(rn *run) *durable.Chain {
	c := &durable.Chain{ID: rn.id, Tenant: rn.tenant, Language: rn.lang, Status: durable.StatusRunning,
		Node: s.opts.Fleet.Node(), Lease: time.Now().Add(s.opts.Fleet.Lease()), Created: rn.created,
		Updated: time.Now().UTC(), Gen: rn.fleet.gen, Open: rn.fleet.openCalls()}
	c.Trace, c.TraceDropped = rn.fleet.traceSoFar()
	return c
}

// announce writes the record of a chain that starts (or resumes) here.
func (s *Server) announce(ctx context.Context, rn *run) {
	if s.opts.Fleet == nil {
		return
	}
	if err := s.putRunning(ctx, rn); err != nil {
		s.log.Error("fleet: recording a running chain failed", "chain", rn.id, "err", err)
	}
}

// putRunning writes rn's record as running, with a fresh lease and its open
// calls, unless the chain has settled meanwhile.
func (s *Server) putRunning(ctx context.Context, rn *run) error {
	rn.fleet.wmu.Lock()
	defer rn.fleet.wmu.Unlock()
	if rn.fleet.settled {
		return nil
	}
	err := s.opts.Fleet.PutChain(ctx, s.record(rn))
	if errors.Is(err, durable.ErrEnded) {
		// Another process ended the chain (its lease lapsed here): it must
		// not go on calling tools. Its outcome here is not recorded.
		rn.cancel(errEndedElsewhere)
	}
	return err
}

// settle files a chain's outcome in the store: its park, or its end.
func (s *Server) settle(ctx context.Context, rn *run, res *chain.RunResult) *chain.RunResult {
	f := s.opts.Fleet
	if f == nil {
		return res
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
	defer cancel()
	rn.fleet.wmu.Lock()
	defer rn.fleet.wmu.Unlock()
	rn.fleet.settled = true
	if res.Status == chain.StatusParked && res.Parked != nil {
		if err := s.savePark(ctx, rn, res); err != nil {
			s.log.Error("fleet: parking a chain failed; it ends with host_error", "chain", rn.id, "err", err)
			out, derr := s.runner.Discard(ctx, res.Parked.State, chain.StatusError, reasonHostError, "the chain could not be parked")
			if derr == nil {
				res = out
			} else {
				res = &chain.RunResult{ID: rn.id, Status: chain.StatusError, Reason: reasonHostError, Error: "the chain could not be parked", Trace: res.Trace}
			}
		} else {
			s.metrics.Parked()
			s.releasePark(ctx, rn.tenant, rn.id, rn.fleet.gen)
			go s.tryResume(rn.tenant, rn.id) // a decision may have come in already
			return res
		}
	}
	c := s.record(rn)
	c.Status, c.Open, c.Finished, c.Result = string(res.Status), nil, time.Now().UTC(), res
	if won, err := f.Finish(ctx, c); err != nil {
		s.log.Error("fleet: recording a finished chain failed", "chain", rn.id, "err", err)
	} else if !won {
		s.log.Warn("fleet: the chain was already ended elsewhere (its lease lapsed, or it was cancelled); this process's result is not recorded", "chain", rn.id)
	}
	s.releasePark(ctx, rn.tenant, rn.id, rn.fleet.gen)
	return res
}

// releasePark lets the state of a generation a chain has moved past expire.
func (s *Server) releasePark(ctx context.Context, tenant, id string, gen int) {
	if gen == 0 {
		return
	}
	if err := s.opts.Fleet.ReleasePark(ctx, tenant, id, gen); err != nil {
		s.log.Warn("fleet: releasing a parked state failed; it stays until the store sweeps it", "chain", id, "err", err)
	}
}

// storeWait bounds one store operation of the fleet's.
const storeWait = 30 * time.Second

func (s *Server) savePark(ctx context.Context, rn *run, res *chain.RunResult) error {
	now := time.Now().UTC()
	p := &durable.Park{Tenant: rn.tenant, ChainID: rn.id, Gen: rn.fleet.gen + 1, Created: now, Expires: now.Add(s.opts.ParkTTL),
		State: encodePayload(parkMeta{Profile: rn.fleet.profile, Language: rn.lang, Created: rn.created}, res.Parked.State)}
	for i, a := range res.Parked.Approvals {
		ap := durable.Approval{
			ID: durable.ApprovalID(rn.id, a.Seq), Tenant: rn.tenant, ChainID: rn.id, Seq: a.Seq,
			Tool: a.Request.Tool, Risk: a.Request.Risk.String(), Args: a.Request.Args, ArgsHash: a.Request.ArgsHash,
			ArgsSize: len(a.Request.Args), DecisionID: a.DecisionID, Created: now, Expires: now.Add(s.opts.ParkTTL),
		}
		// A call that waited before (the chain parked again on it) keeps
		// the time it was first asked about: park_ttl counts from then.
		if prev, _, err := s.opts.Fleet.GetApproval(ctx, rn.tenant, ap.ID); err == nil && prev.ArgsHash == ap.ArgsHash {
			ap.Created, ap.Expires = prev.Created, prev.Expires
		}
		if i == 0 || ap.Expires.Before(p.Expires) {
			p.Expires = ap.Expires
		}
		p.Approvals = append(p.Approvals, ap)
	}
	c := s.record(rn)
	c.Status, c.Gen, c.Expires, c.Lease, c.Open, c.Trace = durable.StatusParked, p.Gen, p.Expires, time.Time{}, nil, res.Trace
	c.Wake = res.Parked.Wake
	for _, a := range p.Approvals {
		a.Args = nil
		c.Pending = append(c.Pending, a)
	}
	if err := s.opts.Fleet.SavePark(ctx, p); err != nil {
		return err
	}
	if err := s.opts.Fleet.PutChain(ctx, c); err != nil {
		_ = s.opts.Fleet.ReleasePark(context.WithoutCancel(ctx), rn.tenant, rn.id, p.Gen)
		return err
	}
	return nil
}

// decisionFor answers a resumed chain's waiting calls from the store.
func (s *Server) decisionFor(tenant, id string, expired bool) func(context.Context, chain.Approval) (chain.Decision, bool, error) {
	return func(ctx context.Context, a chain.Approval) (chain.Decision, bool, error) {
		_, d, err := s.opts.Fleet.GetApproval(ctx, tenant, durable.ApprovalID(id, a.Seq))
		switch {
		case err != nil && !errors.Is(err, durable.ErrNotFound):
			// The store failed: the call stays undecided (the chain parks
			// again) rather than failing the chain.
			s.log.Warn("fleet: reading a decision failed; the call waits on", "chain", id, "err", err)
			return chain.Decision{}, false, nil
		case d != nil:
			return chain.Decision{Approved: d.Approved, ArgsHash: d.ArgsHash}, true, nil
		case expired:
			return chain.Decision{Expired: true}, true, nil
		}
		return chain.Decision{}, false, nil
	}
}

// tryResume resumes the tenant's parked chain id on this process when one
// of its calls has been decided (or its park expired) and this process wins
// the claim. It is safe to call any number of times, from any process.
func (s *Server) tryResume(tenant, id string) {
	if _, err := s.resumeNow(tenant, id); err != nil && !errors.Is(err, errNotResumable) {
		s.log.Warn("fleet: resuming a parked chain failed", "chain", id, "err", err)
	}
}

// errNotResumable: the chain is not parked, none of its calls was
// decided, this process is busy, or another process claimed it first.
var errNotResumable = errors.New("the chain cannot be resumed now")

// resumeNow is tryResume, returning the resumed run.
func (s *Server) resumeNow(tenant, id string) (*run, error) {
	f := s.opts.Fleet
	if f == nil || s.draining.Load() {
		return nil, fmt.Errorf("%w: this process is not part of a fleet, or it is shutting down", errNotResumable)
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, storeWait)
	defer cancel()
	c, err := f.GetChain(ctx, tenant, id)
	if err != nil {
		if errors.Is(err, durable.ErrNotFound) {
			return nil, fmt.Errorf("%w: no such chain", errNotResumable)
		}
		return nil, err
	}
	if c.Status != durable.StatusParked {
		return nil, fmt.Errorf("%w: it is %s, not parked", errNotResumable, c.Status)
	}
	expired := !c.Expires.IsZero() && time.Now().After(c.Expires)
	woken := !c.Wake.IsZero() && !time.Now().Before(c.Wake)
	if !expired && !woken && !s.anyDecided(ctx, tenant, id, c.Pending) {
		return nil, fmt.Errorf("%w: none of its calls has been decided and no timer is due", errNotResumable)
	}
	select {
	case s.slots <- struct{}{}:
	default:
		return nil, fmt.Errorf("%w: this process runs as many chains as it may", errNotResumable) // the reaper tries again
	}
	// Counted as running before the claim, under the lock Shutdown takes:
	// a claimed chain must not be left behind by a process shutting down.
	s.mu.Lock()
	if s.draining.Load() {
		s.mu.Unlock()
		<-s.slots
		return nil, fmt.Errorf("%w: this process is shutting down", errNotResumable)
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
			err = fmt.Errorf("%w: another process resumed it first", errNotResumable)
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
		if errors.Is(err, durable.ErrTampered) || errors.Is(err, durable.ErrIncompatible) {
			s.log.Error("fleet: a parked chain's state was refused; the chain ends with state_refused", "chain", id, "err", err)
			s.endUnresumable(ctx, c, err)
		} else {
			// The store failed: the claim stands, so after two leases any
			// process ends the chain interrupted (StaleClaim).
			s.log.Error("fleet: reading a claimed parked chain failed", "chain", id, "err", err)
		}
		return nil, err
	}
	return s.resume(c, meta, state, expired), nil
}

// loadPark reads a claimed parked state, trying again a few times when the
// store fails (a refused state is not tried again).
func (s *Server) loadPark(ctx context.Context, tenant, id string, gen int) (*durable.Park, error) {
	var err error
	for try := range 3 {
		var p *durable.Park
		if p, err = s.opts.Fleet.LoadPark(ctx, tenant, id, gen); err == nil || errors.Is(err, durable.ErrTampered) ||
			errors.Is(err, durable.ErrIncompatible) || ctx.Err() != nil {
			return p, err
		}
		time.Sleep(time.Duration(try+1) * 200 * time.Millisecond)
	}
	return nil, err
}

// Resume resumes the tenant's parked chain id in this process, when one of
// its calls has been decided or its park has expired, and waits until it
// ends or parks again (airlock chains resume).
func (s *Server) Resume(ctx context.Context, tenant, id string) (ChainView, error) {
	rn, err := s.resumeNow(tenant, id)
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

func (s *Server) anyDecided(ctx context.Context, tenant, id string, pending []durable.Approval) bool {
	for _, a := range pending {
		if _, d, err := s.opts.Fleet.GetApproval(ctx, tenant, a.ID); err == nil && d != nil {
			return true
		}
	}
	return false
}

// endUnresumable finishes a parked chain whose state cannot be resumed
// (tampered, or from an incompatible engine): nothing of it runs again.
func (s *Server) endUnresumable(ctx context.Context, c *durable.Chain, cause error) {
	msg := "the chain's parked state could not be resumed: " + cause.Error()
	c.Status, c.Finished = string(chain.StatusError), time.Now().UTC()
	c.Result = &chain.RunResult{ID: c.ID, Status: chain.StatusError, Reason: ReasonStateRefused, Error: msg,
		Trace: c.Trace, Logs: nil}
	if won, err := s.opts.Fleet.Finish(ctx, c); err != nil {
		s.log.Error("fleet: recording an unresumable chain failed", "chain", c.ID, "err", err)
	} else if won {
		s.opts.Fleet.Release(ctx, c)
	}
	s.metrics.StateRefused()
}

// resume runs a claimed parked chain here. The caller holds a slot and has
// counted it running.
func (s *Server) resume(c *durable.Chain, meta parkMeta, state []byte, expired bool) *run {
	ctx, cancel := context.WithCancelCause(s.baseCtx)
	rn := newRun(c.ID, c.Tenant, meta.Language, cancel)
	rn.created = meta.Created
	rn.fleet = newFleetRun(meta.Profile, c.Gen)
	rn.fleet.trace, rn.fleet.dropped = c.Trace, c.TraceDropped
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
	if meta.Profile != "" && s.opts.ProfileNamed != nil {
		prof = s.opts.ProfileNamed(meta.Profile)
	}
	go s.execute(ctx, rn, func(ctx context.Context) (*chain.RunResult, error) {
		ro := chain.ResumeOptions{Decide: s.decisionFor(c.Tenant, c.ID, expired), Park: true,
			Logger: s.log, Observer: s.observer()}
		if prof != nil {
			ro.Profile = prof.Governance
		} else if meta.Profile != "" {
			// Never looser than it started: a chain whose profile is no
			// longer configured does not run on under none.
			return s.runner.Discard(ctx, state, chain.StatusError, ReasonStateRefused,
				fmt.Sprintf("the chain's profile %q is no longer configured; it was not resumed", meta.Profile))
		}
		res, err := s.runner.Resume(ctx, state, ro)
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

// maintain renews the leases of the chains running here every third of a
// lease and reaps the fleet's every lease: lapsed leases become interrupted
// chains, decided or expired parks resume. It runs until the server shuts
// down.
func (s *Server) maintain(ctx context.Context) {
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
func (s *Server) renew() {
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
// ones that can go on.
func (s *Server) reap() {
	ctx, cancel := context.WithTimeout(s.baseCtx, storeWait)
	defer cancel()
	margin := s.opts.Fleet.Lease()
	now := time.Now()
	err := s.opts.Fleet.Scan(ctx, func(l durable.Live) error {
		switch l.Status {
		case durable.StatusRunning:
			if l.Node == s.opts.Fleet.Node() {
				if _, here := s.live.Load(l.ID); here {
					return nil
				}
			}
			if now.After(l.Lease.Add(margin)) {
				if won, err := s.opts.Fleet.Interrupt(ctx, l.Tenant, l.ID); err == nil && won {
					s.metrics.Interrupted()
					s.log.Warn("fleet: a chain's process stopped renewing its lease; the chain is interrupted", "chain", l.ID, "node", l.Node)
				}
			}
		case durable.StatusParked:
			if l.Decided || !l.Expires.IsZero() && now.After(l.Expires) || !l.Wake.IsZero() && !now.Before(l.Wake) {
				s.tryResume(l.Tenant, l.ID)
			}
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		s.log.Warn("fleet: scanning the fleet's chains failed", "err", err)
	}
}

// recordCall follows the calls of a fleet chain that end, for its record.
func (s *Server) recordCall(ev invoker.Event) {
	rn := s.liveRun(ev.SessionID)
	if rn == nil || rn.fleet == nil {
		return
	}
	end := time.Now().UTC()
	rn.fleet.callRecorded(session.Record{Seq: ev.Seq, Tool: ev.Tool, Status: ev.Status, Reason: ev.Reason,
		Start: end.Add(-ev.Duration), End: end, Duration: ev.Duration, Risk: ev.Risk.String(), Gate: ev.Gate,
		DecisionID: ev.DecisionID, Rule: ev.Rule, Refs: slices.Clone(ev.Refs)})
}

// watchCalls follows a fleet chain's calls for its record.
func (s *Server) watchCalls(ev invoker.Event) {
	rn := s.liveRun(ev.SessionID)
	if rn == nil || rn.fleet == nil {
		return
	}
	switch ev.Kind {
	case invoker.ToolCall:
		rn.fleet.callStarted(ev.Tool)
	case invoker.ToolResult:
		rn.fleet.callEnded(ev.Tool)
	}
}

// flushOpen writes a fleet chain's record soon after a call starts, so a
// process that dies during the call leaves it listed.
func (s *Server) flushOpen(ctx context.Context, rn *run) {
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

// ParkedApproval returns a parked chain's approval request, with its
// arguments, as GET /v1/approvals/{id} shows it.
func (s *Server) ParkedApproval(ctx context.Context, tenant, id string) (approval.Request, error) {
	if !s.parkedApproval(id) {
		return approval.Request{}, durable.ErrNotFound
	}
	a, _, err := s.opts.Fleet.GetApproval(ctx, tenant, id)
	if err != nil {
		return approval.Request{}, err
	}
	return requestOf(a), nil
}

// Chain returns the tenant's chain id as GET /v1/chains/{id} shows it.
func (s *Server) Chain(ctx context.Context, tenant, id string) (ChainView, error) {
	rn := s.lookup(tenant, id)
	if rn != nil && !rn.parked() {
		return rn.view(), nil
	}
	if c, ok := s.storedChain(ctx, tenant, id); ok {
		return storedView(c), nil
	}
	if rn == nil {
		return ChainView{}, durable.ErrNotFound
	}
	return rn.view(), nil
}

// endView is the view of a chain whose stretch here ended: from the store
// when it parked (with the approvals it waits for).
func (s *Server) endView(ctx context.Context, rn *run) ChainView {
	if rn.parked() {
		if c, ok := s.storedChain(ctx, rn.tenant, rn.id); ok {
			return storedView(c)
		}
	}
	return rn.view()
}

// Fleet returns the fleet's store (Options.Fleet), or nil.
func (s *Server) Fleet() *durable.Store { return s.opts.Fleet }

// StoredView is a chain's view from its record in a fleet's store.
func StoredView(c *durable.Chain) ChainView { return storedView(c) }

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
func (s *Server) storedChain(ctx context.Context, tenant, id string) (*durable.Chain, bool) {
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

// parkedApproval reports whether id names a parked chain's approval.
func (s *Server) parkedApproval(id string) bool {
	return s.opts.Fleet != nil && strings.HasPrefix(id, durable.ApprovalPrefix)
}

// requestOf shows a stored approval as the queue shows its requests.
func requestOf(a *durable.Approval) approval.Request {
	risk, _ := toolbox.ParseRisk(a.Risk)
	return approval.Request{ID: a.ID, Tenant: a.Tenant, SessionID: a.ChainID, Tool: a.Tool, Risk: risk,
		Args: a.Args, ArgsHash: a.ArgsHash, ArgsSize: a.ArgsSize, Created: a.Created, Expires: a.Expires}
}

// storedApprovals lists the tenant's parked approvals still waiting.
func (s *Server) storedApprovals(ctx context.Context, tenant string) ([]approval.Request, error) {
	var out []approval.Request
	now := time.Now()
	parked := map[string]bool{} // chain id → still parked
	err := s.opts.Fleet.ListApprovals(ctx, tenant, func(a *durable.Approval, d *durable.Decision) error {
		if d != nil || !now.Before(a.Expires) {
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
			out = append(out, requestOf(a))
		}
		return nil
	})
	return out, err
}

func (s *Server) storedApproval(ctx context.Context, tenant, id string) (approval.Request, bool) {
	a, _, err := s.opts.Fleet.GetApproval(ctx, tenant, id)
	if err != nil {
		return approval.Request{}, false
	}
	return requestOf(a), true
}

// DecideParked records a decision on a parked chain's call in the fleet's
// store (the first decision wins; a later one returns it with
// durable.ErrAlreadyDecided) and returns the outcome and the chain's id.
// It does not resume the chain: Resume, or any process's reaper, does.
func (s *Server) DecideParked(ctx context.Context, tenant, id string, approve bool, hash string) (approval.Outcome, string, error) {
	if !s.parkedApproval(id) {
		return approval.Outcome{}, "", durable.ErrNotFound
	}
	a, prev, err := s.opts.Fleet.GetApproval(ctx, tenant, id)
	if err != nil {
		return approval.Outcome{}, "", err
	}
	if prev == nil {
		// Only a call its chain still waits for can be decided.
		if c, err := s.opts.Fleet.GetChain(ctx, tenant, a.ChainID); err != nil {
			return approval.Outcome{}, "", err
		} else if c.Status != durable.StatusRunning &&
			(c.Status != durable.StatusParked || !slices.ContainsFunc(c.Pending, func(p durable.Approval) bool { return p.ID == id })) {
			// Ended, or parked without it: nobody waits for this call. (A
			// chain running while it waits is one a timer woke; it parks
			// again and sees the decision.)
			return approval.Outcome{}, a.ChainID, durable.ErrExpired
		}
	}
	first, err := s.opts.Fleet.Decide(ctx, tenant, id, durable.Decision{Approved: approve, ArgsHash: hash, By: "api", At: time.Now().UTC()})
	req := requestOf(a)
	req.Args = nil
	decided := invoker.Denied
	if first.Approved {
		decided = invoker.Approved
	}
	return approval.Outcome{Request: req, Decision: decided, Decided: first.At}, a.ChainID, err
}

// decideParked handles POST /v1/approvals/{id} for a parked chain's call:
// the decision goes to the store and the chain resumes here (another
// process resumes it if this one cannot).
func (s *Server) decideParked(w http.ResponseWriter, r *http.Request, tenant, id string, d invoker.Decision, hash string) {
	out, chainID, err := s.DecideParked(r.Context(), tenant, id, d == invoker.Approved, hash)
	switch {
	case err == nil:
		go s.tryResume(tenant, chainID)
		writeJSON(w, http.StatusOK, out)
	case errors.Is(err, durable.ErrNotFound):
		approvalNotFound(w, id)
	case errors.Is(err, durable.ErrHashMismatch):
		refuseDecision(w, ReasonArgsMismatch, out.Decision, "")
	case errors.Is(err, durable.ErrAlreadyDecided):
		refuseDecision(w, ReasonAlreadyDecided, out.Decision, "")
	case errors.Is(err, durable.ErrExpired):
		refuseDecision(w, ReasonApprovalExpired, out.Decision, "its parked chain's time to wait ran out; the call was not run")
	default:
		s.log.Error("fleet: recording a decision failed", "approval", id, "err", err)
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the decision could not be recorded in the fleet's store; retry")
	}
}

// storedPoll is how often a stream of a chain read from the store looks at
// its record.
const storedPoll = 500 * time.Millisecond

// storedEvents streams a chain read from the fleet's store: its status
// now, each change, and done with its view once it ended.
func (s *Server) storedEvents(w http.ResponseWriter, r *http.Request, c *durable.Chain, cursor int) {
	if startStream(w, c.ID) {
		s.followStored(w, r, c, cursor)
	}
}

// followStored writes the status events of a stored chain after cursor.
func (s *Server) followStored(w http.ResponseWriter, r *http.Request, c *durable.Chain, cursor int) {
	rc := http.NewResponseController(w)
	tick := time.NewTicker(storedPoll)
	defer tick.Stop()
	last, quiet := "", 0
	for {
		if c != nil && c.Status != last {
			last = c.Status
			cursor++
			name := EventStatus
			if c.Finished.IsZero() && c.Result == nil {
				_ = writeEventJSON(w, cursor, name, storedView(c))
			} else {
				_ = writeEventJSON(w, cursor, EventDone, storedView(c))
				_ = rc.Flush()
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
		select {
		case <-tick.C:
		case <-r.Context().Done():
			return
		}
		if quiet++; quiet*int(storedPoll) >= int(keepAlive) {
			quiet = 0
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
		}
		if next, ok := s.storedChain(r.Context(), c.Tenant, c.ID); ok {
			c = next
		}
	}
}

// errNotCancellable: the stored chain is not parked (it runs on another
// process, or it ended), or another process is resuming or ending it.
var errNotCancellable = errors.New("the chain cannot be cancelled here")

// Cancel cancels the tenant's parked chain id (airlock chains cancel): it
// ends here, its pins released, its waiting calls never run.
func (s *Server) Cancel(ctx context.Context, tenant, id string) (ChainView, error) {
	c, ok := s.storedChain(ctx, tenant, id)
	if !ok {
		return ChainView{}, durable.ErrNotFound
	}
	if err := s.cancelParked(ctx, c); err != nil {
		return ChainView{}, err
	}
	return storedView(c), nil
}

func (s *Server) cancelParked(ctx context.Context, c *durable.Chain) error {
	switch c.Status {
	case durable.StatusParked:
	case durable.StatusRunning:
		return fmt.Errorf("%w: chain %s runs on another airlock process (%s); send the cancellation to that process", errNotCancellable, c.ID, clip(c.Node))
	default:
		return fmt.Errorf("%w: chain %s already finished with status %s; nothing to cancel", errNotCancellable, c.ID, c.Status)
	}
	won, err := s.opts.Fleet.Claim(ctx, c.Tenant, c.ID, c.Gen, "cancel")
	if err != nil {
		return err
	}
	if !won {
		return fmt.Errorf("%w: chain %s is resuming or ending elsewhere; read it again", errNotCancellable, c.ID)
	}
	res := &chain.RunResult{ID: c.ID, Status: chain.StatusCancelled, Reason: "cancelled", Error: errCancelledByClient.Error(), Trace: c.Trace}
	if p, err := s.opts.Fleet.LoadPark(ctx, c.Tenant, c.ID, c.Gen); err == nil {
		if _, state, err := decodePayload(p.State); err == nil {
			if out, err := s.runner.Discard(ctx, state, chain.StatusCancelled, "cancelled", errCancelledByClient.Error()); err == nil {
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

// cancelStored handles DELETE /v1/chains/{id} for a chain read from the
// fleet's store.
func (s *Server) cancelStored(w http.ResponseWriter, r *http.Request, c *durable.Chain) {
	err := s.cancelParked(r.Context(), c)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, storedView(c))
	case errors.Is(err, errNotCancellable) && c.Status == durable.StatusRunning:
		writeError(w, http.StatusConflict, ReasonRunningElsewhere, strings.TrimPrefix(err.Error(), errNotCancellable.Error()+": "))
	case errors.Is(err, errNotCancellable):
		writeError(w, http.StatusConflict, ReasonChainFinished, strings.TrimPrefix(err.Error(), errNotCancellable.Error()+": "))
	default:
		s.log.Error("fleet: cancelling a parked chain failed", "chain", c.ID, "err", err)
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the fleet's store could not be written; retry")
	}
}
