package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLiftKeepsTheBodysSize (THREATS.md, T1): lifting the task param or
// capability re-encodes the message, and must not grow it beyond the few
// bytes the moved keys take. encoding/json escapes <, > and & (six bytes
// each) by default: a script full of `=>` and `&&` would grow up to six
// times, past the SDK's own body limit (a 413 for a body that fits), and
// multiply the memory a tenant's request costs.
func TestLiftKeepsTheBodysSize(t *testing.T) {
	script := strings.Repeat("x => x && a < b; ", 4096) + "\u2028"
	for _, tc := range []struct{ name, body string }{
		{"tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_chain","arguments":{"script":` + quote(script) + `},"task":{"ttl":1000}}}`},
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":` + quote(script) + `,"version":"1"},"capabilities":{"tasks":{}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := liftBody([]byte(tc.body))
			require.NotEqual(t, tc.body, string(out), "lifted")
			require.LessOrEqual(t, len(out), len(tc.body)+64, "the lifted body is no larger than the moved keys make it")
			var after map[string]any
			require.NoError(t, json.Unmarshal(out, &after))
			require.True(t, findString(after, script) == script, "the script arrives unchanged")
		})
	}
}

// quote is s as a JSON string as a client may send it: s has no quote,
// backslash or control character, and <, > and & stay as they are.
func quote(s string) string { return `"` + s + `"` }

// findString returns want if it is a string somewhere in v.
func findString(v any, want string) string {
	switch v := v.(type) {
	case string:
		if v == want {
			return v
		}
	case map[string]any:
		for _, e := range v {
			if s := findString(e, want); s != "" {
				return s
			}
		}
	}
	return ""
}
