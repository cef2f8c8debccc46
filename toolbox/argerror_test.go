package toolbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/toolbox"
)

type weatherIn struct {
	City string `json:"city"`
}

type reportOpts struct {
	Limit int    `json:"limit,omitempty"`
	Unit  string `json:"unit,omitempty" jsonschema:"c or f"`
}

type reportIn struct {
	City  string     `json:"city"`
	Opts  reportOpts `json:"opts,omitempty"`
	Tags  []string   `json:"tags,omitempty"`
	Items []struct {
		ID int `json:"id"`
	} `json:"items,omitempty"`
}

// rawSchemaTool is a tool with a hand-written input schema.
type rawSchemaTool struct {
	name   string
	schema *jsonschema.Schema
}

func (r rawSchemaTool) Info() toolbox.Info {
	return toolbox.Info{Name: r.name, Description: "hand-written schema", InputSchema: r.schema}
}

func (rawSchemaTool) Call(context.Context, json.RawMessage) (toolbox.Output, error) {
	return toolbox.Output{JSON: json.RawMessage(`true`)}, nil
}

func argBox(t testing.TB) *toolbox.Toolbox {
	t.Helper()
	one, ten := 1.0, 10.0
	unit := &jsonschema.Schema{Type: "object", Required: []string{"unit"}, Properties: map[string]*jsonschema.Schema{
		"unit":  {Type: "string", Enum: []any{"c", "f"}},
		"limit": {Type: "integer", Minimum: &one, Maximum: &ten},
		"id":    {Type: "string", Pattern: "^[a-z]+$"},
		"mode":  {AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "integer"}}},
		"ref":   {Ref: "#/$defs/Point"},
	}, Defs: map[string]*jsonschema.Schema{
		"Point": {Type: "object", Required: []string{"x"}, Properties: map[string]*jsonschema.Schema{"x": {Type: "number"}}},
	}}
	long := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, k := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
		"kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"} {
		long.Properties[k+"_with_a_rather_long_name"] = &jsonschema.Schema{Type: "string"}
	}
	b, err := toolbox.New(
		toolbox.Func("weather", "Weather for a city", func(context.Context, weatherIn) (string, error) { return "sunny", nil }),
		toolbox.Func("report", "A report", func(context.Context, reportIn) (string, error) { return "ok", nil }),
		toolbox.Func("noop", "no arguments", func(context.Context, struct{}) (int, error) { return 1, nil }),
		rawSchemaTool{name: "units", schema: unit},
		rawSchemaTool{name: "long", schema: long},
	)
	require.NoError(t, err)
	return b
}

// TestArgumentErrorMessages checks the exact message of each kind of
// argument error: what a person and a model can act on, never the
// validator's internals.
func TestArgumentErrorMessages(t *testing.T) {
	b := argBox(t)
	tests := []struct {
		name, tool, args string
		want             string // ArgumentError.Message
		argument         string // ArgumentError.Argument
	}{
		{name: "unknown argument", tool: "weather", args: `{"city":"Oslo","town":"x"}`,
			want: `unknown argument "town"; weather takes {city: string}`, argument: "town"},
		{name: "unknown instead of required", tool: "weather", args: `{"town":"Oslo"}`,
			want: `unknown argument "town"; weather takes {city: string}`, argument: "town"},
		{name: "several unknown arguments, sorted", tool: "weather", args: `{"city":"a","zip":1,"country":2}`,
			want: `unknown arguments "country", "zip"; weather takes {city: string}`},
		{name: "missing argument", tool: "weather", args: `{}`,
			want: `missing argument "city"; weather takes {city: string}`, argument: "city"},
		{name: "missing argument, no args", tool: "weather", args: ``,
			want: `missing argument "city"; weather takes {city: string}`, argument: "city"},
		{name: "wrong type", tool: "weather", args: `{"city":7}`,
			want: `argument "city" must be a string, not a number; weather takes {city: string}`, argument: "city"},
		{name: "null for a string", tool: "weather", args: `{"city":null}`,
			want: `argument "city" must be a string, not null; weather takes {city: string}`, argument: "city"},
		{name: "not an object", tool: "weather", args: `[1]`,
			want: `the arguments must be a JSON object, not an array; weather takes {city: string}`},
		{name: "not JSON", tool: "weather", args: `{"city":`,
			want: `the arguments are not valid JSON (unexpected end of JSON input); weather takes {city: string}`},
		{name: "nested wrong type", tool: "report", args: `{"city":"a","opts":{"limit":"3"}}`,
			want:     `argument "opts.limit" must be an integer, not a string; report takes {city: string; opts?: {limit?: number; unit?: string}; tags?: null | string[]; items?: null | ({id: number})[]}`,
			argument: "opts.limit"},
		{name: "integer given a fraction", tool: "report", args: `{"city":"a","opts":{"limit":1.5}}`,
			want:     `argument "opts.limit" must be an integer, not a number; report takes {city: string; opts?: {limit?: number; unit?: string}; tags?: null | string[]; items?: null | ({id: number})[]}`,
			argument: "opts.limit"},
		{name: "nested unknown", tool: "report", args: `{"city":"a","opts":{"lmit":3}}`,
			want:     `unknown argument "opts.lmit"; report takes {city: string; opts?: {limit?: number; unit?: string}; tags?: null | string[]; items?: null | ({id: number})[]}`,
			argument: "opts.lmit"},
		{name: "array item", tool: "report", args: `{"city":"a","tags":["x",2]}`,
			want:     `argument "tags[1]" must be a string, not a number; report takes {city: string; opts?: {limit?: number; unit?: string}; tags?: null | string[]; items?: null | ({id: number})[]}`,
			argument: "tags[1]"},
		{name: "missing in array item", tool: "report", args: `{"city":"a","items":[{"id":1},{}]}`,
			want:     `missing argument "items[1].id"; report takes {city: string; opts?: {limit?: number; unit?: string}; tags?: null | string[]; items?: null | ({id: number})[]}`,
			argument: "items[1].id"},
		{name: "no arguments taken", tool: "noop", args: `{"a":1}`,
			want: `unknown argument "a"; noop takes no arguments`, argument: "a"},
		{name: "enum", tool: "units", args: `{"unit":"k"}`,
			want:     `argument "unit" must be one of "c", "f", not "k"; units takes {id?: string; limit?: number; mode?: string | number; ref?: {x: number}; unit: "c" | "f"}`,
			argument: "unit"},
		{name: "minimum", tool: "units", args: `{"unit":"c","limit":0}`,
			want:     `argument "limit" must be at least 1, not 0; units takes {id?: string; limit?: number; mode?: string | number; ref?: {x: number}; unit: "c" | "f"}`,
			argument: "limit"},
		{name: "maximum", tool: "units", args: `{"unit":"c","limit":11}`,
			want:     `argument "limit" must be at most 10, not 11; units takes {id?: string; limit?: number; mode?: string | number; ref?: {x: number}; unit: "c" | "f"}`,
			argument: "limit"},
		{name: "pattern", tool: "units", args: `{"unit":"c","id":"A1"}`,
			want:     `argument "id" must match the pattern ^[a-z]+$, not "A1"; units takes {id?: string; limit?: number; mode?: string | number; ref?: {x: number}; unit: "c" | "f"}`,
			argument: "id"},
		{name: "anyOf", tool: "units", args: `{"unit":"c","mode":true}`,
			want:     `argument "mode" must be string | number, not true; units takes {id?: string; limit?: number; mode?: string | number; ref?: {x: number}; unit: "c" | "f"}`,
			argument: "mode"},
		{name: "through a $ref", tool: "units", args: `{"unit":"c","ref":{"x":"1"}}`,
			want:     `argument "ref.x" must be a number, not a string; units takes {id?: string; limit?: number; mode?: string | number; ref?: {x: number}; unit: "c" | "f"}`,
			argument: "ref.x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := b.Lookup(tc.tool)
			require.True(t, ok)
			err := e.Validate(json.RawMessage(tc.args))
			require.ErrorIs(t, err, toolbox.ErrInvalidArguments)
			ae, ok := errors.AsType[*toolbox.ArgumentError](err)
			require.True(t, ok, "%T", err)
			require.Equal(t, tc.want, ae.Message())
			require.Equal(t, tc.argument, ae.Argument)
			require.Equal(t, tc.tool, ae.Tool)
			require.Equal(t, "toolbox: invalid arguments: "+tc.want, err.Error())
			require.NotContains(t, err.Error(), "validating")
			require.NotContains(t, err.Error(), "additional properties")
		})
	}
}

// TestArgumentErrorBounded checks that a message stays bounded however long
// the signature, the names and the values a script sends.
func TestArgumentErrorBounded(t *testing.T) {
	b := argBox(t)
	huge := strings.Repeat("é", 5000)
	tests := []struct{ name, tool, args string }{
		{"long signature", "long", `{"x":1}`},
		{"long unknown name", "weather", `{"city":"a","` + huge + `":1}`},
		{"many unknown names", "weather", `{"a1":1,"a2":1,"a3":1,"a4":1,"a5":1,"a6":1,"a7":1,"a8":1,"city":"x"}`},
		{"long enum value", "units", `{"unit":"` + huge + `"}`},
		{"long pattern value", "units", `{"unit":"c","id":"` + huge + `"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := b.Lookup(tc.tool)
			require.True(t, ok)
			ae, ok := errors.AsType[*toolbox.ArgumentError](e.Validate(json.RawMessage(tc.args)))
			require.True(t, ok)
			require.LessOrEqual(t, len(ae.Message()), 500, ae.Message())
			require.LessOrEqual(t, len(ae.Signature), 200)
			require.True(t, strings.ToValidUTF8(ae.Message(), "") == ae.Message(), "valid UTF-8")
		})
	}
	e, _ := b.Lookup("weather")
	ae, _ := errors.AsType[*toolbox.ArgumentError](e.Validate(json.RawMessage(`{"a1":1,"a2":1,"a3":1,"a4":1,"a5":1,"a6":1,"a7":1,"city":"x"}`)))
	require.Equal(t, `unknown arguments "a1", "a2", "a3", "a4", "a5", and 2 more; weather takes {city: string}`, ae.Message())
	e, _ = b.Lookup("long")
	ae, _ = errors.AsType[*toolbox.ArgumentError](e.Validate(json.RawMessage(`{"x":1}`)))
	require.True(t, strings.HasSuffix(ae.Signature, "…"), ae.Signature)
}
