// Package blobstore keeps the artifacts of tool chains: tenant-scoped,
// pinnable blobs behind unguessable refs, on a pluggable storage Driver.
//
//	d, err := fsblob.New(dir) // or memblob.New(), s3blob.New(ctx, cfg)
//	if err != nil { ... }
//	store := blobstore.New(d, blobstore.Options{}) // TTL 24h, MaxBlobBytes 1 GiB
//	defer store.Close()
//	go store.RunSweeper(ctx, time.Minute)
//
//	a, err := store.Put(ctx, "acme", r, "application/json") // streams r
//	err = store.Pin(ctx, "acme", a.Ref, sessionID)          // keep while in use
//	rc, attrs, err := store.Open(ctx, "acme", a.Ref)
//	err = store.Unpin(ctx, "acme", a.Ref, sessionID)        // expires TTL later
//
// Store is the portable type; a Driver is a flat key/object store that knows
// nothing about tenants, refs or pins. Drivers live in subpackages (fsblob,
// the embedded default; s3blob; memblob) and register nothing global; the
// storetest package checks any Driver against a Store, and faultblob wraps
// one to inject store failures in tests. A Driver may also be an
// OnceDriver (s3blob on a bucket with object locking, memblob): then
// PutRecordOnce writes records no writer of the storage can take back
// before their retention date, and GetRecordOnce reads them as first
// written (docs/durability.md, "Rollback").
//
// # Refs
//
// A ref is exactly RefLen (37) bytes:
//
//	"blob_" + base32(R ‖ C)
//
// where R is 16 bytes (128 bits) from crypto/rand, C is the first 4 bytes of
// SHA-256("airlock blobstore ref v1" ‖ 0x00 ‖ tenant ‖ 0x00 ‖ R), and base32
// is RFC 4648 with the lower-case alphabet a–z2–7 and no padding (32
// characters). Every method checks the length, prefix, alphabet and C
// against the caller's tenant before any driver sees the ref, so a
// malformed, forged, truncated or overlong ref, or one minted for another
// tenant, costs no I/O and fails exactly like a missing one, with
// ErrNotFound. C is a binding, not a secret: the isolation comes from the
// storage layout, where every object of a blob lives under
// "b/<tenant>/<base32>/", so a ref resolved for one tenant cannot reach
// another tenant's objects.
//
// Tenant ids match ^[a-z0-9][a-z0-9_-]{0,63}$ (ValidTenant). Pin owners may
// be any string of 1 to 256 bytes; they are stored hashed.
//
// # Pins and expiry
//
// A blob with at least one pin never expires. An unpinned blob expires
// Options.TTL after it was created or last unpinned, whichever is later, and
// from then on every method treats it as missing. Sweep reclaims the space
// of expired blobs; it never removes a pinned one, even when other processes
// pin, unpin and sweep the same blob at the same time (see RATIONALE.md,
// "Why pin-marker objects?"). UnpinOwner withdraws every pin of one owner
// on a tenant's blobs, for an owner that lost its list of refs (a process
// that died); it lists at most MaxUnpinOwnerKeys keys of the tenant.
//
// # Concurrency
//
// A Store is safe for concurrent use by multiple goroutines. Any number of
// Stores, in one process or many, may share the same storage (a directory, a
// bucket); Pin, Unpin, Delete and Sweep coordinate through the storage
// alone. RunSweeper starts no goroutine of its own: it runs in the caller's
// and returns when its context ends or the Store is closed.
//
// # Errors
//
// Every error a Store returns is one of the sentinels in errors.go or wraps
// a driver or reader error with the operation that failed: ErrNotFound for
// any ref that names no live blob of the tenant (never wrapped, so that all
// such cases look identical), ErrInvalidTenant, ErrInvalidOwner,
// ErrInvalidContentType, ErrInvalidRange, ErrTooLarge, ErrCorrupt,
// ErrTooManyKeys (UnpinOwner, wrapped) and ErrClosed. A failed Put leaves
// no visible blob; a failed Delete may leave objects of an invisible blob,
// which calling Delete again removes.
package blobstore
