package service

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
)

// A fleet (RATIONALE.md, "Why share one bucket and nothing else?"): with
// Options.Fleet, every chain has a record in the shared store that any
// process reads; a running chain's record carries a lease its process
// renews, and a process that finds a lapsed lease marks the chain
// interrupted. With Options.Park, a call that needs approval parks its chain
// there, and a decision taken on any process resumes it on that process.

// parkPayload is what the server stores for a parked chain: the chain's
// state and what the server needs to resume it.
type parkMeta struct {
	Profile  string    `json:"profile,omitempty"`
	Language string    `json:"language"`
	Created  time.Time `json:"created"`
	// Wakes is how many times the chain was resumed from a park;
	// ParkBytes the state bytes its parks wrote so far, this one's
	// included (the budget of Options.MaxWakes and MaxParkBytes). They
	// travel in the sealed state, so a bucket writer cannot reset them.
	Wakes     int   `json:"wakes,omitempty"`
	ParkBytes int64 `json:"park_bytes,omitempty"`
	// Traceparent is the W3C trace context of the chain span of the
	// stretch that parked (none with tracing off): the resumed stretch's
	// span continues it, so both halves are one trace. Sealed with the
	// state like the rest.
	Traceparent string `json:"traceparent,omitempty"`
	// CallerTools are the chain's caller tools as submitted: a resumed
	// chain has them again, on any process.
	CallerTools []CallerTool `json:"caller_tools,omitempty"`
}

const payloadMagic = "ALSV"

func encodePayload(m parkMeta, state []byte) []byte {
	js, _ := json.Marshal(m)
	var b bytes.Buffer
	b.Grow(len(payloadMagic) + binary.MaxVarintLen64 + len(js) + len(state))
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
	// wakes and parkBytes are the chain's park budget spent so far
	// (parkMeta), when it resumed from a park.
	wakes     int
	parkBytes int64
	dirty     chan struct{} // a call started: write the record soon
	// span is the trace context of this stretch's chain span (runGuarded
	// sets it before the chain runs), for parkMeta.Traceparent.
	span string
	// parkedAs is the record this stretch parked the chain with: what a
	// synchronous submission answers, even once a resume (here or
	// elsewhere) has moved the stored record on.
	parkedAs *durable.Chain
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
func (f *fleetRun) callStarted(tool string, now time.Time) int64 {
	f.mu.Lock()
	f.next++
	id := f.next
	f.open[id] = durable.OpenCall{Tool: tool, Start: now.UTC()}
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
func (s *Service) record(rn *run) *durable.Chain {
	c := &durable.Chain{ID: rn.id, Tenant: rn.tenant, Language: rn.lang, Status: durable.StatusRunning,
		Node: s.opts.Fleet.Node(), Lease: s.now().Add(s.opts.Fleet.Lease()), Created: rn.created,
		Updated: s.now().UTC(), Gen: rn.fleet.gen, Open: rn.fleet.openCalls()}
	c.Trace, c.TraceDropped = rn.fleet.traceSoFar()
	return c
}

// announce writes the record of a chain that starts (or resumes) here.
func (s *Service) announce(ctx context.Context, rn *run) {
	if s.opts.Fleet == nil {
		return
	}
	if err := s.putRunning(ctx, rn); err != nil {
		s.log.Error("fleet: recording a running chain failed", "chain", rn.id, "err", err)
	}
}

// putRunning writes rn's record as running, with a fresh lease and its open
// calls, unless the chain has settled meanwhile.
func (s *Service) putRunning(ctx context.Context, rn *run) error {
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
func (s *Service) settle(ctx context.Context, rn *run, res *chain.RunResult) *chain.RunResult {
	f := s.opts.Fleet
	if f == nil {
		return res
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
	defer cancel()
	rn.fleet.wmu.Lock()
	defer rn.fleet.wmu.Unlock()
	rn.fleet.settled = true
	// lost is set when the chain's session could not be closed here (its
	// state did not restore): its pins are then withdrawn by owner.
	lost := false
	// parking: the chain would park; a failed park may leave a generation.
	parking := res.Status == chain.StatusParked && res.Parked != nil
	if parking {
		reason, msg := s.overBudget(ctx, rn, res)
		if reason == "" {
			reason, msg = s.chargePark(ctx, rn, res)
		}
		if reason != "" {
			// Past its budget it does not park again: it ends, its waiting
			// calls never run.
			s.log.Warn("fleet: a chain that would park is past its budget; it ends", "chain", rn.id, "reason", reason)
			out, derr := s.runner.Discard(ctx, res.Parked.State, chain.StatusLimitExceeded, reason, msg)
			if derr != nil {
				out, lost = &chain.RunResult{ID: rn.id, Status: chain.StatusLimitExceeded, Reason: reason, Error: msg, Trace: res.Trace}, true
			}
			out.Logs = res.Logs
			res = out
		} else if err := s.savePark(ctx, rn, res); err != nil {
			s.uncharge(rn.tenant, parkCharge(rn.id, rn.fleet.gen+1))
			s.log.Error("fleet: parking a chain failed; it ends with host_error", "chain", rn.id, "err", err)
			out, derr := s.runner.Discard(ctx, res.Parked.State, chain.StatusError, ReasonHostError, "the chain could not be parked")
			if derr == nil {
				res = out
			} else {
				res, lost = &chain.RunResult{ID: rn.id, Status: chain.StatusError, Reason: ReasonHostError, Error: "the chain could not be parked", Trace: res.Trace}, true
			}
		} else {
			s.metrics.Parked()
			s.releasePark(ctx, rn.tenant, rn.id, rn.fleet.gen)
			// A decision may have come in already, or its timer be due:
			// checked here, before Submit answers parked, so a caller that
			// then decides with Hold and resumes elsewhere is not raced by
			// a late resume of this process's own.
			if s.resumeDue(ctx, rn, res) {
				go s.tryResume(rn.tenant, rn.id)
			}
			s.handOnIdentity(rn, res)
			return res
		}
	}
	c := s.record(rn)
	c.Status, c.Open, c.Finished, c.Result = string(res.Status), nil, s.now().UTC(), res
	// What the chain holds goes before its end is recorded: a process
	// killed in between leaves it running, and the one that interrupts it
	// releases again. A chain that never parked nor tried to holds no
	// parked state: the listing of its generations is spared.
	if lost || parking || rn.fleet.gen > 0 {
		s.releaseEnded(ctx, c, lost)
	}
	if won, err := f.Finish(ctx, c); err != nil {
		s.log.Error("fleet: recording a finished chain failed", "chain", rn.id, "err", err)
	} else if !won {
		s.log.Warn("fleet: the chain was already ended elsewhere (its lease lapsed, or it was cancelled); this process's result is not recorded", "chain", rn.id)
	}
	return res
}

// resumeDue reports whether a chain that just parked can resume at once:
// its wake time has come, or one of its calls was decided already.
func (s *Service) resumeDue(ctx context.Context, rn *run, res *chain.RunResult) bool {
	if w := res.Parked.Wake; !w.IsZero() && !s.now().Before(w) {
		return true
	}
	pending := make([]durable.Approval, 0, len(res.Parked.Approvals))
	for _, a := range res.Parked.Approvals {
		pending = append(pending, durable.Approval{ID: durable.PendingID(rn.id, a.Seq, a.Kind)})
	}
	return s.anyDecided(ctx, rn.tenant, rn.id, pending)
}

// releaseEnded lets go of what an ended chain still holds in the store:
// every parked generation it wrote (the one it resumed from, one whose
// park failed part way, one an earlier release left), and, when its
// session was not closed by this process (lost), its artifacts' pins.
func (s *Service) releaseEnded(ctx context.Context, c *durable.Chain, lost bool) {
	if lost {
		s.opts.Fleet.Release(ctx, c)
		return
	}
	if err := s.opts.Fleet.ReleaseParks(ctx, c.Tenant, c.ID); err != nil {
		s.log.Warn("fleet: releasing an ended chain's parked states failed; they stay until the store sweeps them", "chain", c.ID, "err", err)
	}
}

// overBudget says why a chain that would park must end instead: the reason
// (ReasonWakes, ReasonParkBytes, ReasonParkedChains) and a message, or ""
// when it may park.
func (s *Service) overBudget(ctx context.Context, rn *run, res *chain.RunResult) (reason, msg string) {
	if rn.fleet.wakes >= s.opts.MaxWakes {
		return ReasonWakes, fmt.Sprintf("the chain was resumed from a park %d times, the most approval.max_wakes (%d) allows, and would park again; it ended without its waiting calls",
			rn.fleet.wakes, s.opts.MaxWakes)
	}
	if n := rn.fleet.parkBytes + parkSize(rn, res); n > s.opts.MaxParkBytes {
		return ReasonParkBytes, fmt.Sprintf("parking again would bring the state bytes the chain's parks wrote to %d, above approval.max_park_bytes (%d); it ended without its waiting calls",
			n, s.opts.MaxParkBytes)
	}
	if rn.fleet.gen == 0 {
		// A chain parking for the first time takes a place among its
		// tenant's parked chains; one parking again keeps its own.
		n, err := s.opts.Fleet.CountParked(ctx, rn.tenant, rn.id, s.opts.MaxParkedPerTenant)
		if err != nil {
			s.log.Warn("fleet: counting the tenant's parked chains failed; the chain parks", "chain", rn.id, "err", err)
		} else if n >= s.opts.MaxParkedPerTenant {
			return ReasonParkedChains, fmt.Sprintf("the tenant has %d parked chains, the most approval.max_parked_per_tenant allows; decide or cancel one. This chain ended without its waiting calls",
				s.opts.MaxParkedPerTenant)
		}
	}
	return "", ""
}

// chargePark counts the state a chain is about to park against its
// tenant's artifact quota (invoker.Options.MaxTenantArtifactBytes), in this
// process's count, until the generation is released here (releasePark) or,
// when another process resumes or ends it, at most until the park's time
// to wait ends (and a store TTL). It returns ReasonTenantQuota and a
// message when the state does not fit: the chain then ends instead.
func (s *Service) chargePark(ctx context.Context, rn *run, res *chain.RunResult) (reason, msg string) {
	key, now := parkCharge(rn.id, rn.fleet.gen+1), s.now()
	err := s.runner.Invoker().ChargeTenantBytes(ctx, rn.tenant, key, int64(len(res.Parked.State)), now.Add(s.opts.ParkTTL))
	if err == nil {
		s.cmu.Lock()
		s.charges[key] = parkCharged{tenant: rn.tenant, id: rn.id, gen: rn.fleet.gen + 1, at: now}
		s.cmu.Unlock()
	}
	var q *invoker.TenantQuotaError
	if errors.As(err, &q) {
		return ReasonTenantQuota, fmt.Sprintf("parking needs %d bytes of the tenant's artifact quota and %d of its %d (store.max_tenant_artifact_bytes) are left; it ended without its waiting calls",
			q.Needed, q.Left, q.Limit)
	}
	return "", ""
}

// parkCharge names generation gen of chain id's parked state in the
// tenant's artifact count.
func parkCharge(id string, gen int) string { return "park:" + id + ":" + strconv.Itoa(gen) }

// releasePark deletes the state of a generation a chain has moved past,
// and stops counting it against its tenant's artifact quota.
func (s *Service) releasePark(ctx context.Context, tenant, id string, gen int) {
	if gen == 0 {
		return
	}
	if err := s.opts.Fleet.ReleasePark(ctx, tenant, id, gen); err != nil {
		s.log.Warn("fleet: releasing a parked state failed; it stays until the store sweeps it", "chain", id, "err", err)
		return
	}
	s.uncharge(tenant, parkCharge(id, gen))
}

// parkCharged is a parked state this process charged to its tenant's
// artifact quota: generation gen of chain id, charged at at.
type parkCharged struct {
	tenant, id string
	gen        int
	at         time.Time
}

// uncharge stops counting the parked state named key against its
// tenant's quota.
func (s *Service) uncharge(tenant, key string) {
	s.cmu.Lock()
	delete(s.charges, key)
	s.cmu.Unlock()
	s.runner.Invoker().ReleaseTenantBytes(tenant, key)
}

// chargesOf lists the parked states this process charged to tenant ("":
// every tenant's) that no chain running here holds: the others are
// released by their run.
func (s *Service) chargesOf(tenant string) map[string]parkCharged {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	out := map[string]parkCharged{}
	for k, c := range s.charges {
		if tenant == "" || c.tenant == tenant {
			if _, here := s.live.Load(c.id); !here {
				out[k] = c
			}
		}
	}
	return out
}

// reclaimCharges is the invoker's Reclaimer: when a charge to tenant's
// quota does not fit, the parked states this process charged to it that
// another process has since resumed or ended (it deleted them, and this
// process could not know) are released. It reads each one's chain record,
// at most maxReclaimReads of them.
func (s *Service) reclaimCharges(ctx context.Context, tenant string) bool {
	if s.opts.Fleet == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
	defer cancel()
	released, reads := false, 0
	for key, c := range s.chargesOf(tenant) {
		if reads++; reads > maxReclaimReads {
			break
		}
		rec, err := s.opts.Fleet.GetChain(ctx, c.tenant, c.id)
		if err != nil && !errors.Is(err, durable.ErrNotFound) {
			continue // unknown: it stays counted
		}
		if err != nil || rec.Status != durable.StatusParked || rec.Gen != c.gen {
			s.uncharge(c.tenant, key)
			released = true
		}
	}
	return released
}

// maxReclaimReads bounds the chain records one reclaim reads: as many as
// approval.max_parked_per_tenant allows by default, twice.
const maxReclaimReads = 200

// unchargeGone releases the charges of parked states the fleet's index no
// longer lists as parked on their generation (parked: the tenant/id/gen
// keys a complete scan found), charged before since (so that a park whose
// index entry the scan could not see yet keeps its charge).
func (s *Service) unchargeGone(parked map[string]bool, since time.Time) {
	for key, c := range s.chargesOf("") {
		if c.at.Before(since) && !parked[c.tenant+"/"+c.id+"/"+strconv.Itoa(c.gen)] {
			s.uncharge(c.tenant, key)
		}
	}
}

// parkSize is what a park counts against Options.MaxParkBytes: its state,
// and what the submission sized rather than the guest: the caller tools
// sealed with the state, each parked call's copy of its tool's output
// schema, and at the first park the script kept beside it.
func parkSize(rn *run, res *chain.RunResult) int64 {
	n := int64(len(res.Parked.State))
	if rn.fleet.gen == 0 {
		rn.mu.Lock()
		if l := len(rn.script); l <= durable.MaxScriptBytes {
			n += int64(l)
		}
		rn.mu.Unlock()
	}
	for _, c := range rn.callerSpecs {
		n += int64(len(c.InputSchema) + len(c.OutputSchema) + len(c.Description))
	}
	for _, a := range res.Parked.Approvals {
		if a.Kind == durable.KindCall {
			n += int64(len(rn.outputSchema(a.Request.Tool)))
		}
	}
	return n
}

// storeWait bounds one store operation of the fleet's.
const storeWait = 30 * time.Second

func (s *Service) savePark(ctx context.Context, rn *run, res *chain.RunResult) error {
	now := s.now().UTC()
	p := &durable.Park{Tenant: rn.tenant, ChainID: rn.id, Gen: rn.fleet.gen + 1, Created: now, Expires: now.Add(s.opts.ParkTTL),
		State: encodePayload(parkMeta{Profile: rn.fleet.profile, Language: rn.lang, Created: rn.created,
			Wakes: rn.fleet.wakes, ParkBytes: rn.fleet.parkBytes + parkSize(rn, res), Traceparent: rn.fleet.span,
			CallerTools: rn.callerSpecs}, res.Parked.State)}
	for i, a := range res.Parked.Approvals {
		ap := durable.Approval{
			ID: durable.PendingID(rn.id, a.Seq, a.Kind), Kind: a.Kind, Tenant: rn.tenant, ChainID: rn.id, Seq: a.Seq,
			Tool: a.Request.Tool, Risk: a.Request.Risk.String(), Args: a.Request.Args, ArgsHash: a.Request.ArgsHash,
			ArgsSize: len(a.Request.Args), DecisionID: a.DecisionID, Created: now, Expires: now.Add(s.opts.ParkTTL),
			Gate: a.Gate, Rule: a.Rule, Line: a.Request.Line, Column: a.Request.Column,
		}
		switch a.Kind {
		case durable.KindCall:
			ap.OutputSchema, ap.IdempotencyKey = rn.outputSchema(a.Request.Tool), a.IdempotencyKey
		case durable.KindCredential:
			if t, ok := s.box.Get(a.Request.Tool); ok {
				ap.Audience = t.Info().Audience
			}
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
	if rn.fleet.gen == 0 {
		// The first park keeps the script for the console
		// (ApprovalContext), once: the state holds it only sealed, and a
		// process resuming the chain knows it no more than the bucket.
		rn.mu.Lock()
		p.Script = rn.script
		rn.mu.Unlock()
	}
	c := s.record(rn)
	c.Status, c.Gen, c.Expires, c.Lease, c.Open, c.Trace = durable.StatusParked, p.Gen, p.Expires, time.Time{}, nil, res.Trace
	c.TraceDropped, c.Result = res.TraceDropped, parkedResult(res)
	c.Wake = res.Parked.Wake
	for _, a := range p.Approvals {
		a.Args, a.OutputSchema = nil, nil
		c.Pending = append(c.Pending, a)
	}
	if err := s.opts.Fleet.SavePark(ctx, p); err != nil {
		return err
	}
	if err := s.opts.Fleet.PutChain(ctx, c); err != nil {
		_ = s.opts.Fleet.ReleasePark(context.WithoutCancel(ctx), rn.tenant, rn.id, p.Gen)
		return err
	}
	rn.fleet.parkedAs = c
	return nil
}
