package toolbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Bounds of a tool's input and output schemas, checked by CheckSchema when
// a tool is added or replaced, whoever declares it (a Go tool, an HTTP
// tool of the configuration, an MCP server's tool). They make validating a
// call's arguments a bounded amount of work: see RATIONALE.md, "Why refuse
// recursive tool schemas?".
const (
	// MaxSchemaBytes bounds the JSON encoding of one schema: 256 KiB.
	MaxSchemaBytes = 256 << 10
	// MaxSchemaDepth bounds how deeply subschemas nest, each $ref followed
	// counting as one level: 64. The validator's recursion on any value is
	// at most this deep.
	MaxSchemaDepth = 64
	// MaxSchemaNodes bounds the subschemas of one schema, every $ref
	// counted as a copy of the subschema it names (so a chain of $refs
	// that doubles at each step is counted in full): 4096. The validator
	// visits each at most once per value of the arguments it applies to.
	MaxSchemaNodes = 4096
	// MaxSchemaPatternBytes bounds one "pattern" and one key of
	// "patternProperties": 1024 bytes. Go's regexp matches in linear time,
	// but its compiled size grows with the pattern (and its repetition
	// counts).
	MaxSchemaPatternBytes = 1024
	// MaxUniqueItems is the largest "maxItems" an array schema with
	// "uniqueItems" may declare; "uniqueItems" without "maxItems" is
	// refused: comparing the items is quadratic in the worst case.
	MaxUniqueItems = 1024
	// MaxValidationWork bounds what validating one call's arguments may
	// cost: the tool's fan-out (the most subschemas that apply to one
	// value, Entry.Fanout) times the values of the arguments plus a
	// sixteenth of their bytes (a failed check writes the value into its
	// error). Arguments above it are refused with ErrInvalidArguments
	// before the validator runs: 1Mi. A tool of fan-out 1 (plain
	// properties) takes 1 MiB of arguments whatever they hold; at fan-out
	// 16, one string of 1 MiB or 60,000 short values. The validator spends
	// about 2 µs per visit that fails and 30 ns per byte it writes into an
	// error: see docs/limits.md.
	MaxValidationWork = 1 << 20
	// maxSchemaJSONDepth bounds the nesting of a schema's JSON text read by
	// ParseSchema, before it is decoded: the decoder re-reads each nested
	// schema's text, so its work grows with depth times size. Two JSON
	// levels per schema level (properties/x, anyOf/i), and some for
	// values (const, enum, default).
	maxSchemaJSONDepth = 2*MaxSchemaDepth + 16
	// maxSchemaDecodeWork bounds the sum over a schema's bytes of their
	// JSON depth, read by ParseSchema before it is decoded: the decoder's
	// work (a 256 KiB schema 127 levels deep took 0.9s). A flat schema of
	// MaxSchemaBytes costs about a quarter of it.
	maxSchemaDecodeWork = 4 << 20
)

// refRE is the $ref a schema may hold: "#", or a JSON Pointer into the
// same schema of plain characters (no percent-escapes, no anchors, no
// other document).
var refRE = regexp.MustCompile(`^#(/[A-Za-z0-9_.$~-]*)*$`)

// ParseSchema decodes a JSON Schema from untrusted bytes: at most
// MaxSchemaBytes, nested at most 2×MaxSchemaDepth+16 JSON levels deep,
// then checked by CheckSchema. The error wraps ErrInvalidSchema.
func ParseSchema(b []byte) (*jsonschema.Schema, error) {
	if len(b) > MaxSchemaBytes {
		return nil, fmt.Errorf("%w: the schema is %d bytes, above %d", ErrInvalidSchema, len(b), MaxSchemaBytes)
	}
	d, work := jsonDepth(b, maxSchemaJSONDepth)
	if d > maxSchemaJSONDepth {
		return nil, fmt.Errorf("%w: the schema's JSON nests deeper than %d levels", ErrInvalidSchema, maxSchemaJSONDepth)
	}
	if work > maxSchemaDecodeWork {
		return nil, fmt.Errorf("%w: the schema's JSON is too deeply nested for its size (%d bytes × levels, above %d)", ErrInvalidSchema, work, maxSchemaDecodeWork)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	if err := checkSchema(&s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	return &s, nil
}

// jsonDepth returns the deepest nesting of arrays and objects in b, or
// max+1 as soon as it passes max, and the sum over b's bytes of their
// depth. It does not check that b is JSON.
func jsonDepth(b []byte, max int) (deepest, work int) {
	depth := 0
	inString := false
	for i := 0; i < len(b); i++ {
		work += depth
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
				work += depth
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > deepest {
				if deepest = depth; deepest > max {
					return deepest, work
				}
			}
		case '}', ']':
			depth--
		}
	}
	return deepest, work
}

// CheckSchema reports whether validating values against s is bounded
// work. It refuses, with an error wrapping ErrInvalidSchema that names the
// subschema and the rule:
//
//   - a subschema that appears twice (the schema must be a tree);
//   - nesting deeper than MaxSchemaDepth, $refs followed;
//   - more than MaxSchemaNodes subschemas, $refs expanded;
//   - a $ref other than "#" or "#/…" (a JSON Pointer into s), one that
//     does not name a subschema of s, and every $ref cycle: a schema that
//     refers to itself or to a schema that contains it, directly or
//     through other $refs (recursive schemas are refused, not bounded);
//   - $dynamicRef, $recursiveRef, and $id below the root (they change
//     what a $ref names);
//   - a pattern or patternProperties key above MaxSchemaPatternBytes or
//     that does not compile;
//   - uniqueItems without a maxItems of at most MaxUniqueItems;
//   - a JSON encoding above MaxSchemaBytes.
//
// A nil s is fine. CheckSchema never recurses deeper than MaxSchemaDepth,
// whatever s holds (pointer cycles included). Toolbox.Add applies it to
// every tool's input and output schemas.
func CheckSchema(s *jsonschema.Schema) error {
	if err := checkSchema(s); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	return nil
}

// checkSchema is CheckSchema without the sentinel.
func checkSchema(s *jsonschema.Schema) error {
	_, err := checkedSchema(s)
	return err
}

// schemaFanout checks s and returns its fan-out: the most of its
// subschemas, $refs expanded, that validation applies to one value. It
// is 1 for a nil s.
func schemaFanout(s *jsonschema.Schema) (int, error) {
	c, err := checkedSchema(s)
	if err != nil || c == nil {
		return 1, err
	}
	return c.fan(s).fan, nil
}

// checkedSchema checks s and returns its checker, nil for a nil s.
func checkedSchema(s *jsonschema.Schema) (*schemaChecker, error) {
	if s == nil {
		return nil, nil
	}
	c := &schemaChecker{root: s, path: map[*jsonschema.Schema]string{}}
	if err := c.walk(s, "", 1); err != nil {
		return nil, err
	}
	if err := c.resolveRefs(); err != nil {
		return nil, err
	}
	c.state = make(map[*jsonschema.Schema]*nodeCost, len(c.path))
	if _, err := c.cost(s, 1, nil); err != nil {
		return nil, err
	}
	// Bounded by now: a tree of at most MaxSchemaNodes subschemas.
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSchemaBytes {
		return nil, fmt.Errorf("the schema is %d bytes, above %d", len(b), MaxSchemaBytes)
	}
	return c, nil
}

type schemaChecker struct {
	root  *jsonschema.Schema
	path  map[*jsonschema.Schema]string // JSON Pointer of every subschema
	refs  map[*jsonschema.Schema]*jsonschema.Schema
	state map[*jsonschema.Schema]*nodeCost
	fans  map[*jsonschema.Schema]fanout
}

// fanout is how many subschemas of one, $refs expanded, validation
// applies to one value.
type fanout struct {
	here  int // to the value the subschema applies to, itself included
	below int // to one value inside it, at most
	fan   int // to any one value: max(here, below)
}

// inPlace are the keywords whose subschemas apply to the value their
// schema applies to; the others apply to values inside it (properties,
// items, …) or to none ($defs, definitions, contentSchema).
var inPlace = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "not": true,
	"if": true, "then": true, "else": true, "dependentSchemas": true, "dependencies": true}

// oneOfThem are the keywords of which at most one subschema applies to a
// value inside: a property by its name, an item by its index.
var oneOfThem = map[string]bool{"properties": true, "prefixItems": true, "items": true}

// notApplied are the keywords whose subschemas the validator does not
// apply to a value (a $ref may name them).
var notApplied = map[string]bool{"$defs": true, "definitions": true, "contentSchema": true}

// fan returns the fan-out of s, a checked subschema. Its recursion
// follows the checked, acyclic graph: at most MaxSchemaDepth deep.
//
// here(s) = 1 + here of its in-place subschemas and its $ref's target.
// below(s) bounds the subschemas applying to one value inside: for s
// and every schema applying in place with it, the largest fan of a
// property or item subschema (one name, one index) plus the fans of its
// other keywords (patternProperties, additionalProperties, contains, …).
func (c *schemaChecker) fan(s *jsonschema.Schema) fanout {
	if f, ok := c.fans[s]; ok {
		return f
	}
	f := fanout{here: 1}
	maxOf := map[string]int{}
	eachChildOf(s, func(kw, _ string, child *jsonschema.Schema) bool {
		cf := c.fan(child)
		switch {
		case notApplied[kw]:
		case inPlace[kw]:
			f.here += cf.here
			f.below += cf.below
		case oneOfThem[kw]:
			maxOf[kw] = max(maxOf[kw], cf.fan)
		default:
			f.below += cf.fan
		}
		return true
	})
	for _, m := range maxOf {
		f.below += m
	}
	if t := c.refs[s]; t != nil {
		tf := c.fan(t)
		f.here += tf.here
		f.below += tf.below
	}
	f.here = min(f.here, MaxSchemaNodes)
	f.below = min(f.below, MaxSchemaNodes)
	f.fan = max(f.here, f.below)
	if c.fans == nil {
		c.fans = map[*jsonschema.Schema]fanout{}
	}
	c.fans[s] = f
	return f
}

// nodeCost is what one subschema costs, its $refs expanded.
type nodeCost struct {
	done  bool // false while it is on the walk's path
	nodes int  // subschemas, itself included; at most MaxSchemaNodes+1
	depth int  // levels, itself included
}

// at names a subschema by its JSON Pointer in an error, clipped.
func at(p string) string {
	if p == "" {
		return "the root"
	}
	if len(p) > 200 {
		p = p[:200] + "…"
	}
	return strconv.Quote(p)
}

// walk visits the tree under s (at JSON Pointer p, depth levels down),
// checking each subschema's own keywords.
func (c *schemaChecker) walk(s *jsonschema.Schema, p string, depth int) error {
	if s == nil {
		return fmt.Errorf("the subschema at %s is null", at(p))
	}
	if depth > MaxSchemaDepth {
		return fmt.Errorf("the schema nests deeper than %d levels (at %s)", MaxSchemaDepth, at(p))
	}
	if other, seen := c.path[s]; seen {
		return fmt.Errorf("the subschema at %s is also at %s: a schema must be a tree", at(p), at(other))
	}
	if len(c.path) >= MaxSchemaNodes {
		return fmt.Errorf("the schema has more than %d subschemas", MaxSchemaNodes)
	}
	c.path[s] = p
	if err := checkKeywords(s, p, s == c.root); err != nil {
		return err
	}
	var err error
	eachChild(s, func(name string, child *jsonschema.Schema) bool {
		err = c.walk(child, p+"/"+name, depth+1)
		return err == nil
	})
	return err
}

// checkKeywords checks the keywords of s alone.
func checkKeywords(s *jsonschema.Schema, p string, root bool) error {
	switch {
	case s.ID != "" && !root:
		return fmt.Errorf("$id at %s: only the root may have an $id", at(p))
	case s.DynamicRef != "":
		return fmt.Errorf("$dynamicRef at %s is not accepted", at(p))
	case s.Extra["$recursiveRef"] != nil:
		return fmt.Errorf("$recursiveRef at %s is not accepted", at(p))
	case s.Ref != "" && !refRE.MatchString(s.Ref):
		return fmt.Errorf("$ref %s at %s: only refs into the same schema are accepted, \"#\" or \"#/…\" of letters, digits and _ . $ ~ -", clipQuote(s.Ref), at(p))
	case s.UniqueItems && (s.MaxItems == nil || *s.MaxItems > MaxUniqueItems):
		return fmt.Errorf("uniqueItems at %s needs a maxItems of at most %d", at(p), MaxUniqueItems)
	}
	patterns := make([]string, 0, 1+len(s.PatternProperties))
	if s.Pattern != "" {
		patterns = append(patterns, s.Pattern)
	}
	for k := range s.PatternProperties {
		patterns = append(patterns, k)
	}
	for _, re := range patterns {
		if len(re) > MaxSchemaPatternBytes {
			return fmt.Errorf("a pattern at %s is %d bytes, above %d", at(p), len(re), MaxSchemaPatternBytes)
		}
		if _, err := regexp.Compile(re); err != nil {
			return fmt.Errorf("a pattern at %s does not compile: %w", at(p), err)
		}
	}
	return nil
}

func clipQuote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strconv.Quote(s)
}

// resolveRefs finds the subschema every $ref names.
func (c *schemaChecker) resolveRefs() error {
	c.refs = map[*jsonschema.Schema]*jsonschema.Schema{}
	for s, p := range c.path {
		if s.Ref == "" {
			continue
		}
		target, err := c.pointer(s.Ref[1:])
		if err != nil {
			return fmt.Errorf("$ref %s at %s does not resolve: %w", clipQuote(s.Ref), at(p), err)
		}
		c.refs[s] = target
	}
	return nil
}

// pointer returns the subschema of the root at JSON Pointer ptr, the way
// the validator resolves it.
func (c *schemaChecker) pointer(ptr string) (*jsonschema.Schema, error) {
	if ptr == "" {
		return c.root, nil
	}
	segs := strings.Split(ptr[1:], "/")
	v := reflect.ValueOf(c.root)
	for _, seg := range segs {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		switch v.Kind() {
		case reflect.Pointer:
			f, ok := schemaField(v.Elem(), seg)
			if !ok {
				return nil, fmt.Errorf("no subschema %q", seg)
			}
			v = f
		case reflect.Slice:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= v.Len() || (len(seg) > 1 && seg[0] == '0') {
				return nil, fmt.Errorf("no item %q", seg)
			}
			v = v.Index(n)
		case reflect.Map:
			v = v.MapIndex(reflect.ValueOf(seg))
			if !v.IsValid() {
				return nil, fmt.Errorf("no key %q", seg)
			}
		}
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, errors.New("it names nothing")
		}
	}
	s, ok := v.Interface().(*jsonschema.Schema)
	if !ok {
		return nil, errors.New("it names a list or map, not a subschema")
	}
	if _, ours := c.path[s]; !ours {
		return nil, errors.New("it names nothing") // unreachable: every subschema is walked
	}
	return s, nil
}

// cost returns the expanded size and depth of s, depth levels down,
// refusing $ref cycles. It recurses at most MaxSchemaDepth deep.
func (c *schemaChecker) cost(s *jsonschema.Schema, depth int, via []*jsonschema.Schema) (*nodeCost, error) {
	if depth > MaxSchemaDepth {
		return nil, fmt.Errorf("the schema nests deeper than %d levels, $refs followed (at %s)", MaxSchemaDepth, at(c.path[s]))
	}
	if nc, ok := c.state[s]; ok {
		if !nc.done {
			return nil, c.cycle(s, via)
		}
		return nc, nil
	}
	nc := &nodeCost{nodes: 1}
	c.state[s] = nc
	via = append(via, s)
	add := func(child *jsonschema.Schema) error {
		cc, err := c.cost(child, depth+1, via)
		if err != nil {
			return err
		}
		nc.nodes = min(nc.nodes+cc.nodes, MaxSchemaNodes+1)
		nc.depth = max(nc.depth, cc.depth)
		if nc.nodes > MaxSchemaNodes {
			return fmt.Errorf("the schema has more than %d subschemas, $refs expanded (at %s)", MaxSchemaNodes, at(c.path[s]))
		}
		return nil
	}
	var err error
	eachChild(s, func(_ string, child *jsonschema.Schema) bool {
		err = add(child)
		return err == nil
	})
	if err == nil && c.refs[s] != nil {
		err = add(c.refs[s])
	}
	if err != nil {
		return nil, err
	}
	nc.depth++
	nc.done = true
	return nc, nil
}

// cycle describes the $ref cycle that returns to s.
func (c *schemaChecker) cycle(s *jsonschema.Schema, via []*jsonschema.Schema) error {
	i := len(via) - 1
	for i > 0 && via[i] != s {
		i--
	}
	var refs []string
	for _, v := range via[i:] {
		if v.Ref != "" {
			refs = append(refs, fmt.Sprintf("%s at %s", clipQuote(v.Ref), at(c.path[v])))
		}
		if len(refs) == 4 {
			refs = append(refs, "…")
			break
		}
	}
	return fmt.Errorf("$ref cycle: %s leads back to %s; recursive schemas are not accepted", strings.Join(refs, " → "), at(c.path[s]))
}

// A schemaFieldInfo is a field of jsonschema.Schema that holds subschemas.
type schemaFieldInfo struct {
	name  string // its JSON name
	index []int
}

// schemaFields lists the fields of jsonschema.Schema holding subschemas,
// found by their types so that a field added to the library is walked
// too.
var schemaFields = sync.OnceValue(func() []schemaFieldInfo {
	one := reflect.TypeFor[*jsonschema.Schema]()
	list := reflect.TypeFor[[]*jsonschema.Schema]()
	dict := reflect.TypeFor[map[string]*jsonschema.Schema]()
	var out []schemaFieldInfo
	for _, sf := range reflect.VisibleFields(reflect.TypeFor[jsonschema.Schema]()) {
		if sf.Type != one && sf.Type != list && sf.Type != dict {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch {
		case sf.Name == "Items" || sf.Name == "ItemsArray":
			name = "items"
		case sf.Name == "DependencySchemas":
			name = "dependencies"
		case name == "" || name == "-":
			name = sf.Name
		}
		out = append(out, schemaFieldInfo{name: name, index: sf.Index})
	}
	return out
})

// schemaField returns the field of schema value v (a jsonschema.Schema)
// with JSON name name: "items" is Items when set, else ItemsArray.
func schemaField(v reflect.Value, name string) (reflect.Value, bool) {
	var found reflect.Value
	for _, f := range schemaFields() {
		if f.name != name {
			continue
		}
		fv := v.FieldByIndex(f.index)
		if !found.IsValid() || (found.IsNil() && !fv.IsNil()) {
			found = fv
		}
	}
	return found, found.IsValid() && !found.IsNil()
}

// eachChild calls f with every direct subschema of s and its path
// segment, until f returns false.
func eachChild(s *jsonschema.Schema, f func(seg string, child *jsonschema.Schema) bool) {
	eachChildOf(s, func(kw, seg string, child *jsonschema.Schema) bool { return f(seg, child) })
}

// eachChildOf calls f with every direct subschema of s, its keyword and
// its path segment, until f returns false.
func eachChildOf(s *jsonschema.Schema, f func(kw, seg string, child *jsonschema.Schema) bool) {
	v := reflect.ValueOf(s).Elem()
	for _, sf := range schemaFields() {
		fv := v.FieldByIndex(sf.index)
		switch c := fv.Interface().(type) {
		case *jsonschema.Schema:
			if c != nil && !f(sf.name, sf.name, c) {
				return
			}
		case []*jsonschema.Schema:
			for i, cs := range c {
				if !f(sf.name, sf.name+"/"+strconv.Itoa(i), cs) {
					return
				}
			}
		case map[string]*jsonschema.Schema:
			for _, k := range slices.Sorted(maps.Keys(c)) {
				if !f(sf.name, sf.name+"/"+escapePointer(k), c[k]) {
					return
				}
			}
		}
	}
}

// validationWork returns what validating args costs against a schema of
// fan-out fan (see MaxValidationWork): fan × (values + bytes/16). It
// counts the values only when the bytes alone might pass the bound.
func validationWork(args []byte, fan int) int {
	n := len(args)
	if w := fan * (n/2 + 1 + n/16); w <= MaxValidationWork {
		return w // at most one value per two bytes
	}
	values := 1
	inString := false
	for i := 0; i < n; i++ {
		c := args[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ',', '[', '{':
			values++
		}
	}
	return fan * (values + n/16)
}

func escapePointer(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}
