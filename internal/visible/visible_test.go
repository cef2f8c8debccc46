package visible_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/visible"
)

// TestString: each kind of character a person could not see, or that
// would reorder or hide what follows, is shown as an escape; padding is
// counted; everything else is kept.
func TestString(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", `{"to":"ops","text":"deploy done"}`, `{"to":"ops","text":"deploy done"}`},
		{"non-ASCII letters kept", `{"é":"Grüße, 東京, مرحبا"}`, `{"é":"Grüße, 東京, مرحبا"}`},
		{"right-to-left override", "{\"file\":\"invoice\u202egnp.exe\"}", `{"file":"invoice\u202egnp.exe"}`},
		{"bidi embeddings and pop", "a\u202ab\u202bc\u202cd\u202de", `a\u202ab\u202bc\u202cd\u202de`},
		{"bidi isolates", "\u2066x\u2067y\u2068z\u2069", `\u2066x\u2067y\u2068z\u2069`},
		{"bidi marks", "l\u200er\u200fa\u061c", `l\u200er\u200fa\u061c`},
		{"zero widths", "ze\u200bro\u200cwi\u200ddth\ufeff\u2060", `ze\u200bro\u200cwi\u200ddth\ufeff\u2060`},
		{"other format characters", "soft\u00adhyphen\u2061\U000e0041", `soft\u00adhyphen\u2061\U000e0041`},
		{"tag characters smuggle ASCII", "ok\U000e0069\U000e0067\U000e006e", `ok\U000e0069\U000e0067\U000e006e`},
		{"variation selectors", "a\ufe0fb\U000e0100", `a\ufe0fb\U000e0100`},
		{"C0 controls, none excepted", "tab\there\nnew\rret\x00nul\x1b[2J\a", `tab\u0009here\u000anew\u000dret\u0000nul\u001b[2J\u0007`},
		{"DEL and C1", "del\x7f csi\u009b2J nel\u0085", `del\u007f csi\u009b2J nel\u0085`},
		{"separators and odd spaces", "l\u2028p\u2029nb\u00a0em\u2003id\u3000", `l\u2028p\u2029nb\u00a0em\u2003id\u3000`},
		{"blank letters and symbols", "h\u3164f\uffa0b\u2800j\u115f", `h\u3164f\uffa0b\u2800j\u115f`},
		{"private use and unassigned", "p\ue000u\U0010fffd", `p\ue000u\U0010fffd`},
		{"invalid UTF-8 and U+FFFD differ", "bad\xffbyte\ufffd", `bad\xffbyte\ufffd`},
		{"the renderer's own brackets", "⟨8 spaces⟩", `\u27e88 spaces\u27e9`},
		{"short space runs kept", "a       b", "a       b"},
		{"long space run counted", "report" + strings.Repeat(" ", 4096) + "to evil", "report⟨4096 spaces⟩to evil"},
		{"long run of one invisible", "x" + strings.Repeat("\u200b", 100) + "y", `x⟨100 × \u200b⟩y`},
		{"long run of invalid bytes", strings.Repeat("\xff", 9), `⟨9 × \xff⟩`},
		{"short run of one invisible", "x\u200b\u200by", `x\u200b\u200by`},
		{"four combining marks kept", "e\u0301\u0302\u0303\u0304", "e\u0301\u0302\u0303\u0304"},
		{"stacked marks beyond four", "e\u0301\u0302\u0303\u0304\u0305\u0306", "e\u0301\u0302\u0303\u0304" + `\u0305\u0306`},
		{"backslash kept", `{"path":"C:\\dir"}`, `{"path":"C:\\dir"}`},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, visible.String(tc.in))
		})
	}
}

// TestBounded: a bounded rendering never cuts a character, an escape or a
// count, and says how many bytes of the input it left out.
func TestBounded(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		max     int
		want    string
		omitted int
	}{
		{"fits", "abc", 3, "abc", 0},
		{"unbounded", "abc\u202e", -1, `abc\u202e`, 0},
		{"cut before a character", "abcdef", 4, "abcd", 2},
		{"never half a character", "aé", 2, "a", 2},
		{"never half an escape", "ab\u202ecd", 6, "ab", 5},
		{"the escape fits", "ab\u202ecd", 8, `ab\u202e`, 2},
		{"never half a count", "a" + strings.Repeat(" ", 100), 5, "a", 100},
		{"zero", "abc", 0, "", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, omitted := visible.Bounded(tc.in, tc.max)
			require.Equal(t, tc.want, text)
			require.Equal(t, tc.omitted, omitted)
			if tc.max >= 0 {
				require.LessOrEqual(t, len(text), tc.max)
			}
		})
	}
}

// FuzzBounded: any input renders within its bound into valid UTF-8 that
// holds no character the renderer escapes.
func FuzzBounded(f *testing.F) {
	for _, s := range []string{"", "a\u202eb", "\xff\xfe", strings.Repeat(" ", 20), "e\u0301\u0301\u0301\u0301\u0301"} {
		f.Add(s, 16)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		text, omitted := visible.Bounded(s, max)
		if max >= 0 && len(text) > max {
			t.Fatalf("%d bytes above the bound %d", len(text), max)
		}
		if omitted < 0 || omitted > len(s) {
			t.Fatalf("omitted %d of %d", omitted, len(s))
		}
		if !utf8ValidNoHidden(text) {
			t.Fatalf("%q holds a hidden character", text)
		}
	})
}

// utf8ValidNoHidden reports whether s is valid UTF-8 without controls,
// format characters or spaces other than U+0020.
func utf8ValidNoHidden(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != ' ' && !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}
