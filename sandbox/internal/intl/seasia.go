package intl

import "unicode"

// Lao, Burmese and Khmer word boundaries as ICU's LaoBreakEngine,
// BurmeseBreakEngine and KhmerBreakEngine find them (Node 20's
// Intl.Segmenter with granularity "word"): the lookahead search of
// lookahead.go over laodict, burmesedict and khmerdict (dict.go), with
// each engine's character sets. Unlike Thai's engine, these divide a run
// of four code points, and no suffix character joins the word before.
//
// The sets are ICU's, [[:Laoo:]&[:LineBreak=SA:]] and so on, at Unicode
// 17 (ICU 78): TestSEAsiaSets checks them against Go's script tables.

// laoLang is ICU's LaoBreakEngine.
var laoLang = &lookaheadLang{
	dict:      laoDictionary,
	handles:   isLaoDict,
	isMark:    func(r rune) bool { return isLaoDict(r) && isGCMark(r) },
	endWord:   func(r rune) bool { return isLaoDict(r) && (r < 0x0ec0 || r > 0x0ec4) },
	beginWord: isLaoBeginWord,
	wholeRun:  3,
}

// burmeseLang is ICU's BurmeseBreakEngine.
var burmeseLang = &lookaheadLang{
	dict:      burmeseDictionary,
	handles:   isBurmeseDict,
	isMark:    func(r rune) bool { return isBurmeseDict(r) && isGCMark(r) },
	endWord:   isBurmeseDict,
	beginWord: func(r rune) bool { return r >= 0x1000 && r <= 0x102a }, // consonants and independent vowels
	wholeRun:  3,
}

// khmerLang is ICU's KhmerBreakEngine.
var khmerLang = &lookaheadLang{
	dict:      khmerDictionary,
	handles:   isKhmerDict,
	isMark:    func(r rune) bool { return isKhmerDict(r) && isGCMark(r) },
	endWord:   func(r rune) bool { return isKhmerDict(r) && r != 0x17d2 }, // not coeng, which joins what follows
	beginWord: func(r rune) bool { return r >= 0x1780 && r <= 0x17b3 },    // consonants and independent vowels
	wholeRun:  3,
}

// isLaoDict reports [[:Laoo:]&[:LineBreak=SA:]]: the Lao script less its
// digits.
func isLaoDict(r rune) bool {
	switch {
	case r < 0x0e81 || r > 0x0edf || r >= 0x0ed0 && r <= 0x0ed9:
		return false
	case r == 0x0e83, r == 0x0e85, r == 0x0e8b, r == 0x0ea4, r == 0x0ea6, r == 0x0ebe, r == 0x0ebf,
		r == 0x0ec5, r == 0x0ec7, r == 0x0ecf, r >= 0x0eda && r <= 0x0edb:
		return false // unassigned
	}
	return true
}

// isLaoBeginWord reports whether a Lao word may begin with r: a basic
// consonant (U+0E81..U+0EAE, holes included), a digraph consonant (ໜ ໝ)
// or a prefix vowel (ເ..ໄ).
func isLaoBeginWord(r rune) bool {
	return r >= 0x0e81 && r <= 0x0eae || r == 0x0edc || r == 0x0edd || r >= 0x0ec0 && r <= 0x0ec4
}

// isBurmeseDict reports [[:Mymr:]&[:LineBreak=SA:]]: the Myanmar script
// less its digits and punctuation (U+1040..U+104F, U+1090..U+1099,
// U+A9F0..U+A9F9, U+116D0..U+116E3).
func isBurmeseDict(r rune) bool {
	return r >= 0x1000 && r <= 0x103f || r >= 0x1050 && r <= 0x108f || r >= 0x109a && r <= 0x109f ||
		r >= 0xa9e0 && r <= 0xa9ef || r >= 0xa9fa && r <= 0xa9fe || r >= 0xaa60 && r <= 0xaa7f
}

// isKhmerDict reports [[:Khmr:]&[:LineBreak=SA:]]: the Khmer letters,
// vowels and signs U+1780..U+17D3, lek too (ៗ), avakrahasanya and
// atthacan (not the punctuation, currency sign, digits or symbols).
func isKhmerDict(r rune) bool {
	return r >= 0x1780 && r <= 0x17d3 || r == 0x17d7 || r == 0x17dc || r == 0x17dd
}

// isGCMark reports [:M:], the combining marks.
func isGCMark(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me)
}
