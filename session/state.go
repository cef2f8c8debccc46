package session

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/govern"
)

// State is a session's state in a form that survives the process: a parked
// chain carries it to the process that resumes it (Restore). It is
// JSON-encodable, and every field is bounded by what a Session can hold.
// What is not data (the Pinner, MaxTrace, the governance profile) is not
// in it: the restoring process supplies it in Options.
type State struct {
	// ID is the session id, also the pin owner of Pinned.
	ID string `json:"id"`
	// Tenant is the tenant the session acts for.
	Tenant string `json:"tenant"`
	// Tools is the allow-list (Options.Tools): nil allows every tool, an
	// empty list none. The JSON form keeps the difference (null vs []).
	Tools []string `json:"tools"`
	// ParkApprovals is Options.ParkApprovals.
	ParkApprovals bool `json:"park_approvals,omitempty"`
	// Calls is how many calls passed the budget gate (Calls).
	Calls int `json:"calls"`
	// Seq is the number of the last trace record appended, kept or
	// dropped: len(Trace) + Dropped.
	Seq int `json:"seq"`
	// Dropped counts the records not kept because the trace was full.
	Dropped int `json:"dropped,omitempty"`
	// Trace holds the records kept, numbered 1, 2, … in order.
	Trace []Record `json:"trace,omitempty"`
	// Readable lists the refs the session may read (granted or created),
	// sorted.
	Readable []string `json:"readable,omitempty"`
	// Pinned lists the refs the session holds pinned, in pin order; each is
	// also in Readable.
	Pinned []string `json:"pinned,omitempty"`
	// Files is NextFileIndex's next index per tool.
	Files map[string]int `json:"files,omitempty"`
	// ArtifactBytes is what ChargeArtifacts charged, in bytes.
	ArtifactBytes int64 `json:"artifact_bytes,omitempty"`
	// Governance is the chain's call-policy history.
	Governance govern.HistoryState `json:"governance"`
}

// State returns a consistent copy of the session's state, taken under its
// lock (the governance history under its own). Take it when no call is in
// flight past the budget gate, as when a chain parks; a call still running
// would be counted without its record.
func (s *Session) State() State {
	st := State{ID: s.id, Tenant: s.tenant, ParkApprovals: s.park, Governance: s.gov.History().State()}
	if s.allowed != nil {
		st.Tools = slices.AppendSeq(make([]string, 0, len(s.allowed)), maps.Keys(s.allowed))
		slices.Sort(st.Tools)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Calls, st.Seq, st.Dropped = s.calls, s.seq, s.dropped
	st.Trace = cloneTrace(s.trace)
	if len(s.readable) > 0 {
		st.Readable = slices.Sorted(maps.Keys(s.readable))
	}
	st.Pinned = slices.Clone(s.pinned)
	st.Files = maps.Clone(s.files)
	st.ArtifactBytes = s.artBytes
	return st
}

// cloneTrace copies records deeply enough that the copy shares no slice
// with the session.
func cloneTrace(trace []Record) []Record {
	if len(trace) == 0 {
		return nil
	}
	out := slices.Clone(trace)
	for i := range out {
		out[i].Refs = slices.Clone(out[i].Refs)
		out[i].Citations = slices.Clone(out[i].Citations)
		out[i].Mutations = slices.Clone(out[i].Mutations)
	}
	return out
}

// Restore returns an open session continuing from st. opts supplies what
// st does not hold: Pins (where Close unpins st.Pinned; the pins are
// still held in the shared store), MaxTrace, and Governance, whose
// profile the caller resolves again (by name) and whose history st
// replaces; nil means a fresh govern.Chain under the zero Profile.
// opts.ID, Tenant, Grants, Tools and ParkApprovals are ignored: st holds
// them.
//
// Restore treats st as untrusted even when the caller verified it: it
// fails with an error wrapping ErrInvalidState, naming the first fault,
// when st could not have come from State (see State.Validate), and never
// panics.
func Restore(st State, opts Options) (*Session, error) {
	maxTrace := opts.MaxTrace
	if maxTrace <= 0 {
		maxTrace = DefaultMaxTrace
	}
	if err := st.validate(maxTrace); err != nil {
		return nil, err
	}
	gov := opts.Governance
	if gov == nil {
		gov = govern.NewChain(nil)
	}
	if err := gov.RestoreHistory(st.Governance); err != nil {
		return nil, fmt.Errorf("%w: governance: %w", ErrInvalidState, err)
	}
	s := New(Options{ID: st.ID, Tenant: st.Tenant, Pins: opts.Pins, MaxTrace: maxTrace,
		Tools: st.Tools, Governance: gov, ParkApprovals: st.ParkApprovals})
	if st.Dropped > 0 {
		// The trace was full: it stays full, so that records stay numbered
		// 1, 2, … in order whatever this process's MaxTrace.
		s.maxTrace = len(st.Trace)
	}
	s.calls, s.seq, s.dropped = st.Calls, st.Seq, st.Dropped
	s.trace = cloneTrace(st.Trace)
	if len(st.Readable) > 0 {
		s.readable = make(map[string]struct{}, len(st.Readable))
		for _, r := range st.Readable {
			s.readable[r] = struct{}{}
		}
	}
	s.pinned = slices.Clone(st.Pinned)
	s.files = maps.Clone(st.Files)
	s.artBytes = st.ArtifactBytes
	return s, nil
}

// Validate reports whether st could have come from State of a session
// whose MaxTrace is maxTrace (0: DefaultMaxTrace). The error wraps
// ErrInvalidState and names the first fault.
func (st State) Validate(maxTrace int) error {
	if maxTrace <= 0 {
		maxTrace = DefaultMaxTrace
	}
	if err := st.validate(maxTrace); err != nil {
		return err
	}
	if err := st.Governance.Validate(); err != nil {
		return fmt.Errorf("%w: governance: %w", ErrInvalidState, err)
	}
	return nil
}

func (st State) validate(maxTrace int) error {
	for _, check := range []func() error{st.checkIdentity, st.checkCounts, func() error { return st.checkTrace(maxTrace) }, st.checkRefs, st.checkFiles} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidState}, args...)...)
}

func (st State) checkIdentity() error {
	if st.ID == "" || len(st.ID) > MaxIDLen || !utf8.ValidString(st.ID) {
		return invalid("id must be 1 to %d bytes of UTF-8, got %d bytes", MaxIDLen, len(st.ID))
	}
	if !blobstore.ValidTenant(st.Tenant) {
		return invalid("tenant %.70q is not a tenant id (1 to %d of a-z, 0-9, '_', '-')", st.Tenant, blobstore.MaxTenantLen)
	}
	for _, t := range st.Tools {
		if t == "" {
			return invalid("the allow-list holds an empty tool name")
		}
	}
	return nil
}

func (st State) checkCounts() error {
	if st.Calls < 0 || st.Seq < 0 || st.Dropped < 0 || st.ArtifactBytes < 0 {
		return invalid("counts must not be negative (calls %d, seq %d, dropped %d, artifact bytes %d)",
			st.Calls, st.Seq, st.Dropped, st.ArtifactBytes)
	}
	if st.Seq != len(st.Trace)+st.Dropped {
		return invalid("seq %d must equal the records kept (%d) plus those dropped (%d)", st.Seq, len(st.Trace), st.Dropped)
	}
	return nil
}

func (st State) checkTrace(maxTrace int) error {
	if len(st.Trace) > maxTrace {
		return invalid("the trace holds %d records; this session keeps at most %d (MaxTrace)", len(st.Trace), maxTrace)
	}
	if st.Dropped > 0 && len(st.Trace) == 0 {
		return invalid("%d records were dropped from an empty trace; a trace drops records only when full", st.Dropped)
	}
	for i, r := range st.Trace {
		if r.Seq != i+1 {
			return invalid("trace record %d is numbered %d; records are numbered 1, 2, … in order", i, r.Seq)
		}
		switch r.Status {
		case StatusOK, StatusError, StatusDenied, StatusTimeout:
		default:
			return invalid("trace record %d has status %.32q; a record is ok, error, denied or timeout", r.Seq, r.Status)
		}
	}
	return nil
}

func (st State) checkRefs() error {
	if !sort.StringsAreSorted(st.Readable) {
		return invalid("the readable refs must be sorted")
	}
	for i, r := range st.Readable {
		if !blobstore.ValidRef(st.Tenant, r) {
			return invalid("readable ref %.64q is not a ref of tenant %q", r, st.Tenant)
		}
		if i > 0 && st.Readable[i-1] == r {
			return invalid("readable ref %q is listed twice", r)
		}
	}
	for _, r := range st.Pinned {
		if _, ok := slices.BinarySearch(st.Readable, r); !ok {
			return invalid("pinned ref %.64q is not among the readable refs", r)
		}
	}
	return nil
}

func (st State) checkFiles() error {
	for tool, n := range st.Files {
		if tool == "" || n < 0 {
			return invalid("file index %d of tool %.64q: tool names must be non-empty and indexes not negative", n, tool)
		}
	}
	return nil
}
