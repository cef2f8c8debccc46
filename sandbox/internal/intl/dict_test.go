package intl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDictionariesLoad decodes the dictionaries and checks their kind.
func TestDictionariesLoad(t *testing.T) {
	cj, err := cjDictionary()
	require.NoError(t, err)
	require.NotEmpty(t, cj.units)
	require.True(t, cj.hasValues)
	th, err := thaiDictionary()
	require.NoError(t, err)
	require.NotEmpty(t, th.bytes)
	require.False(t, th.hasValues)
	require.Equal(t, rune(0x0e00), th.offset)
	for want, load := range map[rune]func() (*dictionary, error){0x0e80: laoDictionary, 0x1000: burmeseDictionary, 0x1780: khmerDictionary} {
		d, err := load()
		require.NoError(t, err)
		require.NotEmpty(t, d.bytes)
		require.False(t, d.hasValues)
		require.Equal(t, want, d.offset)
	}
	_, err = loadDictionary(cjDictGz, thaiDictSum)
	require.ErrorContains(t, err, "damaged")
}

// TestUCharsTrieWords walks cjdict for known words: each is found with
// its cost, its prefixes that are words too, and nothing past a miss.
func TestUCharsTrieWords(t *testing.T) {
	cj, err := cjDictionary()
	require.NoError(t, err)
	tr := ucharsTrie{u: cj.units}
	lengths, values := tr.matchWords([]rune("東京都庁"), cjMaxWord, nil, nil)
	require.Equal(t, []int{1, 2, 3, 4}[:len(lengths)], lengths, "東, 東京, 東京都, … are words, shortest first")
	require.GreaterOrEqual(t, len(lengths), 2)
	for _, v := range values {
		require.Positive(t, v)
		require.Less(t, v, 1<<16)
	}
	lengths, _ = tr.matchWords([]rune("xyz"), cjMaxWord, nil, nil)
	require.Empty(t, lengths)
	lengths, _ = tr.matchWords([]rune("𠮷野家"), cjMaxWord, nil, nil)
	require.Empty(t, lengths, "a code point outside the BMP matches nothing, as in ICU")
}

// TestCJBreaksBounded cuts large and hostile runs: a maximal Intl
// request of kanji and kana, runs of one repeated character, long
// Katakana, and text that NFKC changes, each in bounded work, with
// boundaries ascending inside the run.
func TestCJBreaksBounded(t *testing.T) {
	cj, err := cjDictionary()
	require.NoError(t, err)
	pool := []rune("日本語東京都会社研究開発のはがをにでとカタカナコンピュータｶﾀｶﾅﾃﾞｰﾀ々〆㍻豈𠮷")
	seed := uint32(7)
	runs := [][]rune{
		[]rune(strings.Repeat("の", MaxRequestBytes/3)),
		[]rune(strings.Repeat("ア", 100000)),
		[]rune(strings.Repeat("ｶﾞ", 50000)),
	}
	big := make([]rune, MaxRequestBytes/3)
	for i := range big {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		big[i] = pool[seed%uint32(len(pool))]
	}
	runs = append(runs, big)
	for _, run := range runs {
		b := cjBreaks(cj, run)
		last := 0
		for _, x := range b {
			require.Greater(t, x, last)
			require.Less(t, x, len(run))
			last = x
		}
	}
}

// TestUCharsTrieDamaged walks truncated and bit-flipped copies of cjdict:
// a damaged trie may match wrongly but never panics or loops.
func TestUCharsTrieDamaged(t *testing.T) {
	cj, err := cjDictionary()
	require.NoError(t, err)
	text := []rune("東京都の人口は約千四百万人です。コンピュータ日本語テキスト")
	seed := uint32(99)
	next := func(n int) int {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return int(seed % uint32(n))
	}
	for k := 0; k < 300; k++ {
		u := append([]uint16(nil), cj.units[:next(len(cj.units))+1]...)
		for f := 0; f < 1+next(50); f++ {
			u[next(len(u))] ^= 1 << next(16)
		}
		d := &dictionary{units: u, hasValues: true}
		_ = cjBreaks(d, text)
	}
	_ = cjBreaks(&dictionary{}, text) // an empty trie: every character a word of its own
}

// TestCJNormalizeAllocs: normalising a run that NFKC changes allocates
// for the run, not for each of its characters (x/text's AppendString
// allocated a reordering buffer of some 1 KB per call, 16 MB for one
// request of ㌀), and gives NFKC's text with each code point mapped to
// the start of the characters it came from.
func TestCJNormalizeAllocs(t *testing.T) {
	run := []rune(strings.Repeat("㌀ｶﾞ東ﬁ", 1000))
	allocs := testing.AllocsPerRun(5, func() { cjNormalize(run) })
	require.Less(t, allocs, 100.0, "allocations for a run of %d characters", len(run))
	text, at := cjNormalize([]rune("㌀ｶﾞ東\uf900"))
	require.Equal(t, "アパートガ東豈", string(text))
	require.Equal(t, []int{0, 0, 0, 0, 1, 3, 4, 5}, at)
}
