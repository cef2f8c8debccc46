// Package server is airlock's HTTP API: agent loops in any language submit
// chains, follow them as Server-Sent Events, cancel them, decide approvals,
// download artifacts and list the tools; operators scrape /metrics.
// docs/http-api.md documents every endpoint, body and reason code, and
// docs/openapi.yaml describes them formally.
//
//	srv, err := server.New(server.Options{
//		Toolbox: box,
//		Engines: chain.Engines{Scripts: scripts},
//		Store:   store,
//		Queue:   approval.NewQueue(approval.Options{}),
//		Authenticate: func(key string) (string, bool) { return cfg.Server.TenantFor(key) },
//	})
//	if err != nil { … }
//	err = srv.ListenAndServe(ctx, "127.0.0.1:8080") // until ctx ends, then a graceful shutdown
//
// The server builds one invoker over the toolbox and runs every chain
// through it, with metrics (internal/metrics) and, when a tracer provider is
// given, OpenTelemetry spans (internal/tracing). Each chain's session id is
// its chain id, so the invoker's progress events and the approval queue's
// requests are routed to the chain's event stream by that id.
//
// # Tenants
//
// Every request acts for one tenant: the one its bearer API key is bound to,
// or DefaultTenant when no keys are configured (which ListenAndServe allows
// only on a loopback address). A chain, an approval request or an artifact
// of another tenant does not exist as far as a request is concerned: 404,
// never 403.
//
// # Concurrency
//
// A Server is safe for concurrent use. Chains run on their own goroutines,
// at most Options.MaxConcurrentChains at once. Shutdown (which
// ListenAndServe calls) ends them and releases the server's subscription to
// the approval queue; call it once you are done with a Server you serve
// through Handler.
//
// # Errors
//
// New returns ErrNoToolbox or ErrNoEngine for a missing part, an error
// wrapping invoker.ErrInvalidPolicy for an invalid Options.Policy, and the
// registry's error when Options.Registry already holds airlock's metrics.
// ListenAndServe returns ErrNeedsAPIKeys for a non-loopback address without
// keys. Every 4xx and 5xx response has the body
// {"error":{"reason":"…","message":"…"}} with a stable reason code (the
// Reason constants).
package server
