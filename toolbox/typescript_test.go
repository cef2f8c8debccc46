package toolbox_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
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
		},"$defs":{"box":{"type":"object","description":"A box","properties":{"w":{"type":"number"}}}}}`),
		OutputSchema: schema(`{"type":"array","items":{"type":["string","null"]}}`)}}
	box, err := toolbox.New(
		toolbox.Func("order", "Place an order", func(context.Context, orderIn) (orderOut, error) { return orderOut{}, nil }).WithRisk(toolbox.High),
		toolbox.Func("ping", "Ping", func(context.Context, struct{}) (json.RawMessage, error) { return nil, nil }),
		custom,
		toolbox.HostedTool{Name: "web_search", Description: "hosted"},
	)
	require.NoError(t, err)
	got := box.TypeScript()
	want := `/** A tool result too large to hand the script as a value (above the chain's max_guest_value_bytes, 1 MiB by default; smaller ones arrive as plain values even when airlock stored them). Read its content with text(), json() or bytes() (counted against the chain's max_read_bytes), or pass it (or {$artifact}) as an argument to hand the content to another tool without reading it. A chain's own result above max_final_value_bytes (64 KiB by default) reaches the agent in this form too. */
type Artifact = { $artifact: string; preview: string; size: number; mime: string; text(): Promise<string>; json(): Promise<unknown>; bytes(): Promise<Uint8Array> };
type ArtifactRef = { $artifact: string };
type Result<T> = T | Artifact;

/** A box */
type SetMode_Box = {
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

type plotOut struct {
	W int `json:"w"`
}

// TestTypeScriptMediaResult: a tool returning media is declared to return
// the {value, files} shape the chain receives, whose keys are checked
// against what the invoker hands a chain, with a blob store and without.
func TestTypeScriptMediaResult(t *testing.T) {
	png := []byte("\x89PNG fake")
	plot := toolbox.Func("plot", "Plot", func(context.Context, struct{}) (toolbox.MediaResult[plotOut], error) {
		return toolbox.MediaResult[plotOut]{Value: plotOut{W: 2}, Media: []toolbox.Media{{MIME: "image/png", Data: png}}}, nil
	})
	raw := toolbox.Func("snap", "Snap", func(context.Context, struct{}) (toolbox.MediaResult[json.RawMessage], error) {
		return toolbox.MediaResult[json.RawMessage]{}, nil
	})
	require.True(t, plot.Info().Media)
	require.NotNil(t, plot.Info().OutputSchema, "the output schema is the value's")
	require.True(t, raw.Info().Media)
	require.Nil(t, raw.Info().OutputSchema)

	out, err := plot.Call(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"w":2}`, string(out.JSON))
	require.Equal(t, []toolbox.Media{{MIME: "image/png", Data: png}}, out.Media)
	out, err = raw.Call(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	require.Empty(t, out.JSON, "a nil RawMessage value is null")
	require.Empty(t, out.Media)

	box, err := toolbox.New(plot, raw)
	require.NoError(t, err)
	got := box.TypeScript()
	want := `/** A tool result too large to hand the script as a value (above the chain's max_guest_value_bytes, 1 MiB by default; smaller ones arrive as plain values even when airlock stored them). Read its content with text(), json() or bytes() (counted against the chain's max_read_bytes), or pass it (or {$artifact}) as an argument to hand the content to another tool without reading it. A chain's own result above max_final_value_bytes (64 KiB by default) reaches the agent in this form too. */
type Artifact = { $artifact: string; preview: string; size: number; mime: string; text(): Promise<string>; json(): Promise<unknown>; bytes(): Promise<Uint8Array> };
type ArtifactRef = { $artifact: string };
type Result<T> = T | Artifact;
/** A file a tool returned (an image, audio, a PDF). Pass {$artifact: file.$artifact} as an argument to hand its content to another tool. Without a blob store there is no $artifact but data, the content in base64. */
type MediaFile = { path: string; mime: string; size: number; $artifact?: string; source?: string; data?: string };
/** The result of a tool that returns files: its value and its files, or the bare value when a call returned no file. */
type MediaResult<T> = { value: Result<T>; files: MediaFile[] } | Result<T>;

declare const tools: {
  /** Plot */
  plot(args: {}): Promise<MediaResult<{
    w: number;
  }>>;
  /** Snap */
  snap(args: {}): Promise<MediaResult<unknown>>;
};
`
	require.Equal(t, want, got)
	res := api.Transform(got+"\nexport {};\n", api.TransformOptions{Loader: api.LoaderTS})
	require.Empty(t, res.Errors)

	// The declared keys are the ones the chain gets.
	declared := map[string]bool{"path": true, "mime": true, "size": true, "$artifact": true, "data": true}
	for name, store := range map[string]invoker.Store{"store": blobstore.New(memblob.New(), blobstore.Options{}), "no store": nil} {
		t.Run(name, func(t *testing.T) {
			inv, err := invoker.New(box, invoker.Options{Store: store})
			require.NoError(t, err)
			sess := inv.NewSession(session.Options{})
			defer sess.Close(context.Background())
			r := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "plot", Args: json.RawMessage(`{}`)})
			require.Equal(t, session.StatusOK, r.Status, r.Message)
			var v struct {
				Value json.RawMessage
				Files []map[string]any
			}
			dec := json.NewDecoder(bytes.NewReader(r.Value))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(&v), "the value is {value, files}: %s", r.Value)
			require.JSONEq(t, `{"w":2}`, string(v.Value))
			require.Len(t, v.Files, 1)
			for k := range v.Files[0] {
				require.True(t, declared[k], "MediaFile declares %q", k)
			}
			for _, k := range []string{"path", "mime", "size"} {
				require.Contains(t, v.Files[0], k)
			}
			if store != nil {
				require.Contains(t, v.Files[0], "$artifact")
			} else {
				require.Equal(t, base64.StdEncoding.EncodeToString(png), v.Files[0]["data"])
			}
		})
	}
}
