package approval

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// Defaults of Options.
const (
	DefaultMaxPending          = 1024
	DefaultMaxPendingPerTenant = 256
	DefaultRemember            = 4096
)

// Options configure NewQueue. The zero value works.
type Options struct {
	// MaxPending caps the requests waiting at once, across tenants; Approve
	// fails with ErrQueueFull beyond it. Default 1024.
	MaxPending int
	// MaxPendingPerTenant caps the requests of one tenant waiting at once,
	// so one tenant cannot fill the queue and starve the others; Approve
	// fails with ErrQueueFull beyond it, for that tenant only. Default 256
	// (MaxPending when that is smaller).
	MaxPendingPerTenant int
	// Remember is how many decided or expired requests are remembered, so a
	// late decision is answered with ErrAlreadyDecided or ErrExpired instead
	// of ErrNotFound. The oldest are forgotten first. A remembered request
	// keeps its ArgsHash and ArgsSize but not its Args. Default 4096.
	Remember int
	// Clock returns the current time, for Created and decision times.
	// Default time.Now.
	Clock func() time.Time
}

// Request is one call waiting for a decision, as a human or an API client
// sees it.
type Request struct {
	// ID identifies the request: 26 random base32 characters.
	ID string `json:"id"`
	// Tenant owns the request; only a Decide for that tenant reaches it.
	Tenant string `json:"tenant"`
	// SessionID is the session (chain) the call belongs to.
	SessionID string `json:"session_id"`
	// Tool and Risk are the tool called and its risk level.
	Tool string       `json:"tool"`
	Risk toolbox.Risk `json:"risk"`
	// Args are the canonical arguments: exactly the bytes that run if the
	// request is approved. Do not modify them. Set while the request is
	// pending, and in the Outcome of the Decide call that decides it; nil
	// once it is settled (a remembered Outcome, an Expired event).
	Args json.RawMessage `json:"args,omitempty"`
	// ArgsHash is the hex SHA-256 of Args. A decision must carry it.
	ArgsHash string `json:"args_hash"`
	// ArgsSize is the length of Args in bytes, kept when Args is dropped.
	ArgsSize int `json:"args_size"`
	// Created is when the request was queued.
	Created time.Time `json:"created"`
	// Expires is when the wait ends without a decision (the approval
	// timeout); zero when the wait has no deadline.
	Expires time.Time `json:"expires,omitzero"`
}

// Outcome is the result of a decision.
type Outcome struct {
	// Request is the request decided.
	Request Request `json:"request"`
	// Decision is what was decided: by this call, or, with
	// ErrAlreadyDecided, by the first one.
	Decision invoker.Decision `json:"-"`
	// Decided is when the decision was taken.
	Decided time.Time `json:"decided"`
}

// MarshalJSON encodes o with the decision as "approved" or "denied".
func (o Outcome) MarshalJSON() ([]byte, error) {
	type plain Outcome
	return json.Marshal(struct {
		plain
		Decision string `json:"decision"`
	}{plain(o), o.Decision.String()})
}

// EventKind says what happened to a request.
type EventKind int

const (
	// Pending: a request was queued and waits for a decision. A server emits
	// approval_required for it.
	Pending EventKind = iota
	// Decided: a request was approved or denied.
	Decided
	// Expired: a request's wait ended without a decision.
	Expired
)

// String returns "pending", "decided" or "expired".
func (k EventKind) String() string {
	switch k {
	case Pending:
		return "pending"
	case Decided:
		return "decided"
	case Expired:
		return "expired"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is delivered to subscribers when a request changes state.
type Event struct {
	Kind EventKind
	// Request is the request; its Args are set for Pending only.
	Request Request
	// Decision is set for Decided.
	Decision invoker.Decision
}

// Queue is an invoker.ApprovalHandler that parks each request until a
// decision arrives through Decide (from an HTTP API, a UI…) or the request's
// context ends. Requests are scoped to their tenant.
//
// A Queue is safe for concurrent use.
type Queue struct {
	maxPending, maxPerTenant, remember int
	clock                              func() time.Time

	mu         sync.Mutex
	pending    map[string]*waiter
	byTenant   map[string]int // pending requests per tenant
	done       map[string]settled
	doneOrder  []string // FIFO of done's keys, oldest first
	subs       []subscriber
	nextSub    int
	events     []Event // waiting to be delivered, in order
	delivering bool
}

type waiter struct {
	req Request
	ch  chan invoker.Decision // buffered 1; written once, under mu
}

type settled struct {
	out     Outcome
	expired bool
}

type subscriber struct {
	id int
	f  func(Event)
}

// NewQueue returns an empty queue.
func NewQueue(opts Options) *Queue {
	q := &Queue{
		maxPending:   cmp.Or(opts.MaxPending, DefaultMaxPending),
		maxPerTenant: cmp.Or(opts.MaxPendingPerTenant, DefaultMaxPendingPerTenant),
		remember:     cmp.Or(opts.Remember, DefaultRemember),
		clock:        opts.Clock,
		pending:      make(map[string]*waiter),
		byTenant:     make(map[string]int),
		done:         make(map[string]settled),
	}
	if q.clock == nil {
		q.clock = time.Now
	}
	return q
}

var _ invoker.ApprovalHandler = (*Queue)(nil)

// Approve implements invoker.ApprovalHandler: it queues the request, notifies
// subscribers (Pending) and blocks until Decide decides it or ctx ends. ctx
// bounds the wait; its deadline becomes Request.Expires. When ctx ends first
// the request is removed, subscribers see Expired, a later Decide gets
// ErrExpired, and Approve returns Denied with ctx's error.
func (q *Queue) Approve(ctx context.Context, r invoker.ApprovalRequest) (invoker.Decision, error) {
	if err := ctx.Err(); err != nil {
		return invoker.Denied, err
	}
	req := Request{
		ID: rand.Text(), Tenant: r.Tenant, SessionID: r.SessionID, Tool: r.Tool, Risk: r.Risk,
		Args: slices.Clone(r.Args), ArgsHash: strings.ToLower(r.ArgsHash), ArgsSize: len(r.Args), Created: q.clock(),
	}
	if dl, ok := ctx.Deadline(); ok {
		req.Expires = dl
	}
	w := &waiter{req: req, ch: make(chan invoker.Decision, 1)}
	q.mu.Lock()
	if len(q.pending) >= q.maxPending || q.byTenant[req.Tenant] >= q.maxPerTenant {
		q.mu.Unlock()
		return invoker.Denied, ErrQueueFull
	}
	q.addLocked(w)
	q.events = append(q.events, Event{Kind: Pending, Request: req.clone()})
	q.mu.Unlock()
	q.deliver()

	select {
	case d := <-w.ch:
		return d, nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	if _, ok := q.pending[req.ID]; !ok {
		// Decide won the race; its decision is already in the channel.
		q.mu.Unlock()
		return <-w.ch, nil
	}
	q.removeLocked(w)
	req.Args = nil
	q.settleLocked(settled{out: Outcome{Request: req, Decided: q.clock()}, expired: true})
	q.events = append(q.events, Event{Kind: Expired, Request: req})
	q.mu.Unlock()
	q.deliver()
	return invoker.Denied, ctx.Err()
}

// Decide approves or denies the pending request id of tenant. argsHash must
// be the ArgsHash of the request as it was shown (case-insensitive): a
// decision for other arguments is refused with ErrArgsMismatch and the
// request stays pending.
//
// A request already decided gives ErrAlreadyDecided with the first decision
// in the Outcome (the new one changes nothing); one whose wait ended gives
// ErrExpired; an unknown id, or one of another tenant, gives ErrNotFound.
func (q *Queue) Decide(tenant, id string, d invoker.Decision, argsHash string) (Outcome, error) {
	if d != invoker.Approved && d != invoker.Denied {
		return Outcome{}, fmt.Errorf("approval: unknown decision %d: use invoker.Approved or invoker.Denied", int(d))
	}
	q.mu.Lock()
	if w, ok := q.pending[id]; ok && w.req.Tenant == tenant {
		if subtle.ConstantTimeCompare([]byte(strings.ToLower(argsHash)), []byte(w.req.ArgsHash)) != 1 {
			q.mu.Unlock()
			return Outcome{Request: w.req.clone()}, ErrArgsMismatch
		}
		q.removeLocked(w)
		out := Outcome{Request: w.req, Decision: d, Decided: q.clock()}
		w.ch <- d
		kept := out
		kept.Request.Args = nil
		q.settleLocked(settled{out: kept})
		q.events = append(q.events, Event{Kind: Decided, Request: kept.Request, Decision: d})
		q.mu.Unlock()
		q.deliver()
		out.Request = out.Request.clone()
		return out, nil
	}
	s, ok := q.done[id]
	q.mu.Unlock()
	switch {
	case !ok || s.out.Request.Tenant != tenant:
		return Outcome{}, ErrNotFound
	case s.expired:
		return Outcome{Request: s.out.Request, Decided: s.out.Decided}, ErrExpired
	}
	return s.out, ErrAlreadyDecided
}

// Get returns the pending request id of tenant, or ErrNotFound (also for
// another tenant's request and for one already decided or expired).
func (q *Queue) Get(tenant, id string) (Request, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	w, ok := q.pending[id]
	if !ok || w.req.Tenant != tenant {
		return Request{}, ErrNotFound
	}
	return w.req.clone(), nil
}

// List returns the pending requests of tenant, oldest first.
func (q *Queue) List(tenant string) []Request {
	q.mu.Lock()
	out := make([]Request, 0, len(q.pending))
	for _, w := range q.pending {
		if w.req.Tenant == tenant {
			out = append(out, w.req.clone())
		}
	}
	q.mu.Unlock()
	slices.SortFunc(out, func(a, b Request) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// Len returns how many requests are pending, across tenants.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

// Subscribe registers f to be called for every Event from now on, and
// returns a function that unregisters it. Events are delivered in the order
// they happened, one at a time, on the goroutine of an Approve or Decide
// call; f must be quick and may call any Queue method. A panic in f is
// contained. After unsubscribing, f may still receive the events that were
// already being delivered.
func (q *Queue) Subscribe(f func(Event)) (unsubscribe func()) {
	q.mu.Lock()
	id := q.nextSub
	q.nextSub++
	q.subs = append(q.subs, subscriber{id: id, f: f})
	q.mu.Unlock()
	return func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.subs = slices.DeleteFunc(q.subs, func(s subscriber) bool { return s.id == id })
	}
}

// deliver hands queued events to subscribers. One goroutine delivers at a
// time, so events arrive in order; an event queued by a subscriber itself
// (Decide from inside f) is delivered after the current one, not recursively.
func (q *Queue) deliver() {
	q.mu.Lock()
	if q.delivering {
		q.mu.Unlock()
		return
	}
	q.delivering = true
	for len(q.events) > 0 {
		evs := q.events
		q.events = nil
		subs := slices.Clone(q.subs)
		q.mu.Unlock()
		for _, ev := range evs {
			for _, s := range subs {
				notify(s.f, ev)
			}
		}
		q.mu.Lock()
	}
	q.delivering = false
	q.mu.Unlock()
}

func notify(f func(Event), ev Event) {
	defer func() { _ = recover() }()
	f(ev)
}

func (q *Queue) addLocked(w *waiter) {
	q.pending[w.req.ID] = w
	q.byTenant[w.req.Tenant]++
}

func (q *Queue) removeLocked(w *waiter) {
	delete(q.pending, w.req.ID)
	if q.byTenant[w.req.Tenant]--; q.byTenant[w.req.Tenant] <= 0 {
		delete(q.byTenant, w.req.Tenant)
	}
}

// settleLocked remembers a finished request, whose Args the caller has
// dropped, forgetting the oldest beyond q.remember.
func (q *Queue) settleLocked(s settled) {
	id := s.out.Request.ID
	q.done[id] = s
	q.doneOrder = append(q.doneOrder, id)
	if len(q.doneOrder) > q.remember {
		delete(q.done, q.doneOrder[0])
		q.doneOrder[0] = ""
		q.doneOrder = q.doneOrder[1:]
	}
}

func (r Request) clone() Request {
	r.Args = slices.Clone(r.Args)
	return r
}
