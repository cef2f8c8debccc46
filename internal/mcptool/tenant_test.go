package mcptool_test

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// TestPerTenant: a per-tenant stdio server gives every tenant its own
// process, apart from the catalog's; a tenant's calls keep going to its
// own; the number of tenant sessions is bounded.
func TestPerTenant(t *testing.T) {
	ctx := context.Background()
	defer mcptool.SetMaxTenantSessions(2)()
	spec := stdioSpec(t)
	spec.PerTenant = true
	m, box := start(t, nil, []mcptool.ServerSpec{spec}, mcptool.Options{})
	catalog := m.PID("everything", "")
	require.NotZero(t, catalog)
	require.Zero(t, m.TenantSessions("everything"), "no tenant called yet")

	sum := func(tenant string) (string, error) {
		out, err := call(toolbox.WithCaller(ctx, caller("s_"+tenant, tenant)), t, box, "everything_get_sum", `{"a": 1, "b": 2}`)
		if err != nil {
			return "", err
		}
		var s string
		require.NoError(t, json.Unmarshal(out.JSON, &s))
		return s, nil
	}
	// The first call of a tenant waits for its session to start.
	got, err := sum("acme")
	require.NoError(t, err)
	require.Equal(t, "The sum of 1 and 2 is 3.", got)
	got, err = sum("globex")
	require.NoError(t, err)
	require.Equal(t, "The sum of 1 and 2 is 3.", got)

	acme, globex := m.PID("everything", "acme"), m.PID("everything", "globex")
	require.NotZero(t, acme)
	require.NotZero(t, globex)
	require.NotEqual(t, acme, globex)
	require.NotEqual(t, catalog, acme)
	require.NotEqual(t, catalog, globex)
	require.Equal(t, 2, m.TenantSessions("everything"))
	for _, pid := range []int{catalog, acme, globex} {
		require.NoError(t, syscall.Kill(pid, 0), "process %d runs", pid)
	}

	// Again: the same sessions.
	_, err = sum("acme")
	require.NoError(t, err)
	require.Equal(t, acme, m.PID("everything", "acme"))
	require.Equal(t, 2, m.TenantSessions("everything"))

	// A third tenant, past the bound (2 here), takes the place of the
	// session unused for longest (globex's), whose process ends.
	got, err = sum("initech")
	require.NoError(t, err)
	require.Equal(t, "The sum of 1 and 2 is 3.", got)
	initech := m.PID("everything", "initech")
	require.NotZero(t, initech)
	require.Equal(t, 2, m.TenantSessions("everything"))
	require.Zero(t, m.PID("everything", "globex"))
	eventually(t, "globex's process ends", func() bool { return syscall.Kill(globex, 0) == syscall.ESRCH })
	require.Equal(t, acme, m.PID("everything", "acme"), "acme's session stays")

	// While every session is busy, another tenant is refused at once:
	// unavailable, through the invoker too.
	started := make(chan struct{}, 2)
	done := make(chan error, 2)
	for _, tenant := range []string{"acme", "initech"} {
		go func() {
			cctx := toolbox.WithCaller(ctx, caller("s_"+tenant, tenant))
			started <- struct{}{}
			_, err := call(cctx, t, box, "everything_trigger_long_running_operation", `{"duration": 3, "steps": 1}`)
			done <- err
		}()
	}
	<-started
	<-started
	// Wait for both calls to hold their sessions without calling for
	// globex meanwhile: a call for globex before they do would take the
	// place of an idle session and change what is tested.
	eventually(t, "both sessions are busy", func() bool {
		return m.Users("everything", "acme") > 0 && m.Users("everything", "initech") > 0
	})
	_, err = sum("globex")
	var unavailable *toolbox.UnavailableError
	require.ErrorAs(t, err, &unavailable)
	require.Contains(t, err.Error(), "busy sessions for 2 tenants, its limit")
	inv := newInvoker(t, box, invoker.Policy{})
	res, _ := invoke(t, inv, "globex", "everything_get_sum", `{"a": 1, "b": 2}`)
	require.Equal(t, invoker.ReasonToolUnavailable, res.Reason, res.Message)
	require.NoError(t, <-done)
	require.NoError(t, <-done)
	res, _ = invoke(t, inv, "globex", "everything_get_sum", `{"a": 1, "b": 2}`)
	require.Equal(t, session.StatusOK, res.Status, "a session was idle again: %s", res.Message)
	globex = m.PID("everything", "globex")

	// Close ends every tenant's process.
	require.NoError(t, m.Close())
	for _, pid := range []int{catalog, m.PID("everything", "acme"), m.PID("everything", "initech"), globex} {
		if pid != 0 {
			require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "process %d ended", pid)
		}
	}
}

// TestPerTenantHTTP: a per-tenant HTTP server gives every tenant its own
// MCP session (the server sees different session ids), apart from the
// catalog's.
func TestPerTenantHTTP(t *testing.T) {
	ctx := context.Background()
	srv := sdk.NewServer(&sdk.Implementation{Name: "gosrv", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "whoami", Description: "Returns the MCP session id."},
		func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: req.Session.ID()}}}, nil, nil
		})
	url, _ := goServer(t, srv)
	m, box := start(t, nil, []mcptool.ServerSpec{{Name: "go", URL: url, PerTenant: true}}, mcptool.Options{})
	whoami := func(tenant string) string {
		out, err := call(toolbox.WithCaller(ctx, caller("s_"+tenant, tenant)), t, box, "go_whoami", `{}`)
		require.NoError(t, err)
		var id string
		require.NoError(t, json.Unmarshal(out.JSON, &id))
		require.NotEmpty(t, id)
		return id
	}
	acme, globex := whoami("acme"), whoami("globex")
	require.NotEqual(t, acme, globex)
	require.Equal(t, acme, whoami("acme"))
	out, err := call(ctx, t, box, "go_whoami", `{}`) // no caller: tenant "default"
	require.NoError(t, err)
	require.NotContains(t, []string{`"` + acme + `"`, `"` + globex + `"`}, string(out.JSON))
	require.Equal(t, 3, m.TenantSessions("go"))
	var sessions int
	for range srv.Sessions() {
		sessions++
	}
	// The catalog's and three tenants' (a session the client replaced,
	// after a missed ping on a loaded machine, may linger on the server
	// until it notices; airlock's own count above is exact).
	require.GreaterOrEqual(t, sessions, 4, "the catalog's and three tenants'")
}
