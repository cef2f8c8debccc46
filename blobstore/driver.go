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
