package govern

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Idempotency records in a store a fleet shares are authenticated with the
// fleet's key, as its other objects are (docs/durability.md, "What is
// authenticated"): a record is stored as a header line and its JSON body,
//
//	ALI1 <base64url HMAC-SHA256, 43 characters>\n{…}
//
// the MAC keyed with a key derived from the fleet key (HKDF-SHA256, info
// "airlock idempotency record key v1") and covering the kind
// ("idempotency"), the tenant, the tool, the idempotency key and the body,
// each length-prefixed. Someone who can write the bucket but has no key
// cannot make a record that answers a call (the tool would not run and the
// chain would get their value), nor move one to another tenant, tool or
// key: such a record reads as absent, is replaced, and the call runs.

// outcomeKind is the object kind an idempotency record's MAC binds.
const outcomeKind = "idempotency"

const (
	outcomeMagic  = "ALI1 "
	outcomeMAC    = 43 // base64url without padding of 32 bytes
	outcomeHeader = len(outcomeMagic) + outcomeMAC + 1
)

// minOutcomeKey is the shortest key StoreOutcomesOptions.Keys accepts, as
// for the fleet key itself.
const minOutcomeKey = 32

// outcomeKeys are the MAC keys derived from the configured keys: the first
// signs, all are accepted.
type outcomeKeys [][]byte

func newOutcomeKeys(raw [][]byte) (outcomeKeys, error) {
	var ks outcomeKeys
	for i, k := range raw {
		if len(k) < minOutcomeKey {
			return nil, fmt.Errorf("govern: StoreOutcomesOptions.Keys[%d] must be at least %d bytes (the fleet key: fleet.key)", i, minOutcomeKey)
		}
		d, err := hkdf.Key(sha256.New, k, nil, "airlock idempotency record key v1", 32)
		if err != nil {
			return nil, fmt.Errorf("govern: deriving the idempotency record key: %w", err)
		}
		ks = append(ks, d)
	}
	return ks, nil
}

func outcomeMACOf(key []byte, tenant, tool, idemKey string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("airlock idempotency record v1"))
	var hdr []byte
	for _, f := range []string{outcomeKind, tenant, tool, idemKey} {
		hdr = binary.AppendUvarint(hdr, uint64(len(f)))
		hdr = append(hdr, f...)
	}
	m.Write(hdr)
	m.Write(body)
	return m.Sum(nil)
}

// sign returns body as a record of (tenant, tool, idemKey) under the
// current key.
func (ks outcomeKeys) sign(tenant, tool, idemKey string, body []byte) []byte {
	out := make([]byte, 0, outcomeHeader+len(body))
	out = append(out, outcomeMagic...)
	out = base64.RawURLEncoding.AppendEncode(out, outcomeMACOf(ks[0], tenant, tool, idemKey, body))
	out = append(out, '\n')
	return append(out, body...)
}

// open returns the body of rec if one of the keys authenticates it as a
// record of (tenant, tool, idemKey); otherwise an error wrapping
// ErrForgedOutcome.
func (ks outcomeKeys) open(tenant, tool, idemKey string, rec []byte) ([]byte, error) {
	if len(rec) < outcomeHeader || string(rec[:len(outcomeMagic)]) != outcomeMagic || rec[outcomeHeader-1] != '\n' {
		return nil, fmt.Errorf("%w: not a record of an authenticating fleet", ErrForgedOutcome)
	}
	var mac [32]byte
	if n, err := base64.RawURLEncoding.Strict().Decode(mac[:], rec[len(outcomeMagic):outcomeHeader-1]); err != nil || n != len(mac) {
		return nil, fmt.Errorf("%w: its MAC is not one", ErrForgedOutcome)
	}
	body := rec[outcomeHeader:]
	for _, k := range ks {
		if hmac.Equal(mac[:], outcomeMACOf(k, tenant, tool, idemKey, body)) {
			return body, nil
		}
	}
	return nil, fmt.Errorf("%w: its MAC does not match (edited, forged, moved from another tenant, tool or key, or written under another key)", ErrForgedOutcome)
}

// outcomeRefusals counts refused records and logs them, at most one line
// per second (the count of the others in the next line): a bucket full of
// forged records must not flood the log.
type outcomeRefusals struct {
	log     *slog.Logger
	count   func()
	mu      sync.Mutex
	last    time.Time
	skipped int
}

// refuse reports a record refused as not authentic. It logs the tenant,
// the tool and the record's name (which holds a hash of the idempotency
// key, not the key), never its content.
func (r *outcomeRefusals) refuse(tenant, tool, name string, err error) {
	if r.count != nil {
		r.count()
	}
	r.mu.Lock()
	now := time.Now()
	if !r.last.IsZero() && now.Sub(r.last) < time.Second {
		r.skipped++
		r.mu.Unlock()
		return
	}
	skipped := r.skipped
	r.last, r.skipped = now, 0
	r.mu.Unlock()
	r.log.Warn("govern: refused an idempotency record that the fleet key does not authenticate; it is treated as absent and the call runs",
		"kind", outcomeKind, "tenant", tenant, "tool", tool, "name", name, "reason", "forged", "err", err,
		"refused_before_unlogged", skipped)
}
