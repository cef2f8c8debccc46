package intl

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReorderingIsPermutation: every reordering moves whole spans of the
// letters' weights and keeps them inside x/text's 23 bits: the spans,
// laid out by where they go, follow each other without gap or overlap
// from the first script's start to maxPrimary, and the weights before it
// stay where they are.
func TestReorderingIsPermutation(t *testing.T) {
	seen := map[string]bool{}
	for locale, first := range collationReorders {
		if seen[first] {
			continue
		}
		seen[first] = true
		r := reorderingFor(locale, "")
		require.NotNil(t, r, locale)
		require.True(t, slices.IsSorted(r.lo), locale)
		size := func(i int) uint32 {
			if i+1 < len(r.lo) {
				return r.lo[i+1] - r.lo[i]
			}
			return maxPrimary - r.lo[i]
		}
		idx := make([]int, len(r.lo))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return int(r.to[a]) - int(r.to[b]) })
		at := scriptStarts[0].p
		for _, i := range idx {
			require.Equal(t, at, r.to[i], "%s: span %d", first, i)
			at += size(i)
		}
		require.Equal(t, uint32(maxPrimary), at, first)
		for _, p := range []uint32{0, 0x109, scriptStarts[0].p - 1} {
			require.Equal(t, p, r.primary(p), "%s: weight %#x moved", first, p)
		}
		require.Less(t, r.primary(maxPrimary-1), uint32(maxPrimary), first)
	}
	require.Nil(t, reorderingFor("en-US", ""))
	require.Nil(t, reorderingFor("de", "phonebk"))
	require.NotNil(t, reorderingFor("zh", "stroke"))
}

// TestReorderingAppliesToKeys: the letters of the scripts a locale puts
// first get the smaller keys, other levels stay, and a malformed or
// truncated key (which x/text does not make) is copied, not read past.
func TestReorderingAppliesToKeys(t *testing.T) {
	h := New()
	for _, tt := range []struct {
		locale, first, then string
	}{
		{"ru", "я", "a"}, {"zh", "中", "a"}, {"ja", "か", "中"}, {"ja", "a", "か"}, {"ko", "中", "a"},
		{"ko", "中", "한"}, {"el", "ω", "a"}, {"th", "ข", "a"}, {"en-US", "a", "я"},
	} {
		k := keysOf(t, h, `"`+tt.locale+`"`, "{}", []string{tt.first, tt.then})
		require.Equal(t, -1, cmpUnits(k[0], k[1]), "%s: %s before %s", tt.locale, tt.first, tt.then)
	}
	r := reorderingFor("ru", "")
	for _, key := range [][]byte{nil, {0}, {0, 0}, {0x80}, {0x81, 0x02}, {0x15, 0xef, 0x81}, {0x19, 0x91, 0, 0, 5, 0, 0, 2}} {
		out := r.apply(key)
		require.LessOrEqual(t, len(out), len(key)+len(key)/2+3, "%x", key)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 2000 {
		key := make([]byte, rng.IntN(40))
		for i := range key {
			key[i] = byte(rng.IntN(256))
		}
		_ = r.apply(key)
	}
	// The secondary and tertiary levels are kept as they were.
	k := keysOf(t, h, `"ru"`, "{}", []string{"я", "Я"})
	require.Equal(t, -1, cmpUnits(k[0], k[1]))
}

// TestCollationLocale: the first requested tag that names or falls back
// to a collation locale decides, extensions aside, a singleton going with
// what follows it; none gives the default; a malformed tag anywhere is an
// error.
func TestCollationLocale(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{nil, "en-US"},
		{[]string{"eu"}, "en-US"},
		{[]string{"eu", "de-DE"}, "de"},
		{[]string{"und", "ru"}, "ru"},
		{[]string{"de-AT-u-co-phonebk"}, "de-AT"},
		{[]string{"sr-Latn-ME"}, "sr-Latn"},
		{[]string{"zh-TW"}, "zh-TW"},
		{[]string{"en-US-x-priv"}, "en-US"},
	} {
		got, _, err := collationLocale(tt.in)
		require.NoError(t, err, tt.in)
		require.Equal(t, tt.want, got, tt.in)
	}
	_, _, err := collationLocale([]string{"de", "x_bad!"})
	require.Error(t, err)
}

// TestReorderingAfterNumber: with numeric, x/text writes a number's digit
// count as a primary weight below 0x100 (its first byte is 0), which is
// not the end of the primary weights: the letters after a number are
// reordered too, by keys and by compare, as Node sorts them.
func TestReorderingAfterNumber(t *testing.T) {
	h := New()
	for _, tt := range []struct {
		locale, first, then string
	}{
		{"el", "1 α", "1 a"}, {"el", "a1α", "a1a"}, {"ja", "1 中", "1 가"}, {"he", "x2א", "x2a"},
		{"el", "1 a", "12 α"}, {"ru", "1 б", "1 z"},
	} {
		o := `{"numeric":true}`
		k := keysOf(t, h, `"`+tt.locale+`"`, o, []string{tt.first, tt.then})
		require.Equal(t, -1, cmpUnits(k[0], k[1]), "keys in %s: %s before %s", tt.locale, tt.first, tt.then)
		req := `{"op":"col","l":["` + tt.locale + `"],"o":` + o + `,"v":"` + tt.first + `","w":"` + tt.then + `"}`
		require.Contains(t, string(h.Handle([]byte(req))), `"c":-1`, "compare in %s: %s before %s", tt.locale, tt.first, tt.then)
	}
}

// TestCaseFirstUpperPerLetter: caseFirst "upper" swaps the case of each
// letter whose two cases x/text weighs as one letter (Deseret's, Georgian
// Nuskhuri's and Asomtavruli's, not Mtavruli's or Cherokee's, nor the
// Latin, Greek and Cyrillic letters newer than its data), so upper sorts
// first for those as in Node, and a letter x/text does not know is left
// where it sorts, by keys and by compare alike.
func TestCaseFirstUpperPerLetter(t *testing.T) {
	h := New()
	for _, tt := range []struct {
		o, first, then string
	}{
		{`{"caseFirst":"upper"}`, "𐐀", "𐐨"},   // Deseret
		{`{"caseFirst":"upper"}`, "a𐐀", "a𐐨"}, // Deseret
		{`{"caseFirst":"upper"}`, "Ⴀ", "ⴀ"},   // Georgian Asomtavruli, Nuskhuri
		{`{"sensitivity":"case","caseFirst":"upper"}`, "𐐀a", "𐐨a"},
		{`{"caseFirst":"upper"}`, "A", "a"},
		{`{"caseFirst":"upper"}`, "ა", "ბ"}, // Mkhedruli, not swapped to Mtavruli
		{`{"caseFirst":"upper"}`, "Ꭰ", "Ꭱ"}, // Cherokee
	} {
		for _, l := range []string{"en", "ru"} {
			k := keysOf(t, h, `"`+l+`"`, tt.o, []string{tt.first, tt.then})
			require.Equal(t, -1, cmpUnits(k[0], k[1]), "keys in %s %s: %s before %s", l, tt.o, tt.first, tt.then)
			req := `{"op":"col","l":["` + l + `"],"o":` + tt.o + `,"v":"` + tt.first + `","w":"` + tt.then + `"}`
			require.Contains(t, string(h.Handle([]byte(req))), `"c":-1`, "compare in %s %s: %s before %s", l, tt.o, tt.first, tt.then)
		}
	}
}

// TestReorderingWithDefaultCollation: stroke is zh-TW's, zh-HK's,
// zh-Hant's and zh-MO's default collation (Node has no order of its own
// for it there), so -u-co-stroke keeps their order of scripts: Han and
// Bopomofo first, as Node sorts.
func TestReorderingWithDefaultCollation(t *testing.T) {
	h := New()
	for _, l := range []string{"zh-TW-u-co-stroke", "zh-HK-u-co-stroke", "zh-Hant-u-co-stroke", "zh-MO-u-co-stroke", "zh-TW"} {
		words := []string{"a", "ㄅ", "中", "가", "б"} // Node: 中 ㄅ a б 가
		k := keysOf(t, h, `"`+l+`"`, "{}", words)
		for _, pair := range [][2]int{{2, 1}, {1, 0}, {0, 4}, {4, 3}} {
			require.Equal(t, -1, cmpUnits(k[pair[0]], k[pair[1]]), "%s: %s before %s", l, words[pair[0]], words[pair[1]])
		}
	}
	require.NotNil(t, reorderingFor("zh-TW", "stroke"))
	require.Nil(t, reorderingFor("de", "phonebk"))
}
