package intl

import (
	"math"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Chinese and Japanese words, as ICU's CJK dictionary engine finds them
// (the engine Node's Intl.Segmenter uses for word granularity): among all
// ways of cutting a run of Han, Hiragana and Katakana into dictionary
// words, the cheapest, where each word costs what cjdict gives it, a
// character the dictionary does not start a one-character word with costs
// cjMaxCost, and a run of Katakana taken whole costs by its length.

// isCJDict reports whether ICU's CJK engine handles r.
func isCJDict(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		r == 0x30fc || r == 0xff70 || r == 0xff9e || r == 0xff9f
}

const (
	cjMaxWord           = 20  // code points in the longest word looked up
	cjMaxCost           = 255 // a lone character the dictionary does not know
	cjMaxKatakana       = 8   // runs longer than this cost cjKatakanaCosts[0]
	cjMaxKatakanaGroup  = 20  // runs this long or longer are not taken whole
	cjUnreachable       = math.MaxUint32
	cjHangulFirst       = 0xac00
	cjHangulLast        = 0xd7a3
	cjKatakanaLongCost  = 8192
	cjKatakanaFirst     = 0x30a1
	cjKatakanaLast      = 0x30fe
	cjKatakanaMiddleDot = 0x30fb
)

// cjKatakanaCosts[n] is the cost of a run of n Katakana taken as one word.
var cjKatakanaCosts = [cjMaxKatakana + 1]uint32{cjKatakanaLongCost, 984, 408, 240, 204, 252, 300, 372, 480}

func isCJKatakana(r rune) bool {
	return r >= cjKatakanaFirst && r <= cjKatakanaLast && r != cjKatakanaMiddleDot || r >= 0xff66 && r <= 0xff9f
}

// cjBreaks returns the word boundaries strictly inside run, a maximal run
// of isCJDict characters, as ascending offsets into run. The run is cut
// as its NFKC form (half-width Katakana as full-width, compatibility
// ideographs as their unified forms), each boundary mapped back to the
// start of the characters it normalised from. It costs O(len(run)) trie
// walks of at most cjMaxWord steps each.
func cjBreaks(d *dictionary, run []rune) []int {
	text, at := cjNormalize(run)
	n := len(text)
	best := make([]uint32, n+1)
	prev := make([]int, n+1)
	for i := range best {
		best[i], prev[i] = cjUnreachable, -1
	}
	best[0] = 0
	t := ucharsTrie{u: d.units}
	var lengths, values []int
	prevKatakana := false
	relax := func(i, l int, cost uint32) {
		if c := best[i] + cost; c < best[i+l] {
			best[i+l], prev[i+l] = c, i
		}
	}
	for i := range n {
		if best[i] == cjUnreachable {
			continue // and prevKatakana keeps the last reachable character's, as in ICU
		}
		lengths, values = t.matchWords(text[i:], cjMaxWord, lengths[:0], values[:0])
		for j, l := range lengths {
			relax(i, l, uint32(values[j]))
		}
		if (len(lengths) == 0 || lengths[0] != 1) && (text[i] < cjHangulFirst || text[i] > cjHangulLast) {
			relax(i, 1, cjMaxCost)
		}
		katakana := isCJKatakana(text[i])
		if katakana && !prevKatakana {
			k := 1
			for i+k < n && k < cjMaxKatakanaGroup && isCJKatakana(text[i+k]) {
				k++
			}
			if k < cjMaxKatakanaGroup {
				cost := uint32(cjKatakanaLongCost)
				if k <= cjMaxKatakana {
					cost = cjKatakanaCosts[k]
				}
				relax(i, k, cost)
			}
		}
		prevKatakana = katakana
	}
	if best[n] == cjUnreachable {
		return nil // no way through: the run stays whole
	}
	// The cut points, from the end back; each prev is smaller, so this ends.
	var cuts []int
	for i := prev[n]; i > 0; i = prev[i] {
		cuts = append(cuts, i)
	}
	var out []int
	last := 0
	for k := len(cuts) - 1; k >= 0; k-- {
		if p := at[cuts[k]]; p > last && p < len(run) {
			out = append(out, p)
			last = p
		}
	}
	return out
}

// cjNormalize returns run in NFKC and, for each of its code points and
// its end, the offset in run it came from: a fragment normalised as a
// whole (from one character with a boundary before it to the next) maps
// every code point it yields to the fragment's start.
func cjNormalize(run []rune) (text []rune, at []int) {
	s := string(run)
	if norm.NFKC.IsNormalString(s) {
		at = make([]int, len(run)+1)
		for i := range at {
			at[i] = i
		}
		return run, at
	}
	// One iterator and two buffers serve every fragment: Form.AppendString
	// allocates its reordering buffer on each call, some 1 KB a fragment.
	var it norm.Iter
	var frag, out []byte
	var c [utf8.UTFMax]byte
	for i := 0; i < len(run); {
		frag = utf8.AppendRune(frag[:0], run[i])
		j := i + 1
		for ; j < len(run); j++ {
			n := utf8.EncodeRune(c[:], run[j])
			if norm.NFKC.Properties(c[:n]).BoundaryBefore() {
				break
			}
			frag = append(frag, c[:n]...)
		}
		out = out[:0]
		for it.Init(norm.NFKC, frag); !it.Done(); {
			out = append(out, it.Next()...)
		}
		for k := 0; k < len(out); {
			r, n := utf8.DecodeRune(out[k:])
			text = append(text, r)
			at = append(at, i)
			k += n
		}
		i = j
	}
	return text, append(at, len(run))
}
