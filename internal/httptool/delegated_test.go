package httptool_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/internal/oidctest"
	"github.com/airlockrt/airlock/internal/tokenexchange"
	"github.com/airlockrt/airlock/toolbox"
)

func exchangerFor(t *testing.T, op *oidctest.Server) *tokenexchange.Exchanger {
	t.Helper()
	ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: op.TokenURL, ClientID: op.ClientID, ClientSecret: op.ClientSecret})
	require.NoError(t, err)
	return ex
}

func asUser(tenant, subjectToken string) context.Context {
	ctx := asTenant(tenant)
	if subjectToken != "" {
		ctx = toolbox.WithIdentity(ctx, &toolbox.Identity{SubjectToken: subjectToken})
	}
	return ctx
}

// recorder keeps the Authorization headers an upstream received.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) add(a string) { r.mu.Lock(); r.seen = append(r.seen, a); r.mu.Unlock() }
func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// TestDelegatedCredential: a tool with an audience exchanges the chain's
// subject token at a real token service (zitadel's op on 127.0.0.1) and
// sends the exchanged token, which the upstream accepts for its audience;
// the subject token never reaches the upstream.
func TestDelegatedCredential(t *testing.T) {
	op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}, "bob": {"crm", "wiki"}}})
	ex := exchangerFor(t, op)
	var crmSeen, wikiSeen recorder
	crm := op.Upstream(t, "crm", crmSeen.add)
	wiki := op.Upstream(t, "wiki", wikiSeen.add)
	newCRM := func(url string) *httptool.Tool {
		tool, err := httptool.New(httptool.Spec{Name: "crm", Description: "d", URL: url, Method: "GET", Audience: "crm"},
			httptool.Options{Client: client(t), Exchanger: ex})
		require.NoError(t, err)
		return tool
	}
	tool := newCRM(crm.URL)
	alice, bob := op.Subject("alice", time.Hour), op.Subject("bob", time.Hour)

	t.Run("exchange", func(t *testing.T) {
		out, err := tool.Call(asUser("acme", alice), nil)
		require.NoError(t, err)
		require.JSONEq(t, `{"subject":"alice","audience":"crm"}`, string(out.JSON))
		out, err = tool.Call(asUser("globex", bob), nil)
		require.NoError(t, err)
		require.JSONEq(t, `{"subject":"bob","audience":"crm"}`, string(out.JSON))
		for _, a := range crmSeen.all() {
			require.True(t, strings.HasPrefix(a, "Bearer "), a)
			require.NotContains(t, a, alice)
			require.NotContains(t, a, bob)
		}
		require.Equal(t, 2, op.Exchanges())
		_, err = tool.Call(asUser("acme", alice), nil) // cached
		require.NoError(t, err)
		require.Equal(t, 2, op.Exchanges())
	})

	t.Run("audience restriction", func(t *testing.T) {
		// A tool configured for audience crm but pointed at the wiki:
		// the wiki refuses the crm token.
		misdirected := newCRM(wiki.URL)
		_, err := misdirected.Call(asUser("acme", alice), nil)
		require.ErrorContains(t, err, "the server answered 401 Unauthorized")
		require.Len(t, wikiSeen.all(), 1)
		// Alice may not have a wiki token at all: the token service refuses.
		wikiTool, err := httptool.New(httptool.Spec{Name: "wiki", Description: "d", URL: wiki.URL, Method: "GET", Audience: "wiki"},
			httptool.Options{Client: client(t), Exchanger: ex})
		require.NoError(t, err)
		_, err = wikiTool.Call(asUser("acme", alice), nil)
		var ue *toolbox.CredentialUnavailableError
		require.ErrorAs(t, err, &ue)
		require.Equal(t, `http tool "wiki": credential for audience "wiki" is not available: the token service does not issue this identity a token for this audience (invalid_target)`, err.Error())
		// Bob may.
		out, err := wikiTool.Call(asUser("globex", bob), nil)
		require.NoError(t, err)
		require.JSONEq(t, `{"subject":"bob","audience":"wiki"}`, string(out.JSON))
	})

	t.Run("refusals", func(t *testing.T) {
		expired := op.Subject("alice", -time.Minute)
		revoked := op.Subject("alice", time.Hour)
		op.Revoke(revoked)
		before := len(crmSeen.all())
		for _, subj := range []string{expired, revoked, "unknown~subject~token~0123456789" /* not base64url, see tokenexchange's test */} {
			_, err := tool.Call(asUser("acme", subj), nil)
			var ce *toolbox.CredentialExpiredError
			require.ErrorAs(t, err, &ce)
			require.Equal(t, `http tool "crm": the delegated credential for audience "crm" is expired or was refused: the token service refused the chain's token (invalid_request)`, err.Error())
			require.NotContains(t, err.Error(), subj)
		}
		_, err := tool.Call(asUser("acme", ""), nil)
		var ue *toolbox.CredentialUnavailableError
		require.ErrorAs(t, err, &ue)
		require.Equal(t, `http tool "crm": credential for audience "crm" is not available: the chain has no delegated identity (submit one with identity.subject_token)`, err.Error())
		_, err = tool.Call(toolbox.WithIdentity(context.Background(), &toolbox.Identity{SubjectToken: alice}), nil)
		require.ErrorAs(t, err, &ue)
		require.Equal(t, `http tool "crm": credential for audience "crm" is not available: the call has no tenant`, err.Error())
		require.Len(t, crmSeen.all(), before, "nothing was sent upstream")
	})
}

// TestDelegatedScrubbed: an upstream that reflects the exchanged token (or
// the subject token, had it learned it) gets it back scrubbed, in every form.
func TestDelegatedScrubbed(t *testing.T) {
	const subject = "subject-token-0123456789abcdef"
	const issued = "issued-token-fedcba9876543210"
	ex := fakeExchanger(func(r tokenexchange.Request) (string, error) { return issued, nil })
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"auth":%q,"b64":%q,"subject":%q,"hex":"%x","upper":%q}`, auth,
			base64.StdEncoding.EncodeToString([]byte(issued)), subject, issued, strings.ToUpper(issued))
	})
	tool, err := httptool.New(httptool.Spec{Name: "crm", Description: "d", URL: srv.URL, Method: "GET", Audience: "crm"},
		httptool.Options{Client: client(t), Exchanger: ex})
	require.NoError(t, err)
	out, err := tool.Call(asUser("acme", subject), nil)
	require.NoError(t, err)
	s := string(out.JSON)
	for _, leak := range []string{issued, strings.ToUpper(issued), base64.StdEncoding.EncodeToString([]byte(issued)), fmt.Sprintf("%x", issued), subject, issued[:12]} {
		require.NotContains(t, s, leak)
	}
	require.Contains(t, s, "[REDACTED]")
}

type fakeExchanger func(tokenexchange.Request) (string, error)

func (f fakeExchanger) Token(_ context.Context, r tokenexchange.Request) (string, error) { return f(r) }

// TestDelegatedSpec: what New refuses about audiences.
func TestDelegatedSpec(t *testing.T) {
	ex := fakeExchanger(func(tokenexchange.Request) (string, error) { return "", errors.New("unused") })
	for _, c := range []struct {
		name string
		spec httptool.Spec
		opts httptool.Options
		msg  string
	}{
		{"no exchanger", httptool.Spec{Audience: "crm"}, httptool.Options{}, `audience "crm" needs a token exchange service, and none is configured (identity.token_exchange; docs/identity.md)`},
		{"scopes alone", httptool.Spec{Scopes: []string{"read"}}, httptool.Options{Exchanger: ex}, "scopes are only for a tool with an audience"},
		{"bad audience", httptool.Spec{Audience: "a b"}, httptool.Options{Exchanger: ex}, "audience must be 1 to 256 printable ASCII bytes without spaces"},
		{"bad scope", httptool.Spec{Audience: "crm", Scopes: []string{""}}, httptool.Options{Exchanger: ex}, `scope "" must be 1 to 128 printable ASCII bytes without spaces`},
		{"too many scopes", httptool.Spec{Audience: "crm", Scopes: make([]string, 33)}, httptool.Options{Exchanger: ex}, "33 scopes; at most 32"},
		{"authorization header", httptool.Spec{Audience: "crm", Headers: map[string]string{"authorization": "Bearer x"}}, httptool.Options{Exchanger: ex}, "a tool with an audience sends its delegated token in Authorization: do not configure that header"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.spec.Name, c.spec.Description, c.spec.URL = "crm", "d", "https://crm.example.com/"
			_, err := httptool.New(c.spec, c.opts)
			require.ErrorIs(t, err, httptool.ErrInvalidSpec)
			require.Equal(t, `httptool: invalid spec: tool "crm": `+c.msg, err.Error())
		})
	}
}
