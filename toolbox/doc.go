// Package toolbox defines tools and the registry the invoker looks them up in.
//
// A tool author writes a typed Go function; Func derives the input and output
// JSON Schemas from its types:
//
//	search := toolbox.Func("search", "Search the web",
//		func(ctx context.Context, in SearchIn) (SearchOut, error) { … })
//	box, err := toolbox.New(search, send.WithRisk(toolbox.High))
//
// A tool that returns images or other media returns a MediaResult[T] (a value
// and its files); the chain receives {value, files}, and TypeScript declares
// that shape. Tools implementing Tool directly provide their own schema. HostedTool and
// ProviderDefinedTool describe tools the provider or the agent loop runs:
// they are listed (Schemas) but never executed by airlock.
//
// Arguments are checked by Entry.Validate against the input schema before a
// tool runs; object schemas reject unknown fields (see Info.InputSchema).
// Every schema is checked by CheckSchema when its tool is added: no $ref
// cycles, bounded depth, size and breadth, so that validation is bounded
// work (ParseSchema reads one from untrusted text).
//
// # Secrets
//
// A tool that needs a credential receives a Secrets at construction and
// calls Secret immediately before use, at call time, so a rotated secret
// takes effect on the next call. A secret is never an argument (a script
// cannot name one), and the tool keeps it out of its output and errors: the
// invoker records both in results, traces, events, logs and artifacts. The
// HTTP tools of the configuration read ${env:NAME} header references this
// way from the process environment. A credential of the calling chain's
// tenant comes from a TenantSecrets, asked for (CallerFrom(ctx).Tenant(),
// name) at call time: ${tenant:NAME} header references. A tool that cannot
// obtain a credential returns a *CredentialUnavailableError and the call
// fails credential_unavailable.
//
// # Concurrency
//
// A Toolbox is safe for concurrent use; tools may be added while others are
// looked up. Entries and FuncTools are immutable. A Tool's Call may run
// concurrently with itself.
//
// # Errors
//
// Add returns ErrNilTool, ErrInvalidName, ErrInvalidDescription or
// ErrInvalidSchema (a schema CheckSchema refuses among them), wrapped with
// the tool's name and the reason. Validate returns an *ArgumentError, which
// is ErrInvalidArguments (errors.Is) and whose Message says which argument
// is wrong and what the tool takes: `unknown argument "town"; weather takes
// {city: string}`, or that checking them would cost more than
// MaxValidationWork.
package toolbox
