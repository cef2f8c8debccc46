package mcptool_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/toolbox"
)

// TestHostileServer: a server's tools and results are bounded before they
// reach the toolbox or a chain: an oversized schema skips the tool, a bad
// name is skipped, too many attachments or bytes of files fail the call,
// a description is cut to the toolbox's limits.
func TestHostileServer(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "hostile", Version: "1"}, nil)
	big := map[string]any{"type": "object", "properties": map[string]any{}}
	for i := range 5000 {
		big["properties"].(map[string]any)[strings.Repeat("p", 40)+string(rune('a'+i%26))+strings.Repeat("x", i%50)] = map[string]any{"type": "string", "description": strings.Repeat("d", 300)}
	}
	handler := func(n int, size int) sdk.ToolHandler {
		return func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res := &sdk.CallToolResult{}
			for range n {
				res.Content = append(res.Content, &sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, size)})
			}
			return res, nil
		}
	}
	obj := map[string]any{"type": "object"}
	srv.AddTool(&sdk.Tool{Name: "big-schema", Description: "x", InputSchema: big}, handler(0, 0))
	srv.AddTool(&sdk.Tool{Name: strings.Repeat("n", 70), Description: "too long a name", InputSchema: obj}, handler(0, 0))
	srv.AddTool(&sdk.Tool{Name: "many", Description: strings.Repeat("Long words. ", 400), InputSchema: obj}, handler(33, 1))
	srv.AddTool(&sdk.Tool{Name: "heavy", Description: "heavy", InputSchema: obj}, handler(5, 1<<20))
	srv.AddTool(&sdk.Tool{Name: "flood", Description: "one message above the bound", InputSchema: obj}, handler(1, 13<<20))
	srv.AddTool(&sdk.Tool{Name: "fine", Description: "fine", InputSchema: obj}, handler(32, 1))
	url, _ := goServer(t, srv)
	m, box := start(t, nil, []mcptool.ServerSpec{{Name: "h", URL: url}}, mcptool.Options{})
	require.ElementsMatch(t, []string{"h_many", "h_heavy", "h_fine", "h_flood"}, box.Names())
	mcptool.SetMaxResultBytes(t, 4<<20)

	// No annotations: the protocol's defaults, destructive and open-world,
	// so HIGH, never SAFE.
	e, _ := box.Lookup("h_fine")
	require.Equal(t, toolbox.High, e.Info().Risk)
	require.Equal(t, toolbox.Destructive, e.Info().Class)

	e, _ = box.Lookup("h_many")
	require.LessOrEqual(t, len([]rune(e.Info().Description)), 200)
	require.LessOrEqual(t, len([]rune(e.Info().Guidance)), 2000)

	ctx := context.Background()
	_, err := call(ctx, t, box, "h_many", `{}`)
	require.ErrorContains(t, err, "more than 32 attachments")
	_, err = call(ctx, t, box, "h_heavy", `{}`)
	require.ErrorContains(t, err, "bytes of files")
	out, err := call(ctx, t, box, "h_fine", `{}`)
	require.NoError(t, err)
	require.Len(t, out.Media, 32)

	// A message above 16 MiB (13 MiB in base64) is not read: the call's
	// outcome is unknown, and the session still serves the next call.
	// A healthy call runs alongside and is untouched.
	healthy := make(chan error, 1)
	go func() {
		_, err := call(ctx, t, box, "h_fine", `{}`)
		healthy <- err
	}()
	_, err = call(ctx, t, box, "h_flood", `{}`)
	require.ErrorIs(t, err, toolbox.ErrOutcomeUnknown)
	require.NoError(t, <-healthy)
	_, err = call(ctx, t, box, "h_fine", `{}`)
	require.NoError(t, err)
	require.True(t, status(t, m, "h").Up)
}

// TestHungServerIsRestarted: a server that stops answering (its pings
// hang) is restarted after two missed keepalive pings.
func TestHungServerIsRestarted(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "hung", Version: "1"}, nil)
	addUpper(srv, "upper", "upper")
	var hung atomic.Bool
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "ping" && hung.Load() {
				select { // long past the client's wait, but not for ever
				case <-ctx.Done():
				case <-time.After(2 * time.Second):
				}
				return nil, errors.New("hung")
			}
			return next(ctx, method, req)
		}
	})
	url, _ := goServer(t, srv)
	m, box := start(t, nil, []mcptool.ServerSpec{{Name: "h", URL: url, KeepAlive: time.Second}}, mcptool.Options{})
	_, err := call(context.Background(), t, box, "h_upper", `{"text": "a"}`)
	require.NoError(t, err)
	require.Zero(t, status(t, m, "h").Restarts, "pings answered: the session stays")
	hung.Store(true)
	eventually(t, "the hung session is restarted", func() bool { return status(t, m, "h").Restarts >= 1 })
	hung.Store(false)
	eventually(t, "it serves again", func() bool {
		_, err := call(context.Background(), t, box, "h_upper", `{"text": "a"}`)
		return err == nil
	})
}
