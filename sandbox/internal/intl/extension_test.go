package intl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExtensionKeys: each constructor resolves the keys it uses, as Node
// 20 does (corpus 185-188 compare many more with Node).
func TestExtensionKeys(t *testing.T) {
	h := New()
	tests := []struct{ name, req, want string }{
		{"nu keeps", `{"op":"nf","l":["en-u-nu-arab"],"v":"-1234.5"}`, `"locale":"en-u-nu-arab","numberingSystem":"arab"`},
		{"nu digits", `{"op":"nf","l":["en-u-nu-arab"],"v":"-1234.5"}`, "\"s\":\"\u061c-١٬٢٣٤٫٥\""},
		{"nu hanidec", `{"op":"nf","l":["zh-u-nu-hanidec"],"v":"1205"}`, `"s":"一,二〇五"`},
		{"nu latn in ar-EG", `{"op":"nf","l":["ar-EG-u-nu-latn"],"v":"-1234.5"}`, "\"s\":\"\u200e-1,234.5\""},
		{"nu algorithmic dropped", `{"op":"nf","l":["en-u-nu-roman"],"v":"4"}`, `"locale":"en","numberingSystem":"latn"`},
		{"nu option equal keeps", `{"op":"nf","l":["en-u-nu-arab"],"o":{"numberingSystem":"arab"}}`, `"locale":"en-u-nu-arab"`},
		{"nu option differs drops", `{"op":"nf","l":["en-u-nu-thai"],"o":{"numberingSystem":"arab"}}`, `"locale":"en","numberingSystem":"arab"`},
		{"nu option unsupported", `{"op":"nf","l":["en-u-nu-thai"],"o":{"numberingSystem":"foo"}}`, `"locale":"en","numberingSystem":"latn"`},
		{"nu option malformed", `{"op":"nf","o":{"numberingSystem":"x"}}`, `{"e":"RangeError","m":"Invalid numberingSystem : x"}`},
		{"nu option empty", `{"op":"nf","o":{"numberingSystem":""}}`, `{"e":"RangeError","m":"Invalid numberingSystem : "}`},
		{"other keys dropped", `{"op":"nf","l":["en-u-ca-gregory-hc-h23-nu-arab"]}`, `"locale":"en-u-nu-arab"`},
		{"dtf keys sorted", `{"op":"dtf","l":["en-u-nu-arab-hc-h23-ca-gregory"],"o":{"hour":"numeric"}}`, `"locale":"en-u-ca-gregory-hc-h23-nu-arab"`},
		{"hc applies", `{"op":"dtf","l":["en-US-u-hc-h23"],"o":{"hour":"numeric","minute":"numeric","timeZone":"UTC"},"v":0}`, `"s":"00:00"`},
		{"hc with hour12 drops", `{"op":"dtf","l":["en-US-u-hc-h23"],"o":{"hour":"numeric","hour12":true}}`, `"locale":"en-US","calendar"`},
		{"ca japanese", `{"op":"dtf","l":["ja-u-ca-japanese"]}`, `"locale":"ja-u-ca-japanese","calendar":"japanese"`},
		{"ca option", `{"op":"dtf","l":["en"],"o":{"calendar":"buddhist"}}`, `"locale":"en","calendar":"buddhist"`},
		{"ca other ignored", `{"op":"dtf","l":["ar-u-ca-islamic"]}`, `"locale":"ar","calendar":"gregory"`},
		{"ca not in the locale's list ignored", `{"op":"dtf","l":["pl-u-ca-japanese"]}`, `"locale":"pl","calendar":"gregory"`},
		{"ca malformed", `{"op":"dtf","o":{"calendar":"x"}}`, `{"e":"RangeError","m":"Invalid calendar : x"}`},
		{"co phonebk", `{"op":"col","l":["de-u-co-phonebk"],"v":"Müller","w":"Muller"}`, `"c":-1`},
		{"co by option", `{"op":"col","l":["de"],"o":{"collation":"phonebk"}}`, `"locale":"de-u-co-phonebk"`},
		{"co unsupported", `{"op":"col","l":["en-u-co-phonebk"]}`, `"locale":"en"`},
		{"kn bare", `{"op":"col","l":["en-u-kn"],"v":"a10","w":"a9"}`, `"c":1`},
		{"kn false kept", `{"op":"col","l":["en-u-kn-false"],"o":{"numeric":true}}`, `"locale":"en-u-kn-false"`},
		{"kf bad", `{"op":"col","l":["en-u-kf-x"]}`, `{"e":"RangeError","m":"Invalid language tag: en-u-kf-x"}`},
		{"rtf nu", `{"op":"rt","l":["en-u-nu-deva"]}`, `"locale":"en-u-nu-deva"`},
		{"many keywords bounded", `{"op":"nf","l":["en-u-` + strings.Repeat("aa-bbb-", 140) + `nu-arab"]}`, `"locale":"en-u-nu-arab"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, string(h.Handle([]byte(tt.req))), tt.want)
		})
	}
}

func TestKeywords(t *testing.T) {
	for _, tt := range []struct {
		tag  string
		want map[string]string
	}{
		{"en", nil},
		{"en-u-kn", map[string]string{"kn": "true"}},
		{"en-u-attr-nu-arab-ca-islamic-civil", map[string]string{"nu": "arab", "ca": "islamic-civil"}},
		{"en-u-nu-arab-x-priv", map[string]string{"nu": "arab"}},
	} {
		lc, err := resolve([]string{tt.tag})
		require.NoError(t, err)
		got := keywords(lc)
		if tt.want == nil {
			require.Empty(t, got, tt.tag)
			continue
		}
		require.Equal(t, tt.want, got, tt.tag)
	}
	require.Equal(t, "en-u-ca-gregory-kn-nu-arab", withKeywords("en", map[string]string{"nu": "arab", "kn": "true", "ca": "gregory"}))
}
