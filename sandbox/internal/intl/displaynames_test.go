package intl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDisplayNames pins Intl.DisplayNames as Node 20 answers (corpus 191
// compares some 2,000 names with Node).
func TestDisplayNames(t *testing.T) {
	h := New()
	tests := []struct{ name, req, want string }{
		{"dialect", `{"op":"dn","l":["en"],"o":{"type":"language"},"v":"en-US"}`, `"s":"American English"`},
		{"standard", `{"op":"dn","l":["en"],"o":{"type":"language","languageDisplay":"standard"},"v":"en-US"}`, `"s":"English (United States)"`},
		{"short", `{"op":"dn","l":["en"],"o":{"type":"language","style":"short"},"v":"en-GB"}`, `"s":"UK English"`},
		{"script and region", `{"op":"dn","l":["en"],"o":{"type":"language"},"v":"zh-Hant-HK"}`, `"s":"Chinese (Traditional, Hong Kong SAR China)"`},
		{"brackets", `{"op":"dn","l":["ar"],"o":{"type":"language"},"v":"zh-Hant-HK"}`, `[منطقة إدارية خاصة]`},
		{"zh-Hant not zh", `{"op":"dn","l":["zh-Hant"],"o":{"type":"language"},"v":"en-US"}`, `"s":"英文（美國）"`},
		{"unknown language", `{"op":"dn","l":["en"],"o":{"type":"language"},"v":"xx-YY"}`, `"s":"xx (YY)"`},
		{"none", `{"op":"dn","l":["en"],"o":{"type":"language","fallback":"none"},"v":"xx"}`, `{"r":{"locale":"en","style":"long","type":"language","fallback":"none","languageDisplay":"dialect"}}`},
		{"root", `{"op":"dn","l":["de"],"o":{"type":"language"},"v":""}`, `"s":"root"`},
		{"region", `{"op":"dn","l":["de"],"o":{"type":"region"},"v":"US"}`, `"s":"Vereinigte Staaten"`},
		{"region case", `{"op":"dn","l":["en"],"o":{"type":"region"},"v":"gb"}`, `"s":"gb"`},
		{"region bad", `{"op":"dn","l":["en"],"o":{"type":"region"},"v":"1"}`, `{"e":"RangeError","m":"invalid_argument"}`},
		{"script", `{"op":"dn","l":["ja"],"o":{"type":"script"},"v":"Latn"}`, `"s":"ラテン文字"`},
		{"currency", `{"op":"dn","l":["fr"],"o":{"type":"currency"},"v":"usd"}`, `"s":"dollar des États-Unis"`},
		{"type required", `{"op":"dn","l":["en"],"o":{}}`, `{"e":"TypeError","m":"invalid_argument"}`},
		{"type bad", `{"op":"dn","l":["en"],"o":{"type":"x"}}`, `{"e":"RangeError","m":"Value x out of range for Intl.DisplayNames options property type"}`},
		{"long code", `{"op":"dn","l":["en"],"o":{"type":"language"},"v":"` + strings.Repeat("a", 2000) + `"}`, `{"e":"RangeError","m":"invalid_argument"}`},
		{"many variants", `{"op":"dn","l":["en"],"o":{"type":"language"},"v":"de` + strings.Repeat("-1996", 150) + `"}`, `German (German orthography of 1996, `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, string(h.Handle([]byte(tt.req))), tt.want)
		})
	}
}
