package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/server/console"
	"github.com/airlockrt/airlock/service"
)

// Keys of the console tests beside keyAcme, keyGlobex, keySubmit and
// keyApprover (acme's).
const keyGlobexApprover = "globex-approver-0123456789abcdef"

// consoleEnv is a server whose keys have roles: keyAcme (all),
// keySubmit, keyApprover (acme), keyGlobex (all) and keyGlobexApprover
// (globex). Its clock can be moved forward (clock), and its log is kept.
type consoleEnv struct {
	*env
	clock *atomic.Int64 // nanoseconds added to the real time
	log   *lockedBuffer
}

func newConsoleEnv(t *testing.T, edit func(*setup)) *consoleEnv {
	t.Helper()
	ce := &consoleEnv{clock: new(atomic.Int64), log: &lockedBuffer{}}
	ce.env = newEnv(t, func(o *setup) {
		o.Authenticate = func(key string) (string, bool) {
			switch key {
			case keyAcme, keySubmit, keyApprover:
				return "acme", true
			case keyGlobex, keyGlobexApprover:
				return "globex", true
			}
			return "", false
		}
		o.KeyRole = func(key string) service.Role {
			switch key {
			case keySubmit:
				return service.RoleSubmit
			case keyApprover, keyGlobexApprover:
				return service.RoleApprover
			}
			return service.RoleAll
		}
		o.httpOptions.Console.Clock = func() time.Time { return time.Now().Add(time.Duration(ce.clock.Load())) }
		logger := slog.New(slog.NewTextHandler(ce.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
		o.httpOptions.Logger, o.Options.Logger = logger, logger
		if edit != nil {
			edit(o)
		}
	})
	return ce
}

// browser is a console client: a cookie jar, the session's CSRF token,
// and the Origin it sends.
type browser struct {
	t      *testing.T
	base   string
	client *http.Client
	csrf   string
	origin string
}

func (e *env) browser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, base: e.http.URL, client: &http.Client{Jar: jar}, origin: e.http.URL}
}

// send sends a request as the page would: with the Origin and, unless
// noCSRF, the CSRF token.
func (b *browser) send(method, path string, body any, noCSRF bool) reply {
	b.t.Helper()
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	default:
		j, err := json.Marshal(v)
		require.NoError(b.t, err)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, b.base+path, rd)
	require.NoError(b.t, err)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if b.origin != "" {
		req.Header.Set("Origin", b.origin)
	}
	if !noCSRF && b.csrf != "" {
		req.Header.Set(console.CSRFHeader, b.csrf)
	}
	resp, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	return reply{code: resp.StatusCode, body: data, hdr: resp.Header}
}

// signIn signs in with key and keeps the CSRF token.
func (b *browser) signIn(key string) reply {
	b.t.Helper()
	r := b.send("POST", "/ui/session", map[string]string{"key": key}, true)
	if r.code == http.StatusOK {
		var s struct {
			CSRF string `json:"csrf_token"`
		}
		require.NoError(b.t, json.Unmarshal(r.body, &s))
		require.NotEmpty(b.t, s.CSRF)
		b.csrf = s.CSRF
	}
	return r
}

func (b *browser) cookie() *http.Cookie {
	u, _ := url.Parse(b.base + "/ui/")
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == console.CookieName {
			return c
		}
	}
	return nil
}

// TestConsoleSignIn: the pages are served with a strict policy; only a
// key that may approve signs in (T1: a submit key cannot); the cookie
// holds a token, not the key, and is HttpOnly, SameSite=Strict.
func TestConsoleSignIn(t *testing.T) {
	e := newConsoleEnv(t, nil)
	b := e.browser(t)

	for _, path := range []string{"/ui/", "/ui/app.js", "/ui/app.css"} {
		r := b.send("GET", path, nil, true)
		require.Equal(t, http.StatusOK, r.code, path)
		csp := r.hdr.Get("Content-Security-Policy")
		require.Contains(t, csp, "default-src 'self'", path)
		require.Contains(t, csp, "frame-ancestors 'none'", path)
		require.NotContains(t, csp, "unsafe-inline", path)
		require.Equal(t, "nosniff", r.hdr.Get("X-Content-Type-Options"), path)
		require.Equal(t, "no-referrer", r.hdr.Get("Referrer-Policy"), path)
	}
	index := string(b.send("GET", "/ui/", nil, true).body)
	require.NotContains(t, index, "<script>", "no inline script")
	require.NotContains(t, index, "style=", "no inline style")
	require.NotContains(t, index, "http://", "nothing from elsewhere")
	require.NotContains(t, index, "https://", "nothing from elsewhere")

	r := b.send("GET", "/ui/session", nil, true)
	require.Equal(t, http.StatusUnauthorized, r.code)
	require.Equal(t, console.ReasonUnauthenticated, r.reason(t))

	r = b.signIn("not-a-key")
	require.Equal(t, http.StatusUnauthorized, r.code)
	require.Equal(t, console.ReasonUnauthenticated, r.reason(t))
	r = b.signIn(keySubmit)
	require.Equal(t, http.StatusForbidden, r.code, "T1: a submit key may not sign in to decide")
	require.Equal(t, console.ReasonForbiddenRole, r.reason(t))
	require.Nil(t, b.cookie())

	r = b.signIn(keyApprover)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, "acme", r.json(t)["tenant"])
	setCookie := r.hdr.Get("Set-Cookie")
	require.Contains(t, setCookie, "HttpOnly")
	require.Contains(t, setCookie, "SameSite=Strict")
	require.Contains(t, setCookie, "Path=/ui")
	require.NotContains(t, setCookie, "Secure", "not over plain HTTP")
	require.NotContains(t, setCookie, keyApprover)
	ck := b.cookie()
	require.NotNil(t, ck)
	require.GreaterOrEqual(t, len(ck.Value), 40, "a random token")

	r = b.send("GET", "/ui/session", nil, true)
	require.Equal(t, http.StatusOK, r.code)
	require.Equal(t, "approver", r.json(t)["role"])
	require.NotContains(t, string(r.body), keyApprover)
	require.Equal(t, http.StatusOK, b.send("GET", "/ui/api/v1/approvals", nil, true).code)

	// Signing out needs the CSRF token, then ends the session.
	r = b.send("DELETE", "/ui/session", nil, true)
	require.Equal(t, http.StatusForbidden, r.code)
	require.Equal(t, console.ReasonCSRF, r.reason(t))
	require.Equal(t, http.StatusNoContent, b.send("DELETE", "/ui/session", nil, false).code)
	b.client.Jar.SetCookies(mustURL(t, b.base+"/ui/"), []*http.Cookie{ck}) // the old cookie, replayed
	require.Equal(t, http.StatusUnauthorized, b.send("GET", "/ui/api/v1/approvals", nil, true).code)

	// Without the console, /ui is not served.
	off := newConsoleEnv(t, func(o *setup) { o.httpOptions.NoConsole = true })
	require.Equal(t, http.StatusNotFound, off.browser(t).send("GET", "/ui/", nil, true).code)

	// A key of role all signs in too.
	require.Equal(t, http.StatusOK, e.browser(t).signIn(keyAcme).code)
	e.noSecrets(t, keyApprover, keyAcme, ck.Value)
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

// noSecrets checks that no key or cookie token reached the server's log.
func (ce *consoleEnv) noSecrets(t *testing.T, secrets ...string) {
	t.Helper()
	logs := ce.log.String()
	for _, s := range secrets {
		require.NotContains(t, logs, s)
	}
}

// TestConsoleNeedsASession (T5): without a cookie, with a forged or an
// expired one the console's API answers 401, a bearer key does not stand
// in for the cookie, and a state change needs the CSRF token and this
// server's Origin (CSRF from another site is refused).
func TestConsoleNeedsASession(t *testing.T) {
	e := newConsoleEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": approvalScript}, true)
	req := e.pending(t, keyAcme)
	decide := map[string]any{"decision": "approve", "args_hash": req["args_hash"]}
	path := "/ui/api/v1/approvals/" + req["id"].(string)

	anon := e.browser(t)
	require.Equal(t, http.StatusUnauthorized, anon.send("GET", "/ui/api/v1/approvals", nil, true).code, "no cookie")
	require.Equal(t, http.StatusUnauthorized, anon.send("POST", path, decide, true).code, "no cookie")
	r, err := http.NewRequest("GET", e.http.URL+"/ui/api/v1/approvals", nil)
	require.NoError(t, err)
	r.Header.Set("Authorization", "Bearer "+keyAcme)
	require.Equal(t, http.StatusUnauthorized, send(t, r).code, "a bearer key is not a session")
	anon.client.Jar.SetCookies(mustURL(t, e.http.URL+"/ui/"), []*http.Cookie{{Name: console.CookieName, Value: "forged-" + strings.Repeat("A", 40)}})
	got := anon.send("GET", "/ui/api/v1/approvals", nil, true)
	require.Equal(t, http.StatusUnauthorized, got.code, "forged cookie")
	require.Equal(t, console.ReasonUnauthenticated, got.reason(t))
	anon.client.Jar.SetCookies(mustURL(t, e.http.URL+"/ui/"), []*http.Cookie{{Name: console.CookieName, Value: keyAcme}})
	require.Equal(t, http.StatusUnauthorized, anon.send("GET", "/ui/api/v1/approvals", nil, true).code, "the key itself is not a cookie")

	b := e.browser(t)
	require.Equal(t, http.StatusOK, b.signIn(keyApprover).code)
	got = b.send("POST", path, decide, true)
	require.Equal(t, http.StatusForbidden, got.code, "cookie without CSRF token")
	require.Equal(t, console.ReasonCSRF, got.reason(t))
	csrf := b.csrf
	b.csrf = strings.Repeat("x", len(csrf))
	require.Equal(t, console.ReasonCSRF, b.send("POST", path, decide, false).reason(t), "another CSRF token")
	b.csrf = csrf
	b.origin = "http://evil.example"
	got = b.send("POST", path, decide, false)
	require.Equal(t, http.StatusForbidden, got.code, "cross-origin")
	require.Equal(t, console.ReasonForbiddenOrigin, got.reason(t))
	b.origin = ""
	require.Equal(t, console.ReasonForbiddenOrigin, b.send("POST", path, decide, false).reason(t), "no Origin")
	b.origin = e.http.URL
	require.Equal(t, req["id"], e.pending(t, keyAcme)["id"], "none of these decided: the request still waits")

	// The session reaches the API's /v1/ routes only.
	for _, p := range []string{"/ui/api/metrics", "/ui/api/mcp", "/ui/api/v1/../../metrics", "/ui/api/ui/session"} {
		got := b.send("GET", p, nil, true)
		require.Equal(t, http.StatusNotFound, got.code, "%s: %s", p, got.body)
	}

	// An approver key may decide but not cancel.
	got = b.send("DELETE", "/ui/api/v1/chains/"+v.ID, nil, false)
	require.Equal(t, http.StatusForbidden, got.code)
	require.Equal(t, server.ReasonForbiddenRole, got.reason(t))

	// Past its time the session is gone.
	e.clock.Store(int64(console.DefaultSessionTTL + time.Minute))
	got = b.send("GET", "/ui/api/v1/approvals", nil, true)
	require.Equal(t, http.StatusUnauthorized, got.code, "expired cookie")
	require.Equal(t, console.ReasonUnauthenticated, got.reason(t))
	e.clock.Store(0)
	require.Equal(t, http.StatusUnauthorized, b.send("GET", "/ui/api/v1/approvals", nil, true).code, "an expired session is dropped")

	require.Equal(t, http.StatusOK, b.signIn(keyApprover).code)
	got = b.send("POST", path, decide, false)
	require.Equal(t, http.StatusOK, got.code, "%s", got.body)
	require.Equal(t, "ok", e.wait(t, keyAcme, v.ID).Status)
	e.noSecrets(t, keyApprover, keyAcme)
}

// TestConsoleTenantsApart (T2): an approver of globex signed in to the
// console sees none of acme's chains or approvals and cannot decide them;
// acme's approver decides through the console, bound to the args hash,
// while a chain of globex runs alongside.
func TestConsoleTenantsApart(t *testing.T) {
	e := newConsoleEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `await tools.kv_get({key: "k"});` + approvalScript}, true)
	req := e.pending(t, keyAcme)
	id, hash := req["id"].(string), req["args_hash"].(string)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a healthy chain of another tenant
		defer wg.Done()
		require.Equal(t, "ok", e.submit(t, keyGlobex, map[string]any{"script": "return 40 + 2"}, false).Status)
	}()

	g := e.browser(t)
	require.Equal(t, http.StatusOK, g.signIn(keyGlobexApprover).code)
	r := g.send("GET", "/ui/api/v1/approvals", nil, true)
	require.JSONEq(t, `{"approvals":[]}`, string(r.body))
	r = g.send("GET", "/ui/api/v1/chains", nil, true)
	require.Equal(t, http.StatusOK, r.code)
	require.NotContains(t, string(r.body), v.ID)
	for _, p := range []string{"/ui/api/v1/chains/" + v.ID, "/ui/api/v1/approvals/" + id, "/ui/api/v1/approvals/" + id + "/context"} {
		require.Equal(t, http.StatusNotFound, g.send("GET", p, nil, true).code, p)
	}
	r = g.send("POST", "/ui/api/v1/approvals/"+id, map[string]string{"decision": "approve", "args_hash": hash}, false)
	require.Equal(t, http.StatusNotFound, r.code)
	require.Equal(t, server.ReasonApprovalNotFound, r.reason(t))
	require.Equal(t, id, e.pending(t, keyAcme)["id"], "still pending")

	a := e.browser(t)
	require.Equal(t, http.StatusOK, a.signIn(keyApprover).code)
	r = a.send("GET", "/ui/api/v1/approvals/"+id+"/context", nil, true)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var c service.ApprovalContext
	require.NoError(t, json.Unmarshal(r.body, &c))
	require.Equal(t, hash, c.Request.ArgsHash)
	require.NotEmpty(t, c.Description)
	require.Equal(t, "confirm", c.Gate)
	require.Contains(t, c.Script, "tools.send_message")
	require.Equal(t, "matrix[supervised][HIGH]", c.Rule)
	src := `await tools.kv_get({key: "k"});` + approvalScript
	call := strings.Index(src, "send_message(")
	require.Equal(t, strings.Count(src[:call], "\n")+1, c.Request.Line, "the line that made the call")
	require.Equal(t, call-strings.LastIndex(src[:call], "\n"), c.Request.Column)
	require.Contains(t, string(r.body), `"line":3,"column":`)
	require.Len(t, c.Calls, 1, "the calls so far")
	require.Equal(t, "kv_get", c.Calls[0].Tool)
	require.Equal(t, 1, c.Calls[0].Seq)
	r = a.send("GET", "/ui/api/v1/chains?status=waiting_approval", nil, true)
	require.Contains(t, string(r.body), v.ID)

	r = a.send("POST", "/ui/api/v1/approvals/"+id, map[string]string{"decision": "approve", "args_hash": strings.Repeat("0", 64)}, false)
	require.Equal(t, http.StatusConflict, r.code, "a decision on other arguments")
	require.Equal(t, server.ReasonArgsMismatch, r.reason(t))
	r = a.send("POST", "/ui/api/v1/approvals/"+id, map[string]string{"decision": "deny", "args_hash": hash}, false)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	r = a.send("POST", "/ui/api/v1/approvals/"+id, map[string]string{"decision": "approve", "args_hash": hash}, false)
	require.Equal(t, http.StatusConflict, r.code)
	require.Equal(t, server.ReasonAlreadyDecided, r.reason(t))
	done := e.wait(t, keyAcme, v.ID)
	require.JSONEq(t, `{"sent":false,"reason":"approval_denied"}`, string(done.Result.Value))
	wg.Wait()
}

// TestConsoleBounds (T1, T5): a huge sign-in body is refused after a
// bounded read, failed sign-ins from one address are limited, and a
// tenant's sessions are capped (a new one ends the oldest).
func TestConsoleBounds(t *testing.T) {
	e := newConsoleEnv(t, func(o *setup) { o.httpOptions.Console.MaxSessionsPerTenant = 2 })
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		require.Equal(t, "ok", e.submit(t, keyGlobex, map[string]any{"script": "return 1"}, false).Status)
	}()

	b := e.browser(t)
	r := b.send("POST", "/ui/session", `{"key":"`+strings.Repeat("k", 8<<20)+`"}`, true)
	require.Equal(t, http.StatusRequestEntityTooLarge, r.code)
	require.Equal(t, console.ReasonBodyTooLarge, r.reason(t))
	r = b.send("POST", "/ui/session", `{"key":"a","extra":1}`, true)
	require.Equal(t, http.StatusBadRequest, r.code)

	first := e.browser(t)
	require.Equal(t, http.StatusOK, first.signIn(keyApprover).code)
	require.Equal(t, http.StatusOK, e.browser(t).signIn(keyApprover).code)
	require.Equal(t, http.StatusOK, first.send("GET", "/ui/session", nil, true).code)
	require.Equal(t, http.StatusOK, e.browser(t).signIn(keyAcme).code)
	require.Equal(t, http.StatusUnauthorized, first.send("GET", "/ui/session", nil, true).code, "the tenant's oldest session ended")
	g := e.browser(t)
	require.Equal(t, http.StatusOK, g.signIn(keyGlobexApprover).code, "another tenant's sessions are its own")

	for range console.DefaultMaxFailedSignIns {
		require.Equal(t, http.StatusUnauthorized, b.signIn("wrong-key").code)
	}
	r = b.signIn(keyApprover)
	require.Equal(t, http.StatusTooManyRequests, r.code, "even a right key, once the address failed too often")
	require.Equal(t, console.ReasonTooManySignIns, r.reason(t))
	wg.Wait()
	e.noSecrets(t, keyApprover, keyAcme, keyGlobexApprover)
}
