package httptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const secret = "sk-live-0123456789abcdef"

// server starts an httptest server on 127.0.0.1.
func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

// client is a per-test client, so idle connections are closed with the test.
func client(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func newTool(t *testing.T, spec httptool.Spec) *httptool.Tool {
	t.Helper()
	if spec.Name == "" {
		spec.Name = "remote"
	}
	if spec.Description == "" {
		spec.Description = "a remote tool"
	}
	tool, err := httptool.New(spec, httptool.Options{Client: client(t), LookupEnv: env(map[string]string{"TOKEN": secret})})
	require.NoError(t, err)
	return tool
}

const citySchema = `{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string"},"days":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},"required":["city"]}`

func TestGETWithPlaceholderAndQuery(t *testing.T) {
	var got *http.Request
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"temp_c":21.5}`)
	})
	tool := newTool(t, httptool.Spec{
		URL: srv.URL + "/v1/weather/{city}?lang=en", Method: "get", InputSchema: json.RawMessage(citySchema),
		Headers: map[string]string{"Authorization": "Bearer ${env:TOKEN}", "X-Static": "yes"},
	})
	out, err := tool.Call(context.Background(), json.RawMessage(`{"city":"São Paulo/SP","units":"metric","days":3,"tags":["a","b"]}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"temp_c":21.5}`, string(out.JSON))
	require.Equal(t, http.MethodGet, got.Method)
	require.Equal(t, "/v1/weather/S%C3%A3o%20Paulo%2FSP", got.URL.EscapedPath())
	require.Equal(t, "São Paulo/SP", strings.TrimPrefix(mustUnescape(t, got.URL.EscapedPath()), "/v1/weather/"))
	q := got.URL.Query()
	require.Equal(t, "en", q.Get("lang"))
	require.Equal(t, "metric", q.Get("units"))
	require.Equal(t, "3", q.Get("days"))
	require.Equal(t, []string{"a", "b"}, q["tags"])
	require.False(t, q.Has("city"), "a placeholder argument is not repeated in the query")
	require.Equal(t, "Bearer "+secret, got.Header.Get("Authorization"))
	require.Equal(t, "yes", got.Header.Get("X-Static"))
	require.Equal(t, []string{"TOKEN"}, tool.EnvNames())
}

func mustUnescape(t *testing.T, p string) string {
	t.Helper()
	s, err := url.PathUnescape(p)
	require.NoError(t, err)
	return s
}

func TestPOSTSendsJSONBody(t *testing.T) {
	var body []byte
	var ct string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		ct = r.Header.Get("Content-Type")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "created")
	})
	tool := newTool(t, httptool.Spec{URL: srv.URL + "/items", InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"number"}}}`)})
	require.Equal(t, "POST", tool.Spec().Method)
	out, err := tool.Call(context.Background(), json.RawMessage(`{"name":"x","n":1.5}`))
	require.NoError(t, err)
	require.JSONEq(t, `"created"`, string(out.JSON), "text becomes a JSON string")
	require.JSONEq(t, `{"name":"x","n":1.5}`, string(body))
	require.Equal(t, "application/json", ct)
}

func TestResponseShapes(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfakeimage")
	tests := []struct {
		name, ctype, body string
		status            int
		wantJSON          string
		wantMedia         string
		wantErr           string
	}{
		{name: "json", ctype: "application/json", body: `[1,2]`, wantJSON: `[1,2]`},
		{name: "problem json", ctype: "application/problem+json", body: `{"a":1}`, wantJSON: `{"a":1}`},
		{name: "no content", status: 204, wantJSON: `null`},
		{name: "empty body", ctype: "application/json", wantJSON: `null`},
		{name: "text", ctype: "text/csv", body: "a,b\n1,2\n", wantJSON: `"a,b\n1,2\n"`},
		{name: "image", ctype: "image/png", body: string(png), wantJSON: `{"content_type":"image/png","size":17}`, wantMedia: "image/png"},
		{name: "invalid json", ctype: "application/json", body: `{nope`, wantErr: "not valid JSON"},
		{name: "latin1 text", ctype: "text/plain; charset=iso-8859-1", body: "caf\xe9", wantErr: "only UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.ctype != "" {
					w.Header().Set("Content-Type", tc.ctype)
				}
				if tc.status != 0 {
					w.WriteHeader(tc.status)
				}
				io.WriteString(w, tc.body)
			})
			tool := newTool(t, httptool.Spec{URL: srv.URL, Method: "GET"})
			out, err := tool.Call(context.Background(), nil)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.JSONEq(t, tc.wantJSON, string(out.JSON))
			if tc.wantMedia != "" {
				require.Len(t, out.Media, 1)
				require.Equal(t, tc.wantMedia, out.Media[0].MIME)
				require.Equal(t, png, out.Media[0].Data)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		spec    httptool.Spec
		args    string
		want    string
	}{
		{
			name: "non-2xx with body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "upstream is down\nretry later", http.StatusServiceUnavailable)
			},
			want: `http tool "remote": the server answered 503 Service Unavailable: upstream is down retry later`,
		},
		{
			name: "redirect not followed",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", http.StatusFound)
			},
			want: "302 Found (redirects are not followed)",
		},
		{
			name: "oversize response",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.(http.Flusher).Flush() // no Content-Length: the cap applies while reading
				io.WriteString(w, strings.Repeat("x", 2000))
			},
			spec: httptool.Spec{MaxResponseBytes: 1000},
			want: "the response exceeds 1000 bytes",
		},
		{
			name: "oversize content-length",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "5000")
				io.WriteString(w, strings.Repeat("x", 5000))
			},
			spec: httptool.Spec{MaxResponseBytes: 1000},
			want: "the response is 5000 bytes; the limit is 1000",
		},
		{
			name: "timeout",
			handler: func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			},
			spec: httptool.Spec{Timeout: 50 * time.Millisecond},
			want: "no complete response within 50ms",
		},
		{
			name:    "missing url argument",
			handler: func(w http.ResponseWriter, r *http.Request) {},
			spec:    httptool.Spec{URL: "/{city}", InputSchema: json.RawMessage(citySchema)},
			args:    `{}`,
			want:    `argument "city" is needed for the URL`,
		},
		{
			name:    "object url argument",
			handler: func(w http.ResponseWriter, r *http.Request) {},
			spec:    httptool.Spec{URL: "/{city}", InputSchema: json.RawMessage(citySchema)},
			args:    `{"city":{"a":1}}`,
			want:    `must be a string, number or boolean`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := server(t, tc.handler)
			spec := tc.spec
			spec.URL = srv.URL + spec.URL
			spec.Method = "GET"
			spec.Headers = map[string]string{"Authorization": "Bearer ${env:TOKEN}"}
			tool := newTool(t, spec)
			start := time.Now()
			_, err := tool.Call(context.Background(), json.RawMessage(tc.args))
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), secret)
			require.Less(t, time.Since(start), 4*time.Second)
		})
	}
}

// TestSecretNeverInErrors makes the server echo the secret in every way it
// can reach an error or a result: it never comes back.
func TestSecretNeverInErrors(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/echo-error":
			http.Error(w, "bad token "+auth, http.StatusUnauthorized)
		case "/echo-ok":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]string{"you_sent": auth})
		case "/echo-invalid":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{"+auth)
		}
	})
	for _, path := range []string{"/echo-error", "/echo-ok", "/echo-invalid"} {
		t.Run(path, func(t *testing.T) {
			tool := newTool(t, httptool.Spec{URL: srv.URL + path, Method: "GET",
				Headers: map[string]string{"Authorization": "Bearer ${env:TOKEN}"}})
			out, err := tool.Call(context.Background(), nil)
			if err != nil {
				require.NotContains(t, err.Error(), secret)
				require.NotContains(t, err.Error(), secret[:10])
				return
			}
			require.NotContains(t, string(out.JSON), secret)
			require.Contains(t, string(out.JSON), "[REDACTED]")
			require.True(t, json.Valid(out.JSON))
		})
	}

	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		l.Close()
		tool := newTool(t, httptool.Spec{URL: "http://" + addr + "/x", Method: "GET",
			Headers: map[string]string{"Authorization": "Bearer ${env:TOKEN}"}})
		_, err = tool.Call(context.Background(), nil)
		require.ErrorContains(t, err, "the request failed")
		require.NotContains(t, err.Error(), secret)
	})

	t.Run("missing env", func(t *testing.T) {
		tool, err := httptool.New(httptool.Spec{Name: "remote", Description: "d", URL: srv.URL,
			Headers: map[string]string{"X-Key": "${env:NOT_SET}"}}, httptool.Options{LookupEnv: env(nil)})
		require.NoError(t, err, "the environment is read at call time, not at New")
		_, err = tool.Call(context.Background(), nil)
		require.EqualError(t, err, `http tool "remote": header X-Key: credential ${env:NOT_SET} is not available: it is not set`)
	})

	t.Run("env with line break", func(t *testing.T) {
		tool, err := httptool.New(httptool.Spec{Name: "remote", Description: "d", URL: srv.URL,
			Headers: map[string]string{"X-Key": "${env:BAD}"}}, httptool.Options{LookupEnv: env(map[string]string{"BAD": secret + "\r\nX-Evil: 1"})})
		require.NoError(t, err)
		_, err = tool.Call(context.Background(), nil)
		require.ErrorContains(t, err, "holds a line break")
		require.NotContains(t, err.Error(), secret)
	})
}

func TestEnvReadAtCallTime(t *testing.T) {
	var seen []string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { seen = append(seen, r.Header.Get("X-Key")) })
	vars := map[string]string{"KEY": "first-value"}
	tool, err := httptool.New(httptool.Spec{Name: "remote", Description: "d", URL: srv.URL,
		Headers: map[string]string{"X-Key": "k=${env:KEY};v=1"}}, httptool.Options{Client: client(t), LookupEnv: env(vars)})
	require.NoError(t, err)
	_, err = tool.Call(context.Background(), nil)
	require.NoError(t, err)
	vars["KEY"] = "second-value"
	_, err = tool.Call(context.Background(), nil)
	require.NoError(t, err)
	require.Equal(t, []string{"k=first-value;v=1", "k=second-value;v=1"}, seen)
}

func TestCancellation(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		// The server notices a gone client only once the body was read.
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	tool := newTool(t, httptool.Spec{URL: srv.URL, Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := tool.Call(ctx, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the chain's own deadline is passed through")
}

func TestNewRejects(t *testing.T) {
	ok := httptool.Spec{Name: "remote", Description: "d", URL: "https://api.example.com/x"}
	tests := []struct {
		name string
		edit func(*httptool.Spec)
		want string
	}{
		{"bad name", func(s *httptool.Spec) { s.Name = "Bad Name" }, "name must match"},
		{"no description", func(s *httptool.Spec) { s.Description = "" }, "description must be 1 to 200"},
		{"bad method", func(s *httptool.Spec) { s.Method = "TRACE" }, `method "TRACE" is not one of`},
		{"negative timeout", func(s *httptool.Spec) { s.Timeout = -time.Second }, "timeout (-1s) must not be negative"},
		{"negative cap", func(s *httptool.Spec) { s.MaxResponseBytes = -1 }, "must not be negative"},
		{"bad risk", func(s *httptool.Spec) { s.Risk = 9 }, "invalid risk"},
		{"no scheme", func(s *httptool.Spec) { s.URL = "api.example.com/x" }, "must start with http"},
		{"ftp", func(s *httptool.Spec) { s.URL = "ftp://api.example.com/x" }, "must start with http"},
		{"no host", func(s *httptool.Spec) { s.URL = "http:///x" }, "no host"},
		{"credentials", func(s *httptool.Spec) { s.URL = "https://user:pw@api.example.com/x" }, "must not hold credentials"},
		{"fragment", func(s *httptool.Spec) { s.URL = "https://api.example.com/x#frag" }, "fragment"},
		{"unparsable", func(s *httptool.Spec) { s.URL = "https://api.example.com/%zz" }, "not a valid URL"},
		{"schema not json schema", func(s *httptool.Spec) { s.InputSchema = json.RawMessage(`{"type":7}`) }, "not a JSON Schema"},
		{"schema not object", func(s *httptool.Spec) { s.InputSchema = json.RawMessage(`{"type":"string"}`) }, `"type": "object"`},
		{"schema unresolvable", func(s *httptool.Spec) {
			s.InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`)
		}, "input schema"},
		{"placeholder without schema", func(s *httptool.Spec) { s.URL = "https://api.example.com/{id}" }, "not a property"},
		{"placeholder not an identifier", func(s *httptool.Spec) {
			s.URL = "https://api.example.com/{a-b}"
			s.InputSchema = json.RawMessage(citySchema)
		}, "not an argument name"},
		{"bad header name", func(s *httptool.Spec) { s.Headers = map[string]string{"Bad Header": "x"} }, "not a valid HTTP header name"},
		{"header line break", func(s *httptool.Spec) { s.Headers = map[string]string{"X": "a\r\nB: c"} }, "line break"},
		{"bad env name", func(s *httptool.Spec) { s.Headers = map[string]string{"X": "${env:1BAD}"} }, "does not name an environment variable"},
		{"unterminated env", func(s *httptool.Spec) { s.Headers = map[string]string{"X": "Bearer ${env:TOKEN"} }, "unterminated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ok
			tc.edit(&s)
			_, err := httptool.New(s, httptool.Options{})
			require.ErrorIs(t, err, httptool.ErrInvalidSpec)
			require.ErrorContains(t, err, tc.want)
		})
	}
	tool, err := httptool.New(ok, httptool.Options{})
	require.NoError(t, err)
	require.Equal(t, httptool.DefaultTimeout, tool.Spec().Timeout)
	require.Equal(t, int64(httptool.DefaultMaxResponseBytes), tool.Spec().MaxResponseBytes)
}

// TestThroughInvoker registers the tool, checks schema validation happens
// before any request, and that the trace holds no secret.
func TestThroughInvoker(t *testing.T) {
	calls := 0
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		calls++
		http.Error(w, "denied for "+r.Header.Get("Authorization"), http.StatusForbidden)
	})
	tool := newTool(t, httptool.Spec{Name: "weather", URL: srv.URL + "/w/{city}", Method: "GET",
		InputSchema: json.RawMessage(citySchema), Risk: toolbox.Safe,
		Headers: map[string]string{"Authorization": "Bearer ${env:TOKEN}"}})
	box, err := toolbox.New(tool)
	require.NoError(t, err)
	require.Contains(t, box.TypeScript(), "weather(args: {")
	inv, err := invoker.New(box, invoker.Options{})
	require.NoError(t, err)
	sess := inv.NewSession(session.Options{})
	defer sess.Close(context.Background())

	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "weather", Args: json.RawMessage(`{"town":"Oslo"}`)})
	require.Equal(t, invoker.ReasonInvalidArguments, res.Reason)
	require.Zero(t, calls, "invalid arguments never reach the server")

	res = inv.Invoke(context.Background(), sess, invoker.Call{Tool: "weather", Args: json.RawMessage(`{"city":"Oslo"}`)})
	require.Equal(t, invoker.ReasonToolError, res.Reason)
	require.Equal(t, 1, calls)
	require.NotContains(t, res.Message, secret)
	require.Contains(t, res.Message, "[REDACTED]")
	trace, _ := json.Marshal(sess.Trace())
	require.NotContains(t, string(trace), secret)
}

func TestNilArgsAndEmptyObject(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query":%q}`, r.URL.RawQuery)
	})
	tool := newTool(t, httptool.Spec{URL: srv.URL, Method: "DELETE"})
	for _, args := range []string{"", "{}", "null"} {
		out, err := tool.Call(context.Background(), json.RawMessage(args))
		require.NoError(t, err, args)
		require.JSONEq(t, `{"query":""}`, string(out.JSON))
	}
	_, err := tool.Call(context.Background(), json.RawMessage(`[1]`))
	require.ErrorContains(t, err, "arguments must be a JSON object")
	require.False(t, errors.Is(err, context.Canceled))
}

// TestLiteralHeaderSecretsScrubbed: a secret written literally in the
// configuration is scrubbed like one read from the environment; public
// headers are not.
func TestLiteralHeaderSecretsScrubbed(t *testing.T) {
	const literal = "sk-literal-fedcba9876543210"
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		echo := map[string]string{"auth": r.Header.Get("Authorization"), "key": r.Header.Get("X-Api-Key"),
			"agent": r.Header.Get("User-Agent"), "token_only": strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")}
		if r.URL.Path == "/error" {
			http.Error(w, fmt.Sprint(echo), http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(echo)
	})
	headers := map[string]string{"Authorization": "Bearer " + literal, "X-Api-Key": "${env:TOKEN}", "User-Agent": "airlock-test-agent"}
	tool := newTool(t, httptool.Spec{URL: srv.URL + "/ok", Method: "GET", Headers: headers})
	out, err := tool.Call(context.Background(), nil)
	require.NoError(t, err)
	require.JSONEq(t, `{"auth":"[REDACTED]","key":"[REDACTED]","agent":"airlock-test-agent","token_only":"[REDACTED]"}`, string(out.JSON))

	tool = newTool(t, httptool.Spec{URL: srv.URL + "/error", Method: "GET", Headers: headers})
	_, err = tool.Call(context.Background(), nil)
	require.EqualError(t, err, `http tool "remote": the server answered 401 Unauthorized: map[agent:airlock-test-agent auth:[REDACTED] key:[REDACTED] token_only:[REDACTED]]`)

	require.True(t, httptool.PublicHeader("content-type"))
	require.False(t, httptool.PublicHeader("Authorization"))
}

// TestPlaceholderCannotClimb: a placeholder value of "", "." or ".." fails
// the call instead of changing the URL's path.
func TestPlaceholderCannotClimb(t *testing.T) {
	var paths []string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		w.WriteHeader(http.StatusNoContent)
	})
	tool := newTool(t, httptool.Spec{URL: srv.URL + "/v1/users/{city}/profile", Method: "GET", InputSchema: json.RawMessage(citySchema)})
	for _, v := range []string{`""`, `"."`, `".."`} {
		t.Run(v, func(t *testing.T) {
			_, err := tool.Call(context.Background(), json.RawMessage(`{"city":`+v+`}`))
			require.EqualError(t, err, `http tool "remote": argument "city" fills a URL path segment and must not be empty, "." or ".."`)
		})
	}
	_, err := tool.Call(context.Background(), json.RawMessage(`{"city":"..%2F.."}`))
	require.NoError(t, err)
	_, err = tool.Call(context.Background(), json.RawMessage(`{"city":"a/../.."}`))
	require.NoError(t, err)
	require.Equal(t, []string{"/v1/users/..%252F../profile", "/v1/users/a%2F..%2F../profile"}, paths, "other values are escaped, never climb")
}

// TestRecursiveSchemaRefusedByToolbox: an operator's schema follows the
// rule of every tool's: a $ref cycle, which would make the first call's
// validation recurse without end, is refused when the tool is added.
func TestRecursiveSchemaRefusedByToolbox(t *testing.T) {
	tool, err := httptool.New(httptool.Spec{Name: "remote", Description: "d", URL: "https://api.example.com/x",
		InputSchema: json.RawMessage(`{"type":"object","$ref":"#"}`)}, httptool.Options{})
	require.NoError(t, err)
	_, err = toolbox.New(tool)
	require.ErrorIs(t, err, toolbox.ErrInvalidSchema)
	require.EqualError(t, err, `toolbox: invalid schema: input schema of tool "remote": $ref cycle: "#" at the root leads back to the root; recursive schemas are not accepted`)
}
