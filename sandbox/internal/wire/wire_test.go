package wire

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestDecodeCall(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		tool    string
		args    string
		wantErr bool
	}{
		{name: "object args", payload: "search\n{\"q\":\"x\"}", tool: "search", args: `{"q":"x"}`},
		{name: "dotted name", payload: "github.issues\n[]", tool: "github.issues", args: `[]`},
		{name: "args with newline", payload: "a\n{\"s\":\n1}", tool: "a", args: "{\"s\":\n1}"},
		{name: "no separator", payload: "search", wantErr: true},
		{name: "empty name", payload: "\n{}", wantErr: true},
		{name: "control char", payload: "a\tb\n{}", wantErr: true},
		{name: "bad utf8", payload: "\xff\n{}", wantErr: true},
		{name: "bad json", payload: "a\n{", wantErr: true},
		{name: "two values", payload: "a\n{} {}", wantErr: true},
		{name: "long name", payload: string(bytes.Repeat([]byte("n"), MaxToolNameBytes+1)) + "\n{}", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, args, err := DecodeCall([]byte(tt.payload))
			if tt.wantErr {
				require.ErrorIs(t, err, ErrBadRequest)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.tool, tool)
			require.Equal(t, tt.args, string(args))
		})
	}
}

func TestCheckEnvelope(t *testing.T) {
	require.NoError(t, CheckEnvelope([]byte(`{"status":"ok","value":{}}`)))
	require.NoError(t, CheckEnvelope([]byte(`{"status":"denied","reason":"x","message":"y"}`)))
	for _, bad := range []string{``, `null`, `[]`, `{"status":1}`, `{"value":1}`, `{"status":"ok"`} {
		require.ErrorIs(t, CheckEnvelope([]byte(bad)), ErrBadEnvelope, bad)
	}
}

func TestOkValue(t *testing.T) {
	for env, want := range map[string]string{
		`{"status":"ok","value":{}}`:          `{}`,
		`{"status":"ok","value":[1,{"a":2}]}`: `[1,{"a":2}]`,
		`{"status":"ok","value":"}"}`:         `"}"`,
		`{"status":"ok","value":null}`:        `null`,
	} {
		v, ok := OkValue([]byte(env))
		require.True(t, ok, env)
		require.Equal(t, want, string(v))
		require.NoError(t, CheckEnvelope([]byte(env)))
	}
	for _, env := range []string{
		`{"status":"ok","value":1,"status":"error"}`, // a second member
		`{"status":"ok","value":1,"plain":false}`,
		`{"status":"ok","value":}`,
		`{"status":"ok", "value":1}`,
		`{"status":"ok","value":1} `,
		`{"status":"ok","value":{}`,
		`{"status":"error","value":1}`,
		`{"status":"ok"}`,
	} {
		_, ok := OkValue([]byte(env))
		require.False(t, ok, env)
	}
}

// FuzzDecodeCall feeds arbitrary payloads (names, argument envelopes,
// malformed and oversized JSON) to the request decoder: it must never panic,
// and whatever it accepts must satisfy its contract.
func FuzzDecodeCall(f *testing.F) {
	for _, s := range []string{
		"search\n{\"q\":\"x\"}",
		"fetch\n{\"$artifact\":\"art_123\",\"preview\":\"…\",\"size\":10,\"mime\":\"text/plain\"}",
		"a\n" + string(bytes.Repeat([]byte("["), 10000)),
		"\n{}",
		"x\nnull",
		"名前\n\"\\u0000\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		tool, args, err := DecodeCall(payload)
		if err != nil {
			return
		}
		require.NoError(t, CheckToolName([]byte(tool)))
		require.True(t, json.Valid(args))
		env := []byte(`{"status":"ok","value":` + string(args) + `}`)
		require.NoError(t, CheckEnvelope(env))
	})
}

// FuzzCheckCall feeds arbitrary tool names and arguments, apart, to the
// check the CALL operation makes (the host reads them as two strings): it
// must never panic, must agree with DecodeCall on the payload the two
// would join into, and whatever it accepts must satisfy DecodeCall's
// contract.
func FuzzCheckCall(f *testing.F) {
	for _, s := range [][2]string{
		{"search", "{\"q\":\"x\"}"},
		{"a", string(bytes.Repeat([]byte("["), 10000))},
		{"", "{}"},
		{"x", "null"},
		{"x", ""},
		{"x", "{} {}"},
		{"名前", "\"\\u0000\""},
		{"a\x00b", "{}"},
		{"\xed\xa0\x80", "{}"},
		{string(bytes.Repeat([]byte("n"), MaxToolNameBytes+1)), "{}"},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, name, args []byte) {
		err := CheckCall(name, args)
		if !bytes.Contains(name, []byte("\n")) {
			tool, decoded, derr := DecodeCall(append(append(append([]byte(nil), name...), '\n'), args...))
			require.Equal(t, derr == nil, err == nil, "CheckCall: %v, DecodeCall: %v", err, derr)
			if derr == nil {
				require.Equal(t, string(name), tool)
				require.Equal(t, args, decoded)
			}
		}
		if err != nil {
			require.ErrorIs(t, err, ErrBadRequest)
			return
		}
		require.NoError(t, CheckToolName(name))
		require.True(t, json.Valid(args))
		env := []byte(`{"status":"ok","value":` + string(args) + `}`)
		require.NoError(t, CheckEnvelope(env))
	})
}

// TestEngineText: valid UTF-8 is kept as it is (the same slice); what the
// engine's decoder reads as U+FFFD or a lone surrogate is written so that
// its JSON parser reads the same, and the result is valid JSON.
func TestEngineText(t *testing.T) {
	valid := []byte(`{"a":"é😀"}`)
	require.Same(t, &valid[0], &EngineText(valid)[0])
	for in, want := range map[string]string{
		"\"a\xffb\"":                   "\"a\uFFFDb\"",
		"[\"\xe2\x82\"]":               "[\"\uFFFD\uFFFD\"]",
		"\"\xed\xa0\x80|\xc0\x80\"":    `"\ud800|` + "\uFFFD\uFFFD\"",
		"\"\xf4\x90\x80\x80\"":         "\"\uFFFD\uFFFD\uFFFD\uFFFD\"",
		"\"\xed\xa0\xbd\xed\xb8\x80\"": `"\ud83d\ude00"`,
		"\"x\xed\xa0\"":                "\"x\uFFFD\uFFFD\"",
	} {
		got := EngineText([]byte(in))
		require.Equal(t, want, string(got), "%q", in)
		require.True(t, json.Valid(got) && utf8.Valid(got), "%q", got)
	}
}
