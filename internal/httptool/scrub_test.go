package httptool_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/httptool"
)

// canary is the secret of the canary tests: 28 bytes, so its base64 is
// padded and differs between the standard and URL alphabets.
const canary = "sk-live-0123456789abcdef~~~?"

// reflector starts a loopback server that answers every request with the
// reflection of the X-Key header's value computed by form, as JSON
// (/json), text (/text), an error (/error), a PNG file (/media) or inside
// its Content-Type header (/ctype).
func reflector(t *testing.T, form func(string) string) string {
	t.Helper()
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		v := form(r.Header.Get("X-Key"))
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"v":"%s"}`, v) // v is written as is: some forms are JSON escapes
		case "/text":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, v)
		case "/error":
			http.Error(w, v, http.StatusBadRequest)
		case "/media":
			w.Header().Set("Content-Type", "image/png")
			io.WriteString(w, "\x89PNG\r\n\x1a\n"+v)
		case "/ctype":
			w.Header().Set("Content-Type", "application/x-"+v)
			io.WriteString(w, "x")
		}
	})
	return srv.URL
}

// keyTool is a GET tool sending X-Key: ${env:KEY} with KEY=key.
func keyTool(t *testing.T, url, key string) *httptool.Tool {
	t.Helper()
	tool, err := httptool.New(httptool.Spec{Name: "remote", Description: "d", URL: url, Method: "GET",
		Headers: map[string]string{"X-Key": "${env:KEY}"}},
		httptool.Options{Client: client(t), LookupEnv: env(map[string]string{"KEY": key})})
	require.NoError(t, err)
	return tool
}

func everyByte(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}

func mixedCase(s string) string {
	b := []byte(s)
	for i := range b {
		if i%2 == 0 {
			b[i] = strings.ToUpper(string(b[i]))[0]
		}
	}
	return string(b)
}

// TestSecretFormsCanary: an upstream reflects the secret in each form an
// upstream is likely to use. In a JSON or text body and in an error the
// reflection is scrubbed to exactly [REDACTED]; in a media body the response
// is withheld; in the Content-Type header the response is withheld.
func TestSecretFormsCanary(t *testing.T) {
	std := base64.StdEncoding.EncodeToString([]byte(canary))
	url := base64.URLEncoding.EncodeToString([]byte(canary))
	require.NotEqual(t, std, url, "the canary exercises both alphabets")
	require.True(t, strings.HasSuffix(std, "="), "the canary exercises padding")

	forms := []struct {
		name string
		form func(string) string
	}{
		{"literal", func(s string) string { return s }},
		{"upper case", strings.ToUpper},
		{"mixed case", mixedCase},
		{"json unicode escapes", func(s string) string { return everyByte(s, `\u%04x`) }},
		{"json unicode escapes upper", func(s string) string { return everyByte(s, `\u%04X`) }},
		{"url encoded lower", func(s string) string { return everyByte(s, "%%%02x") }},
		{"url encoded upper", func(s string) string { return everyByte(s, "%%%02X") }},
		{"url encoded upper-cased secret", func(s string) string { return everyByte(strings.ToUpper(s), "%%%02X") }},
		{"hex", func(s string) string { return hex.EncodeToString([]byte(s)) }},
		{"hex upper", func(s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) }},
		{"base64 std", func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }},
		{"base64 url", func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }},
		{"base64 raw std", func(s string) string { return base64.RawStdEncoding.EncodeToString([]byte(s)) }},
		{"base64 raw url", func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }},
		{"truncated prefix", func(s string) string { return s[:20] }},
		{"truncated prefix at the fragment length", func(s string) string { return s[:httptool.FragmentBytes] }},
		{"truncated suffix", func(s string) string { return s[len(s)-httptool.FragmentBytes:] }},
		{"truncated upper-case prefix", func(s string) string { return strings.ToUpper(s[:16]) }},
		{"partly json-escaped", func(s string) string { return s[:10] + everyByte(s[10:], `\u%04x`) }},
		{"json surrogate-free escapes mixed with url encoding", func(s string) string { return everyByte(s[:14], "%%%02X") + everyByte(s[14:], `\u%04x`) }},
		{"truncated hex prefix", func(s string) string { return hex.EncodeToString([]byte(s))[:30] }},
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			srv := reflector(t, f.form)

			out, err := keyTool(t, srv+"/json", canary).Call(context.Background(), nil)
			require.NoError(t, err)
			require.Equal(t, `{"v":"[REDACTED]"}`, string(out.JSON))

			out, err = keyTool(t, srv+"/text", canary).Call(context.Background(), nil)
			require.NoError(t, err)
			require.Equal(t, `"[REDACTED]"`, string(out.JSON))

			_, err = keyTool(t, srv+"/error", canary).Call(context.Background(), nil)
			require.EqualError(t, err, `http tool "remote": the server answered 400 Bad Request: [REDACTED]`)

			out, err = keyTool(t, srv+"/media", canary).Call(context.Background(), nil)
			require.EqualError(t, err, `http tool "remote": the server's image/png response reflects a configured secret; a file cannot be scrubbed, so it was withheld`)
			require.Empty(t, out.Media)
		})
	}

	// A base64 text that holds the secret after other bytes (a Basic
	// credential): the characters that encode only the secret are scrubbed,
	// at each of the three alignments.
	for _, prefix := range []string{"user:", "user1:", "user12:"} {
		t.Run("base64 inside a longer text/"+prefix, func(t *testing.T) {
			srv := reflector(t, func(s string) string { return base64.StdEncoding.EncodeToString([]byte(prefix + s)) })
			out, err := keyTool(t, srv+"/json", canary).Call(context.Background(), nil)
			require.NoError(t, err)
			var got struct{ V string }
			require.NoError(t, json.Unmarshal(out.JSON, &got))
			head, tail, ok := strings.Cut(got.V, "[REDACTED]")
			require.True(t, ok, got.V)
			require.LessOrEqual(t, len(head), len(prefix)*4/3+2, "only the prefix's characters stay before")
			require.LessOrEqual(t, len(tail), 4, "only the last partial group stays after")
			require.NotContains(t, got.V, base64.StdEncoding.EncodeToString([]byte(canary[3:9])))
		})
	}

	t.Run("content-type header", func(t *testing.T) {
		for _, form := range []func(string) string{func(s string) string { return s }, func(s string) string { return hex.EncodeToString([]byte(s)) }} {
			srv := reflector(t, form)
			_, err := keyTool(t, srv+"/ctype", canary).Call(context.Background(), nil)
			require.EqualError(t, err, `http tool "remote": the server's Content-Type header reflects a configured secret; the response was withheld`)
		}
	})
}

// TestSecretThresholds pins down what is scrubbed for short secrets and
// short fragments (see MinSecretBytes, MinEncodedSecretBytes,
// FragmentBytes).
func TestSecretThresholds(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	hx := func(s string) string { return hex.EncodeToString([]byte(s)) }
	tests := []struct {
		name, key, reflected, want string
	}{
		{"3-byte value is not a secret", "k3y", "k3y", "k3y"},
		{"4-byte value literal", "k3y9", "k3y9", "[REDACTED]"},
		{"4-byte value other case", "k3y9", "K3Y9", "[REDACTED]"},
		{"4-byte value hex", "k3y9", hx("k3y9"), "[REDACTED]"},
		{"7-byte value base64 is not recognised", "k3y9abc", b64("k3y9abc"), b64("k3y9abc")},
		{"8-byte value base64", "k3y9abcd", b64("k3y9abcd"), "[REDACTED]"},
		{"11-byte prefix of a long value stays", canary, canary[:httptool.FragmentBytes-1], canary[:httptool.FragmentBytes-1]},
		{"12-byte prefix of a long value", canary, canary[:httptool.FragmentBytes], "[REDACTED]"},
		{"value inside words", canary, "token=" + canary + ";", "token=[REDACTED];"},
		{"many reflections", canary, strings.Repeat(canary+" ", 3), strings.Repeat("[REDACTED] ", 3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := reflector(t, func(string) string { return tc.reflected })
			out, err := keyTool(t, srv+"/text", tc.key).Call(context.Background(), nil)
			require.NoError(t, err)
			want, _ := json.Marshal(tc.want)
			require.Equal(t, string(want), string(out.JSON))
		})
	}
}

// TestSecretWithJSONSpecials: a secret holding characters that JSON and
// URLs escape is found in its escaped forms.
func TestSecretWithJSONSpecials(t *testing.T) {
	const odd = `k3y"with/<odd>&chars\z+1`
	for name, form := range map[string]func(string) string{
		"json.Marshal": func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) },
		"QueryEscape":  url.QueryEscape,
		"PathEscape":   url.PathEscape,
	} {
		t.Run(name, func(t *testing.T) {
			srv := reflector(t, form)
			out, err := keyTool(t, srv+"/json", odd).Call(context.Background(), nil)
			require.NoError(t, err)
			require.Equal(t, `{"v":"[REDACTED]"}`, string(out.JSON))
		})
	}
}

// TestScrubLeavesOtherTextAlone: a response that does not reflect the
// secret comes back byte for byte, escapes, hex and base64 included.
func TestScrubLeavesOtherTextAlone(t *testing.T) {
	body := `{"a":"\u00e9t\u00e9 %41%42 \/x","h":"` + hex.EncodeToString([]byte("another value entirely")) +
		`","b":"` + base64.StdEncoding.EncodeToString([]byte("sk-live-9999999999999999 other")) + `","p":"sk-live-"}`
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	})
	out, err := keyTool(t, srv.URL, canary).Call(context.Background(), nil)
	require.NoError(t, err)
	require.Equal(t, body, string(out.JSON))
}

// TestScrubThatBreaksJSONIsRefused: a secret that is also JSON syntax
// cannot be scrubbed out of a JSON body without breaking it: the response
// is withheld.
func TestScrubThatBreaksJSONIsRefused(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	})
	_, err := keyTool(t, srv.URL, "true").Call(context.Background(), nil)
	require.EqualError(t, err, `http tool "remote": the server's JSON response reflects a configured secret that cannot be removed without breaking the JSON; the response was withheld`)
}

func BenchmarkScrub1MiB(b *testing.B) {
	body := []byte(`{"v":"` + strings.Repeat(`lorem ipsum \n dolor %20 sit amet `, 1<<20/34) + `"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer srv.Close()
	tool, err := httptool.New(httptool.Spec{Name: "remote", Description: "d", URL: srv.URL, Method: "GET",
		MaxResponseBytes: 2 << 20, Headers: map[string]string{"X-Key": "${env:KEY}", "Authorization": "Bearer " + canary + "x"}},
		httptool.Options{LookupEnv: env(map[string]string{"KEY": canary})})
	require.NoError(b, err)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := tool.Call(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
}
