package durable

import "errors"

var (
	// ErrNotFound is returned (wrapped) by GetChain, GetApproval, LoadPark,
	// Claim and StaleClaim when the tenant has no such chain, approval,
	// parked generation or claim, or the id is not a valid one.
	ErrNotFound = errors.New("durable: not found")

	// ErrMalformed is returned (wrapped) by GetChain, GetApproval, Decide,
	// StaleClaim, LoadPark and the others that read a record, when a record
	// in the bucket is not one this package writes: not valid JSON, naming
	// another chain or approval than the one it is stored as, or, for a
	// chain record, holding more values than any record this package
	// writes.
	ErrMalformed = errors.New("durable: malformed record")

	// ErrTampered is returned by LoadPark and ReleasePark when a parked
	// state or its seal was changed, sealed with another key, or belongs
	// to another chain or generation.
	ErrTampered = errors.New("durable: parked state refused: its seal does not match (edited, moved or sealed with another key)")

	// ErrForged is wrapped by the errors of reads and writes that met an
	// object of the bucket the fleet's keys do not authenticate: forged,
	// edited, replayed from another chain, tenant, approval, generation or
	// kind, or written under a key this process does not hold. A read
	// treats such an object as absent (the error also wraps ErrNotFound)
	// and reports it (Options.Logger, airlock_fleet_refused_total); a
	// create-only write passes over it (createOnce) and fails with it only
	// when forged objects hold every name it may take.
	ErrForged = errors.New("durable: object refused: the fleet key does not authenticate it (forged, edited, replayed or moved)")

	// ErrIncompatible is returned (wrapped) by LoadPark and ReleasePark
	// for a parked state whose seal is of a format this build does not
	// read.
	ErrIncompatible = errors.New("durable: parked state written by an incompatible version")

	// ErrStale is returned (wrapped) by LoadPark for a parked generation
	// past its expiry by more than ResumeGrace: the create-only records
	// that keep it from running twice may no longer be locked
	// (Store.Retention), so it is never continued.
	ErrStale = errors.New("durable: parked state refused: it expired too long ago to be resumed")

	// ErrUnlockedStore is returned by CheckStore for a store that does not
	// lock versions (blobstore.Store.Locked false) when
	// Options.AllowUnlockedStore is not set: a bucket writer who deletes
	// and puts back objects could then make an approved call run twice.
	ErrUnlockedStore = errors.New("durable: the store does not lock object versions: create the bucket with S3 Object Lock (scripts/minio.sh and s3blob do), or set fleet.allow_unlocked_store, which voids at-most-once against anyone who can delete objects of the bucket")

	// ErrHashMismatch is returned by Decide for a decision taken on other
	// arguments than the request's (its ArgsHash differs).
	ErrHashMismatch = errors.New("durable: the decision's args_hash is not the request's")

	// ErrAlreadyDecided is returned by Decide when the request was decided
	// before; the first decision is returned with it.
	ErrAlreadyDecided = errors.New("durable: already decided")

	// ErrExpired is returned by Decide after the request's expiry: its
	// chain stopped waiting for it.
	ErrExpired = errors.New("durable: the request expired")

	// ErrEnded is returned by PutChain once the chain has ended: its
	// record no longer changes.
	ErrEnded = errors.New("durable: the chain has ended")

	// ErrNoConditionalWrites is returned by CheckStore for a store whose
	// create-only writes do not refuse an existing object: every claim and
	// decision would then "win", and an approved call could run once per
	// process.
	ErrNoConditionalWrites = errors.New("durable: the store does not honour create-only writes (S3 If-None-Match); a fleet cannot run on it")

	// ErrInvalidOptions is returned (wrapped, naming the field) by New for
	// a nil Blobs, a Key or PreviousKeys entry shorter than 32 bytes, a
	// negative Lease or MaxStateBytes, or a Registerer that refuses the
	// metric.
	ErrInvalidOptions = errors.New("durable: invalid options")
)
