package govern

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/airlockrt/airlock/blobstore"
)

// ValidKey reports whether k is a valid caller-supplied idempotency key:
// 1 to 128 of A-Z, a-z, 0-9, '_', '.', ':' and '-', not starting with "d:"
// (the prefix of derived keys, DeriveKey).
func ValidKey(k string) bool {
	if len(k) < 1 || len(k) > 128 || strings.HasPrefix(k, "d:") {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// DeriveKey is the idempotency key of a call whose caller gave none: "d:"
// and the hex SHA-256 of the chain id, the call's number and its canonical
// arguments, each length-prefixed so no two inputs encode alike. The same
// call of the same chain (a chain resumed or re-run under its id) derives
// the same key.
func DeriveKey(chainID string, seq int, canonicalArgs []byte) string {
	h := sha256.New()
	var b [20]byte
	for _, part := range [][]byte{[]byte(chainID), strconv.AppendInt(b[:0], int64(seq), 10), canonicalArgs} {
		var n [20]byte
		h.Write(strconv.AppendInt(n[:0], int64(len(part)), 10))
		h.Write([]byte{':'})
		h.Write(part)
	}
	return "d:" + hex.EncodeToString(h.Sum(nil))
}

// RecordStore keeps small named records per tenant with create-only
// writes; *blobstore.Store implements it.
type RecordStore interface {
	PutRecord(ctx context.Context, tenant, name string, data []byte, createOnly bool) error
	GetRecord(ctx context.Context, tenant, name string) ([]byte, time.Time, error)
	DeleteRecord(ctx context.Context, tenant, name string) error
}

// StoreOutcomesOptions configure NewStoreOutcomes. The zero value works:
// records dated by time.Now, not authenticated.
type StoreOutcomesOptions struct {
	// Now is the clock records are dated by. Nil: time.Now.
	Now Clock
	// Keys authenticate the records, for a store a fleet shares (someone
	// who can write it must not answer a call from a record they made):
	// the fleet key first, which signs, then keys also accepted while it
	// rotates (fleet.previous_key); each at least 32 bytes. Records are
	// MACed under keys derived from them (outcomeauth.go), and one that
	// no key authenticates reads as absent. Nil: records are written and
	// read as they are (one process alone with its store).
	Keys [][]byte
	// Logger receives a warning for each record refused as not authentic
	// (at most one line a second; no key, argument or result in it). Nil
	// discards.
	Logger *slog.Logger
	// OnRefused is called for each record refused as not authentic (a
	// metric). Nil: not counted.
	OnRefused func()
}

// NewStoreOutcomes returns Outcomes kept as records of rs (record
// "idem/<tool>/<sha256 of key>"), shared by every process over the same
// storage. It fails only for a key of opts.Keys shorter than 32 bytes.
func NewStoreOutcomes(rs RecordStore, opts StoreOutcomesOptions) (Outcomes, error) {
	s := &storeOutcomes{rs: rs, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if len(opts.Keys) > 0 {
		var err error
		if s.keys, err = newOutcomeKeys(opts.Keys); err != nil {
			return nil, err
		}
	}
	s.refused.log, s.refused.count = opts.Logger, opts.OnRefused
	if s.refused.log == nil {
		s.refused.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

type storeOutcomes struct {
	rs      RecordStore
	now     Clock
	keys    outcomeKeys // nil: records are not authenticated
	refused outcomeRefusals
}

// encode is o as the record of (tenant, tool, key).
func (s *storeOutcomes) encode(tenant, tool, key string, o Outcome) ([]byte, error) {
	b, err := json.Marshal(o)
	if err != nil || s.keys == nil {
		return b, err
	}
	return s.keys.sign(tenant, tool, key, b), nil
}

// decode reads the record of (tenant, tool, key) stored under name: false
// when it is not an Outcome, or not authentic (reported).
func (s *storeOutcomes) decode(tenant, tool, key, name string, data []byte) (Outcome, bool) {
	var o Outcome
	if s.keys != nil {
		body, err := s.keys.open(tenant, tool, key, data)
		if err != nil {
			s.refused.refuse(tenant, tool, name, err)
			return o, false
		}
		data = body
	}
	return o, json.Unmarshal(data, &o) == nil && o.State != ""
}

func recordName(tool, key string) string {
	sum := sha256.Sum256([]byte(key))
	return "idem/" + tool + "/" + hex.EncodeToString(sum[:])
}

// Begin creates the pending record with a create-only write. When one
// exists: younger than window, it is returned; older, unreadable or not
// authentic, it is deleted and the create tried once more, and if another
// process won that race its record is returned (an unreadable or forged
// one then reads as unknown: the call does not run).
func (s *storeOutcomes) Begin(ctx context.Context, tenant, tool, key, argsHash string, window time.Duration) (*Outcome, error) {
	name := recordName(tool, key)
	pending, err := s.encode(tenant, tool, key, Outcome{State: OutcomePending, Created: s.now().UTC(), ArgsHash: argsHash})
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		err := s.rs.PutRecord(ctx, tenant, name, pending, true)
		if err == nil {
			return nil, nil
		}
		if !errors.Is(err, blobstore.ErrExist) {
			return nil, err
		}
		data, _, err := s.rs.GetRecord(ctx, tenant, name)
		if errors.Is(err, blobstore.ErrNotFound) && attempt == 0 {
			continue // deleted meanwhile: create again
		}
		if err != nil {
			return nil, err
		}
		o, ok := s.decode(tenant, tool, key, name, data)
		if ok && s.now().Sub(o.Created) < window {
			return &o, nil
		}
		if attempt > 0 {
			// Another process replaced the expired record between our
			// delete and create: its record stands.
			if ok {
				return &o, nil
			}
			return &Outcome{State: OutcomeUnknown}, nil
		}
		if err := s.rs.DeleteRecord(ctx, tenant, name); err != nil {
			return nil, err
		}
	}
}

func (s *storeOutcomes) Finish(ctx context.Context, tenant, tool, key string, o Outcome) error {
	data, err := s.encode(tenant, tool, key, o)
	if err != nil {
		return err
	}
	return s.rs.PutRecord(ctx, tenant, recordName(tool, key), data, false)
}

// MaxMemOutcomes bounds the records of NewMemOutcomes.
const MaxMemOutcomes = 100_000

// ErrOutcomesFull is returned by the in-memory Outcomes' Begin when it
// holds MaxMemOutcomes records none of which expired: the call does not
// run (fail closed).
var ErrOutcomesFull = errors.New("govern: idempotency records full")

// NewMemOutcomes returns Outcomes kept in this process's memory, for tests
// and single-process use: at most MaxMemOutcomes records; when full,
// expired ones are dropped first, and Begin fails with ErrOutcomesFull if
// none expired. now nil means time.Now.
func NewMemOutcomes(now Clock) Outcomes {
	if now == nil {
		now = time.Now
	}
	return &memOutcomes{now: now, m: map[string]Outcome{}}
}

type memOutcomes struct {
	now    Clock
	mu     sync.Mutex
	m      map[string]Outcome
	window time.Duration
}

func (m *memOutcomes) Begin(_ context.Context, tenant, tool, key, argsHash string, window time.Duration) (*Outcome, error) {
	k := tenant + "\x00" + tool + "\x00" + key
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.window = max(m.window, window)
	if o, ok := m.m[k]; ok && now.Sub(o.Created) < window {
		return &o, nil
	}
	if len(m.m) >= MaxMemOutcomes {
		for kk, o := range m.m {
			if now.Sub(o.Created) >= m.window {
				delete(m.m, kk)
			}
		}
		if len(m.m) >= MaxMemOutcomes {
			return nil, fmt.Errorf("%w: %d records younger than %s", ErrOutcomesFull, len(m.m), m.window)
		}
	}
	m.m[k] = Outcome{State: OutcomePending, Created: now, ArgsHash: argsHash}
	return nil, nil
}

func (m *memOutcomes) Finish(_ context.Context, tenant, tool, key string, o Outcome) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := tenant + "\x00" + tool + "\x00" + key
	if prev, ok := m.m[k]; ok {
		o.Created = prev.Created
		if o.ArgsHash == "" {
			o.ArgsHash = prev.ArgsHash
		}
	}
	m.m[k] = o
	return nil
}
