// Package chain runs one chain: it opens a session, runs the guest (a script
// or a compiled module) in a fresh sandbox instance whose every tool call
// crosses a bridge into the shared invoker, and closes the session, releasing
// the chain's pins, whatever happened.
//
//	eng, _ := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{})
//	runner, _ := chain.New(inv, chain.Engines{Scripts: eng})
//	res, err := runner.Run(ctx, sandbox.Script{Source: `
//		const [a, b] = await Promise.all([tools.search({query: "x"}), tools.search({query: "y"})]);
//		return a.hits.length + b.hits.length;`}, chain.Options{Tenant: "acme"})
//	fmt.Println(res.Status, string(res.Value))
//
// The agent loop never gets a Go panic or a hung call from a script: every
// outcome is a RunResult with a Status (ok, error, timeout, cancelled,
// limit_exceeded), a stable Reason, the logs, the full call trace, the files
// and artifacts the tools produced, and stats.
//
// # Concurrency
//
// A Runner is safe for concurrent use; each Run has its own session and
// sandbox instance. The calls of one chain may run concurrently
// (Promise.all), up to sandbox.Limits.MaxInFlight.
//
// # Errors
//
// New returns ErrNilInvoker or ErrNoEngine. Run and RunModule return a Go
// error only for misuse: ErrNoEngine, ErrNilModule, or an invalid
// Options.Policy (wrapping invoker.ErrInvalidPolicy).
package chain
