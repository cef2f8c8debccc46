// Package memblob is a blobstore.Driver that keeps objects in memory, for
// tests and short-lived tools.
//
//	store := blobstore.New(memblob.New(), blobstore.Options{})
//	defer store.Close()
//
// A Driver's objects live as long as the Driver or any Driver returned by
// its Reopen; nothing is persisted. Put reads the whole object into memory,
// so memblob does not bound memory the way fsblob and s3blob do.
//
// A Driver is also a blobstore.OnceDriver, a model of a bucket with object
// locking: a key written with PutOnce keeps every version, oldest first;
// Put over it adds a version, Delete a delete marker, and DeleteVersion
// refuses a version locked until a date still ahead. Noncurrent versions
// that are not locked go at once (as a lifecycle rule expiring them would
// remove them), and other keys keep only their current version. Tests play
// a bucket writer (docs/durability.md, "Rollback") with Put, Delete,
// Versions and DeleteVersion.
//
// # Concurrency
//
// A Driver is safe for concurrent use. Drivers sharing storage through
// Reopen see each other's writes at once, like processes sharing a
// directory or a bucket.
//
// # Errors
//
// Methods return blobstore.ErrNotFound for a missing key, blobstore.ErrExist
// for a CreateOnly put of an existing key, blobstore.ErrInvalidKey for a key
// that fails blobstore.ValidKey, blobstore.ErrLocked for DeleteVersion of a
// locked version and blobstore.ErrClosed after Close; read
// errors from the Put reader and ctx errors are returned wrapped.
package memblob
