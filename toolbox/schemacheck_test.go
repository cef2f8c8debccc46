package toolbox_test

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/toolbox"
)

// TestCheckSchemaAccepts: schemas as MCP servers and SDKs write them pass,
// $refs between siblings included, and validate as before.
func TestCheckSchemaAccepts(t *testing.T) {
	for name, c := range map[string]struct{ schema, good, bad string }{
		"plain": {`{"type":"object","properties":{"q":{"type":"string","maxLength":100}},"required":["q"]}`,
			`{"q":"x"}`, `{"q":1}`},
		"defs, reused": {`{"type":"object","properties":{"from":{"$ref":"#/$defs/addr"},"to":{"$ref":"#/$defs/addr"}},
			"$defs":{"addr":{"type":"object","properties":{"zip":{"$ref":"#/$defs/zip"}}},"zip":{"type":"string","pattern":"^[0-9]{5}$"}}}`,
			`{"from":{"zip":"12345"}}`, `{"to":{"zip":"1"}}`},
		"draft-07 definitions": {`{"type":"object","properties":{"a":{"$ref":"#/definitions/a"}},"definitions":{"a":{"type":"integer"}}}`,
			`{"a":1}`, `{"a":"x"}`},
		"ref into properties (zod)": {`{"type":"object","properties":{"a":{"type":"object","properties":{"n":{"type":"number"}}},"b":{"$ref":"#/properties/a"}}}`,
			`{"b":{"n":1}}`, `{"b":{"n":"x"}}`},
		"escaped pointer": {`{"type":"object","properties":{"a/b":{"type":"number"},"c":{"$ref":"#/properties/a~1b"}}}`,
			`{"c":1}`, `{"c":"x"}`},
		"bounded uniqueItems": {`{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true,"maxItems":1024}}}`,
			`{"tags":["a","b"]}`, `{"tags":["a","a"]}`},
		"patternProperties": {`{"type":"object","patternProperties":{"^x-":{"type":"string"}}}`,
			`{"x-a":"b"}`, `{"x-a":1}`},
		"64 levels": {strings.Repeat(`{"type":"object","properties":{"a":`, 63) + `{"type":"number"}` + strings.Repeat(`}}`, 63),
			strings.Repeat(`{"a":`, 63) + `1` + strings.Repeat(`}`, 63), strings.Repeat(`{"a":`, 63) + `"x"` + strings.Repeat(`}`, 63)},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := toolbox.ParseSchema([]byte(c.schema))
			require.NoError(t, err)
			box, err := toolbox.New(rawDecl{info: toolbox.Info{Name: "t", Description: "t", InputSchema: s}})
			require.NoError(t, err)
			e, _ := box.Lookup("t")
			require.NoError(t, e.Validate(json.RawMessage(c.good)))
			require.ErrorIs(t, e.Validate(json.RawMessage(c.bad)), toolbox.ErrInvalidArguments)
		})
	}
}

// TestCheckSchemaRefuses: each schema whose validation is not bounded work
// is refused with the reason, by ParseSchema, CheckSchema and Add alike.
func TestCheckSchemaRefuses(t *testing.T) {
	laughs := `{"type":"object","$ref":"#/$defs/d0","$defs":{`
	for i := range 16 {
		laughs += fmt.Sprintf(`"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	laughs += `"d16":{"type":"object"}}}`
	for name, c := range map[string]struct{ schema, err string }{
		"self ref": {`{"type":"object","$ref":"#"}`,
			`$ref cycle: "#" at the root leads back to the root; recursive schemas are not accepted`},
		"mutual ref": {`{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
			`$ref cycle: "#/$defs/b" at "/$defs/a" → "#/$defs/a" at "/$defs/b" leads back to "/$defs/a"; recursive schemas are not accepted`},
		"recursion that consumes input": {`{"type":"object","$defs":{"box":{"type":"object","properties":{"inner":{"$ref":"#/$defs/box"}}}},"properties":{"b":{"$ref":"#/$defs/box"}}}`,
			`$ref cycle: "#/$defs/box" at "/$defs/box/properties/inner" leads back to "/$defs/box"; recursive schemas are not accepted`},
		"ref to an ancestor through definitions": {`{"type":"object","definitions":{"n":{"anyOf":[{"type":"null"},{"$ref":"#/definitions/n"}]}},"properties":{"n":{"$ref":"#/definitions/n"}}}`,
			`$ref cycle: "#/definitions/n" at "/definitions/n/anyOf/1" leads back to "/definitions/n"; recursive schemas are not accepted`},
		"10k levels of JSON": {strings.Repeat(`{"not":`, 10_000) + `{}` + strings.Repeat(`}`, 10_000),
			`the schema's JSON nests deeper than 144 levels`},
		"deep and large": {strings.Repeat(`{"type":"object","properties":{"a":`, 15) + `{"description":"` + strings.Repeat("x", 250<<10) + `"}` + strings.Repeat(`}}`, 15),
			`the schema's JSON is too deeply nested for its size (7944942 bytes × levels, above 4194304)`},
		"remote ref": {`{"type":"object","properties":{"a":{"$ref":"https://evil.example/s.json#/x"}}}`,
			`$ref "https://evil.example/s.json#/x" at "/properties/a": only refs into the same schema are accepted, "#" or "#/…" of letters, digits and _ . $ ~ -`},
		"relative ref": {`{"type":"object","properties":{"a":{"$ref":"other.json"}}}`,
			`$ref "other.json" at "/properties/a": only refs into the same schema are accepted, "#" or "#/…" of letters, digits and _ . $ ~ -`},
		"dangling ref": {`{"type":"object","$defs":{"a":{}},"properties":{"a":{"$ref":"#/$defs/b"}}}`,
			`$ref "#/$defs/b" at "/properties/a" does not resolve: no key "b"`},
		"ref to a map": {`{"type":"object","$defs":{"a":{}},"properties":{"a":{"$ref":"#/$defs"}}}`,
			`$ref "#/$defs" at "/properties/a" does not resolve: it names a list or map, not a subschema`},
		"ref to a keyword": {`{"type":"object","properties":{"a":{"$ref":"#/type"}}}`,
			`$ref "#/type" at "/properties/a" does not resolve: no subschema "type"`},
		"$id below the root": {`{"type":"object","properties":{"a":{"$id":"https://x.example/a","$ref":"#"}}}`,
			`$id at "/properties/a": only the root may have an $id`},
		"$dynamicRef": {`{"type":"object","$dynamicAnchor":"n","properties":{"a":{"$dynamicRef":"#n"}}}`,
			`$dynamicRef at "/properties/a" is not accepted`},
		"100k anyOf": {`{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{},`, 100_000), ",") + `]}`,
			`the schema is 300011 bytes, above 262144`},
		"5000 anyOf": {`{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{},`, 5000), ",") + `]}`,
			`the schema has more than 4096 subschemas`},
		"exponential refs": {laughs,
			`the schema has more than 4096 subschemas, $refs expanded (at "/$defs/d5")`},
		"deep refs": {`{"$ref":"#/$defs/d0","$defs":{` + func() string {
			var b []string
			for i := range 70 {
				b = append(b, fmt.Sprintf(`"d%d":{"$ref":"#/$defs/d%d"}`, i, i+1))
			}
			return strings.Join(b, ",") + `,"d70":{}`
		}() + `}}`,
			`the schema nests deeper than 64 levels, $refs followed (at "/$defs/d63")`},
		"huge pattern": {`{"type":"string","pattern":"` + strings.Repeat("x", 1025) + `"}`,
			`a pattern at the root is 1025 bytes, above 1024`},
		"huge patternProperties key": {`{"type":"object","patternProperties":{"` + strings.Repeat("x", 2000) + `":{}}}`,
			`a pattern at the root is 2000 bytes, above 1024`},
		"bad pattern": {`{"type":"string","pattern":"(a"}`,
			"a pattern at the root does not compile: error parsing regexp: missing closing ): `(a`"},
		"uniqueItems": {`{"type":"array","uniqueItems":true}`,
			`uniqueItems at the root needs a maxItems of at most 1024`},
		"uniqueItems, too many": {`{"type":"array","uniqueItems":true,"maxItems":100000}`,
			`uniqueItems at the root needs a maxItems of at most 1024`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := toolbox.ParseSchema([]byte(c.schema))
			require.ErrorIs(t, err, toolbox.ErrInvalidSchema)
			require.Equal(t, "toolbox: invalid schema: "+c.err, err.Error())
			if strings.HasPrefix(c.err, "the schema's JSON") || strings.HasPrefix(c.err, "the schema is") {
				return // not decoded
			}
			var s jsonschema.Schema
			require.NoError(t, json.Unmarshal([]byte(c.schema), &s))
			require.Equal(t, "toolbox: invalid schema: "+c.err, toolbox.CheckSchema(&s).Error())
			_, err = toolbox.New(rawDecl{info: toolbox.Info{Name: "hostile", Description: "h", InputSchema: &s}})
			require.ErrorIs(t, err, toolbox.ErrInvalidSchema)
			require.Equal(t, `toolbox: invalid schema: input schema of tool "hostile": `+c.err, err.Error())
			_, err = toolbox.New(rawDecl{info: toolbox.Info{Name: "hostile", Description: "h", OutputSchema: &s}})
			require.Equal(t, `toolbox: invalid schema: output schema of tool "hostile": `+c.err, err.Error())
		})
	}
}

// TestCheckSchemaGoValues: a schema built in Go may be a pointer graph
// that no JSON text makes; CheckSchema refuses it without following it
// for ever.
func TestCheckSchemaGoValues(t *testing.T) {
	cyclic := &jsonschema.Schema{Type: "object"}
	cyclic.Not = cyclic
	require.EqualError(t, toolbox.CheckSchema(cyclic),
		`toolbox: invalid schema: the subschema at "/not" is also at the root: a schema must be a tree`)

	shared := &jsonschema.Schema{Type: "string"}
	require.EqualError(t, toolbox.CheckSchema(&jsonschema.Schema{AnyOf: []*jsonschema.Schema{shared, shared}}),
		`toolbox: invalid schema: the subschema at "/anyOf/1" is also at "/anyOf/0": a schema must be a tree`)

	deep := &jsonschema.Schema{}
	for range 10_000 {
		deep = &jsonschema.Schema{Not: deep}
	}
	require.EqualError(t, toolbox.CheckSchema(deep),
		`toolbox: invalid schema: the schema nests deeper than 64 levels (at "`+strings.Repeat("/not", 50)+`…")`)

	require.EqualError(t, toolbox.CheckSchema(&jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"a": nil}}),
		`toolbox: invalid schema: the subschema at "/properties/a" is null`)
	require.NoError(t, toolbox.CheckSchema(nil))
}

// TestValidateArgumentDepth: the arguments' nesting is bounded before the
// validator sees them (encoding/json refuses more than 10,000 levels); the
// validator's recursion follows the schema, at most MaxSchemaDepth deep,
// so a deep argument against a shallow schema costs no recursion.
func TestValidateArgumentDepth(t *testing.T) {
	s, err := toolbox.ParseSchema([]byte(`{"type":"object","properties":{"a":{"type":"object"}}}`))
	require.NoError(t, err)
	box, err := toolbox.New(rawDecl{info: toolbox.Info{Name: "t", Description: "t", InputSchema: s}})
	require.NoError(t, err)
	e, _ := box.Lookup("t")
	nested := func(n int) json.RawMessage {
		return json.RawMessage(`{"a":` + strings.Repeat(`{"b":`, n) + `1` + strings.Repeat(`}`, n) + `}`)
	}
	require.NoError(t, e.Validate(nested(9_990)))
	err = e.Validate(nested(10_001))
	require.ErrorIs(t, err, toolbox.ErrInvalidArguments)
	require.ErrorContains(t, err, "exceeded max depth")
}

// FuzzCheckSchema: ParseSchema never panics, and a schema it accepts
// that a tool may declare validates values shaped after it with a
// bounded stack: the validator's recursion is at most MaxSchemaDepth
// deep, far below the 64 MiB this sets (a $ref cycle that got through
// would exhaust it, which is fatal: the fuzzer reports the input).
func FuzzCheckSchema(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := toolbox.ParseSchema(data)
		if err != nil {
			require.ErrorIs(t, err, toolbox.ErrInvalidSchema)
			return
		}
		box, err := toolbox.New(rawDecl{info: toolbox.Info{Name: "f", Description: "f", InputSchema: s}})
		if err != nil {
			return // refused for another reason: the schema does not compile
		}
		e, _ := box.Lookup("f")
		old := debug.SetMaxStack(64 << 20)
		defer debug.SetMaxStack(old)
		in := e.Info().InputSchema
		for _, v := range []any{map[string]any{}, sample(in, in, 0), sample(in, in, 0)} {
			if _, ok := v.(map[string]any); !ok {
				v = map[string]any{"v": v}
			}
			b, err := json.Marshal(v)
			require.NoError(t, err)
			_ = e.Validate(b)
		}
		_ = e.Validate(data) // the schema's own text as arguments
	})
}

// sample builds a value shaped after s, following properties, items and
// local $refs, at most 2×MaxSchemaDepth levels deep: one value per
// subschema it follows, so at most MaxSchemaNodes of them.
func sample(root, s *jsonschema.Schema, depth int) any {
	if s == nil || depth > 2*toolbox.MaxSchemaDepth {
		return nil
	}
	if strings.HasPrefix(s.Ref, "#/") {
		parts := strings.Split(s.Ref[2:], "/")
		if len(parts) == 2 && parts[0] == "$defs" {
			return sample(root, root.Defs[parts[1]], depth+1)
		}
		if len(parts) == 2 && parts[0] == "definitions" {
			return sample(root, root.Definitions[parts[1]], depth+1)
		}
	}
	switch {
	case s.Const != nil:
		return *s.Const
	case len(s.Enum) > 0:
		return s.Enum[0]
	case len(s.AnyOf) > 0:
		return sample(root, s.AnyOf[len(s.AnyOf)-1], depth+1)
	case len(s.OneOf) > 0:
		return sample(root, s.OneOf[0], depth+1)
	case len(s.AllOf) > 0:
		return sample(root, s.AllOf[0], depth+1)
	case s.Properties != nil || s.Type == "object":
		m := map[string]any{}
		for k, p := range s.Properties {
			m[k] = sample(root, p, depth+1)
		}
		if s.AdditionalProperties != nil {
			m["extra"] = sample(root, s.AdditionalProperties, depth+1)
		}
		return m
	case s.Items != nil || len(s.PrefixItems) > 0 || s.Type == "array":
		var a []any
		for _, p := range s.PrefixItems {
			a = append(a, sample(root, p, depth+1))
		}
		if s.Items != nil {
			a = append(a, sample(root, s.Items, depth+1))
		}
		return a
	case s.Type == "string":
		return strings.Repeat("x", depth)
	case s.Type == "number" || s.Type == "integer":
		return depth
	case s.Type == "boolean":
		return true
	}
	return nil
}

// TestFanout: the fan-out counts the subschemas that apply to one value:
// in-place keywords (anyOf, allOf, $ref, …) add up, one property or item
// counts its largest subschema, the other keywords of values inside add
// up, and $defs count only where a $ref applies them.
func TestFanout(t *testing.T) {
	for schema, want := range map[string]int{
		`{"type":"object"}`: 1,
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"},"c":{"type":"object","properties":{"d":{}}}}}`: 1,
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`:                                       3,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"b":{"$ref":"#/$defs/x"}},"$defs":{"x":{"anyOf":[{},{},{}]}}}`:    5,
		`{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"a":{"minLength":1}}}]}`:                  3,
		`{"type":"object","properties":{"a":{}},"patternProperties":{"^a":{},"^b":{}},"additionalProperties":{}}`:                  4,
		`{"type":"object","properties":{"l":{"type":"array","items":{"oneOf":[{"type":"string"},{"type":"number"}]}}}}`:            3,
	} {
		s, err := toolbox.ParseSchema([]byte(schema))
		require.NoError(t, err)
		box, err := toolbox.New(rawDecl{info: toolbox.Info{Name: "t", Description: "t", InputSchema: s}})
		require.NoError(t, err)
		e, _ := box.Lookup("t")
		require.Equal(t, want, e.Fanout(), schema)
	}
	box, err := toolbox.New(rawDecl{info: toolbox.Info{Name: "none", Description: "t"}})
	require.NoError(t, err)
	e, _ := box.Lookup("none")
	require.Equal(t, 1, e.Fanout())
}

// TestValidationWorkBound: arguments whose checking would cost more than
// MaxValidationWork are refused before the validator runs: many values
// against a schema that applies many subschemas to each, or a long
// string that each of many failing branches would write into its error.
// A plain schema takes the same arguments.
func TestValidationWorkBound(t *testing.T) {
	add := func(name, schema string) *toolbox.Entry {
		s, err := toolbox.ParseSchema([]byte(schema))
		require.NoError(t, err)
		box, err := toolbox.New(rawDecl{info: toolbox.Info{Name: name, Description: "t", InputSchema: s}})
		require.NoError(t, err)
		e, _ := box.Lookup(name)
		return e
	}
	anyOf := `{"anyOf":[` + strings.Repeat(`{"type":"boolean"},`, 63) + `{"type":"number"}]}`
	wide := add("wide", `{"type":"object","properties":{"a":{"type":"array","items":`+anyOf+`},"s":`+anyOf+`}}`)
	plain := add("plain", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"number"}},"s":{"type":"string"}}}`)
	require.Equal(t, 65, wide.Fanout())

	many := json.RawMessage(`{"a":[` + strings.TrimSuffix(strings.Repeat("1,", 20_000), ",") + `]}`)
	err := wide.Validate(many)
	require.ErrorIs(t, err, toolbox.ErrInvalidArguments)
	require.EqualError(t, err, "toolbox: invalid arguments: checking these arguments against the tool's schema would cost 1462630, above 1048576 (40007 bytes; each value is checked against up to 65 subschemas): pass fewer values, or large data as an artifact ref; wide takes {a?: (boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | boolean | b…")
	require.NoError(t, plain.Validate(many))
	require.NoError(t, wide.Validate(json.RawMessage(`{"a":[1,2,3]}`)))

	long := json.RawMessage(`{"s":"` + strings.Repeat("x", 512<<10) + `"}`)
	require.ErrorContains(t, wide.Validate(long), "would cost 2130050, above 1048576")
	require.NoError(t, plain.Validate(long))
}
