// Package service is airlock's transport-free chain service: the one
// backend every face (the HTTP API, MCP, the CLI) sits over. It owns the
// runs of a process and their events; it submits, cancels, resumes and
// decides; it serves a chain's view and event stream from memory or, in a
// fleet, from the shared store; and it does the fleet's upkeep: renewing
// the leases of the chains running here, parking chains that wait for a
// person, resuming decided ones on whichever process claims them first,
// and marking the chains of a lost process interrupted
// (docs/durability.md). It declares the one Profile, Role and Caller of
// the faces.
//
//	runner, err := chain.New(inv, chain.Engines{Scripts: scripts})
//	svc, err := service.New(runner, service.Options{Queue: queue})
//	svc.Start(ctx)             // fleet upkeep; nothing runs before
//	defer svc.Close(drainCtx)  // stop taking chains, drain the running ones
//	view, err := svc.Submit(ctx, svc.LocalCaller(), &service.SubmitRequest{Script: "return 1"}, service.SubmitOptions{})
//
// Every submission goes through the same checks whatever the face: the
// caller's role and tenant, the language, the tools (tool sets expanded,
// narrowed by the caller's profile), the policy and limits through their
// owners (invoker.Policy.Tighten, sandbox.Limits.Tighten, within
// Options.MaxPolicy and MaxLimits), and the script or module compiled once
// it holds a concurrency slot.
//
// A chain of another tenant does not exist as far as a caller is
// concerned: ErrNotFound, never a different answer.
//
// # Concurrency
//
// A Service is safe for concurrent use. New starts nothing: no goroutine
// runs until Start, so a read-only use (`airlock chains`) does no upkeep.
// Each chain runs on its own goroutine, at most
// Options.MaxConcurrentChains at once; a submission takes its slot before
// its module is compiled or its script checked. In a fleet, Start runs two
// loops (lease renewal every third of a lease, reaping every lease) and a
// goroutine per running chain writes its record soon after a call starts.
// A panic while a chain runs ends that chain with status error and reason
// host_error. Close ends what Start started and the chains still running.
//
// # Errors
//
// New returns ErrNoRunner or ErrNoEngine for a missing part,
// ErrParkNeedsFleet, an error for invalid Options.Limits or a ceiling
// below the service's own values, and the registry's error when
// Options.Registerer already holds the chain metrics. Submit returns a
// *SubmitError with a stable Reason (the Reason constants) for a refused
// submission. Chain, Follow, Approval, Decide, Cancel and Resume return
// ErrNotFound for what the caller's tenant does not have; Cancel wraps
// ErrFinished or ErrRunningElsewhere; Resume wraps ErrNotResumable; Decide
// returns approval.ErrArgsMismatch, approval.ErrAlreadyDecided or an
// *ExpiredError; anything that could not read or write the fleet's store
// wraps ErrStoreUnavailable.
//
// # Metrics
//
// The chain metrics (airlock_chains_total, airlock_chain_duration_seconds,
// airlock_chains_in_flight, airlock_guest_memory_bytes and the fleet's
// airlock_chain_transitions_total) go to Options.Registerer, labelled by
// status (chain.Statuses) or transition only, never by chain or tenant.
package service
