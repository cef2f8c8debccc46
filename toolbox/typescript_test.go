package toolbox_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/toolbox"
)

type address struct {
	Street string `json:"street"`
	Zip    string `json:"zip,omitempty"`
}

type orderIn struct {
	Items    []string          `json:"items" jsonschema:"SKUs to order"`
	Ship     *address          `json:"ship,omitempty"`
	Notes    map[string]string `json:"notes,omitempty"`
	Priority int               `json:"priority"`
}

type orderOut struct {
	ID    string  `json:"id"`
	Total float64 `json:"total"`
	Paid  bool    `json:"paid"`
}

func TestTypeScriptDeclaration(t *testing.T) {
	schema := func(s string) *jsonschema.Schema {
		var js jsonschema.Schema
		require.NoError(t, json.Unmarshal([]byte(s), &js))
		return &js
	}
	custom := rawDecl{info: toolbox.Info{Name: "set-mode", Description: "Set a */ mode", Risk: toolbox.Critical,
		InputSchema: schema(`{"type":"object","required":["mode"],"properties":{
			"mode":{"enum":["fast","safe"]},
			"level":{"type":["integer","null"]},
			"target":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/box"}]},
			"pair":{"type":"array","prefixItems":[{"type":"string"},{"const":1}]},
			"both":{"allOf":[{"$ref":"#/$defs/box"},{"type":"object","properties":{"x":{"type":"number"}}}]}
		},"$defs":{"box":{"type":"object","description":"A box","properties":{"w":{"type":"number"},"inner":{"$ref":"#/$defs/box"}}}}}`),
		OutputSchema: schema(`{"type":"array","items":{"type":["string","null"]}}`)}}
	box, err := toolbox.New(
		toolbox.Func("order", "Place an order", func(context.Context, orderIn) (orderOut, error) { return orderOut{}, nil }).WithRisk(toolbox.High),
		toolbox.Func("ping", "Ping", func(context.Context, struct{}) (json.RawMessage, error) { return nil, nil }),
		custom,
		toolbox.HostedTool{Name: "web_search", Description: "hosted"},
	)
	require.NoError(t, err)
	got := box.TypeScript()
	want := `/** A value too large to return inline, stored by airlock. Pass it (or {$artifact}) as an argument to hand the content to another tool. */
type Artifact = { $artifact: string; preview: string; size: number; mime: string };
type ArtifactRef = { $artifact: string };
type Result<T> = T | Artifact;

/** A box */
type SetMode_Box = {
  inner?: SetMode_Box;
  w?: number;
};
declare const tools: {
  /** Place an order (risk HIGH: may need human approval) */
  order(args: {
    /** SKUs to order */
    items: null | string[] | ArtifactRef;
    ship?: null | {
      street: string;
      zip?: string;
    } | ArtifactRef;
    notes?: {
      [key: string]: string;
    } | ArtifactRef;
    priority: number | ArtifactRef;
  }): Promise<Result<{
    id: string;
    total: number;
    paid: boolean;
  }>>;
  /** Ping */
  ping(args: {}): Promise<Result<unknown>>;
  /** Set a *\/ mode (risk CRITICAL: may need human approval) */
  "set-mode"(args: {
    both?: SetMode_Box & {
      x?: number;
    } | ArtifactRef;
    level?: number | null | ArtifactRef;
    mode: "fast" | "safe" | ArtifactRef;
    pair?: [string, 1] | ArtifactRef;
    target?: string | SetMode_Box | ArtifactRef;
  }): Promise<Result<(string | null)[]>>;
};
`
	require.Equal(t, want, got)

	// The declaration is valid TypeScript.
	res := api.Transform(got+"\nexport {};\n", api.TransformOptions{Loader: api.LoaderTS})
	require.Empty(t, res.Errors)
}

type rawDecl struct{ info toolbox.Info }

func (r rawDecl) Info() toolbox.Info { return r.info }
func (rawDecl) Call(context.Context, json.RawMessage) (toolbox.Output, error) {
	return toolbox.Output{}, nil
}
