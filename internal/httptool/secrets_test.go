package httptool_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/toolbox"
)

// TestSecretsProviderAskedPerCall: the provider given at construction is
// asked on every call and never at construction, and an error from it
// (which here carries a value) does not reach the caller.
func TestSecretsProviderAskedPerCall(t *testing.T) {
	var seen []string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { seen = append(seen, r.Header.Get("Authorization")) })
	var asked []string
	values := []string{"first-secret-value", "second-secret-value"}
	provider := toolbox.SecretsFunc(func(_ context.Context, name string) (string, error) {
		asked = append(asked, name)
		if len(asked) > len(values) {
			return "", errors.New("leaky provider error: first-secret-value")
		}
		return values[len(asked)-1], nil
	})
	tool, err := httptool.New(httptool.Spec{Name: "remote", Description: "d", URL: srv.URL,
		Headers: map[string]string{"Authorization": "Bearer ${env:API_TOKEN}"}}, httptool.Options{Client: client(t), Secrets: provider})
	require.NoError(t, err)
	require.Empty(t, asked, "no secret is read at construction")
	for range values {
		_, err = tool.Call(context.Background(), nil)
		require.NoError(t, err)
	}
	require.Equal(t, []string{"Bearer first-secret-value", "Bearer second-secret-value"}, seen)
	_, err = tool.Call(context.Background(), nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "API_TOKEN")
	require.NotContains(t, err.Error(), "secret-value")
	require.Equal(t, []string{"API_TOKEN", "API_TOKEN", "API_TOKEN"}, asked)
}

func TestEnvSecrets(t *testing.T) {
	vars := map[string]string{"API_TOKEN": "tok-value", "EMPTY": "", "a1": "lower-value"}
	s := httptool.EnvSecrets(env(vars))
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"API_TOKEN", "tok-value", true},
		{"a1", "lower-value", true},
		{"EMPTY", "", false},
		{"UNSET", "", false},
		{"", "", false},
		{"1ABC", "", false},
		{"API-TOKEN", "", false},
		{strings.Repeat("A", 129), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := s.Secret(context.Background(), tc.name)
			if !tc.ok {
				require.ErrorIs(t, err, httptool.ErrNoSecret)
				require.Empty(t, v)
				for _, val := range vars {
					if val != "" {
						require.NotContains(t, err.Error(), val)
					}
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, v)
		})
	}
	v, err := s.Secret(context.Background(), strings.Repeat("A", 128))
	require.ErrorIs(t, err, httptool.ErrNoSecret, "128 characters is a valid name, just unset")
	require.Contains(t, err.Error(), "not set")
	require.Empty(t, v)
}
