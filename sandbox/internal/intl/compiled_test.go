package intl

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
)

// keysOf asks for the keys of ss under the collator options o and returns
// them as the guest sees them (UTF-16 strings, compared by code unit).
func keysOf(t *testing.T, h *Handler, locale, o string, ss []string) [][]uint16 {
	t.Helper()
	out := string(h.Handle([]byte("K" + `{"l":[` + locale + `],"o":` + o + "}\n" + strings.Join(ss, "\x00"))))
	require.True(t, strings.HasPrefix(out, "="), out)
	parts := strings.Split(out[1:], "\x01")
	require.Len(t, parts, len(ss))
	keys := make([][]uint16, len(parts))
	for i, p := range parts {
		keys[i] = utf16.Encode([]rune(p))
	}
	return keys
}

func cmpUnits(a, b []uint16) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// TestKeysOrderAsCompare: for every collator option, two strings' keys
// compare (by UTF-16 code unit, as the guest compares them) as the "col"
// request compares the strings.
func TestKeysOrderAsCompare(t *testing.T) {
	h := New()
	alphabet := []rune("aAbBcCeEéÉèêzZöÖßsS0123456789 -_.'ÅåæÆçÇñÑıİiIǅǆǄⅫｆ😀\u0301\u00a0")
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "A", "ä", "ab", "a b", "a-b", "file10", "file2", "straße", "strasse", "résumé", "resume"}
	for len(words) < 300 {
		var b strings.Builder
		for n := r.IntN(8); n >= 0; n-- {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		words = append(words, b.String())
	}
	opts := []string{`{}`, `{"sensitivity":"base"}`, `{"sensitivity":"accent"}`, `{"sensitivity":"case"}`,
		`{"sensitivity":"variant"}`, `{"numeric":true}`, `{"caseFirst":"upper"}`, `{"caseFirst":"lower"}`,
		`{"ignorePunctuation":true}`, `{"sensitivity":"case","caseFirst":"upper","numeric":true}`}
	for _, locale := range []string{``, `"de"`, `"de-u-co-phonebk"`, `"sv"`, `"tr"`, `"ja"`} {
		for _, o := range opts {
			t.Run(locale+o, func(t *testing.T) {
				keys := keysOf(t, h, locale, o, words)
				for i := range 400 {
					a, b := r.IntN(len(words)), r.IntN(len(words))
					if i < len(words) {
						a, b = i, (i*7+3)%len(words)
					}
					req, _ := json.Marshal(map[string]any{"op": "col", "l": strings.Fields(strings.Trim(locale, `"`)), "o": json.RawMessage(o), "v": words[a], "w": words[b]})
					var ans struct{ C int }
					require.NoError(t, json.Unmarshal(h.Handle(req), &ans))
					require.Equal(t, ans.C, cmpUnits(keys[a], keys[b]), "%q vs %q", words[a], words[b])
				}
			})
		}
	}
}

// TestCompiledMatchesJSON: compiled N and D requests print what the JSON
// ones print, and a Format has a plain pattern only for plain decimal
// options.
func TestCompiledMatchesJSON(t *testing.T) {
	h := New()
	for _, tt := range []struct{ op, cfg, v string }{
		{"nf", `{"l":["de-DE"],"o":{"maximumFractionDigits":2}}`, "1234.5678"},
		{"nf", `{"l":["en-IN"],"o":{}}`, "-123456789.5"},
		{"nf", `{"l":[],"o":{"style":"currency","currency":"EUR"}}`, "12"},
		{"nf", `{"l":["ar-EG"],"o":{}}`, "12.5"},
		{"dtf", `{"l":["en-US"],"o":{"dateStyle":"medium","timeStyle":"short"}}`, "1700000000000"},
		{"dtf", `{"l":["de-DE"],"o":{"timeZone":"Europe/Berlin","required":"any","defaults":"all"}}`, "-1.5e3"},
	} {
		var cfg struct {
			L []string        `json:"l"`
			O json.RawMessage `json:"o"`
		}
		require.NoError(t, json.Unmarshal([]byte(tt.cfg), &cfg))
		v := `"` + tt.v + `"`
		if tt.op == "dtf" {
			v = tt.v
		}
		req, _ := json.Marshal(map[string]any{"op": tt.op, "l": cfg.L, "o": cfg.O, "v": json.RawMessage(v)})
		var ans struct{ S string }
		require.NoError(t, json.Unmarshal(h.Handle(req), &ans))
		op := map[string]string{"nf": "N", "dtf": "D"}[tt.op]
		require.Equal(t, "="+ans.S, string(h.Handle([]byte(op+tt.cfg+"\n"+tt.v))), tt.cfg)
	}
	for cfg, want := range map[string]string{
		`{"l":["en-US"],"o":{}}`:                             `={"d":".","g":",","m":"-","p":3,"s":3,"mg":1,"mn":0,"mx":3}`,
		`{"l":["en-IN"],"o":{"useGrouping":false}}`:          `={"d":".","g":",","m":"-","p":3,"s":2,"mg":-1,"mn":0,"mx":3}`,
		`{"l":["es-ES"],"o":{"minimumFractionDigits":2}}`:    `={"d":",","g":".","m":"-","p":3,"s":3,"mg":2,"mn":2,"mx":3}`,
		`{"l":[],"o":{"style":"percent"}}`:                   `=null`,
		`{"l":[],"o":{"maximumSignificantDigits":2}}`:        `=null`,
		`{"l":[],"o":{"minimumIntegerDigits":2}}`:            `=null`,
		`{"l":["ar-EG"],"o":{}}`:                             `=null`,
		`{"l":[],"o":{"signDisplay":"always"}}`:              `=null`,
		`{"l":[],"o":{"notation":"compact"}}`:                `=null`,
		`{"l":[],"o":{"style":"currency","currency":"USD"}}`: `=null`,
		`{"l":[],"o":{"style":"unit","unit":"meter"}}`:       `=null`,
		`{"l":[],"o":{"roundingPriority":"morePrecision"}}`:  `=null`,
	} {
		f, err := h.CompileFormat("N" + cfg)
		require.NoError(t, err)
		plain, err := json.Marshal(f.plain)
		require.NoError(t, err)
		require.Equal(t, want, "="+string(plain), cfg)
	}
}

// TestCompiledHostile: malformed and oversized compiled requests are
// errors the guest throws, never a panic or unbounded work; a key answer
// stops at MaxKeyAnswerBytes; the caches stay bounded.
func TestCompiledHostile(t *testing.T) {
	h := New()
	for _, tt := range []struct{ name, req, want string }{
		{"no newline", `N{"l":[]}`, `{"e":"TypeError","m":"malformed Intl request"}`},
		{"bad json", "N{\n1", `{"e":"TypeError","m":"malformed Intl request"}`},
		{"options not an object", "N{\"l\":[],\"o\":5}\n1", `{"e":"TypeError","m":"malformed Intl options"}`},
		{"bad locale", "N{\"l\":[\"en-\"]}\n1", `{"e":"RangeError","m":"Invalid language tag: en-"}`},
		{"too many locales", "K{\"l\":[" + strings.Repeat(`"en",`, 64) + "\"en\"]}\na", `{"e":"RangeError","m":"more than 64 locales"}`},
		{"long locale", "D{\"l\":[\"" + strings.Repeat("a", 2000) + "\"]}\n1", `{"e":"RangeError","m":"Incorrect locale information provided"}`},
		{"long config", "N{\"l\":[],\"o\":{\"style\":\"" + strings.Repeat("x", 5000) + "\"}}\n1", `{"e":"RangeError","m":"Value of 5000 bytes out of range for options property style"}`},
		{"bad option", "N{\"l\":[],\"o\":{\"style\":\"x\"}}\n1", `{"e":"RangeError","m":"Value x out of range for Intl.NumberFormat options property style"}`},
		{"bad date", "D{\"l\":[]}\nabc", `{"e":"TypeError","m":"malformed Intl value"}`},
		{"date out of range", "D{\"l\":[]}\n1e300", `{"e":"RangeError","m":"Invalid time value"}`},
		{"date NaN", "D{\"l\":[]}\nNaN", `{"e":"RangeError","m":"Invalid time value"}`},
		{"long number", "N{\"l\":[]}\n" + strings.Repeat("9", 5000), `{"e":"RangeError","m":"Intl value of 5000 characters exceeds 4096"}`},
		{"long key string", "K{\"l\":[]}\n" + strings.Repeat("a", MaxKeyString+1), `{"e":"RangeError","m":"Intl string of 4097 bytes exceeds 4096"}`},
		{"too many strings", "K{\"l\":[]}\n" + strings.Repeat("\x00", maxKeyStrings), `{"e":"RangeError","m":"more than 8192 strings in an Intl request"}`},
		{"too large", "K{\"l\":[]}\n" + strings.Repeat("a\x00", MaxRequestBytes/2), `{"e":"RangeError","m":"Intl request of 65546 bytes exceeds 65536"}`},
		{"sort", "S{\"l\":[]}\nb\x00a\x00B\x00c\x00a", "=a\x00a\x00b\x00B\x00c"},
		{"sort case level", "S{\"l\":[],\"o\":{\"sensitivity\":\"case\"}}\nB\x00\u00e1\x00b\x00a", "=\u00e1\x00a\x00b\x00B"},
		{"sort too many", "S{\"l\":[]}\n" + strings.Repeat("\x00", maxSortStrings), "=null"},
		{"sort long string", "S{\"l\":[]}\na\x00" + strings.Repeat("a", MaxKeyString+1), "=null"},
		{"sort too large", "S{\"l\":[]}\n" + strings.Repeat("a\x00", MaxSortRequestBytes/2), `{"e":"RangeError","m":"Intl request of 1048586 bytes exceeds 1048576"}`},
		{"lone surrogate", "K{\"l\":[]}\n\xed\xa0\x80\x00\xef\xbf\xbd", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := string(h.Handle([]byte(tt.req)))
			if tt.name == "lone surrogate" {
				// The engine's encoding of a lone surrogate keys as U+FFFD,
				// as the JSON requests decode it.
				k := strings.Split(out[1:], "\x01")
				require.Len(t, k, 2)
				require.Equal(t, k[0], k[1])
				return
			}
			require.Equal(t, tt.want, out)
		})
	}

	t.Run("answer bounded", func(t *testing.T) {
		// Strings whose keys outgrow MaxKeyAnswerBytes: the answer holds
		// the keys that fit, and asking again from there gets the rest.
		s := strings.Repeat("\u0fb2\u0f71\u0f80", 300) // long expansions
		ss := make([]string, 20)
		for i := range ss {
			ss[i] = fmt.Sprint(i) + s
		}
		got := 0
		for got < len(ss) {
			out := string(h.Handle([]byte("K{\"l\":[]}\n" + strings.Join(ss[got:], "\x00"))))
			require.True(t, strings.HasPrefix(out, "="), out[:min(len(out), 200)])
			require.LessOrEqual(t, len(out), MaxKeyAnswerBytes+MaxKeyString*64)
			n := len(strings.Split(out[1:], "\x01"))
			require.Positive(t, n)
			got += n
		}
		require.Equal(t, len(ss), got)
	})

	t.Run("sort keys bounded", func(t *testing.T) {
		// U+FDFA expands to 18 characters' weights: a request of 1 MiB
		// would make keys of tens of MiB; the host answers null instead.
		s := strings.Repeat("\ufdfa", MaxKeyString/3)
		ss := make([]string, MaxSortRequestBytes/(len(s)+1)-1)
		for i := range ss {
			ss[i] = s
		}
		require.Equal(t, "=null", string(h.Handle([]byte("S{\"l\":[]}\n"+strings.Join(ss, "\x00")))))
	})

	t.Run("compiled cache bounded", func(t *testing.T) {
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range maxCompiled {
					out := h.Handle([]byte(fmt.Sprintf("N{\"l\":[],\"o\":{\"maximumFractionDigits\":%d},\"x\":%d}\n1.5", i%21, g*maxCompiled+i)))
					require.True(t, strings.HasPrefix(string(out), "="), string(out))
				}
			}()
		}
		wg.Wait()
		require.LessOrEqual(t, len(h.compiled), maxCompiled)
		// Long options are resolved, not kept.
		n := len(h.compiled)
		long := "N{\"l\":[],\"o\":{\"currency\":\"EUR\",\"x\":\"" + strings.Repeat("y", maxCompiledConfig) + "\"}}\n1"
		require.Equal(t, "=1", string(h.Handle([]byte(long))))
		require.Equal(t, n, len(h.compiled))
	})
}

// FuzzCompiled: no compiled request panics, and every answer is "=" text
// or a JSON error.
func FuzzCompiled(f *testing.F) {
	for _, s := range []string{"N{\"l\":[]}\n1.5", "D{\"l\":[\"de\"],\"o\":{}}\n0", "K{\"l\":[]}\na\x00b", "F{\"l\":[]}\n", "K{\"l\":[],\"o\":{\"sensitivity\":\"case\"}}\n\xed\xa0\x80"} {
		f.Add([]byte(s))
	}
	h := New()
	f.Fuzz(func(t *testing.T, req []byte) {
		out := h.Handle(req)
		if len(out) > 0 && out[0] == '=' {
			return
		}
		var e struct{ E, M string }
		require.NoError(t, json.Unmarshal(out, &e), "%q", out)
	})
}
