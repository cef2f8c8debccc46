package blobstore

import "errors"

// ErrNotFound is returned by Open, OpenRange, Stat, Delete, Pin and Unpin when
// the ref names no live blob of the tenant: the blob never existed, was
// deleted, expired, or the ref is malformed, forged, truncated, overlong or
// belongs to another tenant. All of these cases return exactly this error so
// that a caller cannot probe for other tenants' refs. Drivers return it (or
// wrap it) for a missing key.
var ErrNotFound = errors.New("blobstore: blob not found")

// ErrInvalidTenant is returned by every Store method that takes a tenant when
// the tenant id does not satisfy ValidTenant (1–64 characters of a–z, 0–9,
// '_' and '-', starting with a letter or digit).
var ErrInvalidTenant = errors.New("blobstore: invalid tenant id: want 1-64 characters of a-z, 0-9, '_' or '-', starting with a letter or digit")

// ErrInvalidOwner is returned by Pin and Unpin when the owner is empty or
// longer than MaxOwnerLen bytes.
var ErrInvalidOwner = errors.New("blobstore: invalid pin owner: want 1-256 bytes")

// ErrInvalidContentType is returned by Put when the content type is not a
// valid media type such as "text/plain; charset=utf-8".
var ErrInvalidContentType = errors.New("blobstore: invalid content type: want a media type such as application/json")

// ErrInvalidRange is returned by OpenRange when offset is negative or larger
// than the blob's size.
var ErrInvalidRange = errors.New("blobstore: invalid range: offset must be between 0 and the blob size")

// ErrTooLarge is returned by Put when the reader yields more than
// Options.MaxBlobBytes bytes; nothing is stored.
var ErrTooLarge = errors.New("blobstore: blob too large: raise Options.MaxBlobBytes or store less")

// ErrClosed is returned by every Store method called after Close, and by
// drivers used after their Close.
var ErrClosed = errors.New("blobstore: store closed")

// ErrCorrupt is returned when a blob's stored metadata cannot be decoded; the
// backing storage was changed by something other than a Store.
var ErrCorrupt = errors.New("blobstore: corrupt blob metadata")

// ErrExist is returned by a Driver's Put with PutOptions.CreateOnly when the
// key already exists. A Store never returns it to its callers.
var ErrExist = errors.New("blobstore: key already exists")

// ErrInvalidKey is returned by drivers for a key that fails ValidKey. A Store
// only builds valid keys, so seeing it means a driver is used directly with a
// bad key.
var ErrInvalidKey = errors.New("blobstore: invalid driver key")

// ErrTooManyKeys is returned (wrapped) by UnpinOwner when the tenant has
// more than MaxUnpinOwnerKeys keys: it withdrew the pins it found among the
// first ones listed, and the others stay until their owner unpins them or
// the blobs are deleted.
var ErrTooManyKeys = errors.New("blobstore: too many keys to list")

// ErrNotLocked is returned by PutRecordOnce's driver, and by OnceDriver
// implementations, when the storage does not lock versions (see
// OnceDriver.Locked).
var ErrNotLocked = errors.New("blobstore: the storage does not lock object versions (create the bucket with object locking)")

// ErrTooManyVersions is returned (wrapped) by GetRecordOnce and
// OnceDriver.ReadOnce when a key has more than MaxOnceVersions versions:
// its oldest one is not known, so nothing is read.
var ErrTooManyVersions = errors.New("blobstore: too many versions of one key to find its first")

// ErrLocked is returned (wrapped) by a driver asked to remove a version
// that is locked until its retention date (memblob's DeleteVersion).
var ErrLocked = errors.New("blobstore: object version is locked")
