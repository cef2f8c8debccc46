// Package server is airlock's HTTP API: a thin face over the chain
// service (package service). Agent loops in any language submit chains,
// follow them as Server-Sent Events, cancel them, decide approvals,
// download artifacts and list the tools; operators scrape /metrics.
// docs/http-api.md documents every endpoint, body and reason code, and
// docs/openapi.yaml describes them formally.
//
//	runner, err := chain.New(inv, chain.Engines{Scripts: scripts})
//	svc, err := service.New(runner, service.Options{
//		// The most a request may ask for; unset fields are the service's
//		// own values, which a request may only lower.
//		MaxPolicy: invoker.Policy{MaxToolCalls: 100},
//		Keys:      func(key string) (service.Caller, bool) { return callerOf(key) },
//	})
//	srv, err := server.New(svc, server.Options{Store: store})
//	svc.Start(ctx)
//	err = srv.ListenAndServe(ctx, "127.0.0.1:8080") // until ctx ends, then drains the service
//
// The server authenticates (a bearer API key, resolved by the service to a
// tenant, role and profile), decodes, calls the service and encodes: the
// routes, the error bodies, the SSE framing and the artifact downloads are
// its own, everything else (validation, ceilings, profiles, concurrency,
// retention, approvals, the fleet) is the service's.
//
// The handler also serves the approval console at /ui (package
// server/console, docs/console.md; Options.NoConsole leaves it out): its
// pages reach these routes under /ui/api with a session cookie, which the
// console turns into the signed-in key's caller, in place of a bearer key.
//
// # Tenants
//
// Every request acts for one tenant: the one its bearer API key is bound to,
// or service.DefaultTenant when the service has no keys (which
// ListenAndServe allows only on a loopback address). A chain, an approval
// request or an artifact of another tenant does not exist as far as a
// request is concerned: 404, never 403.
//
// Without keys the handler also refuses (403) a request whose Host is not a
// loopback name (forbidden_host: DNS rebinding) or whose Origin is a web
// page off the loopback host (forbidden_origin), and every request body must
// come with Content-Type: application/json (415 otherwise), which a browser
// cannot send cross-site without a CORS preflight the server never grants.
//
// # Concurrency
//
// A Server is safe for concurrent use; New starts nothing. Serve runs the
// listener until its context ends, then drains the service
// (service.Service.Close) for up to Options.ShutdownTimeout while the rest
// of the API keeps answering.
//
// # Errors
//
// New returns ErrNoService without a service. ListenAndServe returns
// ErrNeedsAPIKeys for a non-loopback address without keys. Every 4xx and
// 5xx response has the body {"error":{"reason":"…","message":"…"}} with a
// stable reason code (the Reason constants; those of refused submissions
// are the service's).
package server
