package durable

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/metrics"
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
	// DefaultParkTTL is how long a parked chain waits for its decisions
	// when Options.ParkTTL is zero (approval.park_ttl).
	DefaultParkTTL = 24 * time.Hour
)

// ResumeGrace is how long past its expiry a parked generation may still be
// continued (its expired calls ended, its decided ones run): a fleet that
// was down when it expired still ends it properly. Past it, LoadPark
// refuses it with ErrStale, so that once the records that kept it from
// running twice are no longer locked, nothing runs on it (Retention).
const ResumeGrace = 24 * time.Hour

// retentionSlack covers the clocks of processes and store disagreeing.
const retentionSlack = time.Hour

// ApprovalPrefix starts every parked call's approval id.
const ApprovalPrefix = "pk_"

// CallPrefix starts the id of every parked call of a caller tool waiting
// for its answer (an Approval of Kind KindCall).
const CallPrefix = "pc_"

// CredentialPrefix starts the id of every parked call waiting for a fresh
// delegated credential (an Approval of Kind KindCredential).
const CredentialPrefix = "pi_"

// Options configure New.
type Options struct {
	// Blobs is the shared store. Required.
	Blobs *blobstore.Store
	// Key authenticates every object the fleet writes (records, ends,
	// claims, approval requests, decisions, index entries; HMAC-SHA256
	// under keys derived from it) and seals and encrypts parked states: at
	// least 32 bytes, the same on every process of the fleet. Required.
	Key []byte
	// PreviousKeys are other keys whose objects are accepted, never
	// written: while the fleet rotates Key (docs/durability.md, "Rotating
	// the fleet key"). Each at least 32 bytes. Default none.
	PreviousKeys [][]byte
	// Logger receives a warning for each object of the bucket refused as
	// not authentic (rate-limited). Default: discarded.
	Logger *slog.Logger
	// Registerer receives airlock_fleet_refused_total{kind}, the objects
	// refused as not authentic. Nil: not registered.
	Registerer prometheus.Registerer
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
	// ParkTTL is the longest a parked generation of the fleet waits for
	// its decisions (approval.park_ttl; service.Options.ParkTTL must not
	// be longer). It sets how long the create-only records that decide
	// "at most once" stay locked (Retention). Default DefaultParkTTL.
	ParkTTL time.Duration
	// AllowUnlockedStore lets CheckStore accept a store that does not
	// lock versions (blobstore.Store.Locked false: fsblob, a bucket made
	// without object locking). On such a store anyone who can delete and
	// put back objects of the bucket can roll a chain back and make an
	// approved call run twice (docs/durability.md, "Rollback"). Default
	// false (fleet.allow_unlocked_store).
	AllowUnlockedStore bool
}

// Store is a fleet's shared state over a blobstore.Store. It is safe for
// concurrent use, and any number of Stores (processes) may share one
// blobstore.
type Store struct {
	bs       *blobstore.Store
	keys     []fleetKey // the current key first, then the previous ones
	refused  refusals
	node     string
	lease    time.Duration
	maxState int64
	parkTTL  time.Duration
	unlocked bool // Options.AllowUnlockedStore
	now      func() time.Time
	lapses   lapses
}

// lapses is what Interrupt remembers of the lapsed leases it saw, per
// chain (tenant/id): a chain is interrupted only when this process has
// seen the same lapsed lease twice, half a lease apart or more. A live
// process renews its lease every third of a lease, so a record a bucket
// writer put back from before (authentic, but with an old lease) is
// overwritten in between and cannot end a chain whose process lives.
type lapses struct {
	mu   sync.Mutex
	seen map[string]lapse
}

// lapse is a lapsed lease and when this process first saw it.
type lapse struct{ lease, at time.Time }

// maxLapses bounds the chains Interrupt remembers; past it, it starts
// over (a chain then waits one more pass).
const maxLapses = 100_000

// confirm reports whether lease, lapsed on key's record at now, was seen
// lapsed at least wait before; otherwise it remembers it.
func (l *lapses) confirm(key string, lease, now time.Time, wait time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, ok := l.seen[key]; ok && p.lease.Equal(lease) {
		if now.Sub(p.at) >= wait {
			delete(l.seen, key)
			return true
		}
		return false
	}
	if l.seen == nil || len(l.seen) >= maxLapses {
		l.seen = map[string]lapse{}
	}
	l.seen[key] = lapse{lease, now}
	return false
}

// New returns a Store.
func New(opts Options) (*Store, error) {
	if opts.Blobs == nil {
		return nil, fmt.Errorf("%w: Blobs is required", ErrInvalidOptions)
	}
	if len(opts.Key) < 32 {
		return nil, fmt.Errorf("%w: Key must be at least 32 bytes (the fleet's key: fleet.key)", ErrInvalidOptions)
	}
	for i, k := range opts.PreviousKeys {
		if len(k) < 32 {
			return nil, fmt.Errorf("%w: PreviousKeys[%d] must be at least 32 bytes (fleet.previous_key)", ErrInvalidOptions, i)
		}
	}
	if opts.Node == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		opts.Node = "n_" + hex.EncodeToString(b[:])
	}
	if opts.Lease < 0 || opts.MaxStateBytes < 0 || opts.ParkTTL < 0 {
		return nil, fmt.Errorf("%w: Lease, MaxStateBytes and ParkTTL must not be negative", ErrInvalidOptions)
	}
	s := &Store{bs: opts.Blobs, node: opts.Node,
		lease: cmp.Or(opts.Lease, DefaultLease), maxState: cmp.Or(opts.MaxStateBytes, DefaultMaxStateBytes),
		parkTTL: cmp.Or(opts.ParkTTL, DefaultParkTTL), unlocked: opts.AllowUnlockedStore, now: opts.Clock}
	for _, raw := range append([][]byte{opts.Key}, opts.PreviousKeys...) {
		k, err := newFleetKey(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: deriving the fleet's keys: %w", ErrInvalidOptions, err)
		}
		s.keys = append(s.keys, k)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.refused.log = opts.Logger
	if s.refused.log == nil {
		s.refused.log = slog.New(slog.DiscardHandler)
	}
	if opts.Registerer != nil {
		m, err := metrics.NewFleetRefusals(opts.Registerer, Kinds())
		if err != nil {
			return nil, fmt.Errorf("%w: registering the fleet's metrics: %w", ErrInvalidOptions, err)
		}
		s.refused.count = m.Refused
	}
	return s, nil
}

// CheckStore makes sure the store refuses a second create-only write of
// one record, which every at-most-once guarantee of the fleet rests on,
// and that it locks versions (blobstore.Store.Locked), which keeps those
// records from being taken back by a bucket writer, unless
// Options.AllowUnlockedStore (ErrUnlockedStore). Call it once when a
// process joins the fleet.
func (s *Store) CheckStore(ctx context.Context) error {
	if !s.bs.Locked() && !s.unlocked {
		return ErrUnlockedStore
	}
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

// Retention is how long each create-only record that decides "at most
// once" (a claim, an end, a decision) stays locked on a locking store,
// from its write: Options.ParkTTL + ResumeGrace + an hour of slack for
// clocks. A record written at t matters while a parked generation it
// guards can still be continued: that generation was parked before t and
// expires at most ParkTTL after it was parked, then is refused
// ResumeGrace later (ErrStale).
func (s *Store) Retention() time.Duration { return s.parkTTL + ResumeGrace + retentionSlack }

// ParkTTL returns Options.ParkTTL, or DefaultParkTTL.
func (s *Store) ParkTTL() time.Duration { return s.parkTTL }

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
	// ResultSHA256 is the hex SHA-256 of the blob ResultRef names: a blob
	// whose bytes differ is not read (the blob itself carries no MAC).
	ResultSHA256 string `json:"result_sha256,omitempty"`
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

// The bindings of each kind of record (auth.go).
func recBinding(tenant, id string) binding {
	return binding{kind: KindChain, tenant: tenant, object: id}
}
func endBinding(tenant, id string) binding { return binding{kind: KindEnd, tenant: tenant, object: id} }
func liveBinding(tenant, id string) binding {
	return binding{kind: KindIndex, tenant: tenant, object: id}
}
func claimBinding(tenant, id string, gen int) binding {
	return binding{kind: KindClaim, tenant: tenant, object: id, gen: gen}
}
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
		sum := sha256.Sum256(res)
		cp.Result, cp.ResultRef, cp.ResultSHA256 = nil, a.Ref, hex.EncodeToString(sum[:])
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
// recorded. The index entry is written first: the reaper finds chains
// through the index, so a record it does not list would be lost with its
// process; an entry ahead of its record is put right by Reconcile. Each
// write is tried again a few times when the store fails.
func (s *Store) PutChain(ctx context.Context, c *Chain) error {
	if !validID(c.ID) {
		return fmt.Errorf("durable: invalid chain id %q", c.ID)
	}
	if err := retry(ctx, func() error {
		_, err := s.readOnce(ctx, c.Tenant, chainName(c.ID, "end"), endBinding(c.Tenant, c.ID))
		switch {
		case err == nil:
			return ErrEnded
		case errors.Is(err, ErrNotFound):
			return nil
		}
		return err
	}); err != nil {
		return err
	}
	c.Updated = s.now().UTC()
	b, err := s.encode(ctx, c)
	if err != nil {
		return err
	}
	if err := s.putLive(ctx, liveOf(c)); err != nil {
		return err
	}
	rec := s.sign(recBinding(c.Tenant, c.ID), b)
	return retry(ctx, func() error { return s.bs.PutRecord(ctx, c.Tenant, chainName(c.ID, "rec"), rec, false) })
}

// liveOf is the index entry of a running or parked chain's record.
func liveOf(c *Chain) Live {
	return Live{Tenant: c.Tenant, ID: c.ID, Status: c.Status, Node: c.Node, Lease: c.Lease, Gen: c.Gen,
		Expires: c.Expires, Wake: c.Wake}
}

// putLive writes an index entry, trying again a few times when the store
// fails.
func (s *Store) putLive(ctx context.Context, l Live) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	rec := s.sign(liveBinding(l.Tenant, l.ID), b)
	return retry(ctx, func() error {
		return s.bs.PutRecord(ctx, blobstore.FleetTenant, liveName(l.Tenant, l.ID), rec, false)
	})
}

// Reconcile puts an index entry right by its chain's record, which wins
// when they disagree: the entry is rewritten from a running or parked
// record (a parked one's Decided set when one of its calls has a
// decision), and dropped when the chain ended, or when it has no record
// and the entry can vouch for nothing any more (a running entry whose
// lease lapsed a lease ago, a parked one past its expiry). It returns the
// entry as it now stands; ok is false when there is none. l is an entry
// Scan returned; the caller acts on the returned one (and Interrupt, which
// reads the record again, decides what a lapsed lease means).
func (s *Store) Reconcile(ctx context.Context, l Live) (_ Live, ok bool, err error) {
	c, err := s.GetChain(ctx, l.Tenant, l.ID)
	now := s.now()
	switch {
	case errors.Is(err, ErrNotFound):
		if l.Status == StatusRunning && now.After(l.Lease.Add(s.lease)) ||
			l.Status == StatusParked && !l.Expires.IsZero() && now.After(l.Expires) {
			return Live{}, false, retry(ctx, func() error { return s.Forget(ctx, l.Tenant, l.ID) })
		}
		return l, true, nil
	case err != nil:
		return l, true, err
	case c.Status != StatusRunning && c.Status != StatusParked:
		return Live{}, false, retry(ctx, func() error { return s.Forget(ctx, l.Tenant, l.ID) })
	}
	want := liveOf(c)
	if c.Status == StatusParked {
		if l.Status == StatusParked && l.Gen == c.Gen {
			return l, true, nil // Decided is the index's own
		}
		for _, a := range c.Pending {
			if d, err := s.decision(ctx, c.Tenant, a.ID); err == nil && d != nil {
				want.Decided = true
				break
			}
		}
	} else if l.Status == StatusRunning && l.Gen == c.Gen && l.Node == c.Node && l.Lease.Equal(c.Lease) {
		return l, true, nil
	}
	return want, true, s.putLive(ctx, want)
}

// GetChain reads a chain's record: its final one once it ended. An end
// that is not authentic is passed over (the running record is read); a
// running record that is not authentic is ErrNotFound wrapping ErrForged.
func (s *Store) GetChain(ctx context.Context, tenant, id string) (*Chain, error) {
	if !validID(id) {
		return nil, ErrNotFound
	}
	b, err := s.readOnce(ctx, tenant, chainName(id, "end"), endBinding(tenant, id))
	if errors.Is(err, ErrNotFound) {
		b, err = s.readRecord(ctx, tenant, chainName(id, "rec"), recBinding(tenant, id))
	}
	if err != nil {
		return nil, err
	}
	c, err := decodeChain(b, tenant, id)
	if err != nil {
		return nil, err
	}
	if c.Result == nil && c.ResultRef != "" {
		c.Result = s.readResult(ctx, tenant, id, c.ResultRef, c.ResultSHA256)
	}
	return c, nil
}

// maxResultBytes bounds a chain result read back from its blob.
const maxResultBytes = 64 << 20

// readResult reads a chain's result from its blob, nil when it is gone
// or its bytes are not those the record's hash names.
func (s *Store) readResult(ctx context.Context, tenant, id, ref, sum string) *chain.RunResult {
	rc, _, err := s.bs.Open(ctx, tenant, ref)
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxResultBytes))
	if err != nil {
		return nil
	}
	if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
		s.refuse(refusal{Kind: KindResult, Tenant: tenant, Object: id, Name: ref,
			Err: fmt.Errorf("%w: the result blob of chain %s is not the one its record names", ErrForged, id)})
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
	if won, _, err := s.createOnce(ctx, c.Tenant, chainName(c.ID, "end"), endBinding(c.Tenant, c.ID), b); err != nil || !won {
		return false, err
	}
	// The running record and the index entry follow; a failure here only
	// leaves them stale (GetChain reads the end first; Reconcile finds the
	// chain ended and forgets it).
	_ = s.bs.PutRecord(ctx, c.Tenant, chainName(c.ID, "rec"), s.sign(recBinding(c.Tenant, c.ID), b), false)
	_ = retry(ctx, func() error { return s.Forget(ctx, c.Tenant, c.ID) })
	return true, nil
}

// markDecided notes in the fleet index that a parked chain has a decision,
// so the processes scanning it resume the chain without reading every
// request of every parked chain.
func (s *Store) markDecided(ctx context.Context, tenant, id string) error {
	b, err := s.readRecord(ctx, blobstore.FleetTenant, liveName(tenant, id), liveBinding(tenant, id))
	if err != nil {
		return err
	}
	l, err := decodeLive(b, liveName(tenant, id))
	if err != nil {
		return err
	}
	if l.Status != StatusParked || l.Decided {
		return nil
	}
	l.Decided = true
	b, _ = json.Marshal(l)
	return s.bs.PutRecord(ctx, blobstore.FleetTenant, liveName(tenant, id), s.sign(liveBinding(tenant, id), b), false)
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
// another process ended it first, and the first time this process sees a
// lease lapsed: the chain is interrupted when the same lapsed lease is
// still there half a lease or more later (see lapses), so a caller calls
// it once per pass of its reaper.
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
	if !s.lapses.confirm(tenant+"/"+id, c.Lease, now, s.lease/2) {
		return false, nil // seen lapsed for the first time: next pass
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
	// Released before the end is recorded: a process killed in between
	// leaves the chain to another, which releases again (idempotent);
	// one killed after the end would leave its pins for ever.
	s.Release(ctx, c)
	return s.Finish(ctx, c)
}

// Release lets go of what an ended chain held that no process holding its
// session will release: every parked generation it wrote (ReleaseParks),
// and every pin of the artifacts its calls stored (the session's pin
// owner is the chain id): all of them, through blobstore.Store.UnpinOwner,
// since a process killed after a call pinned an artifact and before its
// record named it leaves a pin no record knows of; when that fails (the
// store, or a tenant past blobstore.MaxUnpinOwnerKeys), the refs its trace
// names. The blobs then expire with the store's TTL. Store failures are
// tried again a few times, then ignored.
func (s *Store) Release(ctx context.Context, c *Chain) {
	_ = s.ReleaseParks(ctx, c.Tenant, c.ID)
	if err := retry(ctx, func() error { _, err := s.bs.UnpinOwner(ctx, c.Tenant, c.ID); return err }); err != nil {
		s.unpinTrace(ctx, c)
	}
}

// maxParkGens bounds the parked generations ReleaseParks lists.
const maxParkGens = 1000

// ReleaseParks deletes every parked generation of a chain that is still in
// the store (ReleasePark each), and the script kept for its approvers
// (Park.Script): for a chain that ended, however it ended. It lists the
// chain's seals, at most maxParkGens of them.
func (s *Store) ReleaseParks(ctx context.Context, tenant, id string) error {
	if !validID(id) {
		return ErrNotFound
	}
	prefix := chainName(id, "park/")
	var gens []int
	if err := retry(ctx, func() error {
		gens = gens[:0]
		return s.bs.ListRecords(ctx, tenant, prefix, func(name string, _ time.Time) error {
			if g, err := strconv.Atoi(strings.TrimPrefix(name, prefix)); err == nil && g > 0 && len(gens) < maxParkGens {
				gens = append(gens, g)
			}
			return nil
		})
	}); err != nil {
		return err
	}
	var errs []error
	for _, g := range gens {
		if err := s.ReleasePark(ctx, tenant, id, g); err != nil {
			errs = append(errs, err)
		}
	}
	if err := retry(ctx, func() error { return s.bs.DeleteRecord(ctx, tenant, chainName(id, "script")) }); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
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
			_ = s.unpin(ctx, c.Tenant, ref, c.ID)
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
		tenant, id, ok := strings.Cut(strings.TrimPrefix(n, "live/"), "/")
		if !ok {
			continue // not a name this package writes
		}
		b, err := s.readRecord(ctx, blobstore.FleetTenant, n, liveBinding(tenant, id))
		if errors.Is(err, ErrNotFound) {
			continue // gone, or not authentic (reported)
		}
		if err != nil {
			return err
		}
		l, err := decodeLive(b, n)
		if err != nil {
			continue // not one this package wrote: left to its writer
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
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	b, _ := json.Marshal(claim{Kind: kind, Node: s.node, At: s.now().UTC(), Nonce: hex.EncodeToString(nonce[:])})
	won, _, err := s.createOnce(ctx, tenant, chainName(id, "claim/"+strconv.Itoa(gen)), claimBinding(tenant, id, gen), b)
	return won, err
}

// StaleClaim reports whether generation gen of a chain was claimed more
// than two leases ago while the chain is still parked on it: the process
// that claimed it died before it recorded the chain running again.
func (s *Store) StaleClaim(ctx context.Context, tenant, id string, gen int) (bool, error) {
	if !validID(id) {
		return false, ErrNotFound
	}
	b, err := s.readOnce(ctx, tenant, chainName(id, "claim/"+strconv.Itoa(gen)), claimBinding(tenant, id, gen))
	if err != nil {
		return false, err
	}
	cl, err := decodeClaim(b)
	if err != nil {
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

// CallID is the id of call seq of chain chainID waiting for a caller
// tool's answer: unlike ApprovalID's, so that a call approved and then
// handed to its caller keeps its decision and gets an answer of its own.
func CallID(chainID string, seq int) string {
	sum := sha256.Sum256([]byte(chainID + "\x00call\x00" + strconv.Itoa(seq)))
	return CallPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:]))[:26]
}

// CredentialID is the id of call seq of chain chainID waiting for a fresh
// delegated credential: unlike ApprovalID's and CallID's, so that a call
// approved and then refused for its credential keeps its decision.
func CredentialID(chainID string, seq int) string {
	sum := sha256.Sum256([]byte(chainID + "\x00credential\x00" + strconv.Itoa(seq)))
	return CredentialPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:]))[:26]
}

// PendingID is the id of a parked call: CallID for kind KindCall,
// CredentialID for KindCredential, else ApprovalID.
func PendingID(chainID string, seq int, kind string) string {
	switch kind {
	case KindCall:
		return CallID(chainID, seq)
	case KindCredential:
		return CredentialID(chainID, seq)
	}
	return ApprovalID(chainID, seq)
}

// CountParked counts the tenant's chains the fleet's index lists as parked,
// except the chain except, up to limit: it lists the tenant's index
// entries and, when fewer than limit are listed, reads none of them and
// returns how many there are (an upper bound); otherwise it reads them
// until it has counted limit parked chains. So a check against a cap costs
// one listing while the tenant is well under it.
func (s *Store) CountParked(ctx context.Context, tenant, except string, limit int) (int, error) {
	var names []string
	if err := s.bs.ListRecords(ctx, blobstore.FleetTenant, "live/"+tenant+"/", func(name string, _ time.Time) error {
		if name != liveName(tenant, except) {
			names = append(names, name)
		}
		return nil
	}); err != nil {
		return 0, err
	}
	if len(names) < limit {
		return len(names), nil
	}
	n := 0
	for _, name := range names {
		id := strings.TrimPrefix(name, "live/"+tenant+"/")
		b, err := s.readRecord(ctx, blobstore.FleetTenant, name, liveBinding(tenant, id))
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return n, err
		}
		if l, err := decodeLive(b, name); err == nil && l.Status == StatusParked {
			if n++; n >= limit {
				break
			}
		}
	}
	return n, nil
}
