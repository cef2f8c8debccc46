package blobstore

import (
	"context"
	"io"
	"strings"
	"time"
)

// Driver is the storage backend under a Store: a flat namespace of immutable
// objects addressed by keys. Implement it to put a Store on new storage; the
// memblob, fsblob and s3blob packages are the stock implementations and
// storetest checks a Driver against the Store's expectations.
//
// A Store keeps everything (blob bytes, metadata, pin markers, sweep claims)
// as objects, so a driver knows nothing about tenants, refs, pins or expiry.
// Every key a Store passes satisfies ValidKey.
//
// Each operation must be atomic and linearizable per key: once Put or
// Delete returns, every later Get, Stat and List, from this instance or
// another one over the same storage, sees the change. Pins across processes
// depend on this (see RATIONALE.md, "Why pin-marker objects?").
//
// All methods must be safe for concurrent use.
type Driver interface {
	// Put stores everything r yields, until io.EOF, under key. The object
	// becomes visible all at once when Put returns nil; if Put fails — a
	// read error from r (returned unchanged or wrapped), ctx ending, a
	// backend failure — nothing is visible under key and nothing is left
	// behind that List would report. With opts.CreateOnly, Put fails with
	// ErrExist when key already exists; otherwise it replaces the object.
	Put(ctx context.Context, key string, r io.Reader, opts PutOptions) error

	// Get opens the object under key for reading, starting offset bytes in
	// (0 ≤ offset ≤ size) and returning at most length bytes, or everything
	// to the end when length is negative. A missing key yields ErrNotFound.
	// ctx bounds the open and may also bound reading.
	Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)

	// Stat describes the object under key, or returns ErrNotFound.
	Stat(ctx context.Context, key string) (Entry, error)

	// Delete removes the object under key. Deleting a missing key is not an
	// error.
	Delete(ctx context.Context, key string) error

	// List calls fn for every object whose key starts with prefix. Keys
	// that share a prefix ending in '/' must be reported one after another
	// (lexical order does this, so does a sorted directory walk). fn may
	// call the driver, including Delete on reported keys. List stops and
	// returns fn's error if fn returns one.
	List(ctx context.Context, prefix string, fn func(Entry) error) error

	// Close releases the driver's resources. Calls after Close fail with
	// ErrClosed.
	Close() error
}

// PutOptions tunes one Driver.Put. The zero value replaces any existing
// object and records no content type.
type PutOptions struct {
	// CreateOnly makes Put fail with ErrExist when the key already exists,
	// using the backend's conditional write where it has one.
	CreateOnly bool

	// ContentType is the media type of the bytes, for drivers that can
	// label stored objects (s3blob sets the object's Content-Type). Drivers
	// may ignore it; a Store keeps its own copy in the blob's metadata.
	ContentType string
}

// Entry describes one stored object.
type Entry struct {
	// Key is the object's key, exactly as passed to Put.
	Key string
	// Size is the object's length in bytes.
	Size int64
	// ModTime is when the backend last wrote the object, by the backend's
	// clock. A Store uses it only for crash recovery (orphan and stale-claim
	// cleanup), never for blob expiry.
	ModTime time.Time
}

// MaxKeyLen is the longest key, in bytes, that ValidKey accepts.
const MaxKeyLen = 512

// ValidKey reports whether key is a well-formed driver key: 1 to MaxKeyLen
// bytes of a–z, 0–9, '_', '-', '.' and '/', with no leading or trailing '/',
// no empty segment and no "." or ".." segment. Such a key is safe to use as
// a relative file path or an S3 object name as it is. Drivers should reject
// any other key with ErrInvalidKey.
func ValidKey(key string) bool {
	if len(key) == 0 || len(key) > MaxKeyLen {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_', c == '-', c == '.', c == '/':
		default:
			return false
		}
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// ValidPrefix reports whether prefix may be passed to Driver.List: empty, or
// a ValidKey optionally followed by a single trailing '/'.
func ValidPrefix(prefix string) bool {
	if prefix == "" {
		return true
	}
	return ValidKey(strings.TrimSuffix(prefix, "/"))
}

// OnceDriver is the optional interface of a Driver whose storage keeps
// create-only records that no writer of the storage can take back: each
// write is a new version of its key, locked (S3 Object Lock in compliance
// mode) until a retention date, so that overwriting or deleting the key
// only adds a newer version or a delete marker, and the version first
// written stays readable. A fleet decides "at most once" on such records
// (durable's claims, ends and decisions; docs/durability.md, "Rollback").
//
// s3blob implements it on a bucket created with object locking, memblob as
// an in-memory model of one; fsblob does not (a shared filesystem has no
// version a writer of it cannot remove). A Store uses it through
// PutRecordOnce and GetRecordOnce.
//
// All methods must be safe for concurrent use.
type OnceDriver interface {
	Driver

	// Locked reports whether PutOnce's versions are locked: true when
	// nobody, whatever their rights to the storage, can remove or change
	// them before their retention date. When false, PutOnce fails with
	// ErrNotLocked.
	Locked() bool

	// PutOnce writes everything r yields (small: a record) as a new
	// version of key, locked until opts.RetainUntil, if key has no current
	// object (a conditional write). It returns the version's id, or
	// ErrExist when key has a current object. A key whose current version
	// is a delete marker has none, so PutOnce succeeding does not mean its
	// version is the first: ReadOnce tells.
	PutOnce(ctx context.Context, key string, r io.Reader, opts OnceOptions) (version string, err error)

	// ReadOnce opens the oldest version of key that is not a delete
	// marker: the first one written that nobody removed. It reads at most
	// MaxOnceVersions versions of key; a key with more fails with
	// ErrTooManyVersions (its oldest is not known), one with none with
	// ErrNotFound.
	ReadOnce(ctx context.Context, key string) (Version, io.ReadCloser, error)
}

// OnceOptions tunes one OnceDriver.PutOnce.
type OnceOptions struct {
	// RetainUntil is when the version's lock ends: until then nobody can
	// delete or change it. Required (a zero time fails).
	RetainUntil time.Time

	// ContentType is the media type of the bytes, as in PutOptions.
	ContentType string
}

// Version describes one version of a key of an OnceDriver.
type Version struct {
	// ID is the version's id, as PutOnce returned it.
	ID string
	// Size is the version's length in bytes.
	Size int64
	// ModTime is when the version was written, by the backend's clock.
	ModTime time.Time
}

// MaxOnceVersions is the most versions of one key ReadOnce reads (one
// page of an S3 listing). A create-only record gets one version from its
// writer, a few more when retried writes race; a bucket writer who piles
// more on a key only denies service to what it stands for.
const MaxOnceVersions = 1000
