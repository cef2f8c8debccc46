package tokenexchange_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/oidctest"
	"github.com/airlockrt/airlock/internal/setting"
	"github.com/airlockrt/airlock/internal/tokenexchange"
	"github.com/airlockrt/airlock/toolbox"
)

func newExchanger(t *testing.T, op *oidctest.Server, o tokenexchange.Options) *tokenexchange.Exchanger {
	t.Helper()
	o.TokenURL, o.ClientID = op.TokenURL, op.ClientID
	if o.ClientSecret == "" {
		o.ClientSecret = op.ClientSecret
	}
	ex, err := tokenexchange.New(o)
	require.NoError(t, err)
	return ex
}

func req(tenant, subject, aud string) tokenexchange.Request {
	return tokenexchange.Request{Tenant: tenant, Identity: toolbox.Identity{SubjectToken: subject}, Audience: aud}
}

// TestExchangeAgainstProvider runs every case against a real RFC 8693
// token service (zitadel's op) on 127.0.0.1.
func TestExchangeAgainstProvider(t *testing.T) {
	ctx := context.Background()

	t.Run("exchange and audience restriction", func(t *testing.T) {
		op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm", "wiki"}}})
		ex := newExchanger(t, op, tokenexchange.Options{})
		alice := op.Subject("alice", time.Hour)
		crm, err := ex.Token(ctx, req("acme", alice, "crm"))
		require.NoError(t, err)
		is, err := op.Verify(crm, "crm")
		require.NoError(t, err)
		require.Equal(t, "alice", is.Subject)
		_, err = op.Verify(crm, "wiki")
		require.ErrorIs(t, err, oidctest.ErrAudience, "a token for crm is not one for wiki")
		wiki, err := ex.Token(ctx, req("acme", alice, "wiki"))
		require.NoError(t, err)
		require.NotEqual(t, crm, wiki)
		_, err = op.Verify(wiki, "wiki")
		require.NoError(t, err)
		require.Equal(t, 2, op.Exchanges())
	})

	t.Run("cache hit, then a new exchange after expiry", func(t *testing.T) {
		op := oidctest.Start(t, oidctest.Options{Lifetime: 3 * time.Second, Audiences: map[string][]string{"alice": {"crm"}}})
		ex := newExchanger(t, op, tokenexchange.Options{})
		alice := op.Subject("alice", time.Hour)
		first, err := ex.Token(ctx, req("acme", alice, "crm"))
		require.NoError(t, err)
		again, err := ex.Token(ctx, req("acme", alice, "crm"))
		require.NoError(t, err)
		require.Equal(t, first, again, "served from the cache")
		require.Equal(t, 1, op.Exchanges())
		require.Equal(t, uint64(1), ex.Stats().Hits)
		time.Sleep(3 * time.Second) // past the token's lifetime
		_, err = op.Verify(first, "crm")
		require.ErrorIs(t, err, oidctest.ErrExpired)
		fresh, err := ex.Token(ctx, req("acme", alice, "crm"))
		require.NoError(t, err)
		require.NotEqual(t, first, fresh)
		require.Equal(t, 2, op.Exchanges())
		_, err = op.Verify(fresh, "crm")
		require.NoError(t, err)
	})

	t.Run("refusals", func(t *testing.T) {
		op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}}})
		ex := newExchanger(t, op, tokenexchange.Options{})
		expired := op.Subject("alice", -time.Second)
		revoked := op.Subject("alice", time.Hour)
		op.Revoke(revoked)
		alice := op.Subject("alice", time.Hour)
		for _, c := range []struct {
			name    string
			r       tokenexchange.Request
			expired bool
			code    string
			reason  string
		}{
			{"expired subject", req("acme", expired, "crm"), true, "invalid_request", "the token service refused the chain's token (invalid_request)"},
			{"revoked subject", req("acme", revoked, "crm"), true, "invalid_request", "the token service refused the chain's token (invalid_request)"},
			{"unknown subject", req("acme", "not~a~token~of~this~provider" /* not base64url: the provider tries to decrypt base64url strings as its own opaque tokens, and garbage holding one colon would pass */, "crm"), true, "invalid_request", "the token service refused the chain's token (invalid_request)"},
			{"audience not allowed", req("acme", alice, "payroll"), false, "invalid_target", "the token service does not issue this identity a token for this audience (invalid_target)"},
			{"no identity", req("acme", "", "crm"), false, "", "the chain has no delegated identity"},
		} {
			t.Run(c.name, func(t *testing.T) {
				before := op.Exchanges()
				_, err := ex.Token(ctx, c.r)
				var xe *tokenexchange.Error
				require.ErrorAs(t, err, &xe)
				require.Equal(t, c.expired, xe.Expired)
				require.Equal(t, c.code, xe.Code)
				require.Equal(t, c.reason, xe.Reason)
				require.Equal(t, "token exchange: "+c.reason, err.Error())
				if c.r.Identity.SubjectToken != "" {
					require.NotContains(t, err.Error(), c.r.Identity.SubjectToken)
					// Refusals are not cached: the next call asks again.
					_, _ = ex.Token(ctx, c.r)
					require.Equal(t, before+2, op.Exchanges())
				}
			})
		}
		bad := newExchanger(t, op, tokenexchange.Options{ClientSecret: "wrong-secret"})
		_, err := bad.Token(ctx, req("acme", alice, "crm"))
		var xe *tokenexchange.Error
		require.ErrorAs(t, err, &xe)
		require.False(t, xe.Expired)
		require.Equal(t, "invalid_client", xe.Code)
		require.Equal(t, http.StatusUnauthorized, xe.Status)
	})

	t.Run("two tenants, two subjects", func(t *testing.T) {
		op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}, "bob": {"crm"}}})
		ex := newExchanger(t, op, tokenexchange.Options{})
		alice, bob := op.Subject("alice", time.Hour), op.Subject("bob", time.Hour)
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tenant, subj, want := "acme", alice, "alice"
				if i%2 == 1 {
					tenant, subj, want = "globex", bob, "bob"
				}
				tok, err := ex.Token(ctx, req(tenant, subj, "crm"))
				if !assertNoError(t, err) {
					return
				}
				is, err := op.Verify(tok, "crm")
				if assertNoError(t, err) && is.Subject != want {
					t.Errorf("tenant %s got a token of %s", tenant, is.Subject)
				}
			}()
		}
		wg.Wait()
		require.Equal(t, 2, op.Exchanges(), "one exchange per (tenant, subject, audience): concurrent calls share it")
		// The same user token under another tenant is another entry.
		_, err := ex.Token(ctx, req("initech", alice, "crm"))
		require.NoError(t, err)
		require.Equal(t, 3, op.Exchanges())
	})
}

func assertNoError(t *testing.T, err error) bool {
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

// TestCacheBound: the cache holds at most CacheMaxEntries tokens, the
// least recently used leaving first.
func TestCacheBound(t *testing.T) {
	var n int
	var mu sync.Mutex
	sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"issued-token-%d","token_type":"Bearer","expires_in":3600,"issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}`, k)
	}))
	defer sts.Close()
	ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: sts.URL, ClientID: "airlock", CacheMaxEntries: 3})
	require.NoError(t, err)
	ctx := context.Background()
	for i := range 5 {
		_, err := ex.Token(ctx, req("acme", fmt.Sprintf("user-%d", i), "crm"))
		require.NoError(t, err)
	}
	require.Equal(t, 3, ex.Stats().Entries)
	_, err = ex.Token(ctx, req("acme", "user-4", "crm"))
	require.NoError(t, err)
	require.Equal(t, uint64(1), ex.Stats().Hits, "a recent entry stays")
	_, err = ex.Token(ctx, req("acme", "user-0", "crm"))
	require.NoError(t, err)
	require.Equal(t, uint64(1), ex.Stats().Hits, "the oldest left")
	require.Equal(t, uint64(6), ex.Stats().Exchanges)
}

// TestAnswers: what a token service answers that is not a token.
func TestAnswers(t *testing.T) {
	for _, c := range []struct {
		name, ctype, body string
		status            int
		expired           bool
		reason            string
	}{
		{"invalid_grant", "application/json", `{"error":"invalid_grant","error_description":"subject tok-SECRET expired"}`, 400, true, "the token service refused the chain's token (invalid_grant)"},
		{"invalid_scope", "application/json", `{"error":"invalid_scope"}`, 400, false, "the token service does not grant the scopes asked for (invalid_scope)"},
		{"unauthorized_client", "application/json", `{"error":"unauthorized_client"}`, 400, false, "the token service refused airlock's client credentials (unauthorized_client)"},
		{"other code", "application/json", `{"error":"temporarily_unavailable"}`, 503, false, "the token service refused the exchange (temporarily_unavailable, HTTP 503)"},
		{"malformed code", "application/json", `{"error":"Bad Code tok-SECRET"}`, 400, false, "the token service answered HTTP 400"},
		{"server error page", "text/html", `<h1>tok-SECRET</h1>`, 502, false, "the token service answered HTTP 502"},
		{"not json", "text/plain", `access_token=x`, 200, false, "the token service's answer is not a JSON token response"},
		{"no token", "application/json", `{"token_type":"Bearer"}`, 200, false, "the token service's answer holds no access_token"},
		{"not bearer", "application/json", `{"access_token":"abc","token_type":"DPoP"}`, 200, false, "the issued token is not a Bearer token"},
		{"newline in token", "application/json", `{"access_token":"abc\r\nX-Evil: 1","token_type":"Bearer"}`, 200, false, "the issued token holds bytes a header cannot carry"},
		{"huge", "application/json", `{"access_token":"` + string(make([]byte, tokenexchange.MaxResponseBytes)) + `"}`, 200, false, fmt.Sprintf("the token service's answer exceeds %d bytes", tokenexchange.MaxResponseBytes)},
	} {
		t.Run(c.name, func(t *testing.T) {
			sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.ctype)
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer sts.Close()
			ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: sts.URL, ClientID: "airlock"})
			require.NoError(t, err)
			_, err = ex.Token(context.Background(), req("acme", "tok-SECRET", "crm"))
			var xe *tokenexchange.Error
			require.ErrorAs(t, err, &xe)
			require.Equal(t, c.expired, xe.Expired)
			require.Equal(t, c.reason, xe.Reason)
			require.NotContains(t, err.Error(), "SECRET")
		})
	}
	t.Run("timeout", func(t *testing.T) {
		release := make(chan struct{})
		sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
		defer sts.Close()
		defer close(release)
		ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: sts.URL, ClientID: "airlock", Timeout: 100 * time.Millisecond})
		require.NoError(t, err)
		_, err = ex.Token(context.Background(), req("acme", "tok", "crm"))
		var xe *tokenexchange.Error
		require.ErrorAs(t, err, &xe)
		require.Equal(t, "the token service did not answer within 100ms", xe.Reason)
	})
	t.Run("unreachable", func(t *testing.T) {
		ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: "http://127.0.0.1:1/token", ClientID: "airlock"})
		require.NoError(t, err)
		_, err = ex.Token(context.Background(), req("acme", "tok", "crm"))
		var xe *tokenexchange.Error
		require.ErrorAs(t, err, &xe)
		require.Equal(t, "the token service could not be reached", xe.Reason)
	})
}

// TestRequestForm: the exact form and client authentication sent.
func TestRequestForm(t *testing.T) {
	var got http.Request
	var form map[string][]string
	sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		got, form = *r, r.PostForm
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"t","token_type":"bearer","expires_in":60}`))
	}))
	defer sts.Close()
	ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: sts.URL, ClientID: "air lock", ClientSecret: "s:e&c"})
	require.NoError(t, err)
	_, err = ex.Token(context.Background(), tokenexchange.Request{Tenant: "acme", Audience: "crm", Scopes: []string{"read", "write"},
		Identity: toolbox.Identity{SubjectToken: "subj", SubjectTokenType: toolbox.TokenTypeJWT, Actor: "agent-tok"}})
	require.NoError(t, err)
	require.Equal(t, http.MethodPost, got.Method)
	id, secret, ok := got.BasicAuth()
	require.True(t, ok)
	require.Equal(t, "air+lock", id)
	require.Equal(t, "s%3Ae%26c", secret)
	require.Equal(t, map[string][]string{
		"grant_type":           {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"subject_token":        {"subj"},
		"subject_token_type":   {toolbox.TokenTypeJWT},
		"actor_token":          {"agent-tok"},
		"actor_token_type":     {toolbox.TokenTypeAccessToken},
		"requested_token_type": {toolbox.TokenTypeAccessToken},
		"audience":             {"crm"},
		"scope":                {"read write"},
	}, form)
}

// TestOptions: every refused setting names its key.
func TestOptions(t *testing.T) {
	for _, c := range []struct {
		o        tokenexchange.Options
		key, msg string
	}{
		{tokenexchange.Options{ClientID: "a"}, "token_url", "token_url is required: the token service's token endpoint"},
		{tokenexchange.Options{TokenURL: "ftp://x", ClientID: "a"}, "token_url", `token_url "ftp://x" must be an absolute http or https URL`},
		{tokenexchange.Options{TokenURL: "https://u:p@x/t", ClientID: "a"}, "token_url", "token_url must not hold credentials: set client_id and client_secret"},
		{tokenexchange.Options{TokenURL: "https://x/t"}, "client_id", "client_id is required: airlock's client at the token service"},
		{tokenexchange.Options{TokenURL: "https://x/t", ClientID: "a", Timeout: 2 * time.Minute}, "timeout", "timeout 2m0s must be 0 (the default, 10s) to 1m0s"},
		{tokenexchange.Options{TokenURL: "https://x/t", ClientID: "a", CacheMaxEntries: 2_000_000}, "cache_max_entries", "cache_max_entries 2000000 must be 0 (the default, 10000) to 1000000"},
	} {
		err := c.o.Validate()
		var ke *setting.KeyError
		require.True(t, errors.As(err, &ke), "%v", err)
		require.Equal(t, c.key, ke.Key)
		require.Equal(t, c.msg, err.Error())
	}
	require.NoError(t, tokenexchange.Options{TokenURL: "https://x/t", ClientID: "a"}.Validate())
}
