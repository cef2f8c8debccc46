package service

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/toolbox"
)

// maxEvents and maxEventBytes bound the tool and approval events a chain
// keeps for its event stream, in number and in bytes of data; beyond either
// the oldest are dropped (the newest is always kept). An approval_required
// event carries the call's arguments only while the request is pending.
const (
	maxEvents     = 1024
	maxEventBytes = 1 << 20
)

// run is one chain submitted through the API.
type run struct {
	id, tenant, lang string
	created          time.Time
	cancel           func(cause error)
	done             chan struct{} // closed once the result is set and the run filed
	// script is the chain's source while it runs (JavaScript or
	// TypeScript; empty for a module), for the approval console
	// (ApprovalContext); set before the run is filed, then under mu:
	// finish drops it.
	script string
	// identity is the chain's delegated identity, in memory only (nil:
	// none); SetIdentity replaces it while the chain runs.
	identity atomic.Pointer[toolbox.Identity]

	mu       sync.Mutex
	result   *chain.RunResult
	finished time.Time
	events   []event // tool and approval events, seq ascending
	bytes    int     // sum of the events' data lengths
	nextSeq  int
	changed  chan struct{}       // closed and replaced on every append and at the end
	pending  map[string]struct{} // ids of its approval requests still pending
	size     int64               // bytes retained once finished (resultBytes + events)
	// watch, when set, receives every event as it is appended (Submit's
	// caller); it is called outside mu, in order.
	watch   func(Event)
	watchMu sync.Mutex
	// handed is the identity SetIdentity handed this stretch while it ran
	// (nil: none), and credParked says the stretch parked waiting for a
	// fresh credential: an identity handed as the stretch parks resumes
	// the chain with it (settle), rather than leaving with the stretch.
	// Both under mu, as are the stores of identity by SetIdentity and
	// finish.
	handed     *toolbox.Identity
	credParked bool
	// credParking says a call of the stretch parked waiting for a fresh
	// credential: the stretch parks once nothing else can run.
	credParking bool
	// fleet is set in a fleet: what its record needs (fleet.go).
	fleet *fleetRun
	// callers holds the chain's caller tools (nil: none), callerSpecs
	// them as declared; set before the run is filed. calls are its calls
	// waiting for their callers here and ended the answered or ended ones
	// by id (for late answers); both under mu.
	callers     *toolbox.Toolbox
	callerSpecs []CallerTool
	calls       map[string]*pendingCall
	ended       map[string]string
}

// parked reports whether the run ended its stretch by parking: its record
// in the store says what became of it since.
func (r *run) parked() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.result != nil && r.result.Status == chain.StatusParked
}

// Event is one event of a chain's stream: its name (tool_call,
// tool_result, approval_required, the lifecycle events) and its JSON data,
// as GET /v1/chains/{id}/events sends them.
type Event struct {
	Name string
	Data json.RawMessage
}

// event is one Server-Sent Event.
type event struct {
	seq  int
	name string
	data []byte
	// settled, for an approval_required event whose data holds the
	// arguments, is the data to keep once the request is no longer pending.
	settled  []byte
	approval string // the approval request's id, while settled is set
}

func newRun(id, tenant, lang string, cancel func(error)) *run {
	return &run{
		id: id, tenant: tenant, lang: lang, created: time.Now().UTC(), cancel: cancel,
		done: make(chan struct{}), nextSeq: 1, changed: make(chan struct{}),
	}
}

// publish appends an event for the stream. Events after the chain ended
// are dropped.
func (r *run) publish(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	r.append(event{name: name, data: data})
}

// publishApproval appends the approval_required event of a pending request:
// with its arguments until settleApproval or the end of the chain, then
// with only their hash and size.
func (r *run) publishApproval(req approval.Request) {
	data, err := json.Marshal(req)
	if err != nil {
		return
	}
	req.Args = nil
	settled, err := json.Marshal(req)
	if err != nil {
		return
	}
	r.mu.Lock()
	if r.result == nil {
		if r.pending == nil {
			r.pending = map[string]struct{}{}
		}
		r.pending[req.ID] = struct{}{}
	}
	r.mu.Unlock()
	r.append(event{name: EventApprovalRequired, data: data, settled: settled, approval: req.ID})
}

func (r *run) append(ev event) {
	if r.watch != nil {
		r.watchMu.Lock()
		defer r.watchMu.Unlock()
	}
	r.mu.Lock()
	if r.result != nil {
		r.mu.Unlock()
		return
	}
	ev.seq = r.nextSeq
	r.nextSeq++
	r.events = append(r.events, ev)
	r.bytes += len(ev.data)
	drop := 0
	for len(r.events)-drop > 1 && (len(r.events)-drop > maxEvents || r.bytes > maxEventBytes) {
		r.bytes -= len(r.events[drop].data)
		drop++
	}
	if drop > 0 {
		r.events = append(r.events[:0:0], r.events[drop:]...)
	}
	r.wakeLocked()
	r.mu.Unlock()
	if r.watch != nil {
		r.watch(Event{Name: ev.name, Data: ev.data})
	}
}

// settleApproval drops the arguments from the approval_required event of
// request id: it was decided or expired.
func (r *run) settleApproval(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pending, id)
	for i := range r.events {
		if e := &r.events[i]; e.approval == id {
			r.settleLocked(e)
		}
	}
}

func (r *run) settleLocked(e *event) {
	r.bytes += len(e.settled) - len(e.data)
	e.data, e.settled, e.approval = e.settled, nil, ""
}

func (r *run) wakeLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// finish records the result, drops the arguments of its approval requests
// (none is pending once the chain ended) and wakes every stream. The caller
// closes done once the run is filed among the finished ones.
func (r *run) finish(res *chain.RunResult) {
	// The identity lives no longer than the stretch that runs: a parked
	// or ended chain holds none (cleared under mu, so that SetIdentity
	// cannot store one after it).
	r.mu.Lock()
	r.identity.Store(nil)
	r.handed = nil
	r.result, r.finished, r.pending, r.script = res, time.Now().UTC(), nil, ""
	for i := range r.events {
		if e := &r.events[i]; e.settled != nil {
			r.settleLocked(e)
		}
	}
	r.size = int64(r.bytes) + resultBytes(res)
	r.wakeLocked()
	r.mu.Unlock()
}

// resultBytes estimates what a retained result holds in memory: its value,
// error, logs and trace records, each with a fixed overhead.
func resultBytes(res *chain.RunResult) int64 {
	const overhead = 128
	n := int64(overhead + len(res.Value) + len(res.Error))
	for _, l := range res.Logs {
		n += int64(overhead + len(l.Text))
	}
	for _, t := range res.Trace {
		n += int64(overhead + len(t.Tool) + len(t.Message) + len(t.Reason))
	}
	return n + int64(overhead*(len(res.Files)+len(res.Artifacts)))
}

// ChainView is a chain as the API shows it.
type ChainView struct {
	// ID is the chain's id (also its session id).
	ID string `json:"id"`
	// Tenant is the tenant it runs for.
	Tenant string `json:"tenant"`
	// Status is running (waiting_approval while a call waits for a
	// decision), then the chain's final status: ok, error, timeout,
	// cancelled or limit_exceeded.
	Status string `json:"status"`
	// Language is javascript, typescript or wasm.
	Language string `json:"language"`
	// Created and Finished bracket the chain; Finished is absent while it
	// runs.
	Created  time.Time `json:"created"`
	Finished time.Time `json:"finished,omitzero"`
	// Result is the whole RunResult once the chain ended.
	Result *chain.RunResult `json:"result,omitempty"`
	// Pending are the approvals a parked chain waits for (their arguments
	// are in GET /v1/approvals/{id}), and Expires when they expire.
	Pending []durable.Approval `json:"pending,omitempty"`
	Expires time.Time          `json:"expires,omitzero"`
	// Open, for a chain another process of the fleet runs, are its calls
	// in progress as its last record says.
	Open []durable.OpenCall `json:"open,omitempty"`
}

func (r *run) view() ChainView {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := ChainView{ID: r.id, Tenant: r.tenant, Status: string(chain.StatusRunning), Language: r.lang, Created: r.created}
	if len(r.pending) > 0 {
		v.Status = string(chain.StatusWaitingApproval)
	}
	if r.result != nil {
		v.Status, v.Finished, v.Result = string(r.result.Status), r.finished, withArrays(r.result)
	}
	return v
}

// since returns the events after seq, the result if the chain ended, and a
// channel closed at the next change.
func (r *run) since(seq int) ([]event, *chain.RunResult, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []event
	for _, e := range r.events {
		if e.seq > seq {
			out = append(out, e)
		}
	}
	return out, r.result, r.changed
}
