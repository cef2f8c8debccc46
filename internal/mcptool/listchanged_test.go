package mcptool_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/mcptest"
	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/toolbox"
)

// TestListChangedEverything: server-everything registers its conditional
// tools once initialized and says so with tools/list_changed: they are
// registered, and the refresh is counted.
//
// Over HTTP its notification can go out before the client's event stream
// exists; the tools still arrive, by the list airlock reads once more a
// second after the session starts.
func TestListChangedEverything(t *testing.T) {
	for name, spec := range map[string]mcptool.ServerSpec{
		"stdio": stdioSpec(t),
		"http":  {Name: "everything", URL: mcptest.StartHTTP(t).URL},
	} {
		t.Run(name, func(t *testing.T) {
			m, box := start(t, nil, []mcptool.ServerSpec{spec}, mcptool.Options{})
			eventually(t, "the conditional tool is registered and a refresh counted", func() bool {
				st := status(t, m, "everything")
				return box.Has("everything_simulate_research_query") && st.Refreshes >= 1
			})
			require.Contains(t, status(t, m, "everything").Tools, "everything_simulate_research_query")
		})
	}
}

type textIn struct {
	Text string `json:"text"`
}

func addUpper(s *sdk.Server, name, desc string) {
	sdk.AddTool(s, &sdk.Tool{Name: name, Description: desc},
		func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + ":" + in.Text}}}, nil, nil
		})
}

// goServer serves srv over streamable HTTP on an httptest server and
// records the Authorization headers it receives.
func goServer(t *testing.T, srv *sdk.Server) (url string, auth func() []string) {
	var mu sync.Mutex
	var seen []string
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// TestListChangedGoServer: a Go SDK server over streamable HTTP adds,
// replaces and removes tools while airlock is connected; the toolbox
// follows.
func TestListChangedGoServer(t *testing.T) {
	ctx := context.Background()
	srv := sdk.NewServer(&sdk.Implementation{Name: "gosrv", Version: "1"}, nil)
	addUpper(srv, "alpha", "Alpha tool.")
	addUpper(srv, "beta.v2", "Beta tool.")
	url, _ := goServer(t, srv)
	spec := mcptool.ServerSpec{Name: "go", URL: url, Risk: map[string]toolbox.Risk{"*": toolbox.Critical, "alpha": toolbox.Safe}}
	m, box := start(t, nil, []mcptool.ServerSpec{spec}, mcptool.Options{})

	require.Equal(t, []string{"go_alpha", "go_beta_v2"}, status(t, m, "go").Tools)
	e, _ := box.Lookup("go_alpha")
	require.Equal(t, toolbox.Safe, e.Info().Risk, "named risk wins over *")
	e, _ = box.Lookup("go_beta_v2")
	require.Equal(t, toolbox.Critical, e.Info().Risk, "the * risk")
	out, err := call(ctx, t, box, "go_beta_v2", `{"text": "x"}`)
	require.NoError(t, err)
	require.JSONEq(t, `"beta.v2:x"`, string(out.JSON))

	before := status(t, m, "go").Refreshes
	srv.RemoveTools("beta.v2")
	eventually(t, "go_beta_v2 is removed", func() bool { return !box.Has("go_beta_v2") })
	require.Equal(t, []string{"go_alpha"}, status(t, m, "go").Tools)

	addUpper(srv, "gamma", "Gamma tool.")
	eventually(t, "go_gamma is added", func() bool { return box.Has("go_gamma") })
	out, err = call(ctx, t, box, "go_gamma", `{"text": "y"}`)
	require.NoError(t, err)
	require.JSONEq(t, `"gamma:y"`, string(out.JSON))
	e, _ = box.Lookup("go_gamma")
	require.Equal(t, toolbox.Critical, e.Info().Risk)

	addUpper(srv, "alpha", "Alpha tool, second edition.")
	eventually(t, "go_alpha is replaced", func() bool {
		e, ok := box.Lookup("go_alpha")
		return ok && e.Info().Description == "Alpha tool, second edition."
	})
	st := status(t, m, "go")
	require.Equal(t, []string{"go_alpha", "go_gamma"}, st.Tools)
	require.GreaterOrEqual(t, st.Refreshes, before+2)
	require.Zero(t, st.Restarts)

	// Close unregisters them.
	require.NoError(t, m.Close())
	require.False(t, box.Has("go_alpha"))
	require.False(t, box.Has("go_gamma"))
}

// TestToolsFilterAndAdjust: ServerSpec.Tools keeps only the named MCP
// tools, also when the server adds others later; Options.Adjust sees and
// changes every Info; ServerSpec.Scopes are required of every tool.
func TestToolsFilterAndAdjust(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "gosrv", Version: "1"}, nil)
	addUpper(srv, "alpha", "Alpha tool.")
	addUpper(srv, "beta", "Beta tool.")
	url, _ := goServer(t, srv)
	var mu sync.Mutex
	var adjusted []string
	opts := mcptool.Options{Adjust: func(i toolbox.Info) toolbox.Info {
		mu.Lock()
		adjusted = append(adjusted, i.Name)
		mu.Unlock()
		i.Description = "Adjusted: " + i.Description
		return i
	}}
	spec := mcptool.ServerSpec{Name: "go", URL: url, Tools: []string{"alpha", "gamma"}, Scopes: []string{"crm:read"}}
	m, box := start(t, nil, []mcptool.ServerSpec{spec}, opts)
	require.Equal(t, []string{"go_alpha"}, status(t, m, "go").Tools)
	e, _ := box.Lookup("go_alpha")
	require.Equal(t, "Adjusted: Alpha tool.", e.Info().Description)
	require.Equal(t, []string{"crm:read"}, e.Info().Scopes)

	addUpper(srv, "delta", "Delta tool.")
	addUpper(srv, "gamma", "Gamma tool.")
	eventually(t, "go_gamma is added", func() bool { return box.Has("go_gamma") })
	require.Equal(t, []string{"go_alpha", "go_gamma"}, status(t, m, "go").Tools)
	require.False(t, box.Has("go_delta"))
	mu.Lock()
	defer mu.Unlock()
	require.NotContains(t, adjusted, "go_beta")
	require.NotContains(t, adjusted, "go_delta")
}
