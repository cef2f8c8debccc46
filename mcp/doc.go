// Package mcp is airlock's Model Context Protocol face: it offers the chain
// service to MCP clients as one code-mode tool, run_chain, with
// search_tools and describe_tool beside it and artifacts as resources,
// over stdio (`airlock mcp`) or streamable HTTP (/mcp on `airlock serve`).
// See docs/mcp.md. The MCP client, which registers MCP servers' tools as
// chain tools, is another job and lives in internal/mcptool.
//
//	svc, err := service.New(runner, service.Options{Queue: queue})
//	ms, err := mcp.NewServer(svc, mcp.ServerOptions{Elicit: true, Store: store})
//	err = ms.ServeStdio(ctx, os.Stdin, os.Stdout)
//
// Like every face it only authenticates, decodes, calls the service and
// encodes: run_chain is service.Service.Submit, an elicitation answer is
// service.Service.Decide, and a caller sees the tools and artifacts of its
// own tenant and profile.
//
// # Concurrency
//
// A Server is safe for concurrent use: every MCP session and request is
// served on the SDK's goroutines; a run_chain call sends its progress
// notifications through one goroutine of its own and asks its
// elicitations on goroutines that end with the chain. For a client on
// protocol 2026-07-28 or later, which is asked in rounds (input requests
// in the result, answers in the retry), the chain runs on a goroutine of
// its own between rounds, until it ends or no retry came for 10 minutes.
// For a client that declared MCP tasks (tasks.go), a run_chain that
// became a task leaves its chain running detached, with one goroutine
// that waits for the chain's stretch here to end (it finishes or parks);
// a waiting tasks/result holds its request's goroutine until the task
// ends, at most MaxTenantResultWaits per tenant.
//
// # Errors
//
// NewServer fails without a service. A submission the service refuses is
// a tool result with isError set and the service's reason code and
// message (and line and column for invalid_script); an unauthenticated
// request is a JSON-RPC error; an HTTP request without a valid submitting
// key is 401 before its body is read. The task methods answer JSON-RPC
// errors whose data.reason is stable (task_not_found, task_expired,
// task_finished, forbidden_role, too_many_waits, …; docs/mcp.md), and a
// client that declared no tasks gets -32021 (Missing Required Client
// Capability).
//
// The protocol is the official Go SDK's (github.com/modelcontextprotocol/go-sdk).
package mcp
