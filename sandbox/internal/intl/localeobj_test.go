package intl

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLocaleHostile: the loc and locinfo ops answer hostile tags and
// options with an error or a bounded answer, quickly, and never panic.
func TestLocaleHostile(t *testing.T) {
	variants := make([]string, 150)
	for i := range variants {
		variants[i] = "v" + strings.Repeat(string(rune('a'+i%26)), 4) + string(rune('a'+i/26))
	}
	kws := make([]string, 300)
	for i := range kws {
		kws[i] = string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + "-abc"
	}
	h := New()
	for _, tt := range []struct{ name, req, want string }{
		{"tag too long", `{"op":"loc","v":"en-` + strings.Repeat("x", 1100) + `"}`, `{"e":"RangeError","m":"Incorrect locale information provided"}`},
		{"empty tag", `{"op":"loc","v":""}`, `{"e":"RangeError","m":"First argument to Intl.Locale constructor can't be empty or missing"}`},
		{"tag not a string", `{"op":"loc","v":5}`, `{"e":"TypeError","m":"malformed Intl request"}`},
		{"options not an object", `{"op":"loc","v":"en","o":[1]}`, `{"e":"TypeError","m":"malformed Intl options"}`},
		{"option too long", `{"op":"loc","v":"en","o":{"calendar":"` + strings.Repeat("abc-", 300) + `abc"}}`, `{"e":"RangeError","m":"Incorrect locale information provided"}`},
		{"bad hour cycle", `{"op":"loc","v":"en","o":{"hourCycle":"h25"}}`, `{"e":"RangeError","m":"Value h25 out of range for locale options property hourCycle"}`},
		{"invalid UTF-8", "{\"op\":\"loc\",\"v\":\"en-\xff\xfe\"}", `{"e":"RangeError","m":"Incorrect locale information provided"}`},
		{"NUL", `{"op":"loc","v":"en\u0000"}`, `{"e":"RangeError","m":"Incorrect locale information provided"}`},
		{"info of garbage", `{"op":"locinfo","v":"--"}`, `{"e":"RangeError","m":"Incorrect locale information provided"}`},
		{"info too long", `{"op":"locinfo","v":"en-` + strings.Repeat("abcde-", 200) + `x"}`, `{"e":"RangeError","m":"Incorrect locale information provided"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, string(h.Handle([]byte(tt.req))))
		})
	}
	// Many variants and keywords within the bound: linear work, one
	// canonical answer.
	for _, tag := range []string{"en-" + strings.Join(variants, "-"), "en-u-" + strings.Join(kws, "-"), "und-" + strings.Repeat("x-", 0) + "t-" + strings.Repeat("k0-abc-", 140) + "k0-abc"} {
		if len(tag) > maxString {
			tag = tag[:strings.LastIndexByte(tag[:maxString], '-')]
		}
		start := time.Now()
		b, _ := json.Marshal(map[string]any{"op": "loc", "v": tag})
		out := h.Handle(b)
		require.Less(t, time.Since(start), time.Second)
		var ans struct {
			R *localeRecord
			E string
		}
		require.NoError(t, json.Unmarshal(out, &ans), string(out))
		if ans.R != nil {
			info, _ := json.Marshal(map[string]any{"op": "locinfo", "v": ans.R.Locale})
			require.NotContains(t, string(h.Handle(info)), `"e":`)
		}
	}
}

// FuzzLocaleID: any text parses or not without panicking, and a parsed
// tag's canonical form is a fixed point (canonicalizing it again, and
// maximizing and minimizing it, give tags that parse).
func FuzzLocaleID(f *testing.F) {
	for _, s := range []string{"en-US", "iw-IL", "sh-YU", "und-hepburn-heploc", "en-u-ca-islamicc-kn-true", "en-t-iw-m0-names",
		"zh-Hant-TW-x-a", "sgn-DE", "art-lojban", "en-a-b-a-c", "en-US-posix", "und-Zzzz-ZZ", "x-foo", "en-u-attr-ca"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := parseLocaleID(s)
		if !ok {
			return
		}
		id.canonicalize()
		c := id.String()
		id2, ok := parseLocaleID(c)
		if !ok {
			t.Fatalf("%q canonicalizes to %q, which does not parse", s, c)
		}
		id2.canonicalize()
		if id2.String() != c {
			t.Fatalf("%q canonicalizes to %q, then to %q", s, c, id2.String())
		}
		d := locData()
		for _, x := range []*localeID{maximize(d, id), minimize(d, id)} {
			if _, ok := parseLocaleID(x.String()); !ok {
				t.Fatalf("%q: %q does not parse", s, x.String())
			}
		}
		_ = info(id)
	})
}

// TestLocaleKeepsSharedCache: the Handler's cache is shared by every chain
// (sandbox/intlops.go has one Handler) and holds costly entries (collators,
// pattern generators). Intl.Locale's ops are cheap and their keys are any
// tag a script writes: a script making many distinct locales must not
// evict another chain's entries.
func TestLocaleKeepsSharedCache(t *testing.T) {
	h := New()
	h.cached("costly", func() any { return 1 })
	for i := 0; i < 3000; i++ {
		tag := fmt.Sprintf("en-u-co-x%d", 100000+i)
		b, _ := json.Marshal(map[string]any{"op": "loc", "v": tag})
		require.NotContains(t, string(h.Handle(b)), `"e":`)
		b, _ = json.Marshal(map[string]any{"op": "locinfo", "v": tag})
		require.NotContains(t, string(h.Handle(b)), `"e":`)
	}
	_, ok := h.lookup("costly")
	require.True(t, ok, "3000 Intl.Locale tags evicted another chain's cache entry")
}

// TestLocaleTLangVariants: ICU 78 holds the -t- language's variants in
// the same 179 bytes as the tag's own (Node 20: 30 five-digit variants
// after en-t-en- are a locale, 31 throw).
func TestLocaleTLangVariants(t *testing.T) {
	v := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("1%04d", i)
		}
		return strings.Join(s, "-")
	}
	_, ok := parseLocaleID("en-t-en-" + v(30))
	require.True(t, ok)
	_, ok = parseLocaleID("en-t-en-" + v(31))
	require.False(t, ok, "Node 20 throws for 31 variants in the -t- language")
	_, err := canonicalTag("en-t-en-" + v(31))
	require.Error(t, err)
}

// TestLocaleSupplementalRegion: the week data of -u-rg- and -u-sd- as
// Node 20 reads it (node -e 'new Intl.Locale(tag).weekInfo').
func TestLocaleSupplementalRegion(t *testing.T) {
	for tag, want := range map[string]weekInfo{
		"und-u-rg-gbsct":   {1, []int{6, 7}, 4},
		"und-u-rg-ukzzzz":  {7, []int{6, 7}, 1},
		"und-u-rg-xxzzzz":  {7, []int{6, 7}, 1},
		"und-u-sd-gbsct":   {1, []int{6, 7}, 4},
		"und-u-sd-desn":    {1, []int{6, 7}, 4},
		"en-US-u-sd-gbsct": {7, []int{6, 7}, 1},
		"und-u-rg-aqzzzz":  {1, []int{6, 7}, 1},
		"und-u-sd-mvxx":    {5, []int{6, 7}, 1},
		"en-u-rg-001zzz":   {7, []int{6, 7}, 1},
	} {
		id, ok := parseLocaleID(tag)
		require.True(t, ok)
		id.canonicalize()
		require.Equal(t, want, info(id).WeekInfo, tag)
	}
}

// TestCanonicalTagMessage: V8 names a malformed tag in lowercase
// (node: Intl.getCanonicalLocales("en-US-") throws "Invalid language tag:
// en-us-").
func TestCanonicalTagMessage(t *testing.T) {
	for s, want := range map[string]string{"en-US-": "en-us-", "en-US-u": "en-us-u", "EN-US-t-": "en-us-t-"} {
		_, err := canonicalTag(s)
		require.EqualError(t, err, "RangeError: Invalid language tag: "+want)
	}
}
