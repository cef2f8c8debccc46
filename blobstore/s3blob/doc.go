// Package s3blob is a blobstore.Driver over an S3 bucket (AWS S3, MinIO and
// other compatible servers), built on github.com/minio/minio-go/v7.
//
//	cfg, err := s3blob.ConfigFromEnv() // AIRLOCK_S3_ENDPOINT, _BUCKET, _ACCESS_KEY, ...
//	if err != nil { ... }
//	d, err := s3blob.New(ctx, cfg)
//	if err != nil { ... }
//	store := blobstore.New(d, blobstore.Options{})
//	defer store.Close()
//	go store.RunSweeper(ctx, time.Minute)
//
// Every object a Store keeps (bytes, metadata, pin markers, sweep claims)
// is one S3 object named Config.Prefix + key. Uploads stream: objects up to
// Config.PartSize go up in one PUT, larger ones as multipart uploads that
// hold at most (Concurrency+1)×PartSize bytes of buffers and are aborted on
// any failure, so a half-written object never becomes visible. Create-only
// writes use If-None-Match: * where the server honours it. Pins are marker
// objects, which makes them visible to every process sharing the bucket
// (RATIONALE.md, "Why pin-marker objects?").
//
// A bucket New creates has object locking on (and so versioning): the
// Driver is then a blobstore.OnceDriver whose PutOnce writes a version
// under retention in compliance mode and whose ReadOnce reads a key's
// oldest version, which a bucket writer can neither delete nor replace
// before its retention ends (docs/durability.md, "Rollback"). Locked
// reports whether the bucket has it; object locking cannot be turned on
// for an existing bucket by this package (create a new one, or enable it
// with the server's tools). On a locked bucket New also installs a rule
// that removes noncurrent versions after a day and expired delete markers
// (locked versions stay until their retention ends).
//
// Expiry is done by Store.Sweep. New also installs a lifecycle rule that
// aborts incomplete multipart uploads after a day (where the server accepts
// one; MinIO cleans them up on its own) and, if Config.ExpireAfterDays is
// set, a rule that expires everything under the prefix after that many
// days as a backstop.
//
// The package's tests run against a real MinIO: scripts/minio.sh run --
// go test ./blobstore/... starts one and sets the AIRLOCK_S3_* variables.
//
// # Concurrency
//
// A Driver is safe for concurrent use, and any number of Drivers, in any
// number of processes, may share a bucket and prefix. The server must be
// strongly consistent (AWS S3 and MinIO are).
//
// # Errors
//
// New returns ErrConfig for a bad Config and ErrBucket when the bucket
// cannot be reached or set up. Driver methods return blobstore.ErrNotFound
// for a missing key, blobstore.ErrExist when a create-only write finds the
// key taken, blobstore.ErrInvalidKey and blobstore.ErrClosed; other errors
// wrap minio-go's (use minio.ToErrorResponse on them). No error text ever
// contains Config.SecretKey.
package s3blob
