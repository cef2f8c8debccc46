package durable

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
)

// Statuses a Chain has besides chain.Status's final ones, and the reasons of
// an interrupted chain.
const (
	StatusRunning     = string(chain.StatusRunning)
	StatusParked      = string(chain.StatusParked)
	StatusInterrupted = string(chain.StatusInterrupted)
	// ReasonProcessLost is the Reason of an interrupted chain: the process
	// running it stopped renewing its lease.
	ReasonProcessLost = "process_lost"
	// ReasonCallInterrupted is the Reason of a call that had started when
	// its process was lost: it may or may not have taken effect, and it is
	// never run again (invoker.ReasonCallInterrupted).
	ReasonCallInterrupted = invoker.ReasonCallInterrupted
)

// Defaults of Options.
const (
	DefaultLease         = 15 * time.Second
	DefaultMaxStateBytes = 256 << 20
)

// ApprovalPrefix starts every parked call's approval id.
const ApprovalPrefix = "pk_"

// Errors.
var (
	// ErrNotFound: no such chain, park or approval for the tenant.
	ErrNotFound = errors.New("durable: not found")
	// ErrTampered: a parked state or its seal was changed, or sealed with
	// another key, or belongs to another chain or generation.
	ErrTampered = errors.New("durable: parked state refused: its seal does not match (edited, moved or sealed with another key)")
	// ErrIncompatible: a parked state of a format this build does not read.
	ErrIncompatible = errors.New("durable: parked state written by an incompatible version")
	// ErrHashMismatch: a decision taken on other arguments than the request's.
	ErrHashMismatch = errors.New("durable: the decision's args_hash is not the request's")
	// ErrAlreadyDecided: the request was decided before; the first decision
	// is returned with it.
	ErrAlreadyDecided = errors.New("durable: already decided")
	// ErrExpired: the request's chain stopped waiting for it.
	ErrExpired = errors.New("durable: the request expired")
	// ErrEnded: the chain has ended; its record no longer changes.
	ErrEnded = errors.New("durable: the chain has ended")
)

// Options configure New.
type Options struct {
	// Blobs is the shared store. Required.
	Blobs *blobstore.Store
	// Key seals parked states (HMAC-SHA256): at least 32 bytes, the same on
	// every process of the fleet. Required.
	Key []byte
	// Node names this process in chain records. Default: "n_" and 12
	// random hex digits.
	Node string
	// Lease is how long a running chain's record vouches for it. Default
	// DefaultLease.
	Lease time.Duration
	// MaxStateBytes caps a parked state LoadPark reads. Default
	// DefaultMaxStateBytes.
	MaxStateBytes int64
	// Clock is the time of records and expiries. Default time.Now.
	Clock func() time.Time
}

// Store is a fleet's shared state over a blobstore.Store. It is safe for
// concurrent use, and any number of Stores (processes) may share one
// blobstore.
type Store struct {
	bs       *blobstore.Store
	key      []byte
	node     string
	lease    time.Duration
	maxState int64
	now      func() time.Time
}

// New returns a Store.
func New(opts Options) (*Store, error) {
	if opts.Blobs == nil {
		return nil, errors.New("durable: Options.Blobs is required")
	}
	if len(opts.Key) < 32 {
		return nil, errors.New("durable: Options.Key must be at least 32 bytes (the fleet's key: fleet.key)")
	}
	if opts.Node == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		opts.Node = "n_" + hex.EncodeToString(b[:])
	}
	if opts.Lease < 0 || opts.MaxStateBytes < 0 {
		return nil, errors.New("durable: Options.Lease and MaxStateBytes must not be negative")
	}
	s := &Store{bs: opts.Blobs, key: append([]byte(nil), opts.Key...), node: opts.Node,
		lease: cmp.Or(opts.Lease, DefaultLease), maxState: cmp.Or(opts.MaxStateBytes, DefaultMaxStateBytes), now: opts.Clock}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// ErrNoConditionalWrites is returned by CheckStore for a store whose
// create-only writes do not refuse an existing object: every claim and
// decision would then "win", and an approved call could run once per
// process.
var ErrNoConditionalWrites = errors.New("durable: the store does not honour create-only writes (S3 If-None-Match); a fleet cannot run on it")

// CheckStore makes sure the store refuses a second create-only write of
// one record, which every at-most-once guarantee of the fleet rests on.
// Call it once when a process joins the fleet.
func (s *Store) CheckStore(ctx context.Context) error {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "probe/" + hex.EncodeToString(b[:])
	defer func() { _ = s.bs.DeleteRecord(context.WithoutCancel(ctx), blobstore.FleetTenant, name) }()
	if err := s.bs.PutRecord(ctx, blobstore.FleetTenant, name, []byte("1"), true); err != nil {
		return fmt.Errorf("durable: probing the store: %w", err)
	}
	switch err := s.bs.PutRecord(ctx, blobstore.FleetTenant, name, []byte("2"), true); {
	case errors.Is(err, blobstore.ErrExist):
		return nil
	case err == nil:
		return ErrNoConditionalWrites
	default:
		return fmt.Errorf("durable: probing the store: %w", err)
	}
}

// Node returns this process's name in chain records.
func (s *Store) Node() string { return s.node }

// Lease returns how long a running chain's record vouches for it.
func (s *Store) Lease() time.Duration { return s.lease }

// Chain is a chain's record.
type Chain struct {
	ID       string `json:"id"`
	Tenant   string `json:"tenant"`
	Language string `json:"language"`
	// Status is running, parked, or a final status (chain.Status's, or
	// interrupted).
	Status string `json:"status"`
	// Node is the process running it, or the one that last wrote it.
	Node string `json:"node"`
	// Lease, while running: until when Node vouches for it.
	Lease   time.Time `json:"lease,omitzero"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Finished is set once it ended.
	Finished time.Time `json:"finished,omitzero"`
	// Gen is the number of times it parked.
	Gen int `json:"gen"`
	// Expires, while parked: when its approvals expire.
	Expires time.Time `json:"expires,omitzero"`
	// Wake, while parked: when its script's earliest timer falls due, the
	// time to resume it decided or not (zero: none).
	Wake time.Time `json:"wake,omitzero"`
	// Pending, while parked: the approvals it waits for, without their
	// arguments.
	Pending []Approval `json:"pending,omitempty"`
	// Open, while running: the calls that started and have not ended.
	Open []OpenCall `json:"open,omitempty"`
	// Trace is the trace so far (the newest records that fit the record);
	// TraceDropped counts the older ones left out.
	Trace        []session.Record `json:"trace,omitempty"`
	TraceDropped int              `json:"trace_dropped,omitempty"`
	// Result is the final result once it ended; while parked, what the
	// stretch that parked it produced (logs, files, artifacts, stats; the
	// trace is Trace). Whether the chain ended is its Status, not whether
	// Result is set. ResultRef names the blob
	// holding it when it is too large for the record (it expires with the
	// store's TTL, after which Result stays nil).
	Result    *chain.RunResult `json:"result,omitempty"`
	ResultRef string           `json:"result_ref,omitempty"`
}

// OpenCall is a call that started and had not ended.
type OpenCall struct {
	Seq   int       `json:"seq,omitempty"`
	Tool  string    `json:"tool"`
	Start time.Time `json:"start"`
}

// Live is a chain's entry in the fleet index.
type Live struct {
	Tenant  string    `json:"tenant"`
	ID      string    `json:"id"`
	Status  string    `json:"status"`
	Node    string    `json:"node"`
	Lease   time.Time `json:"lease,omitzero"`
	Gen     int       `json:"gen"`
	Expires time.Time `json:"expires,omitzero"`
	Wake    time.Time `json:"wake,omitzero"`
	// Decided, for a parked chain: one of its calls has been decided since
	// it parked, so a process may resume it.
	Decided bool `json:"decided,omitempty"`
}

// recordBudget is the most bytes a chain record takes; the trace is cut
// (oldest first) and the result moved to a blob to keep under it.
const recordBudget = 768 << 10

func chainName(id, leaf string) string  { return "chains/" + id + "/" + leaf }
func liveName(tenant, id string) string { return "live/" + tenant + "/" + id }
func validID(id string) bool {
	return id != "" && len(id) <= 128 && blobstore.ValidKey(id) && !strings.ContainsAny(id, "/.")
}

// notFound maps the store's not-found to ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, blobstore.ErrNotFound) {
		return fmt.Errorf("%w (%v)", ErrNotFound, err)
	}
	return err
}

// encode marshals c within recordBudget: the result goes to a blob, then
// the oldest trace records go, as needed.
func (s *Store) encode(ctx context.Context, c *Chain) ([]byte, error) {
	b, err := json.Marshal(c)
	if err != nil || len(b) <= recordBudget {
		return b, err
	}
	cp := *c
	if cp.Result != nil {
		res, err := json.Marshal(cp.Result)
		if err != nil {
			return nil, err
		}
		a, err := s.bs.Put(ctx, c.Tenant, bytes.NewReader(res), "application/json")
		if err != nil {
			return nil, fmt.Errorf("durable: storing a chain's result: %w", err)
		}
		cp.Result, cp.ResultRef = nil, a.Ref
	}
	for {
		if b, err = json.Marshal(&cp); err != nil || len(b) <= recordBudget {
			return b, err
		}
		if len(cp.Trace) == 0 {
			return nil, fmt.Errorf("durable: chain %s's record is %d bytes even without its trace", c.ID, len(b))
		}
		cut := max(len(cp.Trace)/4, 1)
		cp.Trace, cp.TraceDropped = cp.Trace[cut:], cp.TraceDropped+cut
	}
}

// PutChain writes a chain's record (running or parked) and its entry in
// the fleet index. It fails with ErrEnded once the chain has ended: a
// process that lost its lease cannot overwrite the outcome another one
// recorded.
func (s *Store) PutChain(ctx context.Context, c *Chain) error {
	if !validID(c.ID) {
		return fmt.Errorf("durable: invalid chain id %q", c.ID)
	}
	if _, _, err := s.bs.GetRecord(ctx, c.Tenant, chainName(c.ID, "end")); err == nil {
		return ErrEnded
	} else if !errors.Is(err, blobstore.ErrNotFound) {
		return err
	}
	c.Updated = s.now().UTC()
	b, err := s.encode(ctx, c)
	if err != nil {
		return err
	}
	if err := s.bs.PutRecord(ctx, c.Tenant, chainName(c.ID, "rec"), b, false); err != nil {
		return err
	}
	l, _ := json.Marshal(Live{Tenant: c.Tenant, ID: c.ID, Status: c.Status, Node: c.Node, Lease: c.Lease, Gen: c.Gen,
		Expires: c.Expires, Wake: c.Wake})
	return s.bs.PutRecord(ctx, blobstore.FleetTenant, liveName(c.Tenant, c.ID), l, false)
}

// GetChain reads a chain's record: its final one once it ended.
func (s *Store) GetChain(ctx context.Context, tenant, id string) (*Chain, error) {
	if !validID(id) {
		return nil, ErrNotFound
	}
	b, _, err := s.bs.GetRecord(ctx, tenant, chainName(id, "end"))
	if errors.Is(err, blobstore.ErrNotFound) {
		b, _, err = s.bs.GetRecord(ctx, tenant, chainName(id, "rec"))
	}
	if err != nil {
		return nil, notFound(err)
	}
	var c Chain
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("durable: chain %s's record: %w", id, err)
	}
	if c.ID != id || c.Tenant != tenant {
		return nil, fmt.Errorf("durable: chain %s's record names another chain", id)
	}
	if c.Result == nil && c.ResultRef != "" {
		c.Result = s.readResult(ctx, tenant, c.ResultRef)
	}
	return &c, nil
}

// maxResultBytes bounds a chain result read back from its blob.
const maxResultBytes = 64 << 20

func (s *Store) readResult(ctx context.Context, tenant, ref string) *chain.RunResult {
	rc, _, err := s.bs.Open(ctx, tenant, ref)
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxResultBytes))
	if err != nil {
		return nil
	}
	var r chain.RunResult
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	return &r
}

// ListChains calls fn with each of the tenant's chains.
func (s *Store) ListChains(ctx context.Context, tenant string, fn func(*Chain) error) error {
	var ids []string
	if err := s.bs.ListRecords(ctx, tenant, "chains/", func(name string, _ time.Time) error {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(name, "chains/"), "/rec"); ok && !strings.Contains(id, "/") {
			ids = append(ids, id)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids {
		c, err := s.GetChain(ctx, tenant, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

// Finish records a chain's end: its final record, written create-only, so
// that of the processes that may end a chain (the one finishing it, one
// that found its lease lapsed, one cancelling or expiring it) exactly one
// wins. The loser's record is not written and won is false.
func (s *Store) Finish(ctx context.Context, c *Chain) (won bool, err error) {
	if !validID(c.ID) {
		return false, fmt.Errorf("durable: invalid chain id %q", c.ID)
	}
	now := s.now().UTC()
	c.Updated, c.Lease, c.Open = now, time.Time{}, nil
	if c.Finished.IsZero() {
		c.Finished = now
	}
	b, err := s.encode(ctx, c)
	if err != nil {
		return false, err
	}
	switch err := s.bs.PutRecord(ctx, c.Tenant, chainName(c.ID, "end"), b, true); {
	case errors.Is(err, blobstore.ErrExist):
		return false, nil
	case err != nil:
		return false, err
	}
	// The running record and the index entry follow; a failure here only
	// leaves them stale (GetChain reads the end first; Scan's readers
	// find the chain ended and Forget it).
	_ = s.bs.PutRecord(ctx, c.Tenant, chainName(c.ID, "rec"), b, false)
	_ = s.Forget(ctx, c.Tenant, c.ID)
	return true, nil
}

// markDecided notes in the fleet index that a parked chain has a decision,
// so the processes scanning it resume the chain without reading every
// request of every parked chain.
func (s *Store) markDecided(ctx context.Context, tenant, id string) error {
	b, _, err := s.bs.GetRecord(ctx, blobstore.FleetTenant, liveName(tenant, id))
	if err != nil {
		return notFound(err)
	}
	var l Live
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	if l.Status != StatusParked || l.Decided {
		return nil
	}
	l.Decided = true
	b, _ = json.Marshal(l)
	return s.bs.PutRecord(ctx, blobstore.FleetTenant, liveName(tenant, id), b, false)
}

// Forget drops a chain from the fleet index.
func (s *Store) Forget(ctx context.Context, tenant, id string) error {
	return s.bs.DeleteRecord(ctx, blobstore.FleetTenant, liveName(tenant, id))
}

// Interrupt ends a running chain whose process was lost (its record's
// lease lapsed by a whole lease, on this process's clock): status
// interrupted, reason process_lost, its trace so far and each call that had
// started appended as error call_interrupted. It reports false when the chain
// is not running (it ended, or parked, meanwhile), its lease was renewed, or
// another process ended it first.
func (s *Store) Interrupt(ctx context.Context, tenant, id string) (bool, error) {
	c, err := s.GetChain(ctx, tenant, id)
	if err != nil {
		return false, err
	}
	now := s.now().UTC()
	if c.Status != StatusRunning {
		if !c.Finished.IsZero() {
			_ = s.Forget(ctx, tenant, id)
		}
		return false, nil
	}
	if now.Before(c.Lease.Add(s.lease)) {
		return false, nil // renewed since the index was read
	}
	return s.interrupt(ctx, c)
}

func (s *Store) interrupt(ctx context.Context, c *Chain) (bool, error) {
	id, now := c.ID, s.now().UTC()
	trace := append([]session.Record(nil), c.Trace...)
	next := c.TraceDropped + len(trace)
	for _, o := range c.Open {
		next++
		trace = append(trace, session.Record{Seq: next, Tool: o.Tool, Status: session.StatusError, Reason: ReasonCallInterrupted,
			Message: "the process running the chain stopped during this call; its effects are unknown and it was not run again",
			Start:   o.Start, End: now, Duration: now.Sub(o.Start)})
	}
	c.Status, c.Trace = StatusInterrupted, trace
	c.Result = &chain.RunResult{ID: id, Status: chain.Status(StatusInterrupted), Reason: ReasonProcessLost,
		Error: fmt.Sprintf("the airlock process running the chain (%s) stopped renewing its lease; the chain was interrupted", c.Node),
		Logs:  nil, Trace: trace, TraceDropped: c.TraceDropped}
	c.Result.Stats.Calls = len(trace) + c.TraceDropped
	c.Node = s.node
	won, err := s.Finish(ctx, c)
	if won {
		s.Release(ctx, c)
	}
	return won, err
}

// Release lets go of what an ended chain held that its process did not
// release: the state it was resumed from (generation Gen), one it may have
// parked after this record was read (Gen+1, never to be claimed), and the
// pins of the artifacts its calls stored (their refs are in the trace; the
// session's pin owner is the chain id). They then expire with the store's
// TTL. Failures are ignored: the sweeper keeps unpinned blobs bounded.
func (s *Store) Release(ctx context.Context, c *Chain) {
	for _, gen := range []int{c.Gen, c.Gen + 1} {
		if gen > 0 {
			_ = s.ReleasePark(ctx, c.Tenant, c.ID, gen)
		}
	}
	s.unpinTrace(ctx, c)
}

// maxUnpins bounds the refs an interrupted chain's pins are released for.
const maxUnpins = 10000

// unpinTrace releases the pins the lost process held for the chain: the
// artifacts its calls stored (their refs are in the trace; the session's
// pin owner is the chain id). They then expire with the store's TTL.
func (s *Store) unpinTrace(ctx context.Context, c *Chain) {
	n := 0
	for _, rec := range c.Trace {
		for _, ref := range rec.Refs {
			if n++; n > maxUnpins {
				return
			}
			_ = s.bs.Unpin(ctx, c.Tenant, ref, c.ID)
		}
	}
}

// Scan calls fn with every entry of the fleet index: the chains running or
// parked, across tenants.
func (s *Store) Scan(ctx context.Context, fn func(Live) error) error {
	var names []string
	if err := s.bs.ListRecords(ctx, blobstore.FleetTenant, "live/", func(name string, _ time.Time) error {
		names = append(names, name)
		return nil
	}); err != nil {
		return err
	}
	for _, n := range names {
		b, _, err := s.bs.GetRecord(ctx, blobstore.FleetTenant, n)
		if errors.Is(err, blobstore.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		var l Live
		if json.Unmarshal(b, &l) != nil || liveName(l.Tenant, l.ID) != n {
			continue
		}
		if err := fn(l); err != nil {
			return err
		}
	}
	return nil
}

// Claim records, create-only, that this process continues generation gen
// of a parked chain (kind: resume, expire or cancel). Exactly one claimant
// wins.
func (s *Store) Claim(ctx context.Context, tenant, id string, gen int, kind string) (bool, error) {
	if !validID(id) {
		return false, ErrNotFound
	}
	b, _ := json.Marshal(map[string]any{"kind": kind, "node": s.node, "at": s.now().UTC()})
	switch err := s.bs.PutRecord(ctx, tenant, chainName(id, "claim/"+strconv.Itoa(gen)), b, true); {
	case errors.Is(err, blobstore.ErrExist):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// StaleClaim reports whether generation gen of a chain was claimed more
// than two leases ago while the chain is still parked on it: the process
// that claimed it died before it recorded the chain running again.
func (s *Store) StaleClaim(ctx context.Context, tenant, id string, gen int) (bool, error) {
	b, _, err := s.bs.GetRecord(ctx, tenant, chainName(id, "claim/"+strconv.Itoa(gen)))
	if err != nil {
		return false, notFound(err)
	}
	var cl struct {
		At time.Time `json:"at"`
	}
	if err := json.Unmarshal(b, &cl); err != nil {
		return false, err
	}
	c, err := s.GetChain(ctx, tenant, id)
	if err != nil {
		return false, err
	}
	return c.Status == StatusParked && c.Gen == gen && s.now().After(cl.At.Add(2*s.lease)), nil
}

// Abandon ends a parked chain whose claimed generation was never continued
// (StaleClaim): status interrupted, reason process_lost, each call it waited
// for appended as call_interrupted, since the claimant may have started it.
func (s *Store) Abandon(ctx context.Context, tenant, id string) (bool, error) {
	c, err := s.GetChain(ctx, tenant, id)
	if err != nil || c.Status != StatusParked {
		return false, err
	}
	c.Status, c.Open = StatusRunning, nil
	for _, a := range c.Pending {
		c.Open = append(c.Open, OpenCall{Seq: a.Seq, Tool: a.Tool, Start: a.Created})
	}
	c.Pending = nil
	return s.interrupt(ctx, c)
}

// ApprovalID returns the id of the approval request of call seq of chain
// chainID: the same call always gets the same id.
func ApprovalID(chainID string, seq int) string {
	sum := sha256.Sum256([]byte(chainID + "\x00" + strconv.Itoa(seq)))
	return ApprovalPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:]))[:26]
}

// mac seals b with the fleet's key.
func (s *Store) mac(b []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(b)
	return m.Sum(nil)
}
