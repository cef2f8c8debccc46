package toolbox

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// ArgumentError is the error Entry.Validate returns for arguments that do
// not match a tool's input schema. Its Message says what a person or a
// model can act on — which argument, what was wrong, what the tool takes —
// and never the validator's internals:
//
//	unknown argument "town"; weather takes {city: string}
//	missing argument "city"; weather takes {city: string}
//	argument "opts.limit" must be an integer, not a string; search takes {…}
//
// errors.Is(err, ErrInvalidArguments) holds for it.
type ArgumentError struct {
	// Tool is the tool's name.
	Tool string
	// Argument is the path of the offending argument ("city", "opts.limit",
	// "items[2].id"); "" when the problem is with the arguments as a whole
	// or with several of them.
	Argument string
	// Problem says what is wrong, e.g. `unknown argument "town"`, at most
	// maxProblemBytes bytes.
	Problem string
	// Signature is the tool's arguments as a one-line TypeScript type,
	// e.g. {city: string}, at most maxSignatureBytes bytes ("…" when cut).
	Signature string
}

// Bounds of ArgumentError's texts: a message quotes what a script sent,
// and reaches traces, events and the model.
const (
	maxProblemBytes   = 240
	maxSignatureBytes = 200
	maxValueBytes     = 40
	maxListed         = 5
)

// Message returns the problem and what the tool takes, e.g.
// `unknown argument "town"; weather takes {city: string}`.
func (e *ArgumentError) Message() string {
	takes := e.Tool + " takes " + e.Signature
	if e.Signature == "{}" || e.Signature == "" {
		takes = e.Tool + " takes no arguments"
	}
	return e.Problem + "; " + takes
}

// Error implements error: "toolbox: invalid arguments: " and Message.
func (e *ArgumentError) Error() string { return ErrInvalidArguments.Error() + ": " + e.Message() }

// Is reports whether target is ErrInvalidArguments.
func (e *ArgumentError) Is(target error) bool { return target == ErrInvalidArguments }

// argumentError builds e's ArgumentError for problem at path.
func (e *Entry) argumentError(path, problem string) *ArgumentError {
	return &ArgumentError{Tool: e.info.Name, Argument: path, Problem: ClipText(problem, maxProblemBytes), Signature: e.signature()}
}

// signature returns the tool's arguments as a one-line TypeScript type,
// from the same rendering as its TypeScript declaration, clipped.
func (e *Entry) signature() string {
	if e.noArgs || e.info.InputSchema == nil {
		return "{}"
	}
	w := &tsWriter{prefix: tsIdent(e.info.Name), aliases: map[string]string{}, inline: true, expanding: map[string]bool{}}
	return ClipText(w.object(e.info.InputSchema, 0, true), maxSignatureBytes)
}

// explainInvalid turns the validator's failure on v into an ArgumentError
// naming the argument at fault. When the schema uses a keyword the
// explanation does not cover, the validator's innermost message is kept,
// without its schema paths.
func (e *Entry) explainInvalid(v any, verr error) *ArgumentError {
	x := explainer{root: e.info.InputSchema}
	if path, problem := x.check(e.info.InputSchema, v, ""); problem != "" {
		return e.argumentError(path, problem)
	}
	return e.argumentError("", "arguments do not match the tool's schema ("+innermost(verr)+")")
}

// validatorPrefix matches the "validating <schema path>: " prefixes
// jsonschema-go wraps each level's error in.
var validatorPrefix = regexp.MustCompile(`^(validating [^:]*: )+`)

// innermost returns err's message without the validator's schema paths.
func innermost(err error) string {
	return ClipText(validatorPrefix.ReplaceAllString(err.Error(), ""), 120)
}

// explainer finds the first problem of an instance against a schema, in a
// stable order: unknown arguments, missing ones, then each property in the
// schema's order.
type explainer struct {
	root  *jsonschema.Schema
	depth int
}

const maxExplainDepth = 32

// check returns the path and the description of the first problem it
// finds of v against s, or "" for problem when it finds none.
func (x *explainer) check(s *jsonschema.Schema, v any, path string) (string, string) {
	if s == nil {
		return "", ""
	}
	x.depth++
	defer func() { x.depth-- }()
	if x.depth > maxExplainDepth {
		return "", ""
	}
	if s.Ref != "" {
		if p, prob := x.check(x.resolve(s.Ref), v, path); prob != "" {
			return p, prob
		}
	}
	subject := "argument " + strconv.Quote(path)
	if path == "" {
		subject = "the arguments"
	}
	if types := schemaTypes(s); len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
		names := make([]string, len(types))
		for i, t := range types {
			names[i] = article(t)
		}
		return path, fmt.Sprintf("%s must be %s, not %s", subject, strings.Join(names, " or "), article(typeOf(v)))
	}
	if s.Const != nil && !jsonEqual(*s.Const, v) {
		return path, fmt.Sprintf("%s must be %s, not %s", subject, literalClip(*s.Const), literalClip(v))
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(c any) bool { return jsonEqual(c, v) }) {
		return path, fmt.Sprintf("%s must be one of %s, not %s", subject, listValues(s.Enum), literalClip(v))
	}
	for _, sub := range s.AllOf {
		if p, prob := x.check(sub, v, path); prob != "" {
			return p, prob
		}
	}
	if alts := append(slices.Clone(s.AnyOf), s.OneOf...); len(alts) > 0 {
		all := true
		for _, sub := range alts {
			if _, prob := x.check(sub, v, path); prob == "" {
				all = false
				break
			}
		}
		if all {
			w := &tsWriter{root: x.root, aliases: map[string]string{}, inline: true, expanding: map[string]bool{}}
			return path, fmt.Sprintf("%s must be %s, not %s", subject, ClipText(w.join(alts, " | ", 0), 80), literalClip(v))
		}
	}
	switch v := v.(type) {
	case string:
		return x.checkString(s, v, path, subject)
	case float64:
		return x.checkNumber(s, v, path, subject)
	case []any:
		return x.checkArray(s, v, path, subject)
	case map[string]any:
		return x.checkObject(s, v, path, subject)
	}
	return "", ""
}

func (x *explainer) checkString(s *jsonschema.Schema, v, path, subject string) (string, string) {
	n := utf8.RuneCountInString(v)
	switch {
	case s.MinLength != nil && n < *s.MinLength:
		return path, fmt.Sprintf("%s must be at least %d characters long, not %d", subject, *s.MinLength, n)
	case s.MaxLength != nil && n > *s.MaxLength:
		return path, fmt.Sprintf("%s must be at most %d characters long, not %d", subject, *s.MaxLength, n)
	case s.Pattern != "":
		if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(v) {
			return path, fmt.Sprintf("%s must match the pattern %s, not %s", subject, ClipText(s.Pattern, maxValueBytes), literalClip(v))
		}
	}
	return "", ""
}

func (x *explainer) checkNumber(s *jsonschema.Schema, v float64, path, subject string) (string, string) {
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	switch {
	case s.Minimum != nil && v < *s.Minimum:
		return path, fmt.Sprintf("%s must be at least %s, not %s", subject, num(*s.Minimum), num(v))
	case s.Maximum != nil && v > *s.Maximum:
		return path, fmt.Sprintf("%s must be at most %s, not %s", subject, num(*s.Maximum), num(v))
	case s.ExclusiveMinimum != nil && v <= *s.ExclusiveMinimum:
		return path, fmt.Sprintf("%s must be greater than %s, not %s", subject, num(*s.ExclusiveMinimum), num(v))
	case s.ExclusiveMaximum != nil && v >= *s.ExclusiveMaximum:
		return path, fmt.Sprintf("%s must be less than %s, not %s", subject, num(*s.ExclusiveMaximum), num(v))
	case s.MultipleOf != nil && *s.MultipleOf > 0 && math.Mod(v, *s.MultipleOf) != 0:
		return path, fmt.Sprintf("%s must be a multiple of %s, not %s", subject, num(*s.MultipleOf), num(v))
	}
	return "", ""
}

func (x *explainer) checkArray(s *jsonschema.Schema, v []any, path, subject string) (string, string) {
	switch {
	case s.MinItems != nil && len(v) < *s.MinItems:
		return path, fmt.Sprintf("%s must have at least %d items, not %d", subject, *s.MinItems, len(v))
	case s.MaxItems != nil && len(v) > *s.MaxItems:
		return path, fmt.Sprintf("%s must have at most %d items, not %d", subject, *s.MaxItems, len(v))
	}
	for i, item := range v {
		sub := s.Items
		if i < len(s.PrefixItems) {
			sub = s.PrefixItems[i]
		}
		if p, prob := x.check(sub, item, path+"["+strconv.Itoa(i)+"]"); prob != "" {
			return p, prob
		}
	}
	return "", ""
}

func (x *explainer) checkObject(s *jsonschema.Schema, v map[string]any, path, subject string) (string, string) {
	if ap := s.AdditionalProperties; ap != nil && isFalse(ap) && len(s.PatternProperties) == 0 {
		var unknown []string
		for k := range v {
			if _, ok := s.Properties[k]; !ok {
				unknown = append(unknown, join(path, k))
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			p := ""
			if len(unknown) == 1 {
				p = unknown[0]
			}
			return p, plural("unknown argument", unknown)
		}
	}
	var missing []string
	for _, r := range s.Required {
		if _, ok := v[r]; !ok {
			missing = append(missing, join(path, r))
		}
	}
	if len(missing) > 0 {
		p := ""
		if len(missing) == 1 {
			p = missing[0]
		}
		return p, plural("missing argument", missing)
	}
	switch {
	case s.MinProperties != nil && len(v) < *s.MinProperties:
		return path, fmt.Sprintf("%s must have at least %d properties, not %d", subject, *s.MinProperties, len(v))
	case s.MaxProperties != nil && len(v) > *s.MaxProperties:
		return path, fmt.Sprintf("%s must have at most %d properties, not %d", subject, *s.MaxProperties, len(v))
	}
	names := s.PropertyOrder
	if len(names) == 0 {
		names = sortedKeys(s.Properties)
	}
	for _, k := range names {
		val, ok := v[k]
		if !ok {
			continue
		}
		if p, prob := x.check(s.Properties[k], val, join(path, k)); prob != "" {
			return p, prob
		}
	}
	if ap := s.AdditionalProperties; ap != nil && !isFalse(ap) {
		for _, k := range sortedKeys(v) {
			if _, declared := s.Properties[k]; declared {
				continue
			}
			if p, prob := x.check(ap, v[k], join(path, k)); prob != "" {
				return p, prob
			}
		}
	}
	return "", ""
}

// resolve returns the schema a local $ref names, or nil.
func (x *explainer) resolve(ref string) *jsonschema.Schema {
	if x.root == nil {
		return nil
	}
	switch {
	case strings.HasPrefix(ref, "#/$defs/"):
		return x.root.Defs[strings.TrimPrefix(ref, "#/$defs/")]
	case strings.HasPrefix(ref, "#/definitions/"):
		return x.root.Definitions[strings.TrimPrefix(ref, "#/definitions/")]
	}
	return nil
}

// join appends key k to an argument path: "opts" + "limit" = "opts.limit".
func join(path, k string) string {
	k = ClipText(k, maxValueBytes)
	if path == "" {
		return k
	}
	return path + "." + k
}

// plural writes `unknown argument "a"` or `unknown arguments "a", "b"`,
// listing at most maxListed.
func plural(what string, names []string) string {
	if len(names) == 1 {
		return what + " " + strconv.Quote(names[0])
	}
	quoted := make([]string, 0, maxListed+1)
	for i, n := range names {
		if i == maxListed {
			quoted = append(quoted, fmt.Sprintf("and %d more", len(names)-maxListed))
			break
		}
		quoted = append(quoted, strconv.Quote(n))
	}
	return what + "s " + strings.Join(quoted, ", ")
}

func schemaTypes(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// hasType reports whether the decoded JSON value v is of JSON Schema type t.
func hasType(v any, t string) bool {
	switch v := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case float64:
		return t == "number" || t == "integer" && v == math.Trunc(v) && !math.IsInf(v, 0)
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

// typeOf returns the JSON Schema type of the decoded JSON value v.
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

// article names a JSON type with its article: "a string", "an integer".
func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + t
	case "unknown":
		return "an unknown value"
	}
	return "a " + t
}

// jsonEqual compares a schema value with a decoded JSON value as JSON.
func jsonEqual(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// literalClip writes v as JSON, at most maxValueBytes bytes.
func literalClip(v any) string { return ClipText(literal(v), maxValueBytes) }

// listValues lists enum values as JSON, at most maxListed of them.
func listValues(vs []any) string {
	parts := make([]string, 0, maxListed+1)
	for i, v := range vs {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(vs)-maxListed))
			break
		}
		parts = append(parts, literalClip(v))
	}
	return strings.Join(parts, ", ")
}

// ClipText returns s as valid UTF-8 of at most max bytes, "…" included
// when cut.
func ClipText(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
