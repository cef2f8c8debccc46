package httptool

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/airlockrt/airlock/internal/scrub"
	"github.com/airlockrt/airlock/internal/tenantsecret"
	"github.com/airlockrt/airlock/internal/tokenexchange"
	"github.com/airlockrt/airlock/toolbox"
)

// Defaults of Spec's fields.
const (
	DefaultMethod           = http.MethodPost
	DefaultTimeout          = 10 * time.Second
	DefaultMaxResponseBytes = 1 << 20
)

// ErrInvalidSpec is wrapped by New when a Spec field is invalid.
var ErrInvalidSpec = errors.New("httptool: invalid spec")

// Spec defines one HTTP tool.
type Spec struct {
	// Name and Description are the tool's, as in toolbox.Info. Required.
	Name, Description string
	// URL is the absolute http or https endpoint. {name} placeholders in its
	// path are replaced by the path-escaped top-level argument of that name,
	// which is then left out of the body or query; a call whose value is
	// empty, "." or ".." fails, so an argument cannot climb the path. Credentials in the URL are
	// rejected: put them in a header with ${env:NAME} or ${tenant:NAME}. Required.
	URL string
	// Method is GET, HEAD, POST, PUT, PATCH or DELETE. Default POST.
	Method string
	// InputSchema is the JSON Schema of the arguments, an object schema.
	// Nil means the tool takes no arguments.
	InputSchema json.RawMessage
	// Risk is the tool's risk level. Default toolbox.Safe.
	Risk toolbox.Risk
	// Timeout bounds one call: connection, request and the whole response.
	// Default 10s.
	Timeout time.Duration
	// MaxResponseBytes caps the response body; a larger one fails the call.
	// Default 1 MiB.
	MaxResponseBytes int64
	// Headers are sent with every request. A value may hold ${env:NAME}
	// references, resolved at call time from Options.Secrets, and
	// ${tenant:NAME} references, resolved at call time for the calling
	// chain's tenant (toolbox.CallerFrom) from Options.TenantSecrets; a
	// secret that is not available fails the call with a
	// *toolbox.CredentialUnavailableError before anything is sent. The
	// value of every header but the PublicHeader ones is treated as a
	// secret, literal or not: it is scrubbed from the responses and errors
	// the tool hands back.
	Headers map[string]string
	// Audience, when set, makes the tool act for the calling chain's
	// delegated identity (toolbox.IdentityFrom): each call exchanges the
	// chain's subject token for a token of this audience through
	// Options.Exchanger and sends it as "Authorization: Bearer <token>".
	// A chain without an identity gets credential_unavailable, a subject
	// token the token service refuses credential_expired
	// (docs/identity.md). 1 to 256 printable ASCII bytes without spaces;
	// Headers must then not set Authorization. Default: none.
	Audience string
	// Scopes are asked for with the audience's token (space-separated in
	// the exchange's scope). Only with Audience; at most 32 of 1 to 128
	// printable ASCII bytes without spaces.
	Scopes []string
}

// Exchanger gives a tool with an Audience its delegated token: a
// *tokenexchange.Exchanger, or a fake in tests. Its errors are
// *tokenexchange.Error values or the context's.
type Exchanger interface {
	Token(ctx context.Context, r tokenexchange.Request) (string, error)
}

// Options configure New. The zero value works.
type Options struct {
	// Client sends the requests. Default: a client over
	// http.DefaultTransport that does not follow redirects. A client that
	// follows redirects may forward the headers, secrets included, to
	// another host.
	Client *http.Client
	// Secrets resolves ${env:NAME} references at call time: the tool asks
	// for the secret named NAME immediately before each request and keeps
	// it no longer than the call. Default: LookupEnv.
	Secrets toolbox.Secrets
	// LookupEnv resolves ${env:NAME} references when Secrets is nil.
	// Default os.LookupEnv.
	LookupEnv func(name string) (string, bool)
	// TenantSecrets resolves ${tenant:NAME} references at call time, for
	// the tenant of the call's toolbox.Caller (a call without one has no
	// tenant and gets none). Nil: a Spec with such a reference is
	// rejected by New.
	TenantSecrets toolbox.TenantSecrets
	// Exchanger obtains the delegated tokens of tools with an Audience.
	// Nil: a Spec with an Audience is rejected by New.
	Exchanger Exchanger
}

// Tool is an HTTP tool. It implements toolbox.Tool.
type Tool struct {
	spec         Spec
	info         toolbox.Info
	placeholders []string // in the URL's path
	headers      []header
	client       *http.Client
	secrets      toolbox.Secrets
	tenant       toolbox.TenantSecrets
	exchanger    Exchanger
}

// header is one configured header, split into literal text and refs.
type header struct {
	name  string
	parts []part
}

type part struct {
	text string   // literal text, or the secret's name for a reference
	kind partKind // what text is
}

type partKind uint8

const (
	literal    partKind = iota
	envPart             // ${env:NAME}
	tenantPart          // ${tenant:NAME}
)

// ref returns the reference as it is written in the configuration.
func (p part) ref() string {
	if p.kind == tenantPart {
		return "${tenant:" + p.text + "}"
	}
	return "${env:" + p.text + "}"
}

var (
	secretRef     = regexp.MustCompile(`\$\{(env|tenant):([^}]*)\}`)
	envName       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	placeholderRe = regexp.MustCompile(`\{([^{}]*)\}`)
	argName       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// New checks spec and returns the tool. It never reads the environment:
// ${env:NAME} references are resolved on each call.
func New(spec Spec, opts Options) (*Tool, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: tool %q: %s", ErrInvalidSpec, spec.Name, fmt.Sprintf(format, args...))
	}
	if !toolbox.ValidName(spec.Name) {
		return nil, bad("name must match ^[a-z0-9_-]{1,64}$")
	}
	if n := utf8.RuneCountInString(spec.Description); n < 1 || n > 200 {
		return nil, bad("description must be 1 to 200 characters, got %d", n)
	}
	if spec.Method == "" {
		spec.Method = DefaultMethod
	}
	spec.Method = strings.ToUpper(spec.Method)
	if !slices.Contains(methods, spec.Method) {
		return nil, bad("method %q is not one of %s", spec.Method, strings.Join(methods, ", "))
	}
	switch {
	case spec.Timeout < 0:
		return nil, bad("timeout (%s) must not be negative", spec.Timeout)
	case spec.Timeout == 0:
		spec.Timeout = DefaultTimeout
	}
	switch {
	case spec.MaxResponseBytes < 0:
		return nil, bad("max response bytes (%d) must not be negative", spec.MaxResponseBytes)
	case spec.MaxResponseBytes == 0:
		spec.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if !spec.Risk.Valid() {
		return nil, bad("invalid risk %d", int(spec.Risk))
	}
	if err := checkAudience(spec); err != "" {
		return nil, bad("%s", err)
	}
	if spec.Audience != "" && opts.Exchanger == nil {
		return nil, bad("audience %q needs a token exchange service, and none is configured (identity.token_exchange; docs/identity.md)", spec.Audience)
	}
	spec.Scopes = slices.Clone(spec.Scopes)
	t := &Tool{spec: spec, client: opts.Client, secrets: opts.Secrets, tenant: opts.TenantSecrets, exchanger: opts.Exchanger}
	if t.client == nil {
		t.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if t.secrets == nil {
		lookup := opts.LookupEnv
		if lookup == nil {
			lookup = os.LookupEnv
		}
		t.secrets = EnvSecrets(lookup)
	}

	u, err := url.Parse(spec.URL)
	if err != nil {
		return nil, bad("url is not a valid URL")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, bad("url must start with http:// or https://")
	case u.Host == "":
		return nil, bad("url has no host")
	case u.User != nil:
		return nil, bad("url must not hold credentials; send them in a header with ${env:NAME} or ${tenant:NAME}")
	case u.Fragment != "":
		return nil, bad("url must not have a #fragment")
	}

	var schema *jsonschema.Schema
	if len(spec.InputSchema) > 0 {
		schema = new(jsonschema.Schema)
		if err := json.Unmarshal(spec.InputSchema, schema); err != nil {
			return nil, bad("input schema is not a JSON Schema: %v", err)
		}
		if schema.Type != "object" {
			return nil, bad(`input schema must have "type": "object"`)
		}
		if _, err := schema.Resolve(nil); err != nil {
			return nil, bad("input schema: %v", err)
		}
	}
	for _, m := range placeholderRe.FindAllStringSubmatch(u.Path, -1) {
		name := m[1]
		if !argName.MatchString(name) {
			return nil, bad("url placeholder {%s} is not an argument name", name)
		}
		if schema == nil || schema.Properties[name] == nil {
			return nil, bad("url placeholder {%s} is not a property of the input schema", name)
		}
		t.placeholders = append(t.placeholders, name)
	}

	for _, name := range slices.Sorted(maps.Keys(spec.Headers)) {
		if !validHeaderName(name) {
			return nil, bad("header name %q is not a valid HTTP header name", name)
		}
		h, err := parseHeader(name, spec.Headers[name])
		if err != nil {
			return nil, bad("%v", err)
		}
		for _, p := range h.parts {
			if p.kind == tenantPart && t.tenant == nil {
				return nil, bad("header %s: %s needs a tenant secret source, and none is configured (tenant_secrets.dir or tenant_secrets.env_prefix; docs/identity.md)", name, p.ref())
			}
		}
		t.headers = append(t.headers, h)
	}
	t.info = toolbox.Info{Name: spec.Name, Description: spec.Description, InputSchema: schema, Risk: spec.Risk, Audience: spec.Audience}
	return t, nil
}

func parseHeader(name, value string) (header, error) {
	h := header{name: name}
	rest := value
	for {
		loc := secretRef.FindStringSubmatchIndex(rest)
		if loc == nil {
			break
		}
		if loc[0] > 0 {
			h.parts = append(h.parts, part{text: rest[:loc[0]]})
		}
		kind, v := rest[loc[2]:loc[3]], rest[loc[4]:loc[5]]
		switch {
		case kind == "env" && !envName.MatchString(v):
			return header{}, fmt.Errorf("header %s: ${env:%s} does not name an environment variable", name, v)
		case kind == "env":
			h.parts = append(h.parts, part{text: v, kind: envPart})
		case !tenantsecret.ValidName(v):
			return header{}, fmt.Errorf("header %s: ${tenant:%s} does not name a tenant secret (1 to %d of a-z, 0-9 and _, starting with a letter)", name, v, tenantsecret.MaxNameLen)
		default:
			h.parts = append(h.parts, part{text: v, kind: tenantPart})
		}
		rest = rest[loc[1]:]
	}
	for _, open := range []string{"${env:", "${tenant:"} {
		if strings.Contains(rest, open) {
			return header{}, fmt.Errorf("header %s: unterminated %s reference", name, open)
		}
	}
	if rest != "" {
		h.parts = append(h.parts, part{text: rest})
	}
	for _, p := range h.parts {
		if p.kind == literal && strings.ContainsAny(p.text, "\r\n\x00") {
			return header{}, fmt.Errorf("header %s: value holds a line break or NUL", name)
		}
	}
	return h, nil
}

// Info implements toolbox.Tool.
func (t *Tool) Info() toolbox.Info { return t.info }

// Spec returns the tool's spec with defaults filled in.
func (t *Tool) Spec() Spec { return t.spec }

// EnvNames returns the environment variables the tool's headers read, sorted
// and without duplicates.
func (t *Tool) EnvNames() []string {
	var names []string
	for _, h := range t.headers {
		for _, p := range h.parts {
			if p.kind == envPart {
				names = append(names, p.text)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// TenantSecretNames returns the tenant secrets the tool's headers read
// (the NAME of each ${tenant:NAME}), sorted and without duplicates.
func (t *Tool) TenantSecretNames() []string {
	var names []string
	for _, h := range t.headers {
		for _, p := range h.parts {
			if p.kind == tenantPart {
				names = append(names, p.text)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Call implements toolbox.Tool: it sends one request and shapes the response.
func (t *Tool) Call(ctx context.Context, args json.RawMessage) (toolbox.Output, error) {
	hdr, secrets, err := t.resolveHeaders(ctx)
	if err != nil {
		return toolbox.Output{}, err
	}
	if t.spec.Audience != "" {
		tok, subject, err := t.delegated(ctx)
		if err != nil {
			return toolbox.Output{}, err
		}
		hdr.Set("Authorization", "Bearer "+tok)
		secrets = append(secrets, tok, subject)
	}
	sc := scrub.New(secrets)
	req, err := t.request(ctx, args)
	if err != nil {
		return toolbox.Output{}, t.errorf(sc, "%v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, t.spec.Timeout)
	defer cancel()
	req = req.WithContext(cctx)
	callHeaders(ctx, req.Header)
	maps.Copy(req.Header, hdr)

	resp, err := t.client.Do(req)
	if err != nil {
		return toolbox.Output{}, t.failed(ctx, cctx, sc, err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > t.spec.MaxResponseBytes {
		return toolbox.Output{}, t.errorf(sc, "the response is %d bytes; the limit is %d", resp.ContentLength, t.spec.MaxResponseBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, t.spec.MaxResponseBytes+1))
	if err != nil {
		return toolbox.Output{}, t.failed(ctx, cctx, sc, err)
	}
	if int64(len(body)) > t.spec.MaxResponseBytes {
		return toolbox.Output{}, t.errorf(sc, "the response exceeds %d bytes", t.spec.MaxResponseBytes)
	}
	// The media type reaches the chain (content_type, the file's MIME); a
	// header cannot be partly scrubbed into a valid media type.
	if sc.Contains([]byte(resp.Header.Get("Content-Type"))) {
		return toolbox.Output{}, t.errorf(sc, "the server's Content-Type header reflects a configured secret; the response was withheld")
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ = sc.Bytes(body)
		msg := fmt.Sprintf("the server answered %s", resp.Status)
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			msg += " (redirects are not followed)"
		}
		if snippet := snippetOf(body); snippet != "" {
			msg += ": " + snippet
		}
		return toolbox.Output{}, t.errorf(sc, "%s", msg)
	}
	return t.shape(resp, body, sc)
}

// PublicHeader reports whether the header name (any case) is one that
// never carries a secret: Accept, Accept-Encoding, Accept-Language,
// Cache-Control, Content-Type or User-Agent. The values of every other
// configured header are treated as secrets.
func PublicHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Accept", "Accept-Encoding", "Accept-Language", "Cache-Control", "Content-Type", "User-Agent":
		return true
	}
	return false
}

// authSchemes are the words of a header value that name an authorization
// scheme rather than a credential; they are not scrubbed on their own.
var authSchemes = []string{"apikey", "basic", "bearer", "digest", "key", "token"}

// resolveHeaders builds the header values from the secret sources and
// returns the values to scrub from what the tool hands back: every secret
// read, and for each header that is not a PublicHeader its whole value and
// each word of its literal text (but an authorization scheme such as
// Bearer). A secret that cannot be had is a *toolbox.CredentialUnavailableError.
func (t *Tool) resolveHeaders(ctx context.Context) (http.Header, []string, error) {
	hdr := make(http.Header, len(t.headers))
	var secrets []string
	for _, h := range t.headers {
		public := PublicHeader(h.name)
		var b strings.Builder
		for _, p := range h.parts {
			if p.kind == literal {
				b.WriteString(p.text)
				if !public {
					for _, w := range strings.Fields(p.text) {
						if !slices.Contains(authSchemes, strings.ToLower(w)) {
							secrets = append(secrets, w)
						}
					}
				}
				continue
			}
			v, why, err := t.secret(ctx, p)
			switch {
			case why != "":
			case v == "":
				why = "the secret is empty"
			case strings.ContainsAny(v, "\r\n\x00"):
				why = "the secret holds a line break or NUL, which a header cannot carry"
			}
			if why != "" {
				return nil, nil, fmt.Errorf("http tool %q: header %s: %w", t.spec.Name, h.name,
					&toolbox.CredentialUnavailableError{Ref: p.ref(), Reason: why, Err: err})
			}
			secrets = append(secrets, v)
			b.WriteString(v)
		}
		if !public {
			secrets = append(secrets, strings.TrimSpace(b.String()))
		}
		hdr.Set(h.name, b.String())
	}
	return hdr, secrets, nil
}

// secret resolves one reference: ${env:NAME} from the process's secrets,
// ${tenant:NAME} for the tenant of the call's Caller, never for a tenant
// named anywhere else. When it fails, why says so in words that hold no
// value and no host path.
func (t *Tool) secret(ctx context.Context, p part) (v, why string, err error) {
	if p.kind == envPart {
		v, err = t.secrets.Secret(ctx, p.text)
		if err != nil {
			return "", "it is not set", err
		}
		return v, "", nil
	}
	c, ok := toolbox.CallerFrom(ctx)
	if !ok || c.Tenant() == "" {
		return "", "the call has no tenant", nil
	}
	v, err = t.tenant.TenantSecret(ctx, c.Tenant(), p.text)
	switch {
	case errors.Is(err, tenantsecret.ErrTooLarge):
		return "", "this tenant's secret is larger than the configured bound", err
	case errors.Is(err, tenantsecret.ErrInvalidName):
		return "", "the secret source cannot name this tenant's secret", err
	case err != nil:
		return "", "it is not set for this tenant", err
	}
	return v, "", nil
}

// request builds the request without headers or context deadline.
func (t *Tool) request(ctx context.Context, args json.RawMessage) (*http.Request, error) {
	params := map[string]json.RawMessage{}
	if len(args) > 0 && !bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		if err := json.Unmarshal(args, &params); err != nil {
			return nil, errors.New("arguments must be a JSON object")
		}
	}
	raw := t.spec.URL
	for _, name := range t.placeholders {
		a, ok := params[name]
		if !ok {
			return nil, fmt.Errorf("argument %q is needed for the URL", name)
		}
		v, ok := scalarText(a)
		if !ok {
			return nil, fmt.Errorf("argument %q fills the URL and must be a string, number or boolean", name)
		}
		if v == "" || v == "." || v == ".." {
			return nil, fmt.Errorf("argument %q fills a URL path segment and must not be empty, \".\" or \"..\"", name)
		}
		raw = strings.ReplaceAll(raw, "{"+name+"}", url.PathEscape(v))
		delete(params, name)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("the URL built from the arguments is not valid")
	}

	var body io.Reader
	withBody := t.spec.Method == http.MethodPost || t.spec.Method == http.MethodPut || t.spec.Method == http.MethodPatch
	if withBody {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, errors.New("re-encoding the arguments failed")
		}
		body = bytes.NewReader(b)
	} else if len(params) > 0 {
		q := u.Query()
		for _, k := range slices.Sorted(maps.Keys(params)) {
			addQuery(q, k, params[k])
		}
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, t.spec.Method, u.String(), body)
	if err != nil {
		return nil, errors.New("building the request failed")
	}
	if withBody {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/*;q=0.9, */*;q=0.5")
	req.Header.Set("User-Agent", "airlock-httptool")
	return req, nil
}

// callHeaders sets what the upstream may learn of the call: the trace
// context of the call's span (toolbox.TraceContext) and, for a call that
// has one, its Idempotency-Key, bound to the tenant (IdempotencyKey).
// Headers the tool's configuration sets win.
func callHeaders(ctx context.Context, h http.Header) {
	for k, v := range toolbox.TraceContext(ctx) {
		h.Set(k, v)
	}
	if c, ok := toolbox.CallerFrom(ctx); ok {
		if key := c.IdempotencyKey(); key != "" {
			h.Set("Idempotency-Key", IdempotencyKey(c.Tenant(), key))
		}
	}
}

// addQuery adds one argument as query parameters: scalars as text, arrays of
// scalars repeated, anything else as its JSON; null is left out.
func addQuery(q url.Values, k string, raw json.RawMessage) {
	if v, ok := scalarText(raw); ok {
		q.Add(k, v)
		return
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		all := true
		var vs []string
		for _, e := range arr {
			v, ok := scalarText(e)
			all = all && ok
			vs = append(vs, v)
		}
		if all {
			for _, v := range vs {
				q.Add(k, v)
			}
			return
		}
	}
	if t := bytes.TrimSpace(raw); !bytes.Equal(t, []byte("null")) {
		q.Add(k, string(t))
	}
}

// scalarText returns the text of a JSON string, number or boolean.
func scalarText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	case 't', 'f':
		return string(raw), string(raw) == "true" || string(raw) == "false"
	case '{', '[', 'n':
		return "", false
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return "", false
	}
	return n.String(), true
}

// shape turns a 2xx response into the tool's output. A text or JSON body
// that reflects a secret is scrubbed; a media body that does is withheld,
// since scrubbing would hand the chain a corrupt file (see scrubber).
func (t *Tool) shape(resp *http.Response, body []byte, sc *scrub.Scrubber) (toolbox.Output, error) {
	if resp.StatusCode == http.StatusNoContent || t.spec.Method == http.MethodHead || len(body) == 0 {
		return toolbox.Output{JSON: json.RawMessage("null")}, nil
	}
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		mt = http.DetectContentType(body)
		mt, params, _ = mime.ParseMediaType(mt)
	}
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		if !json.Valid(body) {
			return toolbox.Output{}, t.errorf(sc, "the server sent a %s response that is not valid JSON", mt)
		}
		body, changed := sc.Bytes(body)
		if changed && !json.Valid(body) {
			return toolbox.Output{}, t.errorf(sc, "the server's JSON response reflects a configured secret that cannot be removed without breaking the JSON; the response was withheld")
		}
		return toolbox.Output{JSON: body}, nil
	case strings.HasPrefix(mt, "text/") || mt == "application/xml" || mt == "application/x-www-form-urlencoded":
		if cs := strings.ToLower(params["charset"]); cs != "" && cs != "utf-8" && cs != "us-ascii" {
			return toolbox.Output{}, t.errorf(sc, "the server sent text in charset %q; only UTF-8 is supported", cs)
		}
		body, _ = sc.Bytes(body)
		js, _ := json.Marshal(string(body))
		return toolbox.Output{JSON: js}, nil
	}
	if sc.Contains(body) {
		return toolbox.Output{}, t.errorf(sc, "the server's %s response reflects a configured secret; a file cannot be scrubbed, so it was withheld", mt)
	}
	js, _ := json.Marshal(struct {
		ContentType string `json:"content_type"`
		Size        int    `json:"size"`
	}{mt, len(body)})
	return toolbox.Output{JSON: js, Media: []toolbox.Media{{MIME: mt, Data: body}}}, nil
}

// failed explains a transport error: the chain's cancellation is returned
// as is, the tool's own timeout and other failures as a scrubbed message.
func (t *Tool) failed(ctx, cctx context.Context, sc *scrub.Scrubber, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if cctx.Err() != nil {
		return t.errorf(sc, "no complete response within %s", t.spec.Timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is the operator's, but keep messages short
	}
	return t.errorf(sc, "the request failed: %v", err)
}

// errorf formats an error of the tool, scrubbed of every secret.
func (t *Tool) errorf(sc *scrub.Scrubber, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return errors.New(sc.String(fmt.Sprintf("http tool %q: %s", t.spec.Name, msg)))
}

// snippetOf returns the start of an error body as one printable line.
func snippetOf(body []byte) string {
	const max = 200
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max]) + "…"
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// IdempotencyKey is the Idempotency-Key header an HTTP tool sends for a
// call of tenant running under key (toolbox.Caller.IdempotencyKey): the
// hex SHA-256 of the tenant and the key, each length-prefixed. Every
// tenant reaches the upstream with the tool's one set of credentials, so
// the key is bound to the tenant: two tenants giving the same key are two
// keys upstream (neither can claim the other's, or read its recorded
// response), while one tenant's retries keep theirs. The tenant's name
// does not reach the upstream, and the value is header-safe whatever key
// a Caller holds.
func IdempotencyKey(tenant, key string) string {
	h := sha256.New()
	for _, s := range []string{tenant, key} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}
