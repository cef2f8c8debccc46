package httptool_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/internal/tenantsecret"
	"github.com/airlockrt/airlock/toolbox"
)

// tenantTokens are the secrets of the tenant tests' source.
var tenantTokens = map[string]string{"acme": "acme-token-0123456789abcdef", "globex": "globex-token-0123456789abcdef"}

func tenantSource() toolbox.TenantSecrets {
	return toolbox.TenantSecretsFunc(func(_ context.Context, tenant, name string) (string, error) {
		if v, ok := tenantTokens[tenant]; ok && name == "crm_token" {
			return v, nil
		}
		return "", fmt.Errorf("%w: leaky source error holding %s", tenantsecret.ErrUnavailable, tenantTokens["acme"])
	})
}

func asTenant(tenant string) context.Context {
	return toolbox.WithCaller(context.Background(), toolbox.StaticCaller{ChainID: "ch_1", TenantID: tenant, CallSeq: 1})
}

// TestTenantSecretPerCaller: one tool, called for two tenants at once many
// times, sends each call its own tenant's secret (never the other's), and
// the upstream's reflection of it comes back scrubbed.
func TestTenantSecretPerCaller(t *testing.T) {
	var mu sync.Mutex
	wrong := 0
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		who := r.URL.Query().Get("who")
		auth := r.Header.Get("Authorization")
		mu.Lock()
		if auth != "Bearer "+tenantTokens[who] {
			wrong++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"auth":%q,"b64":%q,"url":%q}`, auth, base64.StdEncoding.EncodeToString([]byte(auth)), url.QueryEscape(auth))
	})
	tool, err := httptool.New(httptool.Spec{Name: "crm", Description: "d", URL: srv.URL, Method: "GET",
		InputSchema: []byte(`{"type":"object","properties":{"who":{"type":"string"}}}`),
		Headers:     map[string]string{"Authorization": "Bearer ${tenant:crm_token}"}},
		httptool.Options{Client: client(t), TenantSecrets: tenantSource()})
	require.NoError(t, err)
	require.Equal(t, []string{"crm_token"}, tool.TenantSecretNames())
	require.Empty(t, tool.EnvNames())
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			who := []string{"acme", "globex"}[i%2]
			out, err := tool.Call(asTenant(who), []byte(`{"who":"`+who+`"}`))
			require.NoError(t, err)
			for _, v := range tenantTokens {
				require.NotContains(t, string(out.JSON), v)
				require.NotContains(t, string(out.JSON), base64.StdEncoding.EncodeToString([]byte("Bearer "+v)))
			}
			require.Contains(t, string(out.JSON), "[REDACTED]")
		})
	}
	wg.Wait()
	require.Zero(t, wrong, "every call carried its own tenant's token")
}

// TestTenantSecretUnavailable: a tenant without the secret, a call without
// a tenant, and a secret a header cannot carry are refused with a
// *toolbox.CredentialUnavailableError before anything is sent; the message
// names the reference and never a value or the source's own error.
func TestTenantSecretUnavailable(t *testing.T) {
	reached := 0
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { reached++ })
	src := toolbox.TenantSecretsFunc(func(ctx context.Context, tenant, name string) (string, error) {
		if tenant == "broken" {
			return tenantTokens["acme"] + "\r\nX-Evil: 1", nil
		}
		return tenantSource().TenantSecret(ctx, tenant, name)
	})
	tool, err := httptool.New(httptool.Spec{Name: "crm", Description: "d", URL: srv.URL,
		Headers: map[string]string{"Authorization": "Bearer ${tenant:crm_token}"}},
		httptool.Options{Client: client(t), TenantSecrets: src})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"missing", asTenant("initech"), `http tool "crm": header Authorization: credential ${tenant:crm_token} is not available: it is not set for this tenant`},
		{"no caller", context.Background(), `http tool "crm": header Authorization: credential ${tenant:crm_token} is not available: the call has no tenant`},
		{"empty tenant", asTenant(""), `http tool "crm": header Authorization: credential ${tenant:crm_token} is not available: the call has no tenant`},
		{"line break", asTenant("broken"), `http tool "crm": header Authorization: credential ${tenant:crm_token} is not available: the secret holds a line break or NUL, which a header cannot carry`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tool.Call(tc.ctx, nil)
			require.EqualError(t, err, tc.want)
			var ce *toolbox.CredentialUnavailableError
			require.True(t, errors.As(err, &ce))
			require.Equal(t, "${tenant:crm_token}", ce.Ref)
			require.NotContains(t, err.Error(), tenantTokens["acme"])
		})
	}
	missing := func() error { _, err := tool.Call(asTenant("initech"), nil); return err }()
	require.ErrorIs(t, missing, tenantsecret.ErrUnavailable, "the source's error is kept for the host")
	require.Zero(t, reached, "nothing was sent")
}

// TestTenantSecretFromDirectory: the directory source behind the tool,
// with a traversal attempt in the tenant refused like a missing secret.
func TestTenantSecretFromDirectory(t *testing.T) {
	dir := t.TempDir()
	for tenant, v := range tenantTokens {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, tenant), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, tenant, "crm_token"), []byte(v+"\n"), 0o600))
	}
	var got []string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
		_, _ = io.WriteString(w, "ok")
	})
	tool, err := httptool.New(httptool.Spec{Name: "crm", Description: "d", URL: srv.URL,
		Headers: map[string]string{"Authorization": "Bearer ${tenant:crm_token}"}},
		httptool.Options{Client: client(t), TenantSecrets: tenantsecret.NewDir(dir, 0)})
	require.NoError(t, err)
	for _, tenant := range []string{"globex", "acme"} {
		_, err := tool.Call(asTenant(tenant), nil)
		require.NoError(t, err)
	}
	require.Equal(t, []string{"Bearer " + tenantTokens["globex"], "Bearer " + tenantTokens["acme"]}, got)
	for _, tenant := range []string{"../acme", "..", "acme/../globex", "/acme"} {
		_, err := tool.Call(asTenant(tenant), nil)
		var ce *toolbox.CredentialUnavailableError
		require.True(t, errors.As(err, &ce), "tenant %q: %v", tenant, err)
		require.ErrorIs(t, err, tenantsecret.ErrInvalidName)
		require.EqualError(t, err, `http tool "crm": header Authorization: credential ${tenant:crm_token} is not available: the secret source cannot name this tenant's secret`)
	}
	require.Len(t, got, 2)
}

// TestTenantRefSpec: what New accepts of ${tenant:NAME}.
func TestTenantRefSpec(t *testing.T) {
	for _, tc := range []struct{ value, err string }{
		{"Bearer ${tenant:crm_token}", ""},
		{"${tenant:a}-${env:TOKEN}", ""},
		{"Bearer ${tenant:../x}", `header Authorization: ${tenant:../x} does not name a tenant secret`},
		{"Bearer ${tenant:CRM}", `header Authorization: ${tenant:CRM} does not name a tenant secret`},
		{"Bearer ${tenant:}", `header Authorization: ${tenant:} does not name a tenant secret`},
		{"Bearer ${tenant:a/b}", `does not name a tenant secret`},
		{"Bearer ${tenant:crm_token", `header Authorization: unterminated ${tenant: reference`},
	} {
		t.Run(tc.value, func(t *testing.T) {
			_, err := httptool.New(httptool.Spec{Name: "crm", Description: "d", URL: "http://127.0.0.1:1/",
				Headers: map[string]string{"Authorization": tc.value}}, httptool.Options{TenantSecrets: tenantSource()})
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, httptool.ErrInvalidSpec)
			require.ErrorContains(t, err, tc.err)
		})
	}
	_, err := httptool.New(httptool.Spec{Name: "crm", Description: "d", URL: "http://127.0.0.1:1/",
		Headers: map[string]string{"Authorization": "Bearer ${tenant:crm_token}"}}, httptool.Options{})
	require.ErrorContains(t, err, "${tenant:crm_token} needs a tenant secret source, and none is configured")
	require.True(t, strings.HasPrefix(err.Error(), "httptool: invalid spec"))
}
