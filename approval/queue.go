package approval

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// Defaults of Options.
const (
	DefaultMaxPending          = 1024
	DefaultMaxPendingPerTenant = 256
	DefaultRemember            = 4096
	// DefaultPreviewBytes is the default of Options.PreviewBytes: 4 KiB.
	DefaultPreviewBytes = 4 << 10
	// DefaultMaxPendingBytes is the default of Options.MaxPendingBytes:
	// 4 MiB, room for about 900 requests with full default-size previews;
	// requests with small arguments meet MaxPending first.
	DefaultMaxPendingBytes = 4 << 20
)

// RequestOverhead is the fixed number of bytes each pending request is
// charged against Options.MaxPendingBytes on top of its arguments (or
// preview) and its identifiers: the request, its waiter and map entries.
const RequestOverhead = 256

// storeTimeout bounds unpinning a settled request's arguments, which runs
// after the request's own context may have ended.
const storeTimeout = 10 * time.Second

// Store keeps the arguments of requests larger than Options.PreviewBytes
// while they are pending, so the queue holds only a preview of them.
// *blobstore.Store implements it.
type Store interface {
	Put(ctx context.Context, tenant string, r io.Reader, contentType string) (blobstore.Attrs, error)
	Pin(ctx context.Context, tenant, ref, owner string) error
	Unpin(ctx context.Context, tenant, ref, owner string) error
}

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
	// PreviewBytes is the most argument bytes a pending request keeps in
	// memory. Arguments up to that size are kept whole (Request.Args);
	// larger ones are stored in Store, tenant-scoped and pinned while the
	// request is pending (Request.ArgsRef), and only their first
	// PreviewBytes bytes are kept (Request.ArgsPreview). Default 4096.
	PreviewBytes int
	// Store keeps the arguments of requests larger than PreviewBytes. Nil:
	// such requests are refused (Approve returns ErrArgsTooLarge and the
	// invoker denies the call with approval_failed).
	Store Store
	// MaxPendingBytes caps the bytes all pending requests hold in memory:
	// each is charged its Args or ArgsPreview, its identifiers and
	// RequestOverhead. Approve fails with ErrQueueFull beyond it. Default
	// 4 MiB.
	MaxPendingBytes int64
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
	// Args are the canonical arguments, exactly the bytes that run if the
	// request is approved, when they are at most Options.PreviewBytes long;
	// nil for larger ones (see ArgsRef). Do not modify them. Set while the
	// request is pending, and in the Outcome of the Decide call that
	// decides it; nil once it is settled (a remembered Outcome, an Expired
	// event).
	Args json.RawMessage `json:"args,omitempty"`
	// ArgsPreview is the start of arguments larger than
	// Options.PreviewBytes: their first PreviewBytes bytes at most, cut at
	// a character boundary (so not valid JSON). Empty when Args is set, and
	// once the request is settled.
	ArgsPreview string `json:"args_preview,omitempty"`
	// ArgsRef names the blob, in the request's tenant's store, that holds
	// arguments larger than Options.PreviewBytes whole (application/json;
	// its SHA-256 is ArgsHash). It is pinned while the request is pending
	// and unpinned when it is settled, after which it expires with the
	// store's TTL. Empty when Args is set, and once the request is settled.
	ArgsRef string `json:"args_ref,omitempty"`
	// ArgsHash is the hex SHA-256 of the canonical arguments. A decision
	// must carry it.
	ArgsHash string `json:"args_hash"`
	// ArgsSize is the length of the canonical arguments in bytes, kept when
	// they are dropped.
	ArgsSize int `json:"args_size"`
	// Created is when the request was queued.
	Created time.Time `json:"created"`
	// Expires is when the wait ends without a decision (the approval
	// timeout); zero when the wait has no deadline.
	Expires time.Time `json:"expires,omitzero"`
	// Line and Column are where in the chain's script the call was made
	// (invoker.ApprovalRequest.Line and Column): 1-based, Column in UTF-16
	// units; 0 (absent) when unknown, Column alone when only the line is
	// known.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// Text is the request's arguments as a person must see them to decide on
// them, as Escape renders them: the whole arguments when Args is set; for
// larger ones the rendered ArgsPreview followed by a note of how many bytes
// are not shown and that ArgsRef holds them all. Empty once the request is
// settled. Args, ArgsRef and ArgsHash stay the exact bytes that run.
func (r Request) Text() string {
	switch {
	case r.Args != nil:
		return Escape(string(r.Args))
	case r.ArgsPreview != "":
		return fmt.Sprintf("%s⟨%d more bytes not shown: the whole arguments are in args_ref %s⟩",
			Escape(r.ArgsPreview), r.ArgsSize-len(r.ArgsPreview), r.ArgsRef)
	}
	return ""
}

// MarshalJSON encodes r with args_text, its Text, beside the exact
// arguments.
func (r Request) MarshalJSON() ([]byte, error) {
	type plain Request
	return json.Marshal(struct {
		plain
		ArgsText string `json:"args_text,omitempty"`
	}{plain(r), r.Text()})
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
	previewBytes                       int
	maxBytes                           int64
	store                              Store
	clock                              func() time.Time

	mu         sync.Mutex
	pending    map[string]*waiter
	count      int            // requests admitted: pending, or being stored
	bytes      int64          // bytes charged by admitted requests
	byTenant   map[string]int // admitted requests per tenant
	done       map[string]settled
	doneOrder  []string // FIFO of done's keys, oldest first
	subs       []subscriber
	nextSub    int
	events     []Event // waiting to be delivered, in order
	delivering bool
}

type waiter struct {
	req    Request
	charge int64                 // bytes counted against maxBytes
	ch     chan invoker.Decision // buffered 1; written once, under mu
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
		previewBytes: cmp.Or(opts.PreviewBytes, DefaultPreviewBytes),
		maxBytes:     cmp.Or(opts.MaxPendingBytes, DefaultMaxPendingBytes),
		store:        opts.Store,
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
// bounds the wait and the storing of large arguments; its deadline becomes
// Request.Expires. When ctx ends first the request is removed, subscribers
// see Expired, a later Decide gets ErrExpired, and Approve returns Denied
// with ctx's error.
//
// Arguments larger than Options.PreviewBytes are put in Options.Store and
// pinned until the request is settled; without a store they are refused
// with ErrArgsTooLarge. A request beyond the queue's limits is refused with
// ErrQueueFull, before anything is stored.
func (q *Queue) Approve(ctx context.Context, r invoker.ApprovalRequest) (invoker.Decision, error) {
	if err := ctx.Err(); err != nil {
		return invoker.Denied, err
	}
	req := Request{
		ID: rand.Text(), Tenant: r.Tenant, SessionID: r.SessionID, Tool: r.Tool, Risk: r.Risk,
		ArgsHash: strings.ToLower(r.ArgsHash), ArgsSize: len(r.Args), Created: q.clock(),
		Line: r.Line, Column: r.Column,
	}
	large := len(r.Args) > q.previewBytes
	if large {
		if q.store == nil {
			return invoker.Denied, refused(fmt.Errorf("%w: they are %d bytes, more than the %d a preview shows, and no blob store is configured to keep them for review",
				ErrArgsTooLarge, len(r.Args), q.previewBytes))
		}
		req.ArgsPreview = previewOf(r.Args, q.previewBytes)
	} else {
		req.Args = slices.Clone(r.Args)
	}
	if dl, ok := ctx.Deadline(); ok {
		req.Expires = dl
	}
	w := &waiter{req: req, ch: make(chan invoker.Decision, 1)}
	w.charge = int64(len(req.Args)+len(req.ArgsPreview)+len(req.ID)+len(req.Tenant)+len(req.SessionID)+len(req.Tool)+len(req.ArgsHash)) + RequestOverhead
	if large {
		w.charge += int64(blobstore.RefLen)
	}
	if err := q.admit(w); err != nil {
		return invoker.Denied, err
	}
	if large {
		ref, err := q.keepArgs(ctx, req, r.Args)
		if err != nil {
			q.mu.Lock()
			q.releaseLocked(w)
			q.mu.Unlock()
			return invoker.Denied, err
		}
		w.req.ArgsRef = ref
		req.ArgsRef = ref
		defer q.dropArgs(ctx, req)
	}
	q.mu.Lock()
	q.pending[req.ID] = w
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
	req = req.settled()
	q.settleLocked(settled{out: Outcome{Request: req, Decided: q.clock()}, expired: true})
	q.events = append(q.events, Event{Kind: Expired, Request: req})
	q.mu.Unlock()
	q.deliver()
	return invoker.Denied, ctx.Err()
}

// admit counts w against the queue's limits, or says which one it exceeds.
func (q *Queue) admit(w *waiter) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.count >= q.maxPending:
		return refused(fmt.Errorf("%w: the queue holds as many requests as it may (MaxPending %d)", ErrQueueFull, q.maxPending))
	case q.byTenant[w.req.Tenant] >= q.maxPerTenant:
		return refused(fmt.Errorf("%w: this tenant has as many requests waiting as it may (MaxPendingPerTenant %d)", ErrQueueFull, q.maxPerTenant))
	case w.charge > q.maxBytes-q.bytes:
		return refused(fmt.Errorf("%w: the queue has no room for this request's %d bytes (MaxPendingBytes %d)", ErrQueueFull, w.charge, q.maxBytes))
	}
	q.count++
	q.bytes += w.charge
	q.byTenant[w.req.Tenant]++
	return nil
}

// refusal marks an error whose text the chain may read
// (invoker.ErrApprovalRefused).
type refusal struct{ err error }

func refused(err error) error     { return refusal{err} }
func (r refusal) Error() string   { return r.err.Error() }
func (r refusal) Unwrap() []error { return []error{r.err, invoker.ErrApprovalRefused} }

// owner is the pin owner of a request's stored arguments.
func owner(id string) string { return "approval_" + id }

// keepArgs stores and pins large arguments for review and returns the ref.
func (q *Queue) keepArgs(ctx context.Context, req Request, args []byte) (string, error) {
	attrs, err := q.store.Put(ctx, req.Tenant, bytes.NewReader(args), "application/json")
	if err != nil {
		return "", fmt.Errorf("approval: keeping the arguments for review failed: %w", err)
	}
	if err := q.store.Pin(ctx, req.Tenant, attrs.Ref, owner(req.ID)); err != nil {
		// Unpinned, the blob expires with the store's TTL.
		return "", fmt.Errorf("approval: keeping the arguments for review failed: %w", err)
	}
	return attrs.Ref, nil
}

// dropArgs unpins a settled request's stored arguments, even after ctx
// ended; a failure leaves them pinned, which the log cannot report here,
// so it is ignored: the store's sweeper keeps pinned blobs.
func (q *Queue) dropArgs(ctx context.Context, req Request) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	_ = q.store.Unpin(uctx, req.Tenant, req.ArgsRef, owner(req.ID))
}

// previewOf returns at most n bytes of the start of b, cut at a character
// boundary.
func previewOf(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut])
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
		kept.Request = kept.Request.settled()
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

// removeLocked takes a pending request out of the queue.
func (q *Queue) removeLocked(w *waiter) {
	delete(q.pending, w.req.ID)
	q.releaseLocked(w)
}

// releaseLocked gives back what admit counted for w.
func (q *Queue) releaseLocked(w *waiter) {
	q.count--
	q.bytes -= w.charge
	if q.byTenant[w.req.Tenant]--; q.byTenant[w.req.Tenant] <= 0 {
		delete(q.byTenant, w.req.Tenant)
	}
}

// Bytes returns the bytes the pending requests are charged against
// Options.MaxPendingBytes.
func (q *Queue) Bytes() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes
}

// settleLocked remembers a finished request, whose arguments the caller
// has dropped, forgetting the oldest beyond q.remember.
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

// settled returns r as it is remembered once settled: without its
// arguments, preview or ref.
func (r Request) settled() Request {
	r.Args, r.ArgsPreview, r.ArgsRef = nil, "", ""
	return r
}
