// Package durable keeps what a fleet of airlock processes shares about its
// chains in one blobstore.Store (one bucket): each chain's record and its
// lease, the parked chains' sealed states, their approval requests and
// decisions, and an index of the live chains. Processes never talk to each
// other; every transition that must happen once is a create-only record,
// which exactly one writer wins:
//
//	chains/<id>/rec           the chain's record (overwritten as it runs)
//	chains/<id>/end           its final record: the first finisher wins
//	chains/<id>/park/<gen>    a parked state's seal (the state is a pinned blob)
//	chains/<id>/script        a parked chain's script, for its approvers (Park.Script)
//	chains/<id>/claim/<gen>   who continues that state: resume, expire or cancel
//	approvals/<id>/req        a parked call's approval request
//	approvals/<id>/decision   its decision: the first decision wins
//
// all under the chain's tenant, and in the fleet namespace
// (blobstore.FleetTenant) live/<tenant>/<id> for each chain running or
// parked, which the processes scan for lapsed leases and resumable chains.
//
// At most once: a decision is recorded once; a parked generation is claimed
// once, so its state is continued once and an approved call is handed to
// the invoker once; a chain ends once. A process that dies while continuing
// a state leaves the chain running with a lease that lapses; another
// process then ends it as interrupted (Interrupt), listing the calls that
// had started as call_interrupted, and nothing runs them again.
//
//	fleet, err := durable.New(durable.Options{Blobs: store, Key: fleetKey})
//	if err := fleet.CheckStore(ctx); err != nil { … } // once, on joining
//	d, err := fleet.Decide(ctx, tenant, approvalID, durable.Decision{Approved: true, ArgsHash: hash})
//	if errors.Is(err, durable.ErrAlreadyDecided) { … } // d is the first decision
//	if won, _ := fleet.Claim(ctx, tenant, chainID, gen, "resume"); won { … }
//
// Every record read from the bucket is untrusted: its size is bounded by
// blobstore.MaxRecordBytes, a chain record's values by a count checked
// before it is decoded, and each decoder is fuzzed (records_fuzz_test.go).
// Every object a process acts on is authenticated (auth.go): a record
// carries an HMAC-SHA256 under a key derived from Options.Key for its kind,
// bound to its kind, tenant, chain or approval and (claims) generation; a
// parked state is encrypted and authenticated with a key derived from
// Options.Key and bound to its tenant, chain and generation, and its seal
// is an HMAC under Options.Key; a result moved to a blob is named with its
// SHA-256 in the authenticated record. Objects are written under
// Options.Key and accepted under it or any of Options.PreviousKeys. An
// object that is not authentic is never acted on: reads treat it as
// absent, and a create-only write passes over it to the object's next name
// (end, end.1, … up to four), so that a forgery written first does not
// block the real end, claim or decision. Each refusal is logged
// (Options.Logger) and counted (airlock_fleet_refused_total{kind},
// Options.Registerer).
//
// # Concurrency
//
// A Store is immutable after New and safe for concurrent use; every method
// may be called from any goroutine. Any number of Stores, in any number
// of processes, may share one bucket: they coordinate only through it.
// What must happen once is a create-only write (S3 If-None-Match), of
// which exactly one writer wins, whichever process or goroutine it is:
// Finish (the end record), Claim, Decide and SavePark (a generation's
// seal). CheckStore verifies that the store refuses a second create-only
// write; on one that does not, nothing is at most once. It also verifies
// that the store locks versions (blobstore.Store.Locked): then Finish,
// Claim and Decide write versions locked for Retention (S3 Object Lock,
// compliance mode) and every reader reads the first one written, so a
// bucket writer who deletes them and puts older authentic objects back (a
// rollback) cannot make a generation be claimed, a chain end or a call be
// decided a second time. A store that does not lock is refused unless
// Options.AllowUnlockedStore (docs/durability.md, "Rollback").
//
// The other records are overwritten, last writer wins: a chain's running
// record (PutChain; GetChain reads the end record first, so a PutChain
// racing a Finish never hides the outcome), the fleet index entries, and an
// approval request rewritten without its arguments once decided. The index
// entry's Decided flag (set by Decide) is a hint for Scan's readers, not a
// guarantee: a PutChain racing it may clear it, and a parked chain is also
// found by its expiry and wake times. PutChain writes the index entry
// before the record, so every record is listed; an entry ahead of its
// record (its process died, or the record's write failed, in between) is
// put right by Reconcile, where the record wins.
//
// Faults of the store (THREATS.md T6): the writes of a park, a chain's
// record and its release are tried again a few times (five attempts, about
// 0.3 s) when the store fails, never on an answer (not found, exists,
// forged, ended) nor once the context ends; a create-only write whose
// answer was lost is recognised as won by its own bytes. What an ended
// chain holds is released before its end is recorded (Interrupt, Abandon),
// so a process killed in between leaves the chain to another that releases
// again; Release withdraws every pin of the chain's id
// (blobstore.Store.UnpinOwner) and deletes every parked generation
// (ReleaseParks).
//
// Times are this process's clock (Options.Clock). Interrupt ends a chain
// only once its lease lapsed by a whole lease more, so clocks may differ
// by up to one Options.Lease between processes; StaleClaim waits two.
//
// ListChains, ListApprovals and Scan list names first, then read each
// record and call fn with it, one at a time on the calling goroutine; a
// record may change or vanish between the listing and the read (vanished
// ones are skipped), and fn may call the Store.
//
// # Metrics
//
// With Options.Registerer, airlock_fleet_refused_total{kind}: the objects
// refused as not authentic, by kind (Kinds; every read that refuses one
// counts, so a forgery read at each scan counts at each scan).
//
// # Errors
//
// New returns an error wrapping ErrInvalidOptions that names the field.
// CheckStore returns ErrUnlockedStore, ErrNoConditionalWrites, or the
// store's error wrapped. LoadPark returns ErrStale for a generation more
// than ResumeGrace past its expiry.
//
// Reads return ErrNotFound (wrapped) when the tenant has no such record or
// the id is invalid: GetChain, GetApproval, GetScript, LoadPark,
// StaleClaim (no claim), Claim (invalid id). A record the fleet's keys do
// not authenticate is ErrNotFound wrapping ErrForged (GetChain's running
// record, GetApproval's request, GetScript's script, StaleClaim's claim); ListChains,
// ListApprovals and Scan skip such records, GetChain passes over a forged
// end and GetApproval over a forged decision (as absent), and LoadPark
// over a forged request. Claim, Finish and Decide return ErrForged when
// forged objects hold every name the object may take. A record that is not one this package writes
// (not valid JSON, naming another chain or approval than the one it is
// stored as, or a chain record with implausibly many values) is
// ErrMalformed (wrapped), from GetChain, GetApproval, StaleClaim and the
// methods built on them (ListChains, ListApprovals, Decide, Interrupt,
// Abandon, LoadPark); Scan skips such index entries. LoadPark and
// ReleasePark return ErrTampered for a seal or state that does not match
// (edited, moved to another chain, tenant or generation, or sealed with
// another key) and ErrIncompatible (wrapped) for a seal of another format;
// LoadPark also refuses a state over Options.MaxStateBytes.
//
// Writes: PutChain returns ErrEnded once the chain has ended. Decide
// returns ErrAlreadyDecided with the first decision, ErrHashMismatch for a
// decision on other arguments, ErrExpired past the request's expiry.
// Finish and Claim report losing the create-only race as false with a nil
// error; Interrupt and Abandon report false when there was nothing to do
// or another process did it. PutChain, Finish and SavePark refuse an
// invalid chain id or generation with an error naming it, and SavePark a
// generation parked already. Any method may also return the blob store's
// errors (blobstore.ErrRecordTooLarge, a driver failure), wrapped, and the
// context's.
package durable
