package durable

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/airlockrt/airlock/blobstore"
)

// Park is a parked chain's state and the approvals it waits for.
type Park struct {
	Tenant, ChainID string
	Gen             int
	// Created is when the generation was parked (SavePark sets it when
	// zero); Expires when its calls stop waiting. A generation is
	// continued until ResumeGrace past its expiry, and its expiry is taken
	// as at most Options.ParkTTL after Created (zero: exactly that).
	Created, Expires time.Time
	Approvals        []Approval
	// State is the chain's state, opaque here; it may be many MiB.
	State []byte
	// Written is set by SavePark: the bytes of state it stored, 0 when the
	// state was the previous generation's to the byte and the new
	// generation links that one's blob instead of storing it again.
	Written int64
	// Script, when set, is the chain's source, which SavePark keeps for
	// the people who decide its approvals (GetScript) beside the state,
	// where it is sealed: a record of its own, authenticated like the
	// others and encrypted like the state, written once per chain (leave it empty when a generation
	// before wrote it) and deleted by ReleaseParks. A script above
	// MaxScriptBytes is not kept (GetScript then finds none).
	Script string
}

// MaxScriptBytes is the largest script SavePark keeps for approvers: what
// a record holds besides its authentication.
const MaxScriptBytes = blobstore.MaxRecordBytes - recordHeader - scriptOverhead

// scriptOverhead is what encrypting a script adds: the nonce and the tag
// of AES-GCM.
const scriptOverhead = 12 + 16

func scriptBinding(tenant, id string) binding {
	return binding{kind: KindScript, tenant: tenant, object: id}
}

// GetScript returns the script SavePark kept for chain id of tenant.
// ErrNotFound when there is none (the chain never parked, kept none, or
// ended); ErrNotFound wrapping ErrForged for one the fleet's keys do not
// authenticate (edited, or moved from another chain or tenant).
func (s *Store) GetScript(ctx context.Context, tenant, id string) (string, error) {
	if !validID(id) {
		return "", ErrNotFound
	}
	b, err := s.readRecord(ctx, tenant, chainName(id, "script"), scriptBinding(tenant, id))
	if err != nil {
		return "", err
	}
	src, err := s.openScript(b, tenant, id)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return src, nil
}

// scriptAD binds an encrypted script to its tenant and chain.
func scriptAD(tenant, id string) []byte { return []byte("script\x00" + tenant + "\x00" + id) }

// sealScript encrypts a chain's script like its parked state (the
// script is the chain's as much as its memory is): under the current
// key, bound to tenant and chain.
func (s *Store) sealScript(src, tenant, id string) ([]byte, error) {
	g, err := aeadOf(s.keys[0].raw)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, g.NonceSize(), g.NonceSize()+len(src)+g.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return g.Seal(nonce, nonce, []byte(src), scriptAD(tenant, id)), nil
}

// openScript decrypts a script sealScript wrote, under any of the fleet's
// keys (one being rotated in included); ErrTampered when none opens it.
func (s *Store) openScript(sealed []byte, tenant, id string) (string, error) {
	for i := range s.keys {
		g, err := aeadOf(s.keys[i].raw)
		if err != nil {
			return "", err
		}
		ns := g.NonceSize()
		if len(sealed) < ns+g.Overhead() {
			return "", ErrTampered
		}
		if src, err := g.Open(nil, sealed[:ns], sealed[ns:], scriptAD(tenant, id)); err == nil {
			return string(src), nil
		}
	}
	return "", ErrTampered
}

// parkVersion is the format of a park record; LoadPark refuses others.
const parkVersion = 1

// parkSeal is the record beside a parked state. MAC covers every other
// field, so a state cannot be edited, swapped, moved to another chain,
// tenant or generation, or given another expiry.
type parkSeal struct {
	Version   int       `json:"version"`
	Tenant    string    `json:"tenant"`
	ChainID   string    `json:"chain_id"`
	Gen       int       `json:"gen"`
	Ref       string    `json:"ref"`
	Size      int64     `json:"size"`
	SHA256    string    `json:"sha256"`
	Created   time.Time `json:"created"`
	Expires   time.Time `json:"expires"`
	Approvals []string  `json:"approvals"` // their ids and hashes: id:hash
	// StateGen is the generation the state blob was encrypted for, when it
	// is an earlier generation's (linked: the state did not change); 0
	// means Gen.
	StateGen int `json:"state_gen,omitempty"`
	// StateMAC is HMAC-SHA256 of the plain state under a key derived from
	// the fleet key: the next park compares it without decrypting, and it
	// tells nothing about the state to whoever reads the bucket.
	StateMAC string `json:"state_mac,omitempty"`
	MAC      string `json:"mac,omitempty"`

	key int // the index of the fleet key that authenticated it (not stored)
}

// stateGen is the generation whose additional data encrypted the state.
func (p *parkSeal) stateGen() int {
	if p.StateGen > 0 {
		return p.StateGen
	}
	return p.Gen
}

// stateDigest is the StateMAC of a plain state under the current key.
func (s *Store) stateDigest(state []byte) string {
	m := hmac.New(sha256.New, s.keys[0].raw)
	m.Write([]byte("airlock parked state digest v1"))
	m.Write(state)
	return hex.EncodeToString(m.Sum(nil))
}

// signed is the seal's MAC under key (a fleet key as configured).
func (p *parkSeal) signed(key []byte) []byte {
	c := *p
	c.MAC = ""
	b, _ := json.Marshal(&c)
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return m.Sum(nil)
}

// pinOwner is the pin that keeps a parked state from expiring.
func pinOwner(id string, gen int) string { return "park:" + id + ":" + strconv.Itoa(gen) }

// SavePark stores a parked chain: its state as a blob, each approval
// request, the seal (create-only: a generation is parked once), then the
// pin that keeps the state while it is parked (pinned only once sealed, so
// a process that dies before leaves no pin nobody knows of). The caller
// then writes the chain's record (PutChain, status parked). A state equal
// to the previous generation's (its keyed digest matches) is not stored
// again: the new seal links the previous generation's blob, pinned for this
// generation too, and p.Written is 0; otherwise p.Written is the bytes
// stored. Each generation keeps its own seal and claim, so the claim
// protocol is unchanged.
func (s *Store) SavePark(ctx context.Context, p *Park) error {
	if !validID(p.ChainID) || p.Gen < 1 {
		return fmt.Errorf("durable: invalid park of chain %q generation %d", p.ChainID, p.Gen)
	}
	name := chainName(p.ChainID, "park/"+strconv.Itoa(p.Gen))
	if _, _, err := s.bs.GetRecord(ctx, p.Tenant, name); err == nil {
		return fmt.Errorf("durable: chain %s generation %d is parked already", p.ChainID, p.Gen)
	}
	if p.Created.IsZero() {
		p.Created = s.now()
	}
	owner := pinOwner(p.ChainID, p.Gen)
	seal := parkSeal{Version: parkVersion, Tenant: p.Tenant, ChainID: p.ChainID, Gen: p.Gen,
		Created: p.Created.UTC(), Expires: p.Expires.UTC(), StateMAC: s.stateDigest(p.State)}
	p.Written = 0
	if p.Gen > 1 {
		prev, err := s.seal(ctx, p.Tenant, p.ChainID, p.Gen-1)
		if err == nil && prev.key == 0 && hmac.Equal([]byte(prev.StateMAC), []byte(seal.StateMAC)) {
			seal.Ref, seal.Size, seal.SHA256, seal.StateGen = prev.Ref, prev.Size, prev.SHA256, prev.stateGen()
		}
	}
	if seal.Ref == "" {
		sealed, err := s.encrypt(p.State, p.Tenant, p.ChainID, p.Gen)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(sealed)
		// A Put whose answer was lost leaves an unpinned blob, which
		// expires with the store's TTL.
		var a blobstore.Attrs
		err = retry(ctx, func() (err error) {
			a, err = s.bs.Put(ctx, p.Tenant, bytes.NewReader(sealed), "application/octet-stream")
			return err
		})
		if err != nil {
			return fmt.Errorf("durable: storing a parked state: %w", err)
		}
		seal.Ref, seal.Size, seal.SHA256 = a.Ref, int64(len(sealed)), hex.EncodeToString(sum[:])
		p.Written = int64(len(sealed))
	}
	// drop undoes the state's part of a park that failed before its pin: a
	// blob of its own is deleted, a linked one left to its generation.
	drop := func() {
		if seal.StateGen == 0 {
			_ = s.bs.Delete(context.WithoutCancel(ctx), p.Tenant, seal.Ref)
		}
	}
	for i := range p.Approvals {
		ap := &p.Approvals[i]
		if err := retry(ctx, func() error { return s.putApproval(ctx, ap) }); err != nil {
			drop()
			return err
		}
	}
	if p.Script != "" && len(p.Script) <= MaxScriptBytes {
		sealed, err := s.sealScript(p.Script, p.Tenant, p.ChainID)
		if err != nil {
			drop()
			return fmt.Errorf("durable: keeping a parked chain's script: %w", err)
		}
		rec := s.sign(scriptBinding(p.Tenant, p.ChainID), sealed)
		if err := retry(ctx, func() error { return s.bs.PutRecord(ctx, p.Tenant, chainName(p.ChainID, "script"), rec, false) }); err != nil {
			drop()
			return fmt.Errorf("durable: keeping a parked chain's script: %w", err)
		}
	}
	for _, ap := range p.Approvals {
		seal.Approvals = append(seal.Approvals, ap.ID+":"+ap.ArgsHash)
	}
	seal.MAC = hex.EncodeToString(seal.signed(s.keys[0].raw))
	b, err := json.Marshal(&seal)
	if err != nil {
		drop()
		return err
	}
	if err := s.createOwn(ctx, p.Tenant, name, b); err != nil {
		drop()
		return fmt.Errorf("durable: sealing a parked state: %w", err)
	}
	// Pinned only once sealed: a pin is withdrawn through its seal
	// (ReleasePark), so a process that dies here leaves no pin that
	// nobody knows of. (Unpinned, the state lives the store's TTL.)
	if err := retry(ctx, func() error { return s.bs.Pin(ctx, p.Tenant, seal.Ref, owner) }); err != nil {
		// The pin may have been written all the same (its answer lost).
		_ = s.unpin(context.WithoutCancel(ctx), p.Tenant, seal.Ref, owner)
		return fmt.Errorf("durable: pinning a parked state: %w", err)
	}
	return nil
}

// createOwn writes b create-only as record name, trying again when the
// store fails; a write that finds b itself there (its first attempt's
// answer was lost, or raced its retry) succeeded. Anything else there is
// blobstore.ErrExist.
func (s *Store) createOwn(ctx context.Context, tenant, name string, b []byte) error {
	err := retry(ctx, func() error { return s.bs.PutRecord(ctx, tenant, name, b, true) })
	if !errors.Is(err, blobstore.ErrExist) {
		return err
	}
	var got []byte
	if rerr := retry(ctx, func() (err error) { got, _, err = s.bs.GetRecord(ctx, tenant, name); return err }); rerr != nil {
		return rerr
	}
	if !bytes.Equal(got, b) {
		return err
	}
	return nil
}

// seal reads and checks the seal of a parked generation.
func (s *Store) seal(ctx context.Context, tenant, id string, gen int) (*parkSeal, error) {
	if !validID(id) {
		return nil, ErrNotFound
	}
	b, _, err := s.bs.GetRecord(ctx, tenant, chainName(id, "park/"+strconv.Itoa(gen)))
	if err != nil {
		return nil, notFound(err)
	}
	seal, err := s.openSeal(b, tenant, id, gen)
	if errors.Is(err, ErrTampered) {
		s.refuse(refusal{Kind: KindSeal, Tenant: tenant, Object: id, Name: chainName(id, "park/"+strconv.Itoa(gen)), Err: err})
	}
	return seal, err
}

// openSeal decodes and checks the seal of generation gen of chain id of
// tenant: ErrIncompatible for another format, ErrTampered for anything
// else that is not a seal this fleet's key made for that generation.
func (s *Store) openSeal(b []byte, tenant, id string, gen int) (*parkSeal, error) {
	var seal parkSeal
	if err := json.Unmarshal(b, &seal); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTampered, err)
	}
	if seal.Version != parkVersion {
		return nil, fmt.Errorf("%w: format %d, this build reads %d", ErrIncompatible, seal.Version, parkVersion)
	}
	mac, err := hex.DecodeString(seal.MAC)
	if err != nil {
		return nil, ErrTampered
	}
	seal.key = slices.IndexFunc(s.keys, func(k fleetKey) bool { return hmac.Equal(mac, seal.signed(k.raw)) })
	if seal.key < 0 || seal.StateGen < 0 || seal.StateGen > seal.Gen {
		return nil, ErrTampered
	}
	if seal.Tenant != tenant || seal.ChainID != id || seal.Gen != gen {
		return nil, ErrTampered
	}
	return &seal, nil
}

// LoadPark reads a parked generation back, refusing it (ErrTampered) when
// the seal or the state's bytes do not match, and ErrIncompatible for
// another format. It reads at most the sealed size, itself at most
// Options.MaxStateBytes, into one buffer of that size, and decrypts in
// place: loading a state of n bytes allocates n bytes.
func (s *Store) LoadPark(ctx context.Context, tenant, id string, gen int) (*Park, error) {
	seal, err := s.seal(ctx, tenant, id, gen)
	if err != nil {
		return nil, err
	}
	expires := seal.Expires
	if expires.IsZero() || expires.After(seal.Created.Add(s.parkTTL)) {
		expires = seal.Created.Add(s.parkTTL)
	}
	if s.now().After(expires.Add(ResumeGrace)) {
		return nil, fmt.Errorf("%w: generation %d of chain %s expired at %s", ErrStale, gen, id, expires.UTC().Format(time.RFC3339))
	}
	if seal.Size < 0 || seal.Size > s.maxState {
		return nil, fmt.Errorf("durable: a parked state of %d bytes is over the limit of %d", seal.Size, s.maxState)
	}
	rc, attrs, err := s.bs.Open(ctx, tenant, seal.Ref)
	if err != nil {
		return nil, notFound(err)
	}
	defer rc.Close()
	tampered := func() (*Park, error) {
		s.refuse(refusal{Kind: KindSeal, Tenant: tenant, Object: id, Name: seal.Ref, Err: ErrTampered})
		return nil, ErrTampered
	}
	if attrs.Size != seal.Size {
		return tampered()
	}
	buf := make([]byte, seal.Size)
	if _, err := io.ReadFull(rc, buf); errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) && seal.Size > 0 {
		return tampered()
	} else if err != nil {
		return nil, fmt.Errorf("durable: reading a parked state: %w", err)
	}
	var extra [1]byte
	if n, _ := io.ReadFull(rc, extra[:]); n > 0 {
		return tampered()
	}
	sum := sha256.Sum256(buf)
	if hex.EncodeToString(sum[:]) != seal.SHA256 {
		return tampered()
	}
	state, derr := s.decrypt(buf, tenant, id, seal.stateGen(), seal.key)
	if derr != nil {
		s.refuse(refusal{Kind: KindSeal, Tenant: tenant, Object: id, Name: seal.Ref, Err: derr})
		return nil, derr
	}
	p := &Park{Tenant: tenant, ChainID: id, Gen: gen, Created: seal.Created, Expires: seal.Expires, State: state}
	for _, ah := range seal.Approvals {
		aid, _, _ := cutLast(ah, ':')
		a, _, err := s.GetApproval(ctx, tenant, aid)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		if a != nil {
			p.Approvals = append(p.Approvals, *a)
		}
	}
	return p, nil
}

func cutLast(s string, sep byte) (string, string, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// ReleasePark deletes a parked generation the chain has moved past (it
// resumed and parked again, or ended): its state blob and its seal. The
// caller holds the generation's claim, so nobody else reads it. A blob the
// next or the previous generation links (the state did not change) is
// only unpinned for this generation; when that cannot be told (the store
// failed), it is only unpinned too, and expires after the store's TTL. A
// store failure is tried again a few times (retry).
func (s *Store) ReleasePark(ctx context.Context, tenant, id string, gen int) error {
	return retry(ctx, func() error {
		seal, err := s.seal(ctx, tenant, id, gen)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		shared := false
		for _, g := range []int{gen - 1, gen + 1} {
			if g < 1 {
				continue
			}
			o, err := s.seal(ctx, tenant, id, g)
			if err == nil && o.Ref == seal.Ref || err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrTampered) {
				shared = true
			}
		}
		if shared {
			err = s.bs.Unpin(ctx, tenant, seal.Ref, pinOwner(id, gen))
		} else if err = s.bs.Delete(ctx, tenant, seal.Ref); errors.Is(err, blobstore.ErrNotFound) {
			err = nil
		}
		if err != nil {
			return err
		}
		return s.bs.DeleteRecord(ctx, tenant, chainName(id, "park/"+strconv.Itoa(gen)))
	})
}

// unpin withdraws a pin, trying again a few times when the store fails: a
// pin nobody withdraws keeps its blob for ever, and no other process
// knows to withdraw it.
func (s *Store) unpin(ctx context.Context, tenant, ref, owner string) error {
	return retry(ctx, func() error { return s.bs.Unpin(ctx, tenant, ref, owner) })
}

// final reports whether err is an answer rather than a failure.
func final(err error) bool {
	for _, e := range []error{blobstore.ErrNotFound, blobstore.ErrExist, blobstore.ErrRecordTooLarge, blobstore.ErrClosed,
		blobstore.ErrInvalidRecordName, blobstore.ErrInvalidTenant, blobstore.ErrInvalidOwner, blobstore.ErrTooManyKeys,
		blobstore.ErrTooLarge, ErrNotFound, ErrForged, ErrMalformed, ErrTampered, ErrIncompatible, ErrEnded,
		context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// releaseTries bounds the attempts of retry, which waits 20 ms, then
// twice as long after each failure (about 0.3 s in all).
const releaseTries = 5

// retry calls f until it succeeds, fails with an answer that trying again
// does not change (the store's: not found, exists, too large, closed; this
// package's refusals), ctx ends, or releaseTries attempts failed; it
// returns f's last error.
func retry(ctx context.Context, f func() error) error {
	wait := 20 * time.Millisecond
	for try := 1; ; try++ {
		err := f()
		if err == nil || try == releaseTries || final(err) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait *= 2
	}
}

// Parked states are encrypted at rest (AES-256-GCM, a key derived from the
// fleet's key, the tenant, chain and generation as additional data): they
// hold the guest's memory, tool results included.

func aeadOf(key []byte) (cipher.AEAD, error) {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("airlock parked state encryption v1"))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func stateAD(tenant, id string, gen int) []byte {
	return []byte(tenant + "\x00" + id + "\x00" + strconv.Itoa(gen))
}

func (s *Store) encrypt(state []byte, tenant, id string, gen int) ([]byte, error) {
	g, err := aeadOf(s.keys[0].raw)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, g.NonceSize(), g.NonceSize()+len(state)+g.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return g.Seal(nonce, nonce, state, stateAD(tenant, id, gen)), nil
}

// decrypt opens, in place, a state sealed under the fleet key keys[key]
// (the key that authenticated its seal, which is the key that encrypted
// it).
func (s *Store) decrypt(sealed []byte, tenant, id string, gen, key int) ([]byte, error) {
	g, err := aeadOf(s.keys[key].raw)
	if err != nil {
		return nil, err
	}
	ns := g.NonceSize()
	if len(sealed) < ns+g.Overhead() {
		return nil, ErrTampered
	}
	state, err := g.Open(sealed[ns:ns], sealed[:ns], sealed[ns:], stateAD(tenant, id, gen))
	if err != nil {
		return nil, ErrTampered
	}
	return state, nil
}
