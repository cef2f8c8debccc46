package assemble_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/tenantsecret"
	"github.com/airlockrt/airlock/toolbox"
)

// TestTenantSecretsFromConfig: the configured source and its size bound
// reach the HTTP tools the composition root builds, for both sources. A
// secret of exactly tenant_secrets.max_bytes is sent; one byte more is
// credential_unavailable (ErrTooLarge) and nothing is sent; an argument
// that spells a reference is sent as the text it is.
func TestTenantSecretsFromConfig(t *testing.T) {
	var mu sync.Mutex
	var got []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("X-Key")+" q="+r.URL.Query().Get("q"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	}))
	defer upstream.Close()
	fits, over := strings.Repeat("f", 32), strings.Repeat("o", 33)
	dir := t.TempDir()
	for tenant, v := range map[string]string{"acme": fits, "globex": over} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, tenant), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, tenant, "crm_token"), []byte(v), 0o600))
	}
	t.Setenv("TSTEST_ACME__CRM_TOKEN", fits)
	t.Setenv("TSTEST_GLOBEX__CRM_TOKEN", over)
	for _, source := range []string{fmt.Sprintf("{dir: %q, max_bytes: 32}", dir), "{env_prefix: TSTEST_, max_bytes: 32}"} {
		t.Run(source, func(t *testing.T) {
			got = nil
			box, _, err := assemble.Tools(load(t, fmt.Sprintf(`
tenant_secrets: %s
tools:
  builtin: []
  http:
    - name: crm
      description: the CRM
      url: %s/crm
      method: GET
      headers: {X-Key: "${tenant:crm_token}"}
      input_schema: {type: object, properties: {q: {type: string}}}
`, source, upstream.URL)))
			require.NoError(t, err)
			tool, ok := box.Get("crm")
			require.True(t, ok)
			call := func(tenant string) error {
				ctx := toolbox.WithCaller(context.Background(), toolbox.StaticCaller{TenantID: tenant})
				_, err := tool.Call(ctx, []byte(`{"q":"${tenant:crm_token}"}`))
				return err
			}
			require.NoError(t, call("acme"))
			err = call("globex")
			var ce *toolbox.CredentialUnavailableError
			require.True(t, errors.As(err, &ce), "%v", err)
			require.ErrorIs(t, err, tenantsecret.ErrTooLarge)
			require.Equal(t, `http tool "crm": header X-Key: credential ${tenant:crm_token} is not available: this tenant's secret is larger than the configured bound`, err.Error())
			require.ErrorIs(t, call("initech"), tenantsecret.ErrUnavailable)
			mu.Lock()
			defer mu.Unlock()
			require.Equal(t, []string{fits + " q=${tenant:crm_token}"}, got)
		})
	}
}
