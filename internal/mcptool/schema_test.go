package mcptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
)

// hostileSchemas are input schemas a hostile server (THREATS.md, T4) may
// list, each with the error that refuses it after
// `mcp server "h", tool "<name>": input schema: toolbox: invalid schema: `.
// The first two made the first call of the tool, from any tenant, recurse
// without end in validation: `fatal error: stack overflow`.
func hostileSchemas() []struct{ name, schema, err string } {
	deep := strings.Repeat(`{"type":"object","not":`, 990) + `{}` + strings.Repeat(`}`, 990)
	laughs := `{"type":"object","$ref":"#/$defs/d0","$defs":{`
	for i := range 16 {
		laughs += fmt.Sprintf(`"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	laughs += `"d16":{"type":"object"}}}`
	anyOf := func(n int) string {
		return `{"type":"object","anyOf":[` + strings.TrimSuffix(strings.Repeat(`{},`, n), ",") + `]}`
	}
	return []struct{ name, schema, err string }{
		{"self_ref", `{"type":"object","$ref":"#"}`,
			`$ref cycle: "#" at the root leads back to the root; recursive schemas are not accepted`},
		{"mutual_ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`,
			`$ref cycle: "#/$defs/b" at "/$defs/a" → "#/$defs/a" at "/$defs/b" leads back to "/$defs/a"; recursive schemas are not accepted`},
		{"recursive_tree", `{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#"}}}}`,
			`$ref cycle: "#" at "/properties/children/items" leads back to the root; recursive schemas are not accepted`},
		{"deep", deep,
			`the schema's JSON nests deeper than 144 levels`},
		{"deep_65", strings.Repeat(`{"type":"object","not":`, 65) + `{}` + strings.Repeat(`}`, 65),
			`the schema nests deeper than 64 levels (at "` + strings.Repeat("/not", 50) + `…")`},
		{"remote_ref", `{"type":"object","properties":{"a":{"$ref":"https://evil.example/s.json"}}}`,
			`$ref "https://evil.example/s.json" at "/properties/a": only refs into the same schema are accepted, "#" or "#/…" of letters, digits and _ . $ ~ -`},
		{"dangling_ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}}}`,
			`$ref "#/$defs/nope" at "/properties/a" does not resolve: no subschema "$defs"`},
		{"anchor_ref", `{"type":"object","properties":{"a":{"$ref":"#x"},"b":{"$anchor":"x"}}}`,
			`$ref "#x" at "/properties/a": only refs into the same schema are accepted, "#" or "#/…" of letters, digits and _ . $ ~ -`},
		{"dynamic_ref", `{"type":"object","properties":{"a":{"$dynamicRef":"#/properties/b"},"b":{}}}`,
			`$dynamicRef at "/properties/a" is not accepted`},
		{"any_of_100k", anyOf(100_000),
			`the schema is 300027 bytes, above 262144`},
		{"any_of_5000", anyOf(5000),
			`the schema has more than 4096 subschemas`},
		{"ref_laughs", laughs,
			`the schema has more than 4096 subschemas, $refs expanded (at "/$defs/d5")`},
		{"huge_pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"` + strings.Repeat(`(a|b)`, 400) + `"}}}`,
			`a pattern at "/properties/a" is 2000 bytes, above 1024`},
		{"unique_items", `{"type":"object","properties":{"a":{"type":"array","uniqueItems":true}}}`,
			`uniqueItems at "/properties/a" needs a maxItems of at most 1024`},
	}
}

// TestHostileSchemas: every schema of hostileSchemas is refused when the
// server lists it, with an error naming the server and the tool, in the
// log and in Status.Skipped; the server's other tools register, and a
// chain of another tenant calls one of them through the invoker.
func TestHostileSchemas(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "hostile", Version: "1"}, nil)
	addUpper(srv, "fine", "A tool that is fine.")
	cases := hostileSchemas()
	for _, c := range cases {
		srv.AddTool(&sdk.Tool{Name: c.name, Description: "hostile", InputSchema: json.RawMessage(c.schema)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{}, nil
			})
	}
	// A recursive-looking schema that is not: refs to siblings, reused.
	srv.AddTool(&sdk.Tool{Name: "shared_defs", Description: "refs without cycles",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"from":{"$ref":"#/$defs/addr"},"to":{"$ref":"#/$defs/addr"}},
			"$defs":{"addr":{"type":"object","properties":{"zip":{"$ref":"#/$defs/zip"}}},"zip":{"type":"string","pattern":"^[0-9]{5}$"}}}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
		})
	url, _ := goServer(t, srv)
	logs := &syncBuffer{}
	m, box := start(t, nil, []mcptool.ServerSpec{{Name: "h", URL: url}}, mcptool.Options{Logger: bufLogger(logs)})

	require.ElementsMatch(t, []string{"h_fine", "h_shared_defs"}, box.Names())
	st := status(t, m, "h")
	require.True(t, st.Up)
	require.Len(t, st.Skipped, len(cases))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := fmt.Sprintf(`mcp server "h", tool %q: input schema: toolbox: invalid schema: %s`, c.name, c.err)
			require.Equal(t, want, st.Skipped[c.name])
			require.Contains(t, logs.String(), fmt.Sprintf("tool=%s", c.name))
		})
	}

	// A healthy chain of another tenant, alongside: the server's good
	// tools validate and run.
	inv := newInvoker(t, box, invoker.Policy{})
	res, _ := invoke(t, inv, "tenant-b", "h_fine", `{"text": "a"}`)
	require.Equal(t, session.StatusOK, res.Status, res.Message)
	require.JSONEq(t, `"fine:a"`, string(res.Value))
	res, _ = invoke(t, inv, "tenant-b", "h_shared_defs", `{"from": {"zip": "12345"}, "to": {"zip": "54321"}}`)
	require.Equal(t, session.StatusOK, res.Status, res.Message)
	res, _ = invoke(t, inv, "tenant-b", "h_shared_defs", `{"from": {"zip": "x"}}`)
	require.Equal(t, invoker.ReasonInvalidArguments, res.Reason)
	res, _ = invoke(t, inv, "tenant-b", "h_self_ref", `{}`)
	require.Equal(t, invoker.ReasonUnknownTool, res.Reason)
}

// TestRelistHostileSchema: a server that re-lists a registered tool with a
// hostile schema does not get it registered: the tool keeps its previous
// declaration (and stays callable), Status.Skipped says why, a new tool
// with a hostile schema is not added, and the server's other tools are
// untouched.
func TestRelistHostileSchema(t *testing.T) {
	ctx := context.Background()
	srv := sdk.NewServer(&sdk.Implementation{Name: "gosrv", Version: "1"}, nil)
	addUpper(srv, "alpha", "Alpha tool.")
	addUpper(srv, "beta", "Beta tool.")
	url, _ := goServer(t, srv)
	m, box := start(t, nil, []mcptool.ServerSpec{{Name: "go", URL: url}}, mcptool.Options{})
	require.Equal(t, []string{"go_alpha", "go_beta"}, status(t, m, "go").Tools)
	before, _ := box.Lookup("go_alpha")

	handler := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hostile"}}}, nil
	}
	srv.AddTool(&sdk.Tool{Name: "alpha", Description: "Alpha, now hostile.", InputSchema: json.RawMessage(`{"type":"object","$ref":"#"}`)}, handler)
	srv.AddTool(&sdk.Tool{Name: "gamma", Description: "Gamma, hostile from the start.",
		InputSchema: json.RawMessage(`{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`)}, handler)
	eventually(t, "both hostile declarations are refused", func() bool { return len(status(t, m, "go").Skipped) == 2 })

	st := status(t, m, "go")
	require.Equal(t, []string{"go_alpha", "go_beta"}, st.Tools)
	require.Equal(t, `mcp server "go", tool "alpha": input schema: toolbox: invalid schema: $ref cycle: "#" at the root leads back to the root; recursive schemas are not accepted; go_alpha keeps its previous declaration`,
		st.Skipped["alpha"])
	require.Equal(t, `mcp server "go", tool "gamma": input schema: toolbox: invalid schema: $ref cycle: "#/$defs/b" at "/$defs/a" → "#/$defs/a" at "/$defs/b" leads back to "/$defs/a"; recursive schemas are not accepted`,
		st.Skipped["gamma"])
	after, ok := box.Lookup("go_alpha")
	require.True(t, ok)
	require.Same(t, before, after, "the previous registration, untouched")
	require.False(t, box.Has("go_gamma"))

	// Other tenants' chains still call both tools; the old schema
	// validates go_alpha's arguments.
	inv := newInvoker(t, box, invoker.Policy{})
	for _, tool := range []string{"go_alpha", "go_beta"} {
		res, _ := invoke(t, inv, "tenant-b", tool, `{"text": "x"}`)
		require.Equal(t, session.StatusOK, res.Status, res.Message)
	}
	res, _ := invoke(t, inv, "tenant-b", "go_alpha", `{"text": 1}`)
	require.Equal(t, invoker.ReasonInvalidArguments, res.Reason)

	// Fixed again: registered as listed, nothing skipped.
	addUpper(srv, "alpha", "Alpha, fixed.")
	srv.RemoveTools("gamma")
	eventually(t, "alpha is replaced", func() bool {
		e, ok := box.Lookup("go_alpha")
		return ok && e.Info().Description == "Alpha, fixed." && status(t, m, "go").Skipped == nil
	})
	_, err := call(ctx, t, box, "go_alpha", `{"text": "y"}`)
	require.NoError(t, err)
}
