package durable

import (
	"bytes"
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/airlockrt/airlock/blobstore"
)

// Every object of the bucket a process acts on is authenticated with the
// fleet's key (docs/durability.md, "What is authenticated"). A record is
// stored as a header line and its JSON body:
//
//	ALR1 <base64url HMAC-SHA256, 43 characters>\n{…}
//
// The MAC is keyed with a key derived from the fleet key for the record's
// kind (HKDF-SHA256, info "airlock fleet record key v1 <kind>"), and it
// covers the kind, the tenant, the object (chain or approval id), the
// generation (claims; 0 for the others, whose body holds theirs) and the
// body, each length-prefixed: a record cannot be edited, moved to another
// tenant, chain, approval, generation or kind, or made without the key.
// Records are written under Options.Key and accepted under it or any of
// Options.PreviousKeys (key rotation).
//
// A create-only object (an end, a claim, a decision) found to be forged
// does not block the real one: its writer takes the next slot of the
// object's name (name, name.1, … name.<maxSlots-1>), and readers take the
// first authentic slot, stopping at the first absent one. Forging one, or
// replaying one elsewhere, does nothing. On a locking store
// (blobstore.Store.Locked) each is a version locked for Retention and
// read as first written, so deleting, overwriting or putting back an
// older one (a rollback) does nothing either; on a store that does not
// lock, a bucket writer who deletes them can roll a chain back
// (docs/durability.md, "Rollback").

// Kinds of authenticated objects: the kind label of
// airlock_fleet_refused_total.
const (
	KindChain    = "chain"    // chains/<id>/rec
	KindEnd      = "end"      // chains/<id>/end
	KindClaim    = "claim"    // chains/<id>/claim/<gen>
	KindSeal     = "seal"     // chains/<id>/park/<gen> and its state
	KindRequest  = "request"  // approvals/<id>/req
	KindDecision = "decision" // approvals/<id>/decision
	KindIndex    = "index"    // live/<tenant>/<id> in the fleet namespace
	KindResult   = "result"   // a chain result too large for its record
	KindScript   = "script"   // chains/<id>/script
)

// Kinds lists the kinds of authenticated objects.
func Kinds() []string {
	return []string{KindChain, KindEnd, KindClaim, KindSeal, KindRequest, KindDecision, KindIndex, KindResult, KindScript}
}

// recordKinds are the kinds stored in the ALR1 format.
var recordKinds = []string{KindChain, KindEnd, KindClaim, KindRequest, KindDecision, KindIndex, KindScript}

// maxSlots bounds the names a create-only object may take when forged
// objects hold the first ones.
const maxSlots = 4

const (
	recordMagic  = "ALR1 "
	macChars     = 43 // base64url without padding of 32 bytes
	recordHeader = len(recordMagic) + macChars + 1
)

// fleetKey is one configured fleet key and the keys derived from it.
type fleetKey struct {
	raw    []byte            // seals parked states (HMAC-SHA256) and derives their cipher key
	record map[string][]byte // kind → MAC key
}

func newFleetKey(raw []byte) (fleetKey, error) {
	k := fleetKey{raw: append([]byte(nil), raw...), record: map[string][]byte{}}
	for _, kind := range recordKinds {
		d, err := hkdf.Key(sha256.New, k.raw, nil, "airlock fleet record key v1 "+kind, 32)
		if err != nil {
			return fleetKey{}, err
		}
		k.record[kind] = d
	}
	return k, nil
}

// binding is what a record's MAC binds it to besides its body.
type binding struct {
	kind, tenant, object string
	gen                  int
}

func (b binding) String() string {
	if b.gen != 0 {
		return fmt.Sprintf("%s %s/%s generation %d", b.kind, b.tenant, b.object, b.gen)
	}
	return fmt.Sprintf("%s %s/%s", b.kind, b.tenant, b.object)
}

func (k *fleetKey) mac(b binding, body []byte) []byte {
	m := hmac.New(sha256.New, k.record[b.kind])
	m.Write([]byte("airlock record v1"))
	var hdr []byte
	for _, f := range []string{b.kind, b.tenant, b.object} {
		hdr = binary.AppendUvarint(hdr, uint64(len(f)))
		hdr = append(hdr, f...)
	}
	hdr = binary.AppendVarint(hdr, int64(b.gen))
	m.Write(hdr)
	m.Write(body)
	return m.Sum(nil)
}

// sign returns body as a record bound to b, under the current key.
func (s *Store) sign(b binding, body []byte) []byte {
	out := make([]byte, 0, recordHeader+len(body))
	out = append(out, recordMagic...)
	out = base64.RawURLEncoding.AppendEncode(out, s.keys[0].mac(b, body))
	out = append(out, '\n')
	return append(out, body...)
}

// open checks that rec is a record bound to b under one of the fleet's
// keys and returns its body; anything else is ErrForged.
func (s *Store) open(b binding, rec []byte) ([]byte, error) {
	if len(rec) < recordHeader || string(rec[:len(recordMagic)]) != recordMagic || rec[recordHeader-1] != '\n' {
		return nil, fmt.Errorf("%w: %s: not a record of an authenticating fleet", ErrForged, b)
	}
	var mac [32]byte
	if n, err := base64.RawURLEncoding.Strict().Decode(mac[:], rec[len(recordMagic):recordHeader-1]); err != nil || n != len(mac) {
		return nil, fmt.Errorf("%w: %s: its MAC is not one", ErrForged, b)
	}
	body := rec[recordHeader:]
	for i := range s.keys {
		if hmac.Equal(mac[:], s.keys[i].mac(b, body)) {
			return body, nil
		}
	}
	return nil, fmt.Errorf("%w: %s: its MAC does not match (edited, forged, moved from another chain, tenant, generation or kind, or written under another key)", ErrForged, b)
}

// refusal is an object of the bucket a process refused as not authentic.
type refusal struct {
	// Kind is one of Kinds.
	Kind string
	// Tenant and Object (a chain or approval id) name what it claimed to
	// be; Name is where it was stored.
	Tenant, Object, Name string
	// Err wraps ErrForged or ErrTampered.
	Err error
}

// refusals counts refused objects and logs them, at most one line per
// refusalLogEvery (the count of the others in the next line): a bucket
// full of forged objects must not flood the log.
type refusals struct {
	log     *slog.Logger
	count   func(kind string)
	mu      sync.Mutex
	last    time.Time
	skipped int
}

const refusalLogEvery = time.Second

// refuse reports an object refused as not authentic.
func (s *Store) refuse(r refusal) {
	if s.refused.count != nil {
		s.refused.count(r.Kind)
	}
	rs := &s.refused
	rs.mu.Lock()
	now := time.Now()
	if !rs.last.IsZero() && now.Sub(rs.last) < refusalLogEvery {
		rs.skipped++
		rs.mu.Unlock()
		return
	}
	skipped := rs.skipped
	rs.last, rs.skipped = now, 0
	rs.mu.Unlock()
	rs.log.Warn("fleet: refused an object of the bucket that the fleet key does not authenticate; it is not acted on",
		"kind", r.Kind, "tenant", r.Tenant, "object", r.Object, "name", r.Name, "reason", "forged", "err", r.Err,
		"refused_before_unlogged", skipped)
}

// readRecord reads the record name of tenant (in the fleet namespace for
// the index) and checks it is bound to b. A record that is not authentic
// is reported and returned as ErrNotFound wrapping ErrForged: it is
// treated as absent.
func (s *Store) readRecord(ctx context.Context, tenant, name string, b binding) ([]byte, error) {
	rec, _, err := s.bs.GetRecord(ctx, tenant, name)
	if err != nil {
		return nil, notFound(err)
	}
	body, err := s.open(b, rec)
	if err != nil {
		s.refuse(refusal{Kind: b.kind, Tenant: b.tenant, Object: b.object, Name: name, Err: err})
		return nil, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return body, nil
}

func slotName(name string, slot int) string {
	if slot == 0 {
		return name
	}
	return fmt.Sprintf("%s.%d", name, slot)
}

// readFirst reads the first version of the create-only object name that
// nobody removed (blobstore.Store.GetRecordOnce: on a locking store, what
// a bucket writer overwrote or deleted since it was written is passed
// over) and checks it is bound to b, as readRecord does. It also returns
// the version's id ("" on a store that does not lock).
func (s *Store) readFirst(ctx context.Context, tenant, name string, b binding) ([]byte, string, error) {
	rec, v, err := s.bs.GetRecordOnce(ctx, tenant, name)
	if err != nil {
		return nil, "", notFound(err)
	}
	body, err := s.open(b, rec)
	if err != nil {
		s.refuse(refusal{Kind: b.kind, Tenant: b.tenant, Object: b.object, Name: name, Err: err})
		return nil, "", fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return body, v, nil
}

// readOnce reads a create-only object: the first authentic slot of name,
// or ErrNotFound (wrapping ErrForged when forged objects held every slot
// read). Each slot is read as first written (readFirst): a bucket writer
// who deletes the object, or puts an older authentic one back, changes
// nothing a reader sees on a locking store.
func (s *Store) readOnce(ctx context.Context, tenant, name string, b binding) ([]byte, error) {
	var forged error
	for slot := range maxSlots {
		body, _, err := s.readFirst(ctx, tenant, slotName(name, slot), b)
		switch {
		case err == nil:
			return body, nil
		case !errors.Is(err, ErrForged):
			if forged != nil && errors.Is(err, ErrNotFound) {
				return nil, forged
			}
			return nil, err
		}
		forged = err
	}
	return nil, forged
}

// createOnce writes body bound to b create-only under name: exactly one
// authentic object wins. It reports won and, when another authentic object
// won first, that object's body. Forged objects in its way are reported
// and passed over (the next slot); when they hold every slot it fails with
// ErrForged.
//
// On a locking store the object is a version locked for Retention, and a
// write that succeeds has not necessarily won: a conditional write passes
// over a delete marker, so a bucket writer who deleted the first object
// would let a second one be written. The writer reads the first version
// back and won only if it is its own (RATIONALE.md, "Why object lock?").
func (s *Store) createOnce(ctx context.Context, tenant, name string, b binding, body []byte) (won bool, first []byte, err error) {
	rec := s.sign(b, body)
	locked := s.bs.Locked()
	for slot, tries := 0, 0; slot < maxSlots && tries < 2*maxSlots; tries++ {
		n := slotName(name, slot)
		// A write whose answer was lost may have happened: it is tried
		// again, and a writer that then finds its own bytes there (or
		// whose retry raced its first attempt) won.
		var mine string
		switch err := retry(ctx, func() (err error) {
			mine, err = s.bs.PutRecordOnce(ctx, tenant, n, rec, s.now().Add(s.Retention()))
			return err
		}); {
		case err == nil && !locked:
			return true, nil, nil
		case err != nil && !errors.Is(err, blobstore.ErrExist):
			return false, nil, err
		}
		var (
			got []byte
			v   string
		)
		err := retry(ctx, func() (err error) { got, v, err = s.readFirst(ctx, tenant, n, b); return err })
		switch {
		case err == nil && (bytes.Equal(got, body) || mine != "" && v == mine):
			return true, nil, nil
		case err == nil:
			return false, got, nil
		case errors.Is(err, ErrForged):
			slot++
		case errors.Is(err, ErrNotFound):
			// Deleted since (on a store that does not lock): try the
			// slot again.
		default:
			return false, nil, err
		}
	}
	return false, nil, fmt.Errorf("%w: %s: forged objects hold every name it may take (%s … %s)", ErrForged, b, name, slotName(name, maxSlots-1))
}
