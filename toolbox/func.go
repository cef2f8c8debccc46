package toolbox

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// FuncTool is a local tool built from a typed Go function by Func. Its input
// and output schemas are derived from In and Out. The With* methods return a
// modified copy; a FuncTool is immutable and safe for concurrent use.
type FuncTool[In, Out any] struct {
	info Info
	fn   func(context.Context, In) (Out, error)
	// skipEmpty is true when In is a struct, so "{}" decodes to the zero In and
	// the decode can be skipped.
	skipEmpty bool
	// passOutput is true when Out is Output: the function shapes its own result.
	passOutput bool
	// media is true when Out is a MediaResult: its Value is encoded and its
	// Media passed on.
	media bool
	err   error
}

var (
	outputType = reflect.TypeFor[Output]()
	rawType    = reflect.TypeFor[json.RawMessage]()
)

// schemaOptions maps the types encoding/json treats specially: []byte travels
// as a base64 string and json.RawMessage as any JSON value.
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[[]byte]():          {Type: "string", ContentEncoding: "base64"},
	reflect.TypeFor[json.RawMessage](): {},
}}

// Func builds a local tool named name from fn. The input JSON Schema is derived
// from In (struct fields become properties; fields without omitempty/omitzero
// are required; unknown fields are rejected; a `jsonschema:"…"` tag is the
// property description) and the output schema from Out. If Out is a
// MediaResult[T], the output schema is T's and the tool returns media
// (Info.Media). If Out is Output, fn returns media or pre-encoded JSON itself
// and no output schema is derived.
//
// Func never fails: a bad name, description or a type that has no JSON Schema
// is reported by Toolbox.Add. The risk defaults to Safe; see WithRisk.
func Func[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error)) *FuncTool[In, Out] {
	t := &FuncTool[In, Out]{fn: fn}
	t.info = Info{Name: name, Description: description}
	inT, outT := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	t.skipEmpty = inT.Kind() == reflect.Struct
	t.passOutput = outT == outputType
	if m, ok := any(*new(Out)).(mediaResult); ok {
		t.media, t.info.Media = true, true
		outT = m.valueType()
	}
	if fn == nil {
		t.err = fmt.Errorf("%w: tool %q has a nil function", ErrInvalidSchema, name)
		return t
	}
	in, err := jsonschema.ForType(inT, schemaOptions)
	if err != nil {
		t.err = fmt.Errorf("%w: input type %s of tool %q: %w", ErrInvalidSchema, inT, name, err)
		return t
	}
	t.info.InputSchema = in
	if !t.passOutput && outT != rawType {
		out, err := jsonschema.ForType(outT, schemaOptions)
		if err != nil {
			t.err = fmt.Errorf("%w: output type %s of tool %q: %w", ErrInvalidSchema, outT, name, err)
			return t
		}
		t.info.OutputSchema = out
	}
	return t
}

// WithRisk returns a copy of t with risk level r.
func (t *FuncTool[In, Out]) WithRisk(r Risk) *FuncTool[In, Out] {
	c := *t
	c.info.Risk = r
	return &c
}

// WithGuidance returns a copy of t with Info.Guidance g: longer advice for
// the model than the description holds.
func (t *FuncTool[In, Out]) WithGuidance(g string) *FuncTool[In, Out] {
	c := *t
	c.info.Guidance = g
	return &c
}

// WithExample returns a copy of t with one more worked call: in and out
// encoded as JSON. Toolbox.Add validates them against the schemas and
// reports an encoding failure.
func (t *FuncTool[In, Out]) WithExample(description string, in In, out Out) *FuncTool[In, Out] {
	c := *t
	ex := Example{Description: description}
	var err error
	if ex.Input, err = json.Marshal(in); err == nil {
		var v any = out
		if c.media {
			v, _ = any(out).(mediaResult).parts()
		}
		ex.Output, err = json.Marshal(v)
	}
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("%w: tool %q: example %q cannot be encoded: %w", ErrInvalidDefinition, t.info.Name, description, err)
	}
	c.info.Examples = append(slices.Clone(t.info.Examples), ex)
	return &c
}

// WithClass returns a copy of t of capability class cl.
func (t *FuncTool[In, Out]) WithClass(cl Class) *FuncTool[In, Out] {
	c := *t
	c.info.Class = cl
	return &c
}

// WithScopes returns a copy of t requiring the given scopes.
func (t *FuncTool[In, Out]) WithScopes(scopes ...string) *FuncTool[In, Out] {
	c := *t
	c.info.Scopes = slices.Clone(scopes)
	return &c
}

// WithActionRisk returns a copy of t whose calls have the risk m maps
// their "action" argument to (Info.ActionRisk); m is copied.
func (t *FuncTool[In, Out]) WithActionRisk(m map[string]Risk) *FuncTool[In, Out] {
	c := *t
	c.info.ActionRisk = maps.Clone(m)
	return &c
}

// WithMaxOutputChars returns a copy of t whose inline results have every
// string cut to n characters (Info.MaxOutputChars).
func (t *FuncTool[In, Out]) WithMaxOutputChars(n int) *FuncTool[In, Out] {
	c := *t
	c.info.MaxOutputChars = n
	return &c
}

// WithLatencyBudget returns a copy of t whose call timeout is at most d
// (Info.LatencyBudget).
func (t *FuncTool[In, Out]) WithLatencyBudget(d time.Duration) *FuncTool[In, Out] {
	c := *t
	c.info.LatencyBudget = d
	return &c
}

// WithDeferLoading returns a copy of t whose schema is loaded on demand
// (see Info.DeferLoading).
func (t *FuncTool[In, Out]) WithDeferLoading() *FuncTool[In, Out] {
	c := *t
	c.info.DeferLoading = true
	return &c
}

// Info implements Tool.
func (t *FuncTool[In, Out]) Info() Info { return t.info }

// Call implements Tool: it decodes args into In, runs the function and encodes
// its result as JSON.
func (t *FuncTool[In, Out]) Call(ctx context.Context, args json.RawMessage) (Output, error) {
	var in In
	if !(t.skipEmpty && isEmptyObject(args)) && len(args) > 0 {
		if err := json.Unmarshal(args, &in); err != nil {
			return Output{}, fmt.Errorf("%w: %w", ErrInvalidArguments, err)
		}
	}
	out, err := t.fn(ctx, in)
	if err != nil {
		return Output{}, err
	}
	if t.passOutput {
		return any(out).(Output), nil
	}
	var value any = out
	var media []Media
	if t.media {
		value, media = any(out).(mediaResult).parts()
	}
	if raw, ok := value.(json.RawMessage); ok {
		return Output{JSON: raw, Media: media}, nil
	}
	b, err := json.Marshal(value)
	if err != nil {
		return Output{}, fmt.Errorf("toolbox: encoding result of %q: %w", t.info.Name, err)
	}
	return Output{JSON: b, Media: media}, nil
}

// buildErr reports a construction problem to Toolbox.Add.
func (t *FuncTool[In, Out]) buildErr() error { return t.err }

func isEmptyObject(b []byte) bool {
	return len(b) == 2 && b[0] == '{' && b[1] == '}'
}
