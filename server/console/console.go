package console

import (
	"cmp"
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/airlockrt/airlock/service"
)

//go:embed ui
var files embed.FS

// Defaults of Options.
const (
	DefaultSessionTTL           = 12 * time.Hour
	DefaultMaxSessions          = 10000
	DefaultMaxSessionsPerTenant = 64
	DefaultMaxFailedSignIns     = 10
)

// MaxSignInBytes bounds the body of POST /ui/session.
const MaxSignInBytes = 4 << 10

// maxFailureAddrs bounds the client addresses whose failed sign-ins are
// counted at once.
const maxFailureAddrs = 10000

// CookieName is the name of the session cookie.
const CookieName = "airlock_console"

// CSRFHeader is the header that carries a session's CSRF token on every
// request that changes state.
const CSRFHeader = "X-CSRF-Token"

// ContentSecurityPolicy is the policy of every answer under /ui.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Options configure New. The zero value works.
type Options struct {
	// SessionTTL is how long a sign-in lasts. Default 12h.
	SessionTTL time.Duration
	// MaxSessions caps the sessions held at once; a sign-in beyond it is
	// refused (503 too_many_sessions) until one expires. Default 10000.
	MaxSessions int
	// MaxSessionsPerTenant caps one tenant's sessions; a sign-in beyond it
	// ends the tenant's oldest session. Default 64.
	MaxSessionsPerTenant int
	// MaxFailedSignIns is how many failed sign-ins a client address (an
	// IPv6 client's /64) may make in a minute before its sign-ins are refused (429
	// too_many_sign_ins) for the rest of that minute. Default 10.
	MaxFailedSignIns int
	// SecureCookie sets the cookie's Secure attribute on every answer, for
	// a console behind a proxy that terminates TLS. Without it the cookie
	// is Secure when the request came over TLS.
	SecureCookie bool
	// Clock returns the current time. Default time.Now.
	Clock func() time.Time
}

// Console serves the approval console. Build it with New.
type Console struct {
	svc      *service.Service
	opts     Options
	sessions *sessions
	failures *failures
	static   http.Handler
}

// New builds the console over svc. It starts nothing.
func New(svc *service.Service, opts Options) *Console {
	opts.SessionTTL = cmp.Or(opts.SessionTTL, DefaultSessionTTL)
	opts.MaxSessions = cmp.Or(opts.MaxSessions, DefaultMaxSessions)
	opts.MaxSessionsPerTenant = cmp.Or(opts.MaxSessionsPerTenant, DefaultMaxSessionsPerTenant)
	opts.MaxFailedSignIns = cmp.Or(opts.MaxFailedSignIns, DefaultMaxFailedSignIns)
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	sub, _ := fs.Sub(files, "ui")
	return &Console{svc: svc, opts: opts,
		sessions: newSessions(opts.MaxSessions, opts.MaxSessionsPerTenant, opts.SessionTTL),
		failures: &failures{max: opts.MaxFailedSignIns, maxAddrs: maxFailureAddrs},
		static:   http.StripPrefix("/ui", http.FileServerFS(sub)),
	}
}

type callerKey struct{}

// CallerFrom returns the caller of a request the console handed to the
// API: the signed-in key's. False for any other request.
func CallerFrom(ctx context.Context) (service.Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(service.Caller)
	return c, ok
}

// Handler returns the console's handler for the paths /ui and /ui/…;
// api serves the HTTP API, which /ui/api/v1/… reaches as the signed-in
// key (CallerFrom) with /ui/api cut from the path.
func (c *Console) Handler(api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		path := r.URL.Path
		switch {
		case path == "/ui":
			http.Redirect(w, r, "/ui/", http.StatusFound)
		case path == "/ui/session":
			c.session(w, r)
		case strings.HasPrefix(path, "/ui/api/"):
			c.api(w, r, api)
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			h.Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "the console's pages take GET only")
		default:
			h.Set("Cache-Control", "no-cache")
			c.static.ServeHTTP(w, r)
		}
	})
}

// sessionView is the body of GET and POST /ui/session.
type sessionView struct {
	Tenant  string       `json:"tenant"`
	Role    service.Role `json:"role"`
	CSRF    string       `json:"csrf_token"`
	Expires time.Time    `json:"expires"`
}

func (c *Console) session(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		c.signIn(w, r)
	case http.MethodGet:
		se, caller, ok := c.current(w, r)
		if !ok {
			return
		}
		writeJSON(w, http.StatusOK, sessionView{Tenant: caller.Tenant, Role: caller.Role, CSRF: se.csrf, Expires: se.expires})
	case http.MethodDelete:
		se, _, ok := c.current(w, r)
		if !ok || !c.stateChange(w, r, se) {
			return
		}
		if ck, err := r.Cookie(CookieName); err == nil {
			c.sessions.drop(ck.Value)
		}
		c.setCookie(w, r, "", -1)
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "/ui/session takes GET, POST (sign in) and DELETE (sign out)")
	}
}

// signIn handles POST /ui/session: {"key": "…"}.
func (c *Console) signIn(w http.ResponseWriter, r *http.Request) {
	now := c.opts.Clock()
	addr := clientAddr(r)
	if c.failures.blocked(addr, now) {
		w.Header().Set("Retry-After", "60")
		writeError(w, http.StatusTooManyRequests, ReasonTooManySignIns, "too many failed sign-ins from this address; retry in a minute")
		return
	}
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, ReasonForbiddenOrigin, "sign in from the console's own page (the Origin header must name this server)")
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "send the key as JSON: Content-Type: application/json, {\"key\": \"…\"}")
		return
	}
	var body struct {
		Key string `json:"key"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxSignInBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, ReasonBodyTooLarge, "the sign-in body is larger than 4096 bytes")
			return
		}
		writeError(w, http.StatusBadRequest, ReasonInvalidRequest, "send {\"key\": \"<API key>\"}")
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxSignInBytes))
	caller, ok := c.svc.CallerOf(body.Key)
	if !ok {
		c.failures.fail(addr, now)
		writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "the API key is not valid")
		return
	}
	if !caller.MayApprove() {
		c.failures.fail(addr, now)
		writeError(w, http.StatusForbidden, ReasonForbiddenRole,
			"this API key has role \""+string(caller.Role)+"\"; the console needs a key with role approver or all")
		return
	}
	if ck, err := r.Cookie(CookieName); err == nil {
		c.sessions.drop(ck.Value) // a sign-in replaces the browser's session
	}
	tok, se, ok := c.sessions.create(body.Key, caller, now)
	if !ok {
		writeError(w, http.StatusServiceUnavailable, ReasonTooManySessions, "the console holds as many sessions as it may; retry later")
		return
	}
	c.setCookie(w, r, tok, int(c.opts.SessionTTL/time.Second))
	writeJSON(w, http.StatusOK, sessionView{Tenant: caller.Tenant, Role: caller.Role, CSRF: se.csrf, Expires: se.expires})
}

func (c *Console) setCookie(w http.ResponseWriter, r *http.Request, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: value, Path: "/ui", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.opts.SecureCookie || r.TLS != nil,
	})
}

// current returns the request's session and its caller (its key checked
// again), or answers 401.
func (c *Console) current(w http.ResponseWriter, r *http.Request) (*session, service.Caller, bool) {
	ck, err := r.Cookie(CookieName)
	if err == nil && ck.Value != "" {
		if se, ok := c.sessions.get(ck.Value, c.opts.Clock()); ok {
			caller, ok := c.svc.CallerOf(se.key)
			if ok && caller.Tenant == se.tenant && caller.MayApprove() {
				return se, caller, true
			}
			c.sessions.drop(ck.Value)
		}
	}
	writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "sign in: POST /ui/session with an API key of role approver or all")
	return nil, service.Caller{}, false
}

// stateChange checks what a request that changes state must carry: an
// Origin naming this server and the session's CSRF token.
func (c *Console) stateChange(w http.ResponseWriter, r *http.Request, se *session) bool {
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, ReasonForbiddenOrigin, "requests that change state must come from the console's own page (the Origin header must name this server)")
		return false
	}
	got := r.Header.Get(CSRFHeader)
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(se.csrf)) != 1 {
		writeError(w, http.StatusForbidden, ReasonCSRF, "send the session's CSRF token (csrf_token of GET /ui/session) in the X-CSRF-Token header")
		return false
	}
	return true
}

// api hands /ui/api/v1/… to the HTTP API as the session's caller.
func (c *Console) api(w http.ResponseWriter, r *http.Request, api http.Handler) {
	rest := strings.TrimPrefix(r.URL.Path, "/ui/api")
	if !strings.HasPrefix(rest, "/v1/") || path.Clean(rest) != rest {
		// Only clean paths under /v1/: "/v1/../metrics" would leave it.
		writeError(w, http.StatusNotFound, ReasonNotFound, "the console reaches the API's /v1/ routes only")
		return
	}
	se, caller, ok := c.current(w, r)
	if !ok {
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !c.stateChange(w, r, se) {
		return
	}
	r2 := r.Clone(context.WithValue(r.Context(), callerKey{}, caller))
	u := *r.URL
	u.Path = rest
	u.RawPath = ""
	if raw := r.URL.RawPath; raw != "" {
		u.RawPath = strings.TrimPrefix(raw, "/ui/api")
	}
	r2.URL = &u
	r2.RequestURI = u.RequestURI()
	r2.Header.Del("Authorization")
	api.ServeHTTP(w, r2)
}

// sameOrigin reports whether r's Origin header names the host r was sent
// to (scheme aside: a proxy may terminate TLS).
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Values("Origin")
	if len(origin) != 1 {
		return false
	}
	u, err := url.Parse(origin[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// clientAddr is the address failed sign-ins are counted by: the client's
// IPv4 address, or the /64 network of its IPv6 address (one host holds a
// whole /64, and would otherwise have 2^64 addresses to fail from).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return "?" + host // never empty: "" is the overflow count
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.WithZone("").Prefix(64)
	return p.String()
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, _ := json.Marshal(v)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, code int, reason, msg string) {
	type body struct {
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
	writeJSON(w, code, map[string]body{"error": {Reason: reason, Message: msg}})
}
