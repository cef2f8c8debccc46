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
// that fails blobstore.ValidKey and blobstore.ErrClosed after Close; read
// errors from the Put reader and ctx errors are returned wrapped.
package memblob
