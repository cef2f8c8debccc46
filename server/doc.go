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
//		Policy:  invoker.Policy{MaxToolCalls: 20},
//		// The most a request may ask for; without a Ceiling, requests may
//		// only lower Policy and Limits.
//		Ceiling: func(p invoker.Policy, l sandbox.Limits) error {
//			if p.WithDefaults().MaxRiskUnapproved > toolbox.Safe {
//				return errors.New("max_risk_unapproved above SAFE: every risky call needs approval")
//			}
//			if p.WithDefaults().MaxToolCalls > 100 {
//				return errors.New("max_tool_calls above 100")
//			}
//			return nil
//		},
//		Authenticate: func(key string) (string, bool) { return cfg.Server.TenantFor(key) },
//	})
//	if err != nil { … }
//	err = srv.ListenAndServe(ctx, "127.0.0.1:8080") // until ctx ends, then a graceful shutdown
//
// A request's policy and limits overrides are checked against
// Options.Ceiling (above it: 400 above_operator_limit); without a Ceiling
// they may only lower the server's values, so no client can lift
// MaxRiskUnapproved to run risky tools unapproved.
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
// New returns ErrNoToolbox or ErrNoEngine for a missing part, an error
// wrapping invoker.ErrInvalidPolicy for an invalid Options.Policy, and the
// registry's error when Options.Registry already holds airlock's metrics.
// ListenAndServe returns ErrNeedsAPIKeys for a non-loopback address without
// keys. Every 4xx and 5xx response has the body
// {"error":{"reason":"…","message":"…"}} with a stable reason code (the
// Reason constants).
package server
