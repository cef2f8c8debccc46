// Package oidctest starts a real OAuth 2.0 / OpenID Connect provider on
// 127.0.0.1 for tests: github.com/zitadel/oidc's op package with its
// token exchange grant (RFC 8693) on, over the library's in-memory example
// storage. The test decides which subject tokens exist, when they expire,
// which audiences each subject may get, and how long exchanged tokens
// live; an upstream verifies an exchanged token as a resource server of
// the provider would (Verify). Only tests import it: the provider is not
// linked into airlock.
//
// # Concurrency
//
// A Server is safe for concurrent use.
package oidctest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Options configure Start.
type Options struct {
	// Lifetime is the lifetime of exchanged tokens. Default 5m.
	Lifetime time.Duration
	// Audiences are the audiences each subject may get a token for; a
	// subject not listed may get none (invalid_target).
	Audiences map[string][]string
}

// Server is a running provider.
type Server struct {
	// Issuer is the provider's issuer URL, TokenURL its token endpoint.
	Issuer, TokenURL string
	// ClientID and ClientSecret are airlock's client at the provider.
	ClientID, ClientSecret string

	crypto    op.Crypto
	opts      Options
	exchanges atomic.Int64

	mu       sync.Mutex
	subjects map[string]subjectToken // by token
	issued   map[string]Issued       // by token id
}

type subjectToken struct {
	subject string
	expires time.Time
	revoked bool
}

// Issued is what the provider recorded of an exchanged token.
type Issued struct {
	Subject  string
	Audience []string
	Scopes   []string
	Expires  time.Time
}

// Start starts a provider on 127.0.0.1, stopped when the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	if o.Lifetime == 0 {
		o.Lifetime = 5 * time.Minute
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("oidctest: listen: %v", err)
	}
	issuer := "http://" + ln.Addr().String()
	var key [32]byte
	_, _ = rand.Read(key[:])
	s := &Server{Issuer: issuer, TokenURL: issuer + "/oauth/token", ClientID: "airlock", ClientSecret: rand.Text(),
		crypto: op.NewAES256GCMCrypto(key, "k1"), opts: o,
		subjects: map[string]subjectToken{}, issued: map[string]Issued{}}
	clients := map[string]*storage.Client{s.ClientID: storage.WebClient(s.ClientID, s.ClientSecret)}
	st := &store{Storage: storage.NewStorageWithClients(storage.NewUserStore(issuer), clients), srv: s}
	quiet := slog.New(slog.NewTextHandler(discard{}, nil))
	provider, err := op.NewProvider(&op.Config{CryptoKey: key, CryptoKeyId: "k1"}, st, op.StaticIssuer(issuer),
		op.WithAllowInsecure(), op.WithLogger(quiet))
	if err != nil {
		t.Fatalf("oidctest: provider: %v", err)
	}
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oauth/token" && r.FormValue("grant_type") == string(oidc.GrantTypeTokenExchange) {
			s.exchanges.Add(1)
		}
		provider.ServeHTTP(w, r)
	}))
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	return s
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Subject issues a subject token for subject, valid for ttl.
func (s *Server) Subject(subject string, ttl time.Duration) string {
	// "~" is not base64url: the provider first tries to decrypt a subject
	// token as one of its own opaque tokens, and a base64url string can
	// decrypt (legacy AES-CFB) to garbage that passes as "id:subject".
	tok := "subj~" + rand.Text() + "~" + rand.Text()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subjects[tok] = subjectToken{subject: subject, expires: time.Now().Add(ttl)}
	return tok
}

// Revoke revokes a subject token.
func (s *Server) Revoke(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.subjects[tok]
	st.revoked = true
	s.subjects[tok] = st
}

// Exchanges is the number of token exchange requests the provider got.
func (s *Server) Exchanges() int { return int(s.exchanges.Load()) }

// Errors of Verify.
var (
	ErrInvalidToken = errors.New("oidctest: not a token of this provider")
	ErrExpired      = errors.New("oidctest: token expired")
	ErrAudience     = errors.New("oidctest: token not issued for this audience")
)

// Verify checks an exchanged token as a resource server of audience
// would: issued by this provider, not expired, for that audience. It
// returns what the provider recorded of it.
func (s *Server) Verify(tok, audience string) (Issued, error) {
	plain, err := s.crypto.Decrypt(tok)
	if err != nil {
		return Issued{}, ErrInvalidToken
	}
	id, _, ok := strings.Cut(plain, ":")
	if !ok {
		return Issued{}, ErrInvalidToken
	}
	s.mu.Lock()
	is, ok := s.issued[id]
	s.mu.Unlock()
	switch {
	case !ok:
		return Issued{}, ErrInvalidToken
	case !time.Now().Before(is.Expires):
		return is, ErrExpired
	case !slices.Contains(is.Audience, audience):
		return is, ErrAudience
	}
	return is, nil
}

// Upstream starts an HTTP server for audience that answers 200 with
// {"subject": …, "audience": …} to a request bearing a token Verify
// accepts for it, and 401 otherwise; seen receives each request's
// Authorization header.
func (s *Server) Upstream(t testing.TB, audience string, seen func(authorization string)) *httptest.Server {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if seen != nil {
			seen(auth)
		}
		tok, ok := strings.CutPrefix(auth, "Bearer ")
		is, err := s.Verify(tok, audience)
		if !ok || err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":%q}`, fmt.Sprint(err))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"subject":%q,"audience":%q}`, is.Subject, audience)
	}))
	t.Cleanup(hs.Close)
	return hs
}

// store is the library's example storage with the test's subject tokens,
// audiences and lifetime.
type store struct {
	*storage.Storage
	srv *Server
}

// VerifyExchangeSubjectToken implements op.TokenExchangeTokensVerifierStorage:
// the subject tokens the test issued, unexpired and unrevoked.
func (st *store) VerifyExchangeSubjectToken(_ context.Context, tok string, typ oidc.TokenType) (string, string, map[string]any, error) {
	s := st.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, ok := s.subjects[tok]
	switch {
	case typ != oidc.AccessTokenType || !ok:
		return "", "", nil, errors.New("unknown subject token")
	case sub.revoked:
		return "", "", nil, errors.New("revoked")
	case !time.Now().Before(sub.expires):
		return "", "", nil, errors.New("expired")
	}
	return tok, sub.subject, nil, nil
}

// VerifyExchangeActorToken implements op.TokenExchangeTokensVerifierStorage:
// an actor token is a subject token of the test's.
func (st *store) VerifyExchangeActorToken(ctx context.Context, tok string, typ oidc.TokenType) (string, string, map[string]any, error) {
	return st.VerifyExchangeSubjectToken(ctx, tok, typ)
}

// ValidateTokenExchangeRequest implements op.TokenExchangeStorage: only
// access tokens are issued, and only for the subject's audiences.
func (st *store) ValidateTokenExchangeRequest(_ context.Context, r op.TokenExchangeRequest) error {
	if r.GetRequestedTokenType() != oidc.AccessTokenType {
		return oidc.ErrInvalidRequest().WithDescription("only access tokens are issued")
	}
	aud := r.GetAudience()
	allowed := st.srv.opts.Audiences[r.GetExchangeSubject()]
	if len(aud) == 0 {
		return oidc.ErrInvalidTarget().WithDescription("an audience is required")
	}
	for _, a := range aud {
		if !slices.Contains(allowed, a) {
			return oidc.ErrInvalidTarget().WithDescription("audience not allowed for this subject")
		}
	}
	r.SetCurrentScopes(r.GetScopes())
	return nil
}

// CreateAccessToken implements op.Storage with the test's lifetime, and
// records the token for Verify.
func (st *store) CreateAccessToken(ctx context.Context, r op.TokenRequest) (string, time.Time, error) {
	id, _, err := st.Storage.CreateAccessToken(ctx, r)
	if err != nil {
		return "", time.Time{}, err
	}
	exp := time.Now().Add(st.srv.opts.Lifetime)
	st.srv.mu.Lock()
	st.srv.issued[id] = Issued{Subject: r.GetSubject(), Audience: slices.Clone(r.GetAudience()), Scopes: slices.Clone(r.GetScopes()), Expires: exp}
	st.srv.mu.Unlock()
	return id, exp, nil
}
