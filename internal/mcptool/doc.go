// Package mcptool is airlock's MCP client: a tool provider, beside
// internal/httptool, that connects to MCP servers over stdio or streamable
// HTTP and registers their tools in a toolbox as chain tools, named
// server_tool ("everything_get_sum"). Every call then goes through the
// invoker like any other tool's (budget, scopes, risk and approval,
// artifacts, shaping, trace). A tool's risk follows its annotations
// (readOnlyHint, destructiveHint, openWorldHint) unless the operator says
// otherwise; a tool without annotations is High risk. Structured content
// and text become the value; images, audio, embedded resources and the
// content of resource links become media files (stored artifacts). A
// server that exits, hangs on start or drops its connection ends the calls
// in flight with a clear error, is restarted with backoff, and its tools
// answer tool_unavailable meanwhile; a tools/list_changed notification
// refreshes its tools. See docs/mcp.md.
//
//	m, err := mcptool.Start(ctx, box, []mcptool.ServerSpec{{Name: "everything", Command: "node", Args: []string{entry}}}, mcptool.Options{})
//	defer m.Close()
//	<-m.Ready("everything") // its first tool list is in the toolbox
//
// # Concurrency
//
// A Manager is safe for concurrent use. Start starts one supervising
// goroutine per server session (the catalog session, and a session per
// tenant for per_tenant servers), which restarts it with backoff and
// pings it; Close stops them all and the processes they started. Tools
// registered from a server are called concurrently by the invoker; a
// session is shared by the calls of every chain (of one tenant, for
// per_tenant servers).
//
// # Errors
//
// Start fails for an invalid ServerSpec (ServerSpec.Validate). A server
// that fails to start or dies is reported in Status and its tools answer
// toolbox.UnavailableError; a connection lost during a call is a tool
// error wrapping toolbox.ErrOutcomeUnknown (the call's effects are
// unknown); a tool's isError result and JSON-RPC errors are tool errors.
// Secrets the server was given never appear in an error.
//
// The protocol is the official Go SDK's (github.com/modelcontextprotocol/go-sdk).
package mcptool
