package blobstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"mime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults applied by New to zero Options fields.
const (
	// DefaultTTL is how long an unpinned blob lives when Options.TTL is zero.
	DefaultTTL = 24 * time.Hour
	// DefaultRecordTTL is how long a record lives after its last write
	// when Options.RecordTTL is zero.
	DefaultRecordTTL = 7 * 24 * time.Hour
	// DefaultMaxBlobBytes is the largest blob Put accepts when
	// Options.MaxBlobBytes is zero: 1 GiB.
	DefaultMaxBlobBytes int64 = 1 << 30
	// DefaultContentType is recorded by Put when it is given none.
	DefaultContentType = "application/octet-stream"
)

// Crash-recovery timers. They compare backend modification times with the
// wall clock (never Options.Clock), because they bound operations that run in
// real time.
const (
	// orphanGrace is how old every object of a blob without metadata must
	// be before Sweep removes it: the leftovers of a crashed Put or sweep.
	orphanGrace = time.Hour
	// claimStale is the age after which a sweep claim is ignored and
	// removed: its sweeper died. A live sweeper gives up on a blob when
	// half of it has passed since its claim.
	claimStale = 10 * time.Minute
	// cleanupTimeout bounds best-effort cleanup that runs after ctx ended.
	cleanupTimeout = 30 * time.Second
)

// Options configures a Store. The zero value is ready to use; every field
// documents its default.
type Options struct {
	// TTL is how long a blob lives while nobody pins it, counted from its
	// creation or from its latest Unpin, whichever is later. A blob whose
	// TTL has run out is gone for every method at once, whether or not a
	// sweeper has reclaimed its space. Zero or negative means DefaultTTL
	// (24h).
	TTL time.Duration

	// MaxBlobBytes is the largest blob Put accepts, in bytes; a larger one
	// fails with ErrTooLarge and leaves nothing behind. Zero or negative
	// means DefaultMaxBlobBytes (1 GiB).
	MaxBlobBytes int64

	// RecordTTL is how long a record (PutRecord) lives after its last
	// write: Sweep removes older ones. Zero or negative means
	// DefaultRecordTTL (7 days). Idempotency records must outlive their
	// dedup window, so a window longer than this is refused by the
	// configuration.
	RecordTTL time.Duration

	// Clock returns the current time, for blob creation times and TTLs. Nil
	// means time.Now. Stores sharing storage should have clocks that agree.
	Clock func() time.Time

	// Logger receives sweeper activity and cleanup failures. It never sees
	// blob contents or credentials. Nil discards everything.
	Logger *slog.Logger
}

// Attrs describes a stored blob.
type Attrs struct {
	// Ref is the blob's reference: RefLen bytes, valid only with Tenant.
	Ref string
	// Tenant is the tenant that owns the blob.
	Tenant string
	// ContentType is the media type given to Put, or DefaultContentType.
	ContentType string
	// Size is the blob's length in bytes.
	Size int64
	// SHA256 is the lower-case hex SHA-256 digest of the blob's bytes.
	SHA256 string
	// Created is when Put finished, by the Store's clock, in UTC.
	Created time.Time
}

// Store keeps tenant-scoped, reference-counted blobs on a Driver. Create one
// with New; it is safe for concurrent use, and several Stores (in one process
// or many) may share the same storage.
type Store struct {
	d     Driver
	ttl   time.Duration
	rttl  time.Duration
	max   int64
	clock func() time.Time
	log   *slog.Logger

	closed    atomic.Bool
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// New returns a Store over d, configured by opts (the zero value works).
// The Store owns d: Store.Close closes it.
func New(d Driver, opts Options) *Store {
	s := &Store{
		d:     d,
		ttl:   opts.TTL,
		rttl:  opts.RecordTTL,
		max:   opts.MaxBlobBytes,
		clock: opts.Clock,
		log:   opts.Logger,
		done:  make(chan struct{}),
	}
	if s.ttl <= 0 {
		s.ttl = DefaultTTL
	}
	if s.max <= 0 {
		s.max = DefaultMaxBlobBytes
	}
	if s.rttl <= 0 {
		s.rttl = DefaultRecordTTL
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// TTL returns how long an unpinned blob lives: Options.TTL, or DefaultTTL.
func (s *Store) TTL() time.Duration { return s.ttl }

// Put stores everything r yields as a new blob of tenant and returns its
// attributes, including a fresh unguessable Ref. The bytes stream through to
// the driver; Put never holds the whole blob in memory. contentType must be
// a media type, or empty for DefaultContentType.
//
// The blob is unpinned: it expires after Options.TTL unless pinned. If r
// returns an error, ctx ends or the blob exceeds Options.MaxBlobBytes, Put
// fails and no blob becomes visible. ctx bounds the whole upload.
func (s *Store) Put(ctx context.Context, tenant string, r io.Reader, contentType string) (Attrs, error) {
	if s.closed.Load() {
		return Attrs{}, ErrClosed
	}
	if !ValidTenant(tenant) {
		return Attrs{}, ErrInvalidTenant
	}
	ct, err := normContentType(contentType)
	if err != nil {
		return Attrs{}, err
	}
	ref, body := newRef(tenant)
	k := newBlobKeys(tenant, ref, body)

	// The metadata goes out as soon as the last byte has been read, while
	// the driver may still be sending the tail of the bytes: this halves
	// the latency of small blobs on S3. It is safe because nobody knows the
	// ref before Put returns; if the bytes then fail, the metadata is
	// removed again (or, if even that fails, expires after the TTL).
	var (
		m        metaRecord
		metaDone = make(chan error, 1)
		started  atomic.Bool
	)
	hr := &hashingReader{r: r, h: sha256.New(), max: s.max}
	hr.onEOF = func() {
		m = metaRecord{
			Version:     metaVersion,
			Tenant:      tenant,
			ContentType: ct,
			Size:        hr.n,
			SHA256:      hex.EncodeToString(hr.h.Sum(nil)),
			Created:     s.clock().UTC(),
		}
		b, err := json.Marshal(m)
		started.Store(true)
		if err != nil {
			metaDone <- err
			return
		}
		go func() { metaDone <- ownCreate(writeRecord(ctx, s.d, k.meta(), b, true)) }()
	}
	// waitMeta returns the metadata write's result, or nil if none began.
	waitMeta := func() error {
		if !started.Load() {
			return nil
		}
		return <-metaDone
	}

	err = s.d.Put(ctx, k.data(), hr, PutOptions{CreateOnly: true, ContentType: ct})
	if hr.eof && hr.err == nil {
		err = ownCreate(err)
	}
	if err != nil || hr.err != nil || !hr.eof {
		if waitMeta() == nil && started.Load() {
			s.cleanup(ctx, k.meta())
		}
		switch {
		case hr.err != nil:
			// The driver must have failed; make sure, and report the
			// reader's error rather than the driver's rendering of it.
			if err == nil {
				s.cleanup(ctx, k.data())
			}
			if errors.Is(hr.err, ErrTooLarge) {
				return Attrs{}, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, s.max)
			}
			return Attrs{}, fmt.Errorf("blobstore: put: reading blob: %w", hr.err)
		case err != nil:
			return Attrs{}, fmt.Errorf("blobstore: put: writing blob: %w", err)
		default:
			s.cleanup(ctx, k.data())
			return Attrs{}, errors.New("blobstore: put: driver returned before reading the blob to EOF (driver bug)")
		}
	}
	if err := waitMeta(); err != nil {
		s.cleanup(ctx, k.data())
		return Attrs{}, fmt.Errorf("blobstore: put: writing metadata: %w", err)
	}
	return m.attrs(ref), nil
}

// Open returns a reader over the whole blob and its attributes. The caller
// must close the reader. ctx bounds the open, and with some drivers
// (s3blob) the reads too: keep it alive until the reader is closed.
func (s *Store) Open(ctx context.Context, tenant, ref string) (io.ReadCloser, Attrs, error) {
	k, err := s.resolve(tenant, ref)
	if err != nil {
		return nil, Attrs{}, err
	}
	// Ask for the bytes while the metadata is checked: one round trip
	// instead of two on remote drivers.
	type opened struct {
		rc  io.ReadCloser
		err error
	}
	data := make(chan opened, 1)
	gctx, cancel := context.WithCancel(ctx)
	go func() {
		rc, err := s.d.Get(gctx, k.data(), 0, -1)
		data <- opened{rc, err}
	}()
	m, err := s.live(ctx, k)
	if err != nil {
		cancel()
		if o := <-data; o.rc != nil {
			o.rc.Close()
		}
		return nil, Attrs{}, err
	}
	o := <-data
	if o.err != nil {
		cancel()
		return nil, Attrs{}, s.driverErr("open", o.err)
	}
	return &cancelCloser{ReadCloser: o.rc, cancel: cancel}, m.attrs(ref), nil
}

// cancelCloser releases the context of a read when the reader is closed.
type cancelCloser struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelCloser) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// OpenRange returns a reader over length bytes of the blob starting at
// offset, or over the rest of the blob when length is negative or reaches
// past the end. offset must be between 0 and the blob's size (inclusive),
// else OpenRange fails with ErrInvalidRange. ctx bounds it as for Open.
func (s *Store) OpenRange(ctx context.Context, tenant, ref string, offset, length int64) (io.ReadCloser, error) {
	k, err := s.resolve(tenant, ref)
	if err != nil {
		return nil, err
	}
	m, err := s.live(ctx, k)
	if err != nil {
		return nil, err
	}
	if offset < 0 || offset > m.Size {
		return nil, fmt.Errorf("%w: offset %d, size %d", ErrInvalidRange, offset, m.Size)
	}
	if length < 0 || length > m.Size-offset {
		length = m.Size - offset
	}
	if length == 0 {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	rc, err := s.d.Get(ctx, k.data(), offset, length)
	if err != nil {
		return nil, s.driverErr("open range", err)
	}
	return rc, nil
}

// Stat returns the blob's attributes. ctx bounds the lookup.
func (s *Store) Stat(ctx context.Context, tenant, ref string) (Attrs, error) {
	k, err := s.resolve(tenant, ref)
	if err != nil {
		return Attrs{}, err
	}
	m, err := s.live(ctx, k)
	if err != nil {
		return Attrs{}, err
	}
	return m.attrs(ref), nil
}

// Delete removes the blob now, pinned or not, together with its pins.
// Deleting a blob that is already gone returns ErrNotFound. ctx bounds the
// removal; if it ends part way (or a store call fails), the blob is already
// invisible and Delete returns an error: calling it again removes what the
// first call left (its pin markers included) and then returns ErrNotFound,
// and Sweep reclaims whatever nobody deletes after an hour.
func (s *Store) Delete(ctx context.Context, tenant, ref string) error {
	k, err := s.resolve(tenant, ref)
	if err != nil {
		return err
	}
	if _, err := s.live(ctx, k); err != nil {
		if errors.Is(err, ErrNotFound) {
			if cerr := s.removeLeftovers(ctx, k); cerr != nil {
				return cerr
			}
		}
		return err
	}
	_, err = s.remove(ctx, k, nil)
	return err
}

// removeLeftovers deletes the objects a removal that failed part way left
// of a blob whose metadata is gone (its bytes, pin markers, unpin time),
// so that a caller trying a failed Delete or Unpin again finishes the job
// rather than leave pin markers for Sweep's orphan grace. A blob whose
// metadata is there (expired, not yet swept) is left to Sweep; claims are
// left to their sweepers.
func (s *Store) removeLeftovers(ctx context.Context, k blobKeys) error {
	g, err := s.scanGroup(ctx, k)
	if err != nil || g.hasMeta {
		return err
	}
	var errs []error
	for _, e := range g.entries {
		if strings.HasPrefix(e.Key, k.claimPrefix()) {
			continue
		}
		if err := s.d.Delete(ctx, e.Key); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("blobstore: delete: removing what an earlier removal left: %w", errors.Join(errs...))
	}
	return nil
}

// Pin marks the blob as in use by owner (for example a session id); a pinned
// blob never expires and no sweeper removes it. Pinning again with the same
// owner changes nothing. owner may be any string of 1 to MaxOwnerLen bytes.
//
// Pin is safe against a concurrent Sweep in any process: when it returns nil
// the blob stays until every owner has unpinned it or it is deleted. If a
// sweeper is removing the blob at that moment, Pin waits for it to finish or
// give up, bounded by ctx, and returns ErrNotFound if the blob went.
func (s *Store) Pin(ctx context.Context, tenant, ref, owner string) error {
	k, err := s.resolve(tenant, ref)
	if err != nil {
		return err
	}
	if err := validOwner(owner); err != nil {
		return err
	}
	if _, err := s.live(ctx, k); err != nil {
		return err
	}
	pinKey := k.pin(owner)
	if err := writeRecord(ctx, s.d, pinKey, nil, false); err != nil {
		// The marker may have been written all the same (the store's
		// answer lost): a marker its owner does not know of would keep
		// the blob for ever.
		s.cleanup(ctx, pinKey)
		return s.driverErr("pin", err)
	}
	// The marker is visible. Any sweeper that claims the blob from now on
	// sees it and backs off; one that claimed it earlier may not have, so
	// wait until no claim is left and look again (RATIONALE.md).
	if err := s.awaitClaims(ctx, k); err != nil {
		s.cleanup(ctx, pinKey)
		return err
	}
	if _, err := s.d.Stat(ctx, k.meta()); err != nil {
		s.cleanup(ctx, pinKey)
		return s.driverErr("pin", err)
	}
	return nil
}

// Unpin withdraws owner's pin. Unpinning an owner that holds no pin changes
// nothing and returns nil. When the last pin goes, the TTL clock restarts:
// the blob lives Options.TTL from now unless pinned again.
func (s *Store) Unpin(ctx context.Context, tenant, ref, owner string) error {
	k, err := s.resolve(tenant, ref)
	if err != nil {
		return err
	}
	if err := validOwner(owner); err != nil {
		return err
	}
	pinKey := k.pin(owner)
	if _, err := s.d.Stat(ctx, pinKey); errors.Is(err, ErrNotFound) {
		_, err := s.live(ctx, k)
		return err
	} else if err != nil {
		return s.driverErr("unpin", err)
	}
	return s.unpinMarker(ctx, k, pinKey)
}

// unpinMarker withdraws the pin whose marker is pinKey. The marker of a
// blob whose metadata is gone (a removal failed part way) is deleted too,
// and the answer is ErrNotFound.
func (s *Store) unpinMarker(ctx context.Context, k blobKeys, pinKey string) error {
	if _, err := s.readMeta(ctx, k); err != nil {
		if errors.Is(err, ErrNotFound) {
			if derr := s.d.Delete(ctx, pinKey); derr != nil {
				return s.driverErr("unpin", derr)
			}
		}
		return err
	}
	// Record the time before dropping the marker: a sweeper that no longer
	// sees the marker then always sees the new time.
	now, err := s.clock().UTC().MarshalText()
	if err != nil {
		return fmt.Errorf("blobstore: unpin: %w", err)
	}
	if err := writeRecord(ctx, s.d, k.unpinned(), now, false); err != nil {
		return s.driverErr("unpin", err)
	}
	if err := s.d.Delete(ctx, pinKey); err != nil {
		return s.driverErr("unpin", err)
	}
	return nil
}

// MaxUnpinOwnerKeys bounds the keys UnpinOwner lists: 100,000 keys, some
// 25,000 blobs of a tenant (a blob takes three or four keys and a key per
// pin).
const MaxUnpinOwnerKeys = 100_000

// maxUnpinOwnerErrors caps the per-blob errors UnpinOwner reports.
const maxUnpinOwnerErrors = 8

// UnpinOwner withdraws every pin owner holds on the tenant's blobs, and
// returns how many it withdrew: for an owner whose list of refs was lost
// (a process that pinned them died before it wrote them down). It lists
// the tenant's keys, at most MaxUnpinOwnerKeys; a tenant with more fails
// with ErrTooManyKeys once the pins found among the first ones are
// withdrawn (the others stay until their owner unpins them, or are
// deleted). A pin marker of a blob that is gone is deleted too. ctx bounds
// the listing and the unpins; it keeps going past errors on single blobs
// and returns them joined.
func (s *Store) UnpinOwner(ctx context.Context, tenant, owner string) (int, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	if !ValidTenant(tenant) {
		return 0, ErrInvalidTenant
	}
	if err := validOwner(owner); err != nil {
		return 0, err
	}
	marker := keyPinDir + pinHash(owner)
	var (
		found  []blobKeys
		listed int
		errs   []error
		capped = errors.New("capped")
	)
	err := s.d.List(ctx, keyRoot+tenant+"/", func(e Entry) error {
		if listed++; listed > MaxUnpinOwnerKeys {
			return capped
		}
		_, t, body, rest, ok := groupOf(e.Key)
		if ok && t == tenant && rest == marker {
			found = append(found, newBlobKeys(tenant, refPrefix+body, body))
		}
		return nil
	})
	switch {
	case errors.Is(err, capped):
		errs = append(errs, fmt.Errorf("%w: tenant %s has more than %d keys; the pins beyond them were not looked for", ErrTooManyKeys, tenant, MaxUnpinOwnerKeys))
	case err != nil:
		return 0, s.driverErr("unpin owner", err)
	}
	n := 0
	for _, k := range found {
		err := s.unpinMarker(ctx, k, k.pin(owner))
		switch {
		case err == nil:
			n++
		case errors.Is(err, ErrNotFound):
			// The blob is gone; its marker went with it.
		case len(errs) < maxUnpinOwnerErrors:
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// Close marks the Store closed, stops RunSweeper and closes the driver.
// Later calls of any method return ErrClosed; readers already returned by
// Open keep working until closed, if the driver allows. Close is idempotent:
// later calls return the first call's result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		close(s.done)
		if err := s.d.Close(); err != nil {
			s.closeErr = fmt.Errorf("blobstore: close: %w", err)
		}
	})
	return s.closeErr
}

// resolve checks the store, tenant and ref, in that order, and lays out the
// blob's keys. No driver sees a ref that fails here.
func (s *Store) resolve(tenant, ref string) (blobKeys, error) {
	if s.closed.Load() {
		return blobKeys{}, ErrClosed
	}
	if !ValidTenant(tenant) {
		return blobKeys{}, ErrInvalidTenant
	}
	body, ok := parseRef(tenant, ref)
	if !ok {
		return blobKeys{}, ErrNotFound
	}
	return newBlobKeys(tenant, ref, body), nil
}

// live returns the blob's metadata, or ErrNotFound if it is missing or
// expired. It looks at pins only once the blob is older than the TTL.
func (s *Store) live(ctx context.Context, k blobKeys) (metaRecord, error) {
	m, err := s.readMeta(ctx, k)
	if err != nil {
		return metaRecord{}, err
	}
	now := s.clock()
	if now.Before(m.Created.Add(s.ttl)) {
		return m, nil
	}
	st, err := s.scanGroup(ctx, k)
	if err != nil {
		return metaRecord{}, err
	}
	alive, err := s.aliveAt(ctx, k, m, st, now)
	if err != nil {
		return metaRecord{}, err
	}
	if !alive {
		return metaRecord{}, ErrNotFound
	}
	return m, nil
}

// aliveAt decides whether a blob lives at now, given a scan of its objects
// taken after its metadata was read. The scan must come before the unpin
// time is read: Unpin writes the time before it drops its marker.
func (s *Store) aliveAt(ctx context.Context, k blobKeys, m metaRecord, st groupState, now time.Time) (bool, error) {
	if now.Before(m.Created.Add(s.ttl)) || st.pins > 0 {
		return true, nil
	}
	if !st.unpinned {
		return false, nil
	}
	t, ok, err := s.readUnpinned(ctx, k)
	if err != nil {
		return false, err
	}
	return ok && now.Before(t.Add(s.ttl)), nil
}

// driverErr maps a driver error: a missing object is exactly ErrNotFound,
// anything else is wrapped with the operation.
func (s *Store) driverErr(op string, err error) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return ErrNotFound
	case errors.Is(err, ErrClosed):
		return ErrClosed
	default:
		return fmt.Errorf("blobstore: %s: %w", op, err)
	}
}

// ownCreate maps ErrExist to success for a create-only write under a key
// whose name is fresh and random (a blob's bytes and metadata, a claim):
// only this write can have put an object there, an attempt of it that a
// client retry raced, or whose answer was lost.
func ownCreate(err error) error {
	if errors.Is(err, ErrExist) {
		return nil
	}
	return err
}

// cleanupTries bounds the attempts of cleanup, 10 ms apart and then twice
// as long after each failure.
const cleanupTries = 3

// cleanup deletes key on a best-effort basis, even after ctx ended, trying
// again a few times when the driver fails: what it deletes (a pin marker,
// a claim) would otherwise stay until Sweep, or for ever.
func (s *Store) cleanup(ctx context.Context, key string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	err := s.d.Delete(cctx, key)
	for try, wait := 1, 10*time.Millisecond; err != nil && try < cleanupTries && cctx.Err() == nil; try, wait = try+1, 2*wait {
		time.Sleep(wait)
		err = s.d.Delete(cctx, key)
	}
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "blobstore: cleanup failed; Sweep will retry",
			slog.String("key", key), slog.String("error", err.Error()))
	}
}

func validOwner(owner string) error {
	if len(owner) == 0 || len(owner) > MaxOwnerLen {
		return ErrInvalidOwner
	}
	return nil
}

func normContentType(ct string) (string, error) {
	if ct == "" {
		return DefaultContentType, nil
	}
	if len(ct) > 255 {
		return "", ErrInvalidContentType
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", fmt.Errorf("%w: %q", ErrInvalidContentType, ct)
	}
	out := mime.FormatMediaType(mt, params)
	if out == "" {
		return "", fmt.Errorf("%w: %q", ErrInvalidContentType, ct)
	}
	return out, nil
}

// hashingReader counts and hashes what the driver reads and enforces the
// size limit.
type hashingReader struct {
	r   io.Reader
	h   hash.Hash
	n   int64
	max int64
	eof bool
	err error // first error from r, or ErrTooLarge

	onEOF func() // called once, when r first reports io.EOF
}

func (hr *hashingReader) Read(p []byte) (int, error) {
	if hr.err != nil {
		return 0, hr.err
	}
	if hr.eof {
		return 0, io.EOF
	}
	n, err := hr.r.Read(p)
	if n > 0 {
		if hr.n+int64(n) > hr.max {
			hr.err = ErrTooLarge
			return 0, hr.err
		}
		hr.h.Write(p[:n])
		hr.n += int64(n)
	}
	switch {
	case err == io.EOF:
		hr.eof = true
		if hr.onEOF != nil {
			hr.onEOF()
		}
	case err != nil:
		hr.err = err
	}
	return n, err
}
