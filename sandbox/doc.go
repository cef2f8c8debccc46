// Package sandbox runs chain guests in WebAssembly with limits, handing every
// tool call they make to a Bridge function: it knows nothing of tools,
// sessions or policy, so an engine can change without touching policy code.
// ScriptEngine runs JavaScript and
// TypeScript on QuickJS-NG (0.15.1, its upstream WASI build); ModuleEngine runs compiled
// wasm chains through Extism. Each run gets a fresh instance: nothing
// survives from one run to the next.
//
//	e, err := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{PoolSize: 8})
//	if err != nil { … }
//	defer e.Close(ctx)
//	res, err := e.Run(ctx, sandbox.Script{Source: `
//		const [a, b] = await Promise.all([tools.search({q: "x"}), tools.search({q: "y"})]);
//		return [a, b];`}, bridge, sandbox.Limits{Timeout: time.Minute})
//	var xe *sandbox.ExitError
//	if errors.As(err, &xe) { log.Print(xe.Kind, xe.Limit, xe.Line) }
//
// What a script sees (tools, console, ToolError, the two script forms) is
// documented in guest-sdk/js/README.md; the host–guest wire format in
// guest-sdk/ABI.md; why the engine is built the way it is in
// RATIONALE.md.
//
// Scripts have no filesystem, network, environment or process access, and
// cannot import modules (import() and import declarations fail). Their
// clock is the host's (ScriptOptions.Clock, time.Now by default) unless the
// Script's Guest asks for the deterministic virtual one; Math.random is
// seeded per run from ScriptOptions.Rand or crypto/rand, and crypto reads
// crypto/rand, unless Guest.Seed fixes both.
//
// # Limits
//
// Every Limits field ends a run that crosses it with a *ExitError:
//
//	Timeout        Kind Timeout (also the ctx deadline); Cancelled for ctx cancel
//	MemoryBytes    LimitExceeded, Limit "memory"
//	MaxStackBytes  a catchable RangeError for deep recursion; LimitExceeded, Limit "stack"
//	               for what passes QuickJS's check (uncatchable)
//	MaxLogBytes    LimitExceeded, Limit "logs"; Result.LogsTruncated set
//	MaxLogEntries  LimitExceeded, Limit "logs"; Result.LogsTruncated set
//	MaxResultBytes LimitExceeded, Limit "result"
//	MaxArgsBytes   LimitExceeded, Limit "args"
//	MaxInFlight    never fails: further calls wait in the guest for a slot
//
// # Parsing
//
// Before a script runs, the host parses it with esbuild (Check, Compile,
// Run). A source over 64 KiB parses in a worker process under a time
// budget, holding one of the process's few large-parse slots, at most one
// per Script.Tenant; a parse over its budget, or whose ctx ends, is killed.
// The worker is this executable run again: main must call RunParseWorker
// first (TestMain too, in tests that parse large scripts). A program that
// does not parses large scripts in process, where an over-budget parse is
// abandoned but runs on, holding its slot, until the parser returns.
//
// # Concurrency
//
// ScriptEngine, ModuleEngine and Module are safe for concurrent use; every
// Run has its own instance. Within one script run, tool calls the script has
// in flight together (Promise.all) reach the Bridge from separate
// goroutines, at most Limits.MaxInFlight at once; a module's calls are
// sequential. When Run returns, none of its Bridge calls is still running.
//
// # Errors
//
// Run returns a *ExitError (with a non-nil Result holding the logs so far)
// when the guest fails: see ExitKind. *ExitError matches
// context.DeadlineExceeded for Timeout and context.Canceled for Cancelled
// with errors.Is. Misuse returns ErrInvalidScript, ErrInvalidLimits,
// ErrInvalidModule or ErrClosed, wrapped with detail. A Bridge error ends
// the run with Kind HostError.
package sandbox
