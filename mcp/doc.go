// Package mcp connects airlock to the Model Context Protocol both ways.
//
// As a client (Start, Manager), it connects to MCP servers over stdio or
// streamable HTTP and registers their tools in a toolbox as chain tools,
// named server_tool ("everything_get_sum"): every call then goes through
// the invoker like any other tool's (budget, scopes, risk and approval,
// artifacts, shaping, trace). A tool's risk follows its annotations
// (readOnlyHint, destructiveHint, openWorldHint) unless the operator says
// otherwise; a tool without annotations is High risk. Structured content
// and text become the value; images, audio, embedded resources and the
// content of resource links become media files (stored artifacts). A
// server that exits, hangs on start or drops its connection ends the calls
// in flight with a clear error, is restarted with backoff, and its tools
// answer tool_unavailable meanwhile; a tools/list_changed notification
// refreshes its tools.
//
// As a server (NewServer), it offers airlock to MCP clients as one
// code-mode tool, run_chain, with search_tools and describe_tool beside
// it, over stdio (`airlock mcp`) or streamable HTTP (/mcp on `airlock
// serve`). See docs/mcp.md.
//
// The protocol is the official Go SDK's (github.com/modelcontextprotocol/go-sdk).
package mcp
