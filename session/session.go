package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/toolbox"
)

// Status is the outcome of one call as recorded in the trace.
type Status string

const (
	// StatusOK means the tool ran and returned a result.
	StatusOK Status = "ok"
	// StatusError means the call failed (bad call, tool error, panic, cancellation).
	StatusError Status = "error"
	// StatusDenied means policy refused the call before it ran.
	StatusDenied Status = "denied"
	// StatusTimeout means the tool ran past its call timeout. It appears only in
	// trace records; the chain sees such a call as StatusError.
	StatusTimeout Status = "timeout"
	// StatusParked means the call waits for an approval decision to be
	// taken outside the call (Options.ParkApprovals): it has not ended and
	// has no trace record yet. It appears only in a Result; the record is
	// appended when the call is resumed.
	StatusParked Status = "parked"
)

// RecordStatuses returns every Status a trace Record may have: ok, error,
// denied and timeout (never parked, which a call has before it has a
// record). Every other package (the chain's events, the API's schema)
// takes its call statuses from here.
func RecordStatuses() []Status {
	return []Status{StatusOK, StatusError, StatusDenied, StatusTimeout}
}

// Record is one call in a session's trace. Argument and result values are not
// recorded, only sizes; Message is the text the chain saw for a failed call
// (at most 512 bytes), which for invalid_arguments and tool_error may quote
// part of what the tool was given or said.
type Record struct {
	// Seq numbers records from 1 in the order they were appended.
	Seq int `json:"seq"`
	// Tool is the name the chain called, registered or not.
	Tool string `json:"tool"`
	// Status is the call's outcome.
	Status Status `json:"status"`
	// Reason is the stable reason code; empty for StatusOK.
	Reason string `json:"reason,omitempty"`
	// Message explains a failure; empty for StatusOK.
	Message string `json:"message,omitempty"`
	// Start and End bracket the call, including any approval wait.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Duration is End-Start.
	Duration time.Duration `json:"duration_ns"`
	// ArgBytes is the size of the arguments as the chain sent them.
	ArgBytes int `json:"arg_bytes"`
	// ResultBytes is the size of the result before shaping (0 when none).
	ResultBytes int `json:"result_bytes"`
	// Refs are the artifact refs this call produced.
	Refs []string `json:"refs,omitempty"`

	// The governance of the call, empty for a call refused before it
	// (budget, registry, type or argument gates).

	// Risk is the risk the call was judged at: SAFE, HIGH or CRITICAL.
	Risk string `json:"risk,omitempty"`
	// Action is the call's action argument, for a tool with per-action
	// risks (at most 64 bytes).
	Action string `json:"action,omitempty"`
	// Gate is the gate the call met: allow, confirm, preview or deny.
	Gate string `json:"gate,omitempty"`
	// DecisionID is the policy decision id; Rule names the rule behind it.
	DecisionID string `json:"decision_id,omitempty"`
	Rule       string `json:"rule,omitempty"`
	// IdempotencyKey is the key of a write-class call when idempotency
	// records are on (the caller's, or derived from chain, number and
	// arguments).
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Deduped says the call's key already had an outcome: the recorded
	// result was returned and the tool did not run.
	Deduped bool `json:"deduped,omitempty"`
	// Truncated says strings of the inline result were cut to the tool's
	// MaxOutputChars.
	Truncated bool `json:"truncated,omitempty"`
	// Citations and Mutations are what the tool reported: the sources its
	// result drew on and what it changed (at most 16 and 32 entries).
	Citations []toolbox.Citation `json:"citations,omitempty"`
	Mutations []string           `json:"mutations,omitempty"`
}

// Pinner pins and unpins blobs on behalf of an owner. *blobstore.Store
// implements it.
type Pinner interface {
	Pin(ctx context.Context, tenant, ref, owner string) error
	Unpin(ctx context.Context, tenant, ref, owner string) error
}

// Options configure New. The zero value works.
type Options struct {
	// ID identifies the session and is the pin owner. Default: "s_" followed by
	// 32 random hex digits.
	ID string
	// Tenant scopes the blobs the session may read and create. Default "default".
	Tenant string
	// Pins is where Pin and Close pin and unpin. Nil: Pin returns ErrNoStore.
	Pins Pinner
	// Grants are refs the session may read besides those it creates.
	Grants []string
	// MaxTrace caps the records kept in the trace. Records past the cap are
	// counted by Dropped, not kept. Default DefaultMaxTrace.
	MaxTrace int
	// Tools, when non-nil, is the chain's allow-list: the only tools it may
	// call (Allows). Nil allows every tool of the invoker's toolbox.
	Tools []string
	// Governance is the chain's governance state: its profile and call
	// policy history. Nil: a fresh govern.Chain under the zero Profile.
	Governance *govern.Chain
	// ParkApprovals makes a call that needs approval park instead of
	// waiting for the invoker's ApprovalHandler: Invoke returns at once
	// with StatusParked and the request, and the decision comes later, in
	// this process or another, with the call's resumption (see package
	// invoker). Default false: calls wait.
	ParkApprovals bool
}

// Bounds of a session.
const (
	// DefaultMaxTrace is the default of Options.MaxTrace.
	DefaultMaxTrace = 10000
	// MaxIDLen is the longest session id, in bytes, Restore accepts: the
	// longest pin owner a blob store takes (blobstore.MaxOwnerLen).
	MaxIDLen = blobstore.MaxOwnerLen
)

// Session is the state of one chain: its call count, its trace and the blobs it
// pinned. The invoker that serves a chain keeps no state of its own.
//
// A Session is safe for concurrent use: a chain may have many calls in flight.
type Session struct {
	id, tenant string
	pins       Pinner
	maxTrace   int
	allowed    map[string]struct{} // nil: every tool
	view       *View
	gov        *govern.Chain
	park       bool

	mu       sync.Mutex
	calls    int
	trace    []Record
	seq      int
	dropped  int
	readable map[string]struct{}
	pinned   []string // still pinned
	closed   bool
	files    map[string]int
	artBytes int64 // artifact bytes charged by ChargeArtifacts
}

// New returns an open session.
func New(opts Options) *Session {
	s := &Session{id: opts.ID, tenant: opts.Tenant, pins: opts.Pins, maxTrace: opts.MaxTrace}
	if s.id == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		s.id = "s_" + hex.EncodeToString(b[:])
	}
	if s.tenant == "" {
		s.tenant = blobstore.DefaultTenant
	}
	if s.maxTrace <= 0 {
		s.maxTrace = DefaultMaxTrace
	}
	s.park = opts.ParkApprovals
	if opts.Tools != nil {
		s.allowed = make(map[string]struct{}, len(opts.Tools))
		for _, t := range opts.Tools {
			s.allowed[t] = struct{}{}
		}
	}
	s.view = &View{id: s.id, tenant: s.tenant}
	s.gov = opts.Governance
	if s.gov == nil {
		s.gov = govern.NewChain(nil)
	}
	s.Grant(opts.Grants...)
	return s
}

// Allows reports whether the chain may call tool: always, unless
// Options.Tools named an allow-list that lacks it.
func (s *Session) Allows(tool string) bool {
	if s.allowed == nil {
		return true
	}
	_, ok := s.allowed[tool]
	return ok
}

// ParksApprovals reports whether calls needing approval park instead of
// waiting (Options.ParkApprovals).
func (s *Session) ParksApprovals() bool { return s.park }

// Governance returns the chain's governance state; never nil.
func (s *Session) Governance() *govern.Chain { return s.gov }

// View returns the read-only face of s that tools see (toolbox.Caller): its
// id and tenant, nothing that changes the session.
func (s *Session) View() *View { return s.view }

// View is what a tool may learn about the chain that calls it.
type View struct{ id, tenant string }

// ID returns the session id.
func (v *View) ID() string { return v.id }

// Tenant returns the tenant the chain acts for.
func (v *View) Tenant() string { return v.tenant }

// ID returns the session id, which is also the pin owner.
func (s *Session) ID() string { return s.id }

// Tenant returns the tenant the session acts for.
func (s *Session) Tenant() string { return s.tenant }

// Calls returns how many calls passed the budget gate.
func (s *Session) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Acquire is the budget gate: if fewer than max calls were acquired it counts
// one more and returns true; otherwise it returns false and counts nothing.
func (s *Session) Acquire(max int) bool {
	_, ok := s.AcquireNumber(max)
	return ok
}

// AcquireNumber is Acquire that also returns the call's number: 1 for the
// first call acquired, and so on (0 when refused).
func (s *Session) AcquireNumber(max int) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls >= max {
		return 0, false
	}
	s.calls++
	return s.calls, true
}

// Append adds r to the trace, numbering it, and returns the stored record.
// Past Options.MaxTrace the record is counted by Dropped instead.
func (s *Session) Append(r Record) Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	r.Seq = s.seq
	if len(s.trace) >= s.maxTrace {
		s.dropped++
		return r
	}
	s.trace = append(s.trace, r)
	return r
}

// Trace returns a copy of the records so far, in the order they were appended.
func (s *Session) Trace() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.trace)
}

// Dropped returns how many records were not kept because the trace was full.
func (s *Session) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// ChargeArtifacts is the artifact quota gate: if the bytes charged so far
// plus n are at most max, it charges n more and returns true; otherwise it
// charges nothing and returns false. The invoker charges the bytes of every
// result and media file it is about to store for the chain. It returns
// the bytes charged before the call, for messages.
func (s *Session) ChargeArtifacts(n, max int64) (before int64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before = s.artBytes
	if n < 0 || n > max-s.artBytes {
		return before, false
	}
	s.artBytes += n
	return before, true
}

// RefundArtifacts gives back n bytes charged by ChargeArtifacts for blobs
// that were not stored after all.
func (s *Session) RefundArtifacts(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.artBytes = max(0, s.artBytes-n)
}

// ArtifactBytes returns the artifact bytes charged to the session: what it
// stored, in bytes.
func (s *Session) ArtifactBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.artBytes
}

// Pinner returns Options.Pins: where the session pins and unpins, nil
// without one.
func (s *Session) Pinner() Pinner { return s.pins }

// Grant lets the session read refs it did not create.
func (s *Session) Grant(refs ...string) {
	if len(refs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readable == nil {
		s.readable = make(map[string]struct{}, len(refs))
	}
	for _, r := range refs {
		s.readable[r] = struct{}{}
	}
}

// CanRead reports whether the session created or was granted ref.
func (s *Session) CanRead(ref string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.readable[ref]
	return ok
}

// Pin pins ref for this session in the store, makes it readable and remembers
// it so that Close unpins it. It returns ErrClosed after Close and
// ErrNoStore without a Pinner.
func (s *Session) Pin(ctx context.Context, ref string) error {
	if s.pins == nil {
		return ErrNoStore
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if err := s.pins.Pin(ctx, s.tenant, ref, s.id); err != nil {
		return fmt.Errorf("session: pinning %s: %w", ref, err)
	}
	s.mu.Lock()
	if s.closed {
		// Close ran while we pinned: release at once so nothing stays pinned.
		s.mu.Unlock()
		_ = s.pins.Unpin(context.WithoutCancel(ctx), s.tenant, ref, s.id)
		return ErrClosed
	}
	s.pinned = append(s.pinned, ref)
	if s.readable == nil {
		s.readable = make(map[string]struct{})
	}
	s.readable[ref] = struct{}{}
	s.mu.Unlock()
	return nil
}

// Pinned returns the refs the session holds pinned.
func (s *Session) Pinned() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pinned)
}

// Close unpins every ref the session pinned and marks it closed; later Pin
// calls fail. ctx bounds the unpin calls: pass a live context even when the
// chain itself was cancelled. Refs whose unpin failed stay listed by Pinned
// and a later Close retries them, so Close can be called until it returns nil.
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	refs := s.pinned
	s.pinned = nil
	s.mu.Unlock()
	var errs []error
	var failed []string
	for _, ref := range refs {
		if err := s.pins.Unpin(ctx, s.tenant, ref, s.id); err != nil {
			errs = append(errs, fmt.Errorf("session: unpinning %s: %w", ref, err))
			failed = append(failed, ref)
		}
	}
	if len(failed) > 0 {
		s.mu.Lock()
		s.pinned = append(s.pinned, failed...)
		s.mu.Unlock()
	}
	return errors.Join(errs...)
}

// Closed reports whether Close was called.
func (s *Session) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// NextFileIndex returns 0, 1, 2, … on successive calls for the same tool, for
// naming the media files a tool returns.
func (s *Session) NextFileIndex(tool string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = make(map[string]int)
	}
	n := s.files[tool]
	s.files[tool] = n + 1
	return n
}
