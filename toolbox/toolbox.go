package toolbox

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Toolbox is a name-keyed registry of tools. The zero value is an empty,
// usable Toolbox. It is safe for concurrent use: the invoker reads it on every
// call while tools may be added.
type Toolbox struct {
	mu      sync.RWMutex
	byName  map[string]*Entry
	ordered []*Entry // registration order; a replacement keeps its slot
}

// Entry is a registered tool with its validated Info and compiled argument
// schema. Entries are immutable.
type Entry struct {
	tool Tool
	info Info
	in   *jsonschema.Resolved
	// noArgs is true for the default no-argument schema: only {} is valid.
	noArgs bool
	// emptyOK is true when the schema accepts {} whatever else it says, so the
	// commonest call of a no-argument tool skips the validator.
	emptyOK bool
	// fan is the input schema's fan-out (Fanout).
	fan int
	// out is the output schema, resolved; outFan its fan-out.
	out    *jsonschema.Resolved
	outFan int
}

// Fanout returns the most subschemas of the tool's input schema, $refs
// expanded, that validation applies to any one value of the arguments:
// 1 for a plain object of plain properties, more for each anyOf, allOf,
// $ref… Validate refuses arguments whose values and bytes times the
// fan-out pass MaxValidationWork.
func (e *Entry) Fanout() int { return e.fan }

// Tool returns the registered tool.
func (e *Entry) Tool() Tool { return e.tool }

// Info returns the tool's Info as validated at registration (with the
// tightened input schema).
func (e *Entry) Info() Info { return e.info }

// Validate checks that args is a JSON object matching the tool's input
// schema. Unknown fields are rejected. An empty args is treated as {}.
// The error is an *ArgumentError (errors.Is ErrInvalidArguments) whose
// Message names the argument at fault and what the tool takes, e.g.
// `unknown argument "town"; weather takes {city: string}`.
func (e *Entry) Validate(args json.RawMessage) error {
	if len(args) == 0 || isEmptyObject(args) {
		if e.noArgs || e.emptyOK {
			return nil
		}
		args = json.RawMessage("{}")
	}
	if e.in != nil {
		if w := validationWork(args, e.fan); w > MaxValidationWork {
			return e.argumentError("", fmt.Sprintf("checking these arguments against the tool's schema would cost %d, above %d (%d bytes; each value is checked against up to %d subschemas): pass fewer values, or large data as an artifact ref",
				w, MaxValidationWork, len(args), e.fan))
		}
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return e.argumentError("", "the arguments are not valid JSON ("+ClipText(err.Error(), 80)+")")
	}
	if _, ok := v.(map[string]any); !ok {
		return e.argumentError("", "the arguments must be a JSON object, not "+article(typeOf(v)))
	}
	if e.in == nil {
		return nil // hosted/provider-defined: never executed, nothing to check
	}
	if err := e.in.Validate(v); err != nil {
		return e.explainInvalid(v, err)
	}
	return nil
}

// ValidateOutput checks that result, a tool's JSON result, matches the
// tool's output schema as declared (objects are not closed: a result may
// carry more than the schema names). A tool without one accepts any JSON.
// The check is bounded like Validate's (MaxValidationWork). The error
// wraps ErrInvalidOutput.
func (e *Entry) ValidateOutput(result json.RawMessage) error {
	if w := validationWork(result, e.outFan); e.out != nil && w > MaxValidationWork {
		return fmt.Errorf("%w: checking this result against %s's output schema would cost %d, above %d", ErrInvalidOutput, e.info.Name, w, MaxValidationWork)
	}
	var v any
	if err := json.Unmarshal(result, &v); err != nil {
		return fmt.Errorf("%w: the result is not valid JSON (%s)", ErrInvalidOutput, ClipText(err.Error(), 80))
	}
	if e.out == nil {
		return nil
	}
	if err := e.out.Validate(v); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalidOutput, ClipText(err.Error(), 300))
	}
	return nil
}

// New builds a Toolbox holding tools, in order. It fails on the first tool Add
// rejects.
func New(tools ...Tool) (*Toolbox, error) {
	b := &Toolbox{}
	for _, t := range tools {
		if err := b.Add(t); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Add registers t. It rejects a name already registered
// (ErrDuplicateTool: use Replace to change a tool), a bad name
// (ErrInvalidName), a bad description (ErrInvalidDescription), a schema
// that cannot be derived or compiled or that CheckSchema refuses
// (ErrInvalidSchema) and a bad
// guidance, example, scope, class, per-action risk or limit
// (ErrInvalidDefinition); the error says which tool and why.
func (b *Toolbox) Add(t Tool) error {
	e, err := newEntry(t)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byName == nil {
		b.byName = make(map[string]*Entry)
	}
	if _, ok := b.byName[e.info.Name]; ok {
		return fmt.Errorf("%w: %q is registered already; choose another name, or Replace it", ErrDuplicateTool, e.info.Name)
	}
	b.ordered = append(b.ordered, e)
	b.byName[e.info.Name] = e
	return nil
}

// Replace swaps the registered tool of t's name for t, keeping its
// position in All: an operator's override of a tool's declaration. It
// validates t like Add and fails with ErrNoSuchTool when no tool of that
// name is registered.
func (b *Toolbox) Replace(t Tool) error {
	e, err := newEntry(t)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	old, ok := b.byName[e.info.Name]
	if !ok {
		return fmt.Errorf("%w: %q", ErrNoSuchTool, e.info.Name)
	}
	b.ordered[slices.Index(b.ordered, old)] = e
	b.byName[e.info.Name] = e
	return nil
}

// Clone returns a Toolbox holding the same entries, in the same order,
// that later changes to b do not reach.
func (b *Toolbox) Clone() *Toolbox {
	b.mu.RLock()
	defer b.mu.RUnlock()
	c := &Toolbox{byName: make(map[string]*Entry, len(b.byName)), ordered: slices.Clone(b.ordered)}
	for _, e := range c.ordered {
		c.byName[e.info.Name] = e
	}
	return c
}

// Remove unregisters the tools named names; names not registered are
// ignored. A chain that already looked a tool up finishes that call; its
// later calls end unknown_tool. It reports how many were removed.
func (b *Toolbox) Remove(names ...string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, name := range names {
		e, ok := b.byName[name]
		if !ok {
			continue
		}
		delete(b.byName, name)
		b.ordered = slices.DeleteFunc(b.ordered, func(o *Entry) bool { return o == e })
		n++
	}
	return n
}

// Lookup returns the entry registered under name.
func (b *Toolbox) Lookup(name string) (*Entry, bool) {
	b.mu.RLock()
	e, ok := b.byName[name]
	b.mu.RUnlock()
	return e, ok
}

// Get returns the tool registered under name.
func (b *Toolbox) Get(name string) (Tool, bool) {
	e, ok := b.Lookup(name)
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// Has reports whether a tool named name is registered.
func (b *Toolbox) Has(name string) bool {
	_, ok := b.Lookup(name)
	return ok
}

// Len returns the number of registered tools.
func (b *Toolbox) Len() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.ordered)
}

// Entries returns the registered entries in registration order.
func (b *Toolbox) Entries() []*Entry {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return slices.Clone(b.ordered)
}

// All returns the registered tools in registration order.
func (b *Toolbox) All() []Tool {
	return b.collect(func(*Entry) bool { return true })
}

// Names returns the registered tool names in registration order.
func (b *Toolbox) Names() []string {
	es := b.Entries()
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.info.Name
	}
	return names
}

// ByRisk returns the tools of risk level r, in registration order.
func (b *Toolbox) ByRisk(r Risk) []Tool {
	return b.collect(func(e *Entry) bool { return e.info.Risk == r })
}

// Schemas returns the wire schemas of every tool not marked DeferLoading, in
// registration order: what goes into a model request up front.
func (b *Toolbox) Schemas() []Schema {
	return b.schemas(func(e *Entry) bool { return !e.info.DeferLoading })
}

// DeferredSchemas returns the wire schemas of the tools marked DeferLoading,
// for a client that loads them on demand.
func (b *Toolbox) DeferredSchemas() []Schema {
	return b.schemas(func(e *Entry) bool { return e.info.DeferLoading })
}

// SchemaFor returns the wire schema of the tool named name, deferred or not.
func (b *Toolbox) SchemaFor(name string) (Schema, bool) {
	e, ok := b.Lookup(name)
	if !ok {
		return Schema{}, false
	}
	return schemaOf(e), true
}

func (b *Toolbox) collect(keep func(*Entry) bool) []Tool {
	var out []Tool
	for _, e := range b.Entries() {
		if keep(e) {
			out = append(out, e.tool)
		}
	}
	return out
}

func (b *Toolbox) schemas(keep func(*Entry) bool) []Schema {
	var out []Schema
	for _, e := range b.Entries() {
		if keep(e) {
			out = append(out, schemaOf(e))
		}
	}
	return out
}

func newEntry(t Tool) (*Entry, error) {
	if t == nil {
		return nil, ErrNilTool
	}
	if be, ok := t.(interface{ buildErr() error }); ok {
		if err := be.buildErr(); err != nil {
			return nil, err
		}
	}
	info := t.Info()
	if !ValidName(info.Name) {
		return nil, fmt.Errorf("%w: %q must match ^[a-z0-9_-]{1,64}$", ErrInvalidName, info.Name)
	}
	if n := utf8.RuneCountInString(info.Description); n < 1 || n > 200 {
		return nil, fmt.Errorf("%w: tool %q has a %d-character description; use 1 to 200 characters", ErrInvalidDescription, info.Name, n)
	}
	if !info.Risk.Valid() {
		return nil, fmt.Errorf("toolbox: tool %q has invalid risk %d", info.Name, int(info.Risk))
	}
	e := &Entry{tool: t, info: info}
	if info.Kind == KindHosted || info.Kind == KindProviderDefined {
		return e, nil
	}
	if err := checkDefinition(info); err != nil {
		return nil, err
	}
	// Bounded work before anything else walks the schemas (CloneSchemas,
	// closeObjects and Resolve recurse on them).
	// The fan-out is the declared schema's: the additionalProperties:
	// false that closeObjects adds is checked in bulk, not per value.
	var err error
	if e.fan, err = schemaFanout(info.InputSchema); err != nil {
		return nil, fmt.Errorf("%w: input schema of tool %q: %w", ErrInvalidSchema, info.Name, err)
	}
	if e.outFan, err = schemaFanout(info.OutputSchema); err != nil {
		return nil, fmt.Errorf("%w: output schema of tool %q: %w", ErrInvalidSchema, info.Name, err)
	}
	in := info.InputSchema
	if in == nil {
		in = &jsonschema.Schema{Type: "object", AdditionalProperties: falseSchema()}
		e.noArgs = true
	} else {
		in = in.CloneSchemas()
		closeObjects(in)
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("%w: input schema of tool %q: %w", ErrInvalidSchema, info.Name, err)
	}
	if info.OutputSchema != nil {
		if e.out, err = info.OutputSchema.Resolve(nil); err != nil {
			return nil, fmt.Errorf("%w: output schema of tool %q: %w", ErrInvalidSchema, info.Name, err)
		}
	}
	e.info.InputSchema = in
	e.in = resolved
	e.emptyOK = acceptsEmptyObject(in)
	if err := e.checkExamples(); err != nil {
		return nil, err
	}
	return e, nil
}

// acceptsEmptyObject reports whether s certainly accepts {}: it is an object
// schema with none of the keywords that can reject an empty object.
func acceptsEmptyObject(s *jsonschema.Schema) bool {
	return s.Type == "object" && len(s.Required) == 0 && s.MinProperties == nil &&
		s.Not == nil && s.AllOf == nil && s.AnyOf == nil && s.OneOf == nil && s.If == nil &&
		s.Const == nil && s.Enum == nil && s.Ref == "" && s.DynamicRef == "" && s.DependentSchemas == nil
}

// ValidName reports whether name is a valid tool name: 1 to 64 characters of
// a-z, 0-9, '_' and '-'.
func ValidName(name string) bool {
	if len(name) < 1 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func falseSchema() *jsonschema.Schema { return &jsonschema.Schema{Not: &jsonschema.Schema{}} }

// closeObjects sets additionalProperties to false on every object schema that
// declares properties and leaves additionalProperties unset, so unknown fields
// are rejected at any depth. allOf branches are left open: closing them would
// make each branch reject the properties the others declare.
func closeObjects(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Properties != nil && s.AdditionalProperties == nil && s.PatternProperties == nil {
		s.AdditionalProperties = falseSchema()
	}
	for _, p := range s.Properties {
		closeObjects(p)
	}
	for _, group := range [][]*jsonschema.Schema{s.PrefixItems, s.AnyOf, s.OneOf} {
		for _, c := range group {
			closeObjects(c)
		}
	}
	closeObjects(s.Items)
	closeObjects(s.AdditionalProperties)
	for _, d := range s.Defs {
		closeObjects(d)
	}
	for _, d := range s.Definitions {
		closeObjects(d)
	}
}
