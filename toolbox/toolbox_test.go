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

type searchIn struct {
	Query string `json:"query" jsonschema:"what to look for"`
	Limit int    `json:"limit,omitempty"`
}

type searchOut struct {
	Hits []string `json:"hits"`
}

func search() *toolbox.FuncTool[searchIn, searchOut] {
	return toolbox.Func("search", "Search the index", func(_ context.Context, in searchIn) (searchOut, error) {
		return searchOut{Hits: []string{"hit for " + in.Query}}, nil
	})
}

func TestAddRejectsBadNamesAndDescriptions(t *testing.T) {
	noop := func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil }
	tests := []struct {
		name, tool, desc string
		want             error
	}{
		{"empty name", "", "d", toolbox.ErrInvalidName},
		{"upper case", "Search", "d", toolbox.ErrInvalidName},
		{"space", "a b", "d", toolbox.ErrInvalidName},
		{"dot", "a.b", "d", toolbox.ErrInvalidName},
		{"path", "../x", "d", toolbox.ErrInvalidName},
		{"65 chars", strings.Repeat("a", 65), "d", toolbox.ErrInvalidName},
		{"64 chars ok", strings.Repeat("a", 64), "d", nil},
		{"all classes ok", "a-z_0-9", "d", nil},
		{"empty description", "t", "", toolbox.ErrInvalidDescription},
		{"201 characters", "t", strings.Repeat("é", 201), toolbox.ErrInvalidDescription},
		{"200 multibyte characters ok", "t", strings.Repeat("é", 200), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b toolbox.Toolbox
			err := b.Add(toolbox.Func(tc.tool, tc.desc, noop))
			if tc.want == nil {
				require.NoError(t, err)
				require.True(t, b.Has(tc.tool))
				return
			}
			require.ErrorIs(t, err, tc.want)
			require.Equal(t, 0, b.Len())
		})
	}
}

func TestAddRejectsUnschematicTypesAndNil(t *testing.T) {
	var b toolbox.Toolbox
	err := b.Add(toolbox.Func("bad", "chan input", func(context.Context, struct{ C chan int }) (struct{}, error) {
		return struct{}{}, nil
	}))
	require.ErrorIs(t, err, toolbox.ErrInvalidSchema)
	require.Contains(t, err.Error(), `"bad"`)

	err = b.Add(toolbox.Func[struct{}, struct{}]("nilfn", "nil function", nil))
	require.ErrorIs(t, err, toolbox.ErrInvalidSchema)
	require.ErrorIs(t, b.Add(nil), toolbox.ErrNilTool)

	_, err = toolbox.New(search(), nil)
	require.ErrorIs(t, err, toolbox.ErrNilTool)
}

func TestRegistryOrderReplaceAndQueries(t *testing.T) {
	mk := func(name string, r toolbox.Risk) toolbox.Tool {
		return toolbox.Func(name, "tool "+name, func(context.Context, struct{}) (string, error) { return name, nil }).WithRisk(r)
	}
	b, err := toolbox.New(mk("b", toolbox.Safe), mk("a", toolbox.High), mk("c", toolbox.Critical))
	require.NoError(t, err)
	require.Equal(t, []string{"b", "a", "c"}, b.Names())
	require.Equal(t, 3, b.Len())

	// Add refuses a name taken; Replace swaps it and keeps its slot.
	require.ErrorIs(t, b.Add(mk("a", toolbox.Safe)), toolbox.ErrDuplicateTool)
	require.ErrorIs(t, b.Replace(mk("zz", toolbox.Safe)), toolbox.ErrNoSuchTool)
	require.NoError(t, b.Replace(mk("a", toolbox.Safe)))
	require.Equal(t, []string{"b", "a", "c"}, b.Names())
	tool, ok := b.Get("a")
	require.True(t, ok)
	require.Equal(t, toolbox.Safe, tool.Info().Risk)

	safe := b.ByRisk(toolbox.Safe)
	require.Len(t, safe, 2)
	require.Equal(t, "b", safe[0].Info().Name)
	require.Len(t, b.ByRisk(toolbox.High), 0)
	require.Len(t, b.ByRisk(toolbox.Critical), 1)
	require.Len(t, b.All(), 3)
	require.False(t, b.Has("zzz"))
	_, ok = b.Get("zzz")
	require.False(t, ok)
}

func TestSchemasWireShape(t *testing.T) {
	hosted := toolbox.HostedTool{Name: "web_search", Description: "Provider web search",
		Spec: json.RawMessage(`{"type":"web_search_20250305","name":"web_search"}`)}
	provider := toolbox.ProviderDefinedTool{Name: "computer", Description: "Computer use"}
	_, err := toolbox.New(search(), search(), hosted)
	require.ErrorIs(t, err, toolbox.ErrDuplicateTool)
	b, err := toolbox.New(search().WithDeferLoading(), hosted, provider)
	require.NoError(t, err)
	require.Equal(t, []string{"search", "web_search", "computer"}, b.Names())

	up, err := json.Marshal(b.Schemas())
	require.NoError(t, err)
	require.JSONEq(t, `[{"type":"web_search_20250305","name":"web_search"},{"type":"provider_defined","name":"computer"}]`, string(up))

	deferred := b.DeferredSchemas()
	require.Len(t, deferred, 1)
	got, err := json.Marshal(deferred[0])
	require.NoError(t, err)
	require.JSONEq(t, `{"type":"function","function":{"name":"search","description":"Search the index",
		"parameters":{"type":"object","required":["query"],"additionalProperties":false,
		"properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer"}}}}}`, string(got))

	s, ok := b.SchemaFor("search")
	require.True(t, ok)
	require.Equal(t, "search", s.Name)
	_, ok = b.SchemaFor("nope")
	require.False(t, ok)
}

func TestValidate(t *testing.T) {
	custom := &jsonschema.Schema{Type: "object", Required: []string{"user"}, Properties: map[string]*jsonschema.Schema{
		"user": {Type: "object", Properties: map[string]*jsonschema.Schema{"id": {Type: "integer"}}},
	}}
	b, err := toolbox.New(search(), customTool{schema: custom},
		toolbox.Func("noargs", "no arguments", func(context.Context, struct{}) (int, error) { return 1, nil }))
	require.NoError(t, err)
	tests := []struct {
		tool, args string
		wantErr    string // substring; empty means valid
	}{
		{"search", `{"query":"x"}`, ""},
		{"search", `{"query":"x","limit":3}`, ""},
		{"search", `{"query":"x","extra":1}`, "extra"},
		{"search", `{"limit":3}`, "query"},
		{"search", `{"query":7}`, "query"},
		{"search", `[1,2]`, "JSON object"},
		{"search", `"str"`, "JSON object"},
		{"search", `{"query":`, "not valid JSON"},
		{"search", ``, "query"},
		{"custom", `{"user":{"id":1}}`, ""},
		{"custom", `{"user":{"id":1,"admin":true}}`, "admin"}, // nested unknown field rejected
		{"custom", `{"user":{},"x":1}`, "x"},
		{"noargs", `{}`, ""},
		{"noargs", ``, ""},
		{"noargs", `{"a":1}`, "a"},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			e, ok := b.Lookup(tc.tool)
			require.True(t, ok)
			err := e.Validate(json.RawMessage(tc.args))
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, toolbox.ErrInvalidArguments)
			require.Contains(t, err.Error(), tc.wantErr)
		})
	}
	// The caller's schema is not modified by tightening.
	require.Nil(t, custom.AdditionalProperties)
}

type customTool struct{ schema *jsonschema.Schema }

func (c customTool) Info() toolbox.Info {
	return toolbox.Info{Name: "custom", Description: "custom schema", InputSchema: c.schema, Risk: toolbox.High}
}

func (customTool) Call(context.Context, json.RawMessage) (toolbox.Output, error) {
	return toolbox.Output{JSON: json.RawMessage(`true`)}, nil
}

func TestFuncCall(t *testing.T) {
	out, err := search().Call(context.Background(), json.RawMessage(`{"query":"go"}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"hits":["hit for go"]}`, string(out.JSON))

	_, err = search().Call(context.Background(), json.RawMessage(`{"query":1}`))
	require.ErrorIs(t, err, toolbox.ErrInvalidArguments)

	boom := errors.New("boom")
	failing := toolbox.Func("f", "fails", func(context.Context, struct{}) (int, error) { return 0, boom })
	_, err = failing.Call(context.Background(), nil)
	require.ErrorIs(t, err, boom)

	media := toolbox.Func("img", "image", func(context.Context, struct{}) (toolbox.Output, error) {
		return toolbox.Output{Media: []toolbox.Media{{MIME: "image/png", Data: []byte{1, 2}}}}, nil
	})
	require.Nil(t, media.Info().OutputSchema)
	out, err = media.Call(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	require.Len(t, out.Media, 1)

	raw := toolbox.Func("raw", "raw json", func(context.Context, struct{}) (json.RawMessage, error) {
		return json.RawMessage(`[1,2]`), nil
	})
	out, err = raw.Call(context.Background(), nil)
	require.NoError(t, err)
	require.Equal(t, `[1,2]`, string(out.JSON))

	_, err = toolbox.HostedTool{Name: "h"}.Call(context.Background(), nil)
	require.ErrorIs(t, err, toolbox.ErrNotExecutable)
	_, err = toolbox.ProviderDefinedTool{Name: "p"}.Call(context.Background(), nil)
	require.ErrorIs(t, err, toolbox.ErrNotExecutable)
}

func TestWithCopies(t *testing.T) {
	base := search()
	high := base.WithRisk(toolbox.High)
	deferred := high.WithDeferLoading()
	require.Equal(t, toolbox.Safe, base.Info().Risk)
	require.Equal(t, toolbox.High, high.Info().Risk)
	require.False(t, high.Info().DeferLoading)
	require.True(t, deferred.Info().DeferLoading)
	var b toolbox.Toolbox
	require.Error(t, b.Add(base.WithRisk(toolbox.Risk(7))))
}

func TestRisk(t *testing.T) {
	require.True(t, toolbox.Safe < toolbox.High && toolbox.High < toolbox.Critical)
	for _, r := range []toolbox.Risk{toolbox.Safe, toolbox.High, toolbox.Critical} {
		b, err := r.MarshalText()
		require.NoError(t, err)
		var back toolbox.Risk
		require.NoError(t, back.UnmarshalText(b))
		require.Equal(t, r, back)
	}
	r, err := toolbox.ParseRisk("high")
	require.NoError(t, err)
	require.Equal(t, toolbox.High, r)
	_, err = toolbox.ParseRisk("medium")
	require.ErrorContains(t, err, `"medium"`)
	_, err = toolbox.Risk(9).MarshalText()
	require.Error(t, err)
	require.Equal(t, "Risk(9)", toolbox.Risk(9).String())
	require.Equal(t, "hosted", toolbox.KindHosted.String())
}

func TestCaller(t *testing.T) {
	_, ok := toolbox.CallerFrom(context.Background())
	require.False(t, ok)
	ctx := toolbox.WithCaller(context.Background(), toolbox.StaticCaller{ChainID: "s1", TenantID: "acme", CallSeq: 3, GrantedScopes: []string{"a"}})
	c, ok := toolbox.CallerFrom(ctx)
	require.True(t, ok)
	require.Equal(t, "acme", c.Tenant())
	require.Equal(t, "s1", c.ID())
	require.Equal(t, 3, c.Seq())
	c.Scopes()[0] = "changed"
	require.Equal(t, []string{"a"}, c.Scopes(), "Scopes hands out copies")
	_, ok = toolbox.CallerFrom(toolbox.WithCaller(context.Background(), nil))
	require.False(t, ok)
}
