package mcptool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// TestEverything runs server-everything over stdio and streamable HTTP and
// checks what its tools become in the toolbox and what their calls return.
func TestEverything(t *testing.T) {
	ctx := context.Background()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			spec, _ := tr.spec(t)
			spec.Risk = map[string]toolbox.Risk{"echo": toolbox.Critical}
			m, box := start(t, nil, []mcptool.ServerSpec{spec}, mcptool.Options{})
			inv := newInvoker(t, box, invoker.Policy{})

			t.Run("names", func(t *testing.T) {
				st := status(t, m, "everything")
				require.True(t, st.Up)
				require.Empty(t, st.Error)
				require.Zero(t, st.Restarts)
				for _, name := range []string{"everything_echo", "everything_get_sum", "everything_get_env",
					"everything_get_tiny_image", "everything_get_structured_content", "everything_get_resource_links",
					"everything_toggle_simulated_logging", "everything_trigger_long_running_operation"} {
					require.Contains(t, st.Tools, name)
					require.True(t, box.Has(name), name)
				}
				for _, name := range st.Tools {
					require.True(t, strings.HasPrefix(name, "everything_"), name)
					require.NotContains(t, name, "-")
				}
			})

			t.Run("arguments", func(t *testing.T) {
				e, ok := box.Lookup("everything_get_sum")
				require.True(t, ok)
				in := e.Info().InputSchema
				require.NotNil(t, in)
				require.Equal(t, "object", in.Type)
				require.ElementsMatch(t, []string{"a", "b"}, in.Required)
				require.Equal(t, "number", in.Properties["a"].Type)

				res, rec := invoke(t, inv, "acme", "everything_get_sum", `{"a": 2, "b": 3}`)
				require.Equal(t, session.StatusOK, res.Status, res.Message)
				require.JSONEq(t, `"The sum of 2 and 3 is 5."`, string(res.Value))
				require.Equal(t, session.StatusOK, rec.Status)

				for _, bad := range []string{`{"a": "two", "b": 3}`, `{"a": 2}`, `{"a": 2, "b": 3, "c": 4}`} {
					res, rec := invoke(t, inv, "acme", "everything_get_sum", bad)
					require.Equal(t, invoker.ReasonInvalidArguments, res.Reason, bad)
					require.Equal(t, session.StatusError, rec.Status)
				}
			})

			t.Run("structured", func(t *testing.T) {
				e, ok := box.Lookup("everything_get_structured_content")
				require.True(t, ok)
				info := e.Info()
				require.NotNil(t, info.OutputSchema)
				require.Equal(t, "object", info.OutputSchema.Type)
				require.ElementsMatch(t, []string{"temperature", "conditions", "humidity"}, info.OutputSchema.Required)
				require.False(t, info.Media, "a tool with an output schema returns a value, not files")

				res, _ := invoke(t, inv, "acme", "everything_get_structured_content", `{"location": "Chicago"}`)
				require.Equal(t, session.StatusOK, res.Status, res.Message)
				require.JSONEq(t, `{"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}`, string(res.Value))
				require.Empty(t, res.Files)

				res, _ = invoke(t, inv, "acme", "everything_get_structured_content", `{"location": "Paris"}`)
				require.Equal(t, invoker.ReasonInvalidArguments, res.Reason, "the enum of the input schema is enforced")
			})

			t.Run("text", func(t *testing.T) {
				e, _ := box.Lookup("everything_echo")
				require.Nil(t, e.Info().OutputSchema)
				out, err := call(ctx, t, box, "everything_echo", `{"message": "hi there"}`)
				require.NoError(t, err)
				require.JSONEq(t, `"Echo: hi there"`, string(out.JSON))
				require.Empty(t, out.Media)
			})

			t.Run("risk", func(t *testing.T) {
				for name, want := range map[string]struct {
					risk  toolbox.Risk
					class toolbox.Class
				}{
					"everything_get_sum":                  {toolbox.Safe, toolbox.ReadOnly},
					"everything_get_tiny_image":           {toolbox.Safe, toolbox.ReadOnly},
					"everything_get_env":                  {toolbox.Safe, toolbox.ReadOnly},
					"everything_toggle_simulated_logging": {toolbox.High, toolbox.LocalWrite},     // readOnly false, destructive false, openWorld false
					"everything_gzip_file_as_resource":    {toolbox.High, toolbox.Network},        // readOnly false, destructive false, openWorld true
					"everything_echo":                     {toolbox.Critical, toolbox.ClassUnset}, // read-only, raised by ServerSpec.Risk
				} {
					e, ok := box.Lookup(name)
					require.True(t, ok, name)
					require.Equal(t, want.risk, e.Info().Risk, name)
					require.Equal(t, want.class, e.Info().Class, name)
				}
				// Without an approver a High tool is refused; a Safe one runs.
				strict, err := invoker.New(box, invoker.Options{})
				require.NoError(t, err)
				res, _ := invoke(t, strict, "acme", "everything_toggle_simulated_logging", `{}`)
				require.Equal(t, invoker.ReasonNoApprovalHandler, res.Reason)
				res, _ = invoke(t, strict, "acme", "everything_get_sum", `{"a": 1, "b": 1}`)
				require.Equal(t, session.StatusOK, res.Status, res.Message)
			})

			t.Run("image", func(t *testing.T) {
				e, _ := box.Lookup("everything_get_tiny_image")
				require.True(t, e.Info().Media)
				out, err := call(ctx, t, box, "everything_get_tiny_image", `{}`)
				require.NoError(t, err)
				require.Len(t, out.Media, 1)
				require.Equal(t, "image/png", out.Media[0].MIME)
				require.True(t, bytes.HasPrefix(out.Media[0].Data, pngMagic), "PNG bytes, decoded from base64")
				var text string
				require.NoError(t, json.Unmarshal(out.JSON, &text))
				require.Contains(t, text, "Here's the image you requested:")
			})

			t.Run("resource links", func(t *testing.T) {
				out, err := call(ctx, t, box, "everything_get_resource_links", `{"count": 2}`)
				require.NoError(t, err)
				require.Len(t, out.Media, 2)
				// Resource 1 is a blob, resource 2 a text (server-everything's
				// odd/even naming is the other way round).
				require.Equal(t, "demo://resource/dynamic/blob/1", out.Media[0].Source)
				require.Equal(t, "text/plain", out.Media[0].MIME)
				require.True(t, strings.HasPrefix(string(out.Media[0].Data), "Resource 1: This is a base64 blob created at "), string(out.Media[0].Data))
				require.Equal(t, "demo://resource/dynamic/text/2", out.Media[1].Source)
				require.Equal(t, "text/plain", out.Media[1].MIME)
				require.True(t, strings.HasPrefix(string(out.Media[1].Data), "Resource 2: This is a plaintext resource created at "), string(out.Media[1].Data))
				require.JSONEq(t, `"Here are 2 resource links to resources available in this server:"`, string(out.JSON))
			})

			t.Run("tool error", func(t *testing.T) {
				// count is bounded 1..10 by the server's zod schema, but the
				// JSON schema it lists says so too: the invoker refuses.
				res, _ := invoke(t, inv, "acme", "everything_get_resource_links", `{"count": 11}`)
				require.Equal(t, invoker.ReasonInvalidArguments, res.Reason)
			})
		})
	}
}

// TestEverythingChainFiles: through a chain run, the image of
// get-tiny-image and the resources of get-resource-links become file
// entries with $artifact refs of the blob store holding their bytes.
func TestEverythingChainFiles(t *testing.T) {
	ctx := context.Background()
	_, box := start(t, nil, []mcptool.ServerSpec{stdioSpec(t)}, mcptool.Options{})
	inv, store := newInvokerStore(t, box, invoker.Policy{})
	engine, err := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = engine.Close(ctx) })
	r, err := chain.New(inv, chain.Engines{Scripts: engine})
	require.NoError(t, err)
	res, err := r.Run(ctx, sandbox.Script{Source: `
		const img = await tools.everything_get_tiny_image({});
		const links = await tools.everything_get_resource_links({count: 2});
		return {img, links};`}, chain.Options{Tenant: "acme"})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	type file struct {
		Path, MIME, Source string
		Size               int64
		Ref                string `json:"$artifact"`
	}
	type result struct {
		Value string
		Files []file
	}
	var got struct{ Img, Links result }
	require.NoError(t, json.Unmarshal(res.Value, &got), string(res.Value))
	read := func(ref string) []byte {
		rc, _, err := store.Open(ctx, "acme", ref)
		require.NoError(t, err)
		defer rc.Close()
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		return b
	}

	require.Contains(t, got.Img.Value, "Here's the image you requested:")
	require.Len(t, got.Img.Files, 1)
	f := got.Img.Files[0]
	require.Equal(t, "image/png", f.MIME)
	require.NotEmpty(t, f.Ref)
	require.True(t, strings.HasSuffix(f.Path, ".png"), f.Path)
	png := read(f.Ref)
	require.True(t, bytes.HasPrefix(png, pngMagic))
	require.Equal(t, f.Size, int64(len(png)))

	require.Equal(t, "Here are 2 resource links to resources available in this server:", got.Links.Value)
	require.Len(t, got.Links.Files, 2)
	require.Equal(t, "demo://resource/dynamic/blob/1", got.Links.Files[0].Source)
	require.Equal(t, "demo://resource/dynamic/text/2", got.Links.Files[1].Source)
	for i, f := range got.Links.Files {
		require.Equal(t, "text/plain", f.MIME)
		require.NotEmpty(t, f.Ref)
		require.True(t, strings.HasPrefix(string(read(f.Ref)), fmt.Sprintf("Resource %d: ", i+1)))
	}
	require.Len(t, res.Trace, 2)
	require.Equal(t, session.StatusOK, res.Trace[0].Status)
}
