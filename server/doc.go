// Package server is airlock's HTTP API: agent loops in any language submit
// chains, follow them as Server-Sent Events, cancel them, decide approvals,
// download artifacts and list the tools; operators scrape /metrics.
// docs/http-api.md documents every endpoint, body and reason code, and
// docs/openapi.yaml describes them formally.
//
//	// One invoker for the process (internal/assemble builds it for airlock
//	// serve); the server runs every chain on it.
//	inv, err := invoker.New(box, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 20}, Approver: queue, Store: store})
//	runner, err := chain.New(inv, chain.Engines{Scripts: scripts})
//	srv, err := server.New(server.Options{
//		Runner: runner,
//		Store:  store,
//		Queue:  queue,
//		// The most a request may ask for; unset fields are the server's own
//		// values, which a request may only lower.
//		MaxPolicy:    invoker.Policy{MaxToolCalls: 100},
//		Authenticate: func(key string) (string, bool) { return tenantOf(key) },
//	})
//	if err != nil { … }
//	err = srv.ListenAndServe(ctx, "127.0.0.1:8080") // until ctx ends, then a graceful shutdown
//
// A request's own "policy" and "limits" go through their owners
// (invoker.Policy.Tighten, sandbox.Limits.Tighten): each value at most
// Options.MaxPolicy / MaxLimits (above it: 400 above_operator_limit), where
// an unset ceiling is the server's value, so no client can lift
// max_risk_unapproved to run risky tools unapproved.
//
// The server builds no invoker: it runs every chain on Options.Runner's,
// shared by the whole process, and gives a chain that names a subset of
// tools an allow-list on its session. Each chain's session id is its chain
// id; the server follows the chain's calls through an invoker.Observer in
// its context and routes the approval queue's requests by that id. Tool-call
// metrics and spans are the invoker's hooks' business (internal/assemble
// wires them); the server records chain metrics on Options.Registerer and,
// when a tracer provider is given, a span per chain.
//
// # Tenants
//
// Every request acts for one tenant: the one its bearer API key is bound to,
// or DefaultTenant when no keys are configured (which ListenAndServe allows
// only on a loopback address). A chain, an approval request or an artifact
// of another tenant does not exist as far as a request is concerned: 404,
// never 403.
//
// Without keys the handler also refuses (403) a request whose Host is not a
// loopback name (forbidden_host: DNS rebinding) or whose Origin is a web
// page off the loopback host (forbidden_origin), and every request body must
// come with Content-Type: application/json (415 otherwise), which a browser
// cannot send cross-site without a CORS preflight the server never grants.
//
// The event history of a chain is bounded (1024 events, 1 MiB) and carries
// a call's arguments only while its approval request is pending; the
// approval queue keeps a settled request's ArgsHash and ArgsSize, not its
// Args.
//
// # Concurrency
//
// A Server is safe for concurrent use. Chains run on their own goroutines,
// at most Options.MaxConcurrentChains at once; a submission takes its slot
// before its module is compiled or its script checked. A panic while a
// chain runs ends that chain with status error and reason host_error. Shutdown (which
// ListenAndServe calls) ends them and releases the server's subscription to
// the approval queue; call it once you are done with a Server you serve
// through Handler.
//
// # Errors
//
// New returns ErrNoRunner or ErrNoEngine for a missing part, an error for
// invalid Options.Limits or a ceiling below the server's own values, and the
// registry's error when Options.Registerer already holds the chain metrics.
// ListenAndServe returns ErrNeedsAPIKeys for a non-loopback address without
// keys. Every 4xx and 5xx response has the body
// {"error":{"reason":"…","message":"…"}} with a stable reason code (the
// Reason constants).
package server
