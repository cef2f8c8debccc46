package toolbox

import (
	"context"
	"encoding/json"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Kind says who executes a tool. Only KindLocal tools are callable from a chain;
// the invoker refuses the others with reason not_callable_from_chain.
type Kind int

const (
	// KindLocal tools are Go code run by airlock. The zero value.
	KindLocal Kind = iota
	// KindHosted tools run on the model provider's side (e.g. a hosted web search).
	KindHosted
	// KindProviderDefined tools have a provider-defined schema and are run by the
	// agent loop, not by airlock.
	KindProviderDefined
	// KindChain is the tool that runs a chain itself. A chain may not start a chain.
	KindChain
)

// String returns "local", "hosted", "provider_defined" or "chain".
func (k Kind) String() string {
	switch k {
	case KindLocal:
		return "local"
	case KindHosted:
		return "hosted"
	case KindProviderDefined:
		return "provider_defined"
	case KindChain:
		return "chain"
	}
	return "unknown"
}

// Info describes a tool. Toolbox.Add reads it once, validates it and keeps it;
// a tool's Info must not change after registration.
type Info struct {
	// Name is the tool's identifier, matching ^[a-z0-9_-]{1,64}$. Required.
	Name string
	// Description is shown to the model: 1 to 200 characters. Required.
	Description string
	// Guidance is longer advice for the model (when to use the tool, what
	// to avoid): at most 2000 characters, shown in `airlock types` and
	// tools.d.ts after the description. Optional.
	Guidance string
	// Examples are worked calls, validated against the schemas at
	// registration. At most 8.
	Examples []Example
	// InputSchema is the JSON Schema of the arguments object. Nil means the tool
	// takes no arguments: only {} is accepted. Object schemas that leave
	// additionalProperties unset are tightened to reject unknown fields.
	InputSchema *jsonschema.Schema
	// OutputSchema optionally describes the result value. Nil means undescribed.
	OutputSchema *jsonschema.Schema
	// Media says the tool returns media files (Output.Media). A call that
	// returns at least one reaches the chain as {value, files} instead of
	// the bare value, and TypeScript declares the result so. Default false;
	// Func sets it for a MediaResult.
	Media bool
	// Risk is the tool's risk level. Default Safe. With ActionRisk, it is
	// the risk of an action the map does not name.
	Risk Risk
	// ActionRisk maps the value of the tool's "action" argument (ActionArg)
	// to a risk level: one broad tool whose actions differ in harm. Nil:
	// every call has Risk.
	ActionRisk map[string]Risk
	// Class is the tool's capability class. Default: from the risk level
	// (EffectiveClass).
	Class Class
	// Audience is the audience of the delegated credential the tool acts
	// with: each call exchanges the chain's identity (IdentityFrom) for a
	// token of this audience (docs/identity.md). "" none.
	Audience string
	// Scopes are the scopes a chain must be granted to call the tool (each
	// 1 to 64 of a-z, 0-9, '_', '-', ':' and '.'). Nil: none.
	Scopes []string
	// MaxOutputChars cuts every string in an inline result to this many
	// characters and marks the result truncated. Zero: no cut.
	MaxOutputChars int
	// LatencyBudget, when shorter than the chain's call timeout, is the
	// tool's call timeout. Zero: the chain's.
	LatencyBudget time.Duration
	// DeferLoading marks a tool whose schema is loaded on demand: it is left out
	// of Toolbox.Schemas and listed by Toolbox.DeferredSchemas.
	DeferLoading bool
	// Kind says who executes the tool. Default KindLocal.
	Kind Kind
	// ProviderSpec is the provider's wire description of a hosted or
	// provider-defined tool, returned verbatim by the schema helpers. Ignored for
	// local tools.
	ProviderSpec json.RawMessage
}

// Output is what a tool returns.
type Output struct {
	// JSON is the result value encoded as JSON. Empty means null.
	JSON json.RawMessage
	// Media are binary attachments (images, audio, PDFs). The invoker stores each
	// one and hands the chain a file entry instead of the bytes.
	Media []Media
	// Citations are the sources the result drew on; they go to the call's
	// trace record and result envelope. Optional.
	Citations []Citation
	// Mutations name what the call changed (paths, record ids, refs), for
	// the audit trail. Optional.
	Mutations []string
}

// Media is one binary attachment of an Output.
type Media struct {
	// MIME is the media type, e.g. "image/png". Required.
	MIME string
	// Data is the content.
	Data []byte
	// Source names where the content came from (an MCP resource URI, a
	// file name), shown to the chain as the file's source. Optional; at
	// most 1024 bytes are kept.
	Source string
}

// MediaResult is a result type for Func: a value and the media files that
// come with it. Func derives the output schema from T and sets Info.Media,
// so the TypeScript declaration describes the files the chain receives.
type MediaResult[T any] struct {
	// Value is the result value, encoded as JSON like any Func result.
	Value T
	// Media are the attachments, as in Output.Media.
	Media []Media
}

// mediaResult is implemented by every MediaResult[T].
type mediaResult interface {
	valueType() reflect.Type
	parts() (any, []Media)
}

func (MediaResult[T]) valueType() reflect.Type { return reflect.TypeFor[T]() }

func (r MediaResult[T]) parts() (any, []Media) { return r.Value, r.Media }

// Tool is a tool airlock can list and, for KindLocal, execute. Implement it for
// full control; most tool authors use Func instead.
//
// Call receives arguments that already passed the input schema and must honour
// ctx: it is cancelled when the call times out or the chain ends. A returned
// error becomes a tool_error result whose message is err.Error(), so errors
// must not carry secrets.
type Tool interface {
	Info() Info
	Call(ctx context.Context, args json.RawMessage) (Output, error)
}

// External is a Tool whose calls are answered outside the process: a
// caller tool, which the chain's submitter runs and answers (issue 25).
// The invoker hands its Call the canonical arguments (sorted keys, no
// duplicates: what the answer is bound to by their SHA-256), keeps no
// recorded outcome for it (the caller keeps its own), and in a session
// that parks (session.Options.ParkApprovals) it does not call it at all:
// the call parks with invoker.ParkedCall.Kind ParkKindCall and ends when
// the chain resumes with the answer (invoker.Resumption.Answer). Its Call
// returns as soon as its context ends, with the answer if it took one just
// then (an answer taken is the call's result, not a timeout), else with
// the context's error.
type External interface {
	Tool
	// External marks the tool; it is never called.
	External()
}

// HostedTool describes a tool the model provider runs (Kind KindHosted). It is
// listed and described, never executed by airlock.
type HostedTool struct {
	Name, Description string
	// Spec is the provider's wire description, returned by the schema helpers.
	Spec json.RawMessage
}

// Info implements Tool.
func (h HostedTool) Info() Info {
	return Info{Name: h.Name, Description: h.Description, Kind: KindHosted, ProviderSpec: h.Spec}
}

// Call implements Tool; it always returns ErrNotExecutable.
func (HostedTool) Call(context.Context, json.RawMessage) (Output, error) {
	return Output{}, ErrNotExecutable
}

// ProviderDefinedTool describes a tool whose schema the model provider defines
// and whose execution belongs to the agent loop (Kind KindProviderDefined). It
// is listed and described, never executed by airlock.
type ProviderDefinedTool struct {
	Name, Description string
	// Spec is the provider's wire description, returned by the schema helpers.
	Spec json.RawMessage
}

// Info implements Tool.
func (p ProviderDefinedTool) Info() Info {
	return Info{Name: p.Name, Description: p.Description, Kind: KindProviderDefined, ProviderSpec: p.Spec}
}

// Call implements Tool; it always returns ErrNotExecutable.
func (ProviderDefinedTool) Call(context.Context, json.RawMessage) (Output, error) {
	return Output{}, ErrNotExecutable
}
