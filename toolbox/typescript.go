package toolbox

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// TypeScript returns a TypeScript declaration of the `tools` object a chain
// sees, for a model's prompt: one method per callable (KindLocal) tool, with
// the description as a doc comment, the argument type from the input schema
// and the result type from the output schema (unknown when undescribed).
//
// Results too large to hand the script as a value arrive as an Artifact
// (with text(), json() and bytes() to read them), and any argument
// value may be an artifact ref instead, so the declaration says so:
// Result<T> is T | Artifact, and top-level argument properties accept an
// ArtifactRef. A tool that returns media (Info.Media) is declared to return
// MediaResult<T>: {value: Result<T>, files: MediaFile[]} when the call
// returned files, the bare Result<T> when it returned none; a MediaFile is
// the file entry the chain receives (path, mime, size, and the $artifact ref
// or, without a blob store, the base64 data).
//
// Schemas map to types as follows: string, number/integer, boolean, null;
// arrays to T[]; objects to literal types (optional when not required, an
// index signature for additionalProperties); enum and const to literal
// unions; anyOf/oneOf to unions, allOf to intersections; a type list with
// "null" to a nullable union; $ref to #/$defs/X or #/definitions/X to a named
// alias declared once per tool (Tool_X); anything else to unknown.
func (b *Toolbox) TypeScript() string {
	var sb strings.Builder
	sb.WriteString("/** A tool result too large to hand the script as a value (above the chain's max_guest_value_bytes, 1 MiB by default; smaller ones arrive as plain values even when airlock stored them). Read its content with text(), json() or bytes() (counted against the chain's max_read_bytes), or pass it (or {$artifact}) as an argument to hand the content to another tool without reading it. A chain's own result above max_final_value_bytes (64 KiB by default) reaches the agent in this form too. */\n")
	sb.WriteString("type Artifact = { $artifact: string; preview: string; size: number; mime: string; text(): Promise<string>; json(): Promise<unknown>; bytes(): Promise<Uint8Array> };\n")
	sb.WriteString("type ArtifactRef = { $artifact: string };\n")
	sb.WriteString("type Result<T> = T | Artifact;\n")
	for _, e := range b.Entries() {
		if e.info.Kind == KindLocal && e.info.Media {
			sb.WriteString(mediaDecl)
			break
		}
	}
	sb.WriteString("\n")
	var methods strings.Builder
	for _, e := range b.Entries() {
		if e.info.Kind != KindLocal {
			continue
		}
		aliases, method := e.declare()
		sb.WriteString(aliases)
		methods.WriteString(method)
	}
	sb.WriteString("declare const tools: {\n")
	sb.WriteString(methods.String())
	sb.WriteString("};\n")
	return sb.String()
}

// declare returns the type aliases e's declaration needs and its method
// line with its doc comment.
func (e *Entry) declare() (aliases, method string) {
	ts := &tsWriter{prefix: tsIdent(e.info.Name), aliases: map[string]string{}}
	args := ts.object(e.info.InputSchema, 1, true)
	out := "unknown"
	if e.info.OutputSchema != nil {
		out = ts.typ(e.info.OutputSchema, 1)
	}
	var a, m strings.Builder
	for _, name := range sortedKeys(ts.aliases) {
		a.WriteString(ts.aliases[name])
	}
	writeDocLines(&m, "  ", toolDoc(e.info))
	result := "Result"
	if e.info.Media {
		result = "MediaResult"
	}
	fmt.Fprintf(&m, "  %s(args: %s): Promise<%s<%s>>;\n", tsKey(e.info.Name), args, result, out)
	return a.String(), m.String()
}

// Declaration returns the TypeScript declaration of the one tool named
// name, as TypeScript declares it among the others (its aliases, then
// `declare const tools: { name(...) }`), or false when no local tool has
// that name. The shared types it refers to (Result, Artifact,
// MediaResult) are those of TypeScript.
func (b *Toolbox) Declaration(name string) (string, bool) {
	e, ok := b.Lookup(name)
	if !ok || e.info.Kind != KindLocal {
		return "", false
	}
	aliases, method := e.declare()
	return aliases + "declare const tools: {\n" + method + "};\n", true
}

// mediaDecl declares the file entries of a media result, as invoker.ChainFile
// encodes them, and the result that carries them (see invoker's shape).
const mediaDecl = `/** A file a tool returned (an image, audio, a PDF). Pass {$artifact: file.$artifact} as an argument to hand its content to another tool. Without a blob store there is no $artifact but data, the content in base64. */
type MediaFile = { path: string; mime: string; size: number; $artifact?: string; source?: string; data?: string };
/** The result of a tool that returns files: its value and its files, or the bare value when a call returned no file. */
type MediaResult<T> = { value: Result<T>; files: MediaFile[] } | Result<T>;
`

func riskNote(r Risk) string {
	if r == Safe {
		return ""
	}
	return fmt.Sprintf(" (risk %s: may need human approval)", r)
}

type tsWriter struct {
	prefix  string
	aliases map[string]string // alias name -> declaration
	root    *jsonschema.Schema
	depth   int
	// inline writes a one-line type with no doc comments, no ArtifactRef
	// and $refs expanded in place (see Entry.Signature).
	inline    bool
	expanding map[string]bool // $refs being expanded inline: breaks cycles
}

const maxTSDepth = 32

func (w *tsWriter) typ(s *jsonschema.Schema, indent int) string {
	if s == nil {
		return "unknown"
	}
	if w.root == nil {
		w.root = s
	}
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > maxTSDepth {
		return "unknown"
	}
	if s.Ref != "" {
		return w.ref(s.Ref, indent)
	}
	if s.Const != nil {
		return literal(*s.Const)
	}
	if len(s.Enum) > 0 {
		parts := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			parts[i] = literal(v)
		}
		return strings.Join(parts, " | ")
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		return w.join(append(append([]*jsonschema.Schema{}, s.AnyOf...), s.OneOf...), " | ", indent)
	}
	if len(s.AllOf) > 0 {
		return w.join(s.AllOf, " & ", indent)
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) == 0 {
		if s.Properties != nil {
			return w.object(s, indent, false)
		}
		return "unknown"
	}
	parts := make([]string, 0, len(types))
	for _, t := range types {
		parts = append(parts, w.single(t, s, indent))
	}
	return strings.Join(parts, " | ")
}

func (w *tsWriter) single(t string, s *jsonschema.Schema, indent int) string {
	switch t {
	case "string":
		return "string"
	case "number", "integer":
		return "number"
	case "boolean":
		return "boolean"
	case "null":
		return "null"
	case "array":
		if len(s.PrefixItems) > 0 {
			return "[" + w.join(s.PrefixItems, ", ", indent) + "]"
		}
		item := w.typ(s.Items, indent)
		if strings.ContainsAny(item, " |&") {
			item = "(" + item + ")"
		}
		return item + "[]"
	case "object":
		return w.object(s, indent, false)
	}
	return "unknown"
}

func (w *tsWriter) join(ss []*jsonschema.Schema, sep string, indent int) string {
	parts := make([]string, len(ss))
	for i, c := range ss {
		parts[i] = w.typ(c, indent)
		if sep != ", " && strings.ContainsAny(parts[i], "|&") {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, sep)
}

// object writes an object literal type. top marks the arguments object, whose
// properties may also be artifact refs.
func (w *tsWriter) object(s *jsonschema.Schema, indent int, top bool) string {
	if s == nil {
		return "{}"
	}
	if w.root == nil {
		w.root = s
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := s.PropertyOrder
	if len(names) == 0 {
		names = sortedKeys(s.Properties)
	}
	if w.inline {
		return w.inlineObject(s, names, required, top)
	}
	var sb strings.Builder
	pad := strings.Repeat("  ", indent+1)
	for _, name := range names {
		p, ok := s.Properties[name]
		if !ok {
			continue
		}
		writeDoc(&sb, pad, p.Description)
		opt := ""
		if !required[name] {
			opt = "?"
		}
		t := w.typ(p, indent+1)
		if top {
			t += " | ArtifactRef"
		}
		fmt.Fprintf(&sb, "%s%s%s: %s;\n", pad, tsKey(name), opt, t)
	}
	if ap := s.AdditionalProperties; ap != nil && !isFalse(ap) {
		fmt.Fprintf(&sb, "%s[key: string]: %s;\n", pad, w.typ(ap, indent+1))
	}
	if sb.Len() == 0 {
		if s.AdditionalProperties == nil && s.Properties == nil && !top {
			return "{ [key: string]: unknown }"
		}
		return "{}"
	}
	return "{\n" + sb.String() + strings.Repeat("  ", indent) + "}"
}

func (w *tsWriter) ref(ref string, indent int) string {
	var name string
	var target *jsonschema.Schema
	switch {
	case strings.HasPrefix(ref, "#/$defs/"):
		name = strings.TrimPrefix(ref, "#/$defs/")
		target = w.root.Defs[name]
	case strings.HasPrefix(ref, "#/definitions/"):
		name = strings.TrimPrefix(ref, "#/definitions/")
		target = w.root.Definitions[name]
	case ref == "#":
		return "unknown"
	}
	if target == nil {
		return "unknown"
	}
	if w.inline {
		if w.expanding[ref] {
			return tsIdent(name)
		}
		w.expanding[ref] = true
		defer delete(w.expanding, ref)
		return w.typ(target, indent)
	}
	alias := w.prefix + "_" + tsIdent(name)
	if _, done := w.aliases[alias]; !done {
		w.aliases[alias] = "" // placeholder: breaks cycles
		var sb strings.Builder
		writeDoc(&sb, "", target.Description)
		fmt.Fprintf(&sb, "type %s = %s;\n", alias, w.typ(target, 0))
		w.aliases[alias] = sb.String()
	}
	return alias
}

func isFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && s.Not.Type == "" && len(s.Not.Types) == 0 && s.Not.Properties == nil && s.Not.Ref == ""
}

func literal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "unknown"
	}
	return string(b)
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func tsKey(name string) string {
	if identRE.MatchString(name) {
		return name
	}
	return literal(name)
}

// toolRef is how a script names tool name: tools.x, or tools["x-y"] for a
// name that is not an identifier.
func toolRef(name string) string {
	if identRE.MatchString(name) {
		return "tools." + name
	}
	return "tools[" + literal(name) + "]"
}

func tsIdent(name string) string {
	var sb strings.Builder
	up := true
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			if up && r >= 'a' && r <= 'z' {
				r -= 'a' - 'A'
			}
			sb.WriteRune(r)
			up = false
		default:
			up = true
		}
	}
	if sb.Len() == 0 || sb.String()[0] >= '0' && sb.String()[0] <= '9' {
		return "T" + sb.String()
	}
	return sb.String()
}

// toolDoc is the doc comment of a tool's method: its description and risk,
// guidance, required scopes, per-action risks and examples.
func toolDoc(info Info) []string {
	lines := []string{info.Description + riskNote(info.Risk)}
	if info.Guidance != "" {
		lines = append(lines, info.Guidance)
	}
	if len(info.Scopes) > 0 {
		lines = append(lines, "Requires scopes: "+strings.Join(info.Scopes, ", ")+".")
	}
	if len(info.ActionRisk) > 0 {
		var parts []string
		for _, a := range sortedKeys(info.ActionRisk) {
			parts = append(parts, a+" "+info.ActionRisk[a].String())
		}
		lines = append(lines, "Risk by action: "+strings.Join(parts, ", ")+".")
	}
	for _, ex := range info.Examples {
		l := "@example "
		if ex.Description != "" {
			l += ex.Description + ": "
		}
		l += "await " + toolRef(info.Name) + "(" + clipJSON(ex.Input) + ")"
		if len(ex.Output) > 0 {
			l += " // => " + clipJSON(ex.Output)
		}
		lines = append(lines, l)
	}
	return lines
}

// maxExampleChars bounds the JSON of an example in a declaration.
const maxExampleChars = 300

// clipJSON returns b compacted, cut to maxExampleChars characters.
func clipJSON(b json.RawMessage) string {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber() // numbers as written, not as float64
	if err := dec.Decode(&v); err == nil {
		var out strings.Builder
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) == nil {
			b = json.RawMessage(strings.TrimSuffix(out.String(), "\n"))
		}
	}
	s := string(b)
	if r := []rune(s); len(r) > maxExampleChars {
		s = string(r[:maxExampleChars]) + "…"
	}
	return s
}

// writeDocLines writes lines as one doc comment: on one line when there is
// one, else one " * " line each. No text can end the comment early.
func writeDocLines(sb *strings.Builder, pad string, lines []string) {
	if len(lines) == 1 {
		writeDoc(sb, pad, lines[0])
		return
	}
	fmt.Fprintf(sb, "%s/**\n", pad)
	for _, l := range lines {
		l = strings.ReplaceAll(strings.ReplaceAll(l, "*/", "*\\/"), "\n", " ")
		fmt.Fprintf(sb, "%s * %s\n", pad, l)
	}
	fmt.Fprintf(sb, "%s */\n", pad)
}

func writeDoc(sb *strings.Builder, pad, text string) {
	if text == "" {
		return
	}
	text = strings.ReplaceAll(text, "*/", "*\\/")
	fmt.Fprintf(sb, "%s/** %s */\n", pad, strings.ReplaceAll(text, "\n", " "))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// inlineObject writes an object literal type on one line:
// {city: string; days?: number}.
func (w *tsWriter) inlineObject(s *jsonschema.Schema, names []string, required map[string]bool, top bool) string {
	var parts []string
	for _, name := range names {
		p, ok := s.Properties[name]
		if !ok {
			continue
		}
		opt := ""
		if !required[name] {
			opt = "?"
		}
		parts = append(parts, tsKey(name)+opt+": "+w.typ(p, 0))
	}
	if ap := s.AdditionalProperties; ap != nil && !isFalse(ap) {
		parts = append(parts, "[key: string]: "+w.typ(ap, 0))
	}
	if len(parts) == 0 && s.AdditionalProperties == nil && s.Properties == nil && !top {
		return "{[key: string]: unknown}"
	}
	return "{" + strings.Join(parts, "; ") + "}"
}
