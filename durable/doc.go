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
package durable
