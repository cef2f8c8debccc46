package tokenexchange

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/airlockrt/airlock/internal/setting"
	"github.com/airlockrt/airlock/toolbox"
)

// Defaults and bounds of Options.
const (
	// DefaultTimeout is the default of Options.Timeout.
	DefaultTimeout = 10 * time.Second
	// MaxTimeout is the largest Options.Timeout.
	MaxTimeout = time.Minute
	// DefaultCacheMaxEntries is the default of Options.CacheMaxEntries.
	DefaultCacheMaxEntries = 10_000
	// MaxCacheMaxEntries is the largest Options.CacheMaxEntries.
	MaxCacheMaxEntries = 1_000_000
	// ExpirySkew is how long before its expiry a cached token is last
	// used (or a quarter of its lifetime, when that is shorter): a token
	// handed to a tool must outlive the call.
	ExpirySkew = 30 * time.Second
	// MaxResponseBytes bounds the token service's answer.
	MaxResponseBytes = 64 << 10
	// MaxTokenBytes bounds the issued token: 16 KiB.
	MaxTokenBytes = 16 << 10
	// MaxAudienceLen bounds an audience, in bytes.
	MaxAudienceLen = 256
)

// Options configure an Exchanger: the owner of identity.token_exchange.
type Options struct {
	// TokenURL is the token service's token endpoint, http or https.
	// Required.
	TokenURL string
	// ClientID and ClientSecret are airlock's client credentials at the
	// token service, sent in HTTP Basic authentication. ClientID is
	// required; ClientSecret may be empty for a public client.
	ClientID, ClientSecret string
	// Timeout bounds one exchange. Default DefaultTimeout; at most
	// MaxTimeout.
	Timeout time.Duration
	// CacheMaxEntries bounds the cache. Default DefaultCacheMaxEntries; at
	// most MaxCacheMaxEntries.
	CacheMaxEntries int
	// Client sends the requests. Default: a client that does not follow
	// redirects (a redirect could carry the subject token elsewhere).
	Client *http.Client
	// Now is the clock of the cache. Default time.Now.
	Now func() time.Time
}

// Validate checks o; an error is a *setting.KeyError naming the key
// (token_url, client_id, timeout or cache_max_entries).
func (o Options) Validate() error {
	u, err := url.Parse(o.TokenURL)
	switch {
	case o.TokenURL == "":
		return setting.Errorf("token_url", "is required: the token service's token endpoint")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return setting.Errorf("token_url", "%q must be an absolute http or https URL", o.TokenURL)
	case u.User != nil:
		return setting.Errorf("token_url", "must not hold credentials: set client_id and client_secret")
	case o.ClientID == "":
		return setting.Errorf("client_id", "is required: airlock's client at the token service")
	case o.Timeout < 0 || o.Timeout > MaxTimeout:
		return setting.Errorf("timeout", "%s must be 0 (the default, %s) to %s", o.Timeout, DefaultTimeout, MaxTimeout)
	case o.CacheMaxEntries < 0 || o.CacheMaxEntries > MaxCacheMaxEntries:
		return setting.Errorf("cache_max_entries", "%d must be 0 (the default, %d) to %d", o.CacheMaxEntries, DefaultCacheMaxEntries, MaxCacheMaxEntries)
	}
	return nil
}

// Request asks for a token of one audience for a chain's identity.
type Request struct {
	// Tenant is the calling chain's tenant: part of the cache key.
	Tenant string
	// Identity is the chain's delegated identity.
	Identity toolbox.Identity
	// Audience is the audience the token is for. Required.
	Audience string
	// Scopes, when set, are asked for (space-separated in scope).
	Scopes []string
}

// Error is a refused or failed exchange. Its text never holds a token.
type Error struct {
	// Expired: the token service refused the chain's own token (subject
	// or actor); a fresh one is needed.
	Expired bool
	// Code is the OAuth error code the service answered, if any and if it
	// is a well-formed one.
	Code string
	// Status is the HTTP status of the answer; 0 when none came.
	Status int
	// Reason says why in words that hold no token and no host detail.
	Reason string
}

func (e *Error) Error() string { return "token exchange: " + e.Reason }

// Exchanger exchanges subject tokens for audience tokens and caches them.
type Exchanger struct {
	opts   Options
	client *http.Client
	now    func() time.Time
	group  singleflight.Group

	mu    sync.Mutex
	lru   *list.List // of *entry, most recent first
	byKey map[[32]byte]*list.Element

	exchanges, hits uint64 // under mu
}

type entry struct {
	key   [32]byte
	token string
	until time.Time
}

// New validates o and returns an Exchanger. It sends nothing.
func New(o Options) (*Exchanger, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.CacheMaxEntries == 0 {
		o.CacheMaxEntries = DefaultCacheMaxEntries
	}
	e := &Exchanger{opts: o, client: o.Client, now: o.Now, lru: list.New(), byKey: map[[32]byte]*list.Element{}}
	if e.client == nil {
		e.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if e.now == nil {
		e.now = time.Now
	}
	return e, nil
}

// Stats are counters of an Exchanger, for tests and metrics.
type Stats struct {
	// Exchanges is the number of requests sent to the token service.
	Exchanges uint64
	// Hits is the number of tokens served from the cache.
	Hits uint64
	// Entries is the number of cached tokens.
	Entries int
}

// Stats returns the Exchanger's counters.
func (e *Exchanger) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return Stats{Exchanges: e.exchanges, Hits: e.hits, Entries: e.lru.Len()}
}

var errorCode = regexp.MustCompile(`^[a-z_]{1,64}$`)

// cacheKey hashes everything a token depends on, each part
// length-prefixed, so that no two requests of different tenants,
// subjects, actors, audiences or scopes share an entry.
func cacheKey(r Request) [32]byte {
	h := sha256.New()
	parts := append([]string{r.Tenant, r.Identity.SubjectToken, r.Identity.TokenType(), r.Identity.Actor, r.Audience}, r.Scopes...)
	for _, s := range parts {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// Token returns a token of r.Audience for r.Identity: from the cache while
// one is fresh, otherwise from the token service. ctx bounds the wait; an
// exchange that others wait for too runs under Options.Timeout alone.
func (e *Exchanger) Token(ctx context.Context, r Request) (string, error) {
	if r.Identity.SubjectToken == "" {
		return "", &Error{Reason: "the chain has no delegated identity"}
	}
	if r.Audience == "" || len(r.Audience) > MaxAudienceLen {
		return "", &Error{Reason: "the audience is empty or too long"}
	}
	key := cacheKey(r)
	if tok, ok := e.cached(key); ok {
		return tok, nil
	}
	ch := e.group.DoChan(string(key[:]), func() (any, error) {
		if tok, ok := e.cached(key); ok {
			return tok, nil
		}
		tok, lifetime, err := e.exchange(context.WithoutCancel(ctx), r)
		if err != nil {
			return "", err
		}
		e.store(key, tok, lifetime)
		return tok, nil
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return "", res.Err
		}
		return res.Val.(string), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (e *Exchanger) cached(key [32]byte) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	el, ok := e.byKey[key]
	if !ok {
		return "", false
	}
	en := el.Value.(*entry)
	if !e.now().Before(en.until) {
		e.lru.Remove(el)
		delete(e.byKey, key)
		return "", false
	}
	e.lru.MoveToFront(el)
	e.hits++
	return en.token, true
}

func (e *Exchanger) store(key [32]byte, tok string, lifetime time.Duration) {
	if lifetime <= 0 {
		return
	}
	skew := min(ExpirySkew, lifetime/4)
	until := e.now().Add(lifetime - skew)
	e.mu.Lock()
	defer e.mu.Unlock()
	if el, ok := e.byKey[key]; ok {
		en := el.Value.(*entry)
		en.token, en.until = tok, until
		e.lru.MoveToFront(el)
		return
	}
	e.byKey[key] = e.lru.PushFront(&entry{key: key, token: tok, until: until})
	for e.lru.Len() > e.opts.CacheMaxEntries {
		last := e.lru.Back()
		e.lru.Remove(last)
		delete(e.byKey, last.Value.(*entry).key)
	}
}

// tokenResponse is the RFC 8693 §2.2.1 answer, and the error fields of
// RFC 6749 §5.2.
type tokenResponse struct {
	AccessToken string          `json:"access_token"`
	TokenType   string          `json:"token_type"`
	ExpiresIn   json.RawMessage `json:"expires_in"`
	Error       string          `json:"error"`
}

// exchange sends one RFC 8693 request and returns the token and its
// lifetime (0: unknown).
func (e *Exchanger) exchange(ctx context.Context, r Request) (string, time.Duration, error) {
	e.mu.Lock()
	e.exchanges++
	e.mu.Unlock()
	form := url.Values{
		"grant_type":           {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"subject_token":        {r.Identity.SubjectToken},
		"subject_token_type":   {r.Identity.TokenType()},
		"requested_token_type": {toolbox.TokenTypeAccessToken},
		"audience":             {r.Audience},
	}
	if r.Identity.Actor != "" {
		form.Set("actor_token", r.Identity.Actor)
		form.Set("actor_token_type", toolbox.TokenTypeAccessToken)
	}
	if len(r.Scopes) > 0 {
		form.Set("scope", strings.Join(r.Scopes, " "))
	}
	ctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.opts.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, &Error{Reason: "the token service's URL is not usable"}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 §2.3.1: each part form-encoded before Basic.
	req.SetBasicAuth(url.QueryEscape(e.opts.ClientID), url.QueryEscape(e.opts.ClientSecret))
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", 0, &Error{Reason: fmt.Sprintf("the token service did not answer within %s", e.opts.Timeout)}
		}
		return "", 0, &Error{Reason: "the token service could not be reached"}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return "", 0, &Error{Status: resp.StatusCode, Reason: "the token service's answer could not be read"}
	}
	if len(body) > MaxResponseBytes {
		return "", 0, &Error{Status: resp.StatusCode, Reason: fmt.Sprintf("the token service's answer exceeds %d bytes", MaxResponseBytes)}
	}
	var tr tokenResponse
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	jsonErr := json.Unmarshal(body, &tr)
	if resp.StatusCode != http.StatusOK {
		return "", 0, refusal(resp.StatusCode, tr.Error, jsonErr == nil)
	}
	switch {
	case jsonErr != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")):
		return "", 0, &Error{Status: resp.StatusCode, Reason: "the token service's answer is not a JSON token response"}
	case tr.AccessToken == "":
		return "", 0, &Error{Status: resp.StatusCode, Reason: "the token service's answer holds no access_token"}
	case len(tr.AccessToken) > MaxTokenBytes:
		return "", 0, &Error{Status: resp.StatusCode, Reason: fmt.Sprintf("the issued token exceeds %d bytes", MaxTokenBytes)}
	case !printable(tr.AccessToken):
		return "", 0, &Error{Status: resp.StatusCode, Reason: "the issued token holds bytes a header cannot carry"}
	case !strings.EqualFold(tr.TokenType, "bearer") && tr.TokenType != "N_A":
		return "", 0, &Error{Status: resp.StatusCode, Reason: "the issued token is not a Bearer token"}
	}
	var lifetime time.Duration
	var secs json.Number
	if len(tr.ExpiresIn) > 0 && json.Unmarshal(tr.ExpiresIn, &secs) == nil {
		if n, err := secs.Int64(); err == nil && n > 0 && n < 1<<31 {
			lifetime = time.Duration(n) * time.Second
		}
	}
	return tr.AccessToken, lifetime, nil
}

// refusal classifies an answer other than 200.
func refusal(status int, code string, isJSON bool) *Error {
	if !isJSON || !errorCode.MatchString(code) {
		code = ""
	}
	e := &Error{Status: status, Code: code}
	switch {
	case code == "invalid_grant" || code == "invalid_token" || code == "invalid_request":
		e.Expired = true
		e.Reason = fmt.Sprintf("the token service refused the chain's token (%s)", code)
	case code == "invalid_target":
		e.Reason = "the token service does not issue this identity a token for this audience (invalid_target)"
	case code == "invalid_scope":
		e.Reason = "the token service does not grant the scopes asked for (invalid_scope)"
	case code == "invalid_client" || code == "unauthorized_client":
		e.Reason = fmt.Sprintf("the token service refused airlock's client credentials (%s)", code)
	case code != "":
		e.Reason = fmt.Sprintf("the token service refused the exchange (%s, HTTP %d)", code, status)
	default:
		e.Reason = fmt.Sprintf("the token service answered HTTP %d", status)
	}
	return e
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
