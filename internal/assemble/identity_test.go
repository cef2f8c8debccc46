package assemble_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/oidctest"
	"github.com/airlockrt/airlock/toolbox"
)

// TestTokenExchangeFromConfig: identity.token_exchange reaches the HTTP
// tools the composition root builds; a tool with an audience sends the
// token the real token service exchanged for it, with the client secret
// read from the environment; without a token service such a tool is
// refused at load.
func TestTokenExchangeFromConfig(t *testing.T) {
	op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}}})
	var seen []string
	crm := op.Upstream(t, "crm", func(a string) { seen = append(seen, a) })
	t.Setenv("TEST_STS_SECRET", op.ClientSecret)
	box, _, err := assemble.Tools(load(t, fmt.Sprintf(`
identity:
  token_exchange: {token_url: %q, client_id: %q, client_secret: "${env:TEST_STS_SECRET}", timeout: 5s, cache_max_entries: 10}
tools:
  builtin: []
  http:
    - {name: crm, description: the CRM, url: %q, method: GET, audience: crm}
`, op.TokenURL, op.ClientID, crm.URL)))
	require.NoError(t, err)
	tool, ok := box.Get("crm")
	require.True(t, ok)
	ctx := toolbox.WithCaller(context.Background(), toolbox.StaticCaller{TenantID: "acme"})
	alice := op.Subject("alice", time.Hour)
	out, err := tool.Call(toolbox.WithIdentity(ctx, &toolbox.Identity{SubjectToken: alice}), nil)
	require.NoError(t, err)
	require.JSONEq(t, `{"subject":"alice","audience":"crm"}`, string(out.JSON))
	_, err = tool.Call(ctx, nil)
	var ue *toolbox.CredentialUnavailableError
	require.True(t, errors.As(err, &ue), "%v", err)
	require.Len(t, seen, 1)
	require.NotContains(t, seen[0], alice)

	_, _, err = assemble.Tools(load(t, `
tools:
  builtin: []
  http:
    - {name: crm, description: the CRM, url: "https://crm.example.com/", audience: crm}
`))
	require.Error(t, err)
	require.True(t, strings.HasSuffix(err.Error(), `tools.http[0]: httptool: invalid spec: tool "crm": audience "crm" needs a token exchange service, and none is configured (identity.token_exchange; docs/identity.md)`), err.Error())
}
