package intl

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHandle(t *testing.T) {
	h := New()
	tests := []struct{ name, req, want string }{
		{"decimal", `{"op":"nf","l":["de-DE"],"v":"1234.5"}`, `"s":"1.234,5"`},
		{"lakh", `{"op":"nf","l":["hi-IN"],"v":"1234567"}`, `"s":"12,34,567"`},
		{"arabic digits", `{"op":"nf","l":["ar-EG"],"v":"12"}`, `"s":"١٢"`},
		{"default locale", `{"op":"nf","l":[],"v":"1234.5"}`, `"locale":"en-US"`},
		{"unknown locale", `{"op":"nf","l":["xx"],"v":"1"}`, `"locale":"en-US"`},
		{"parts", `{"op":"nf","l":["en"],"v":"-1.5","p":true}`, `"p":[["minusSign","-"],["integer","1"],["decimal","."],["fraction","5"]]`},
		{"canonical", `{"op":"canon","l":["EN-us","en-US"]}`, `["en-US"]`},
		{"malformed", `{"op":`, `{"e":"TypeError","m":"malformed Intl request"}`},
		{"unknown op", `{"op":"x"}`, `{"e":"TypeError","m":"unknown Intl operation \"x\""}`},
		{"bad tag", `{"op":"nf","l":["en-"]}`, `{"e":"RangeError","m":"Invalid language tag: en-"}`},
		{"too many locales", `{"op":"canon","l":[` + strings.Repeat(`"en",`, 64) + `"en"]}`, `{"e":"RangeError","m":"more than 64 locales"}`},
		{"fraction digits", `{"op":"nf","o":{"maximumFractionDigits":21}}`, `{"e":"RangeError","m":"maximumFractionDigits value is out of range."}`},
		{"min over max", `{"op":"nf","o":{"minimumFractionDigits":3,"maximumFractionDigits":1}}`, `{"e":"RangeError","m":"maximumFractionDigits value is out of range."}`},
		{"significant digits", `{"op":"nf","o":{"maximumSignificantDigits":22}}`, `{"e":"RangeError","m":"maximumSignificantDigits value is out of range."}`},
		{"currency code", `{"op":"nf","o":{"style":"currency","currency":"x1z"}}`, `{"e":"RangeError","m":"Invalid currency code : x1z"}`},
		{"currency required", `{"op":"nf","o":{"style":"currency"}}`, `{"e":"TypeError","m":"Currency code is required with currency style."}`},
		{"long option", `{"op":"nf","o":{"style":"` + strings.Repeat("x", 2000) + `"}}`, `{"e":"RangeError","m":"Value of 2000 bytes out of range for options property style"}`},
		{"long value", `{"op":"nf","v":"` + strings.Repeat("1", 5000) + `"}`, `{"e":"RangeError","m":"Intl value of 5000 characters exceeds 4096"}`},
		{"huge exponent", `{"op":"nf","v":"1e1001"}`, `"s":"NaN"`},
		{"rounding carries", `{"op":"nf","o":{"maximumFractionDigits":2},"v":"9.999"}`, `"s":"10"`},
		{"compact read back", `{"op":"nf","o":{"notation":"compact","roundingPriority":"morePrecision","minimumSignificantDigits":1,"maximumSignificantDigits":2,"minimumFractionDigits":0,"maximumFractionDigits":0},"v":"1234"}`, `"s":"1.2K"`},
		{"compact read back bounds", `{"op":"nf","o":{"notation":"compact","roundingPriority":"morePrecision","minimumFractionDigits":30},"v":"1"}`, `{"e":"RangeError","m":"minimumFractionDigits value is out of range."}`},
		{"half expand", `{"op":"nf","o":{"maximumFractionDigits":0},"v":"-2.5"}`, `"s":"-3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, string(h.Handle([]byte(tt.req))), tt.want)
		})
	}
	big := `{"op":"canon","l":["` + strings.Repeat("a", MaxRequestBytes) + `"]}`
	require.Equal(t, `{"e":"RangeError","m":"Intl request of 65559 bytes exceeds 65536"}`, string(h.Handle([]byte(big))))
}

// TestCacheBounded: distinct currencies add cache entries, never more than
// maxCache.
func TestCacheBounded(t *testing.T) {
	h := New()
	for i := 0; i < maxCache+50; i++ {
		code := fmt.Sprintf("%c%c%c", 'A'+i%26, 'A'+i/26%26, 'Q')
		out := h.Handle([]byte(`{"op":"nf","o":{"style":"currency","currency":"` + code + `"},"v":"1"}`))
		require.NotContains(t, string(out), `"e"`)
		require.LessOrEqual(t, len(h.cache), maxCache)
	}
}

// TestConcurrent: one Handler serves many goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	h := New()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				var a struct{ S string }
				require.NoError(t, json.Unmarshal(h.Handle([]byte(`{"op":"nf","l":["fr-FR"],"v":"1234.5"}`)), &a))
				require.Equal(t, "1\u202f234,5", a.S)
			}
		}()
	}
	wg.Wait()
}

func FuzzHandle(f *testing.F) {
	f.Add([]byte(`{"op":"nf","l":["de-DE"],"o":{"style":"currency","currency":"EUR"},"v":"-1.5e3","p":true}`))
	f.Add([]byte(`{"op":"canon","l":["EN-us"]}`))
	h := New()
	f.Fuzz(func(t *testing.T, b []byte) {
		out := h.Handle(b)
		require.True(t, json.Valid(out))
	})
}
