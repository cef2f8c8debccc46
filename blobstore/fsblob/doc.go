// Package fsblob is a blobstore.Driver over a local directory: the embedded
// default store of airlock.
//
//	dir, err := fsblob.DefaultDir() // os.UserCacheDir()/airlock/blobs
//	if err != nil { ... }
//	d, err := fsblob.New(dir)
//	if err != nil { ... }
//	store := blobstore.New(d, blobstore.Options{})
//	defer store.Close()
//	go store.RunSweeper(ctx, time.Minute)
//
// Each object is a file under dir/objects, at the path its key spells
// (keys are checked with blobstore.ValidKey, so none escapes the directory).
// A blob is therefore a directory holding its bytes ("data"), its metadata
// sidecar ("meta") and its pin records ("pin/…"). Writes are atomic: a Put
// streams into a temporary file under dir/tmp, fsyncs it, renames (or, for
// create-only writes, hard-links) it into place and fsyncs the directory, so
// a crash leaves either the old state or the new one plus, at worst, a
// temporary file that a later New removes.
//
// A Driver is not a blobstore.OnceDriver: a directory keeps no version of
// a file that whoever can write the directory cannot remove, so it gives
// no defence against a rollback of a fleet's records (docs/durability.md,
// "Rollback"), and a fleet refuses it unless fleet.allow_unlocked_store.
//
// # Concurrency
//
// A Driver is safe for concurrent use, and any number of Drivers, in any
// number of processes on one machine, may share a directory. dir must be on
// a local file system with atomic rename and hard links (not NFS).
//
// # Errors
//
// Methods return blobstore.ErrNotFound for a missing key, blobstore.ErrExist
// for a CreateOnly put of an existing key, blobstore.ErrInvalidKey for a key
// that fails blobstore.ValidKey and blobstore.ErrClosed after Close. Other
// errors wrap the *fs.PathError or the Put reader's error.
package fsblob
