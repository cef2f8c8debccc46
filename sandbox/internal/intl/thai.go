package intl

// Thai word boundaries as ICU's ThaiBreakEngine finds them (Node 20's
// Intl.Segmenter with granularity "word"): a maximal run of Thai letters
// and marks is cut into dictionary words from thaidict (dict.go) by the
// lookahead search of lookahead.go, keeping marks, paiyannoi (ฯ) and
// maiyamok (ๆ) with the word before.

// isThaiDict reports whether r is one of the characters ICU hands to its
// Thai dictionary engine, [[:Thai:]&[:LineBreak=SA:]]: the Thai letters,
// vowels, tone marks, paiyannoi and maiyamok, U+0E01..U+0E3A and
// U+0E40..U+0E4E (not the baht sign, fongman, the digits, angkhankhu or
// khomut).
func isThaiDict(r rune) bool {
	return r >= 0x0e01 && r <= 0x0e3a || r >= 0x0e40 && r <= 0x0e4e
}

// Thai's suffix characters: paiyannoi (elision) and maiyamok (repetition).
const (
	thaiPaiyannoi = 0x0e2f
	thaiMaiyamok  = 0x0e46
)

// thaiLang is ICU's ThaiBreakEngine (lookahead.go): runs of at most four
// code points are one word, and paiyannoi and maiyamok join the word
// before them.
var thaiLang = &lookaheadLang{
	dict:         thaiDictionary,
	handles:      isThaiDict,
	isMark:       isThaiMark,
	endWord:      isThaiEndWord,
	beginWord:    isThaiBeginWord,
	wholeRun:     4,
	thaiSuffixes: true,
}

// isThaiMark reports whether r never begins a word: the Thai combining
// marks, [[:Thai:]&[:LineBreak=SA:]&[:M:]] (ICU adds the space, which is
// never in a run).
func isThaiMark(r rune) bool {
	return r == 0x0e31 || r >= 0x0e34 && r <= 0x0e3a || r >= 0x0e47 && r <= 0x0e4e
}

// isThaiEndWord reports whether a word may end with r: any run character
// but mai han-akat and the leading vowels sara e through sara ai maimalai.
func isThaiEndWord(r rune) bool {
	return isThaiDict(r) && r != 0x0e31 && (r < 0x0e40 || r > 0x0e44)
}

// isThaiBeginWord reports whether a word may begin with r: a consonant (ko
// kai through ho nokhuk) or a leading vowel.
func isThaiBeginWord(r rune) bool {
	return r >= 0x0e01 && r <= 0x0e2e || r >= 0x0e40 && r <= 0x0e44
}

// thaiBreaks returns the word boundaries ICU's Thai engine puts strictly
// inside run, a maximal run of isThaiDict characters, as ascending offsets
// in runes. It returns nil when the dictionary cannot be loaded (the run
// is then one word). Its work is linear in len(run).
//
// For Intl.Segmenter, the caller applies UAX #29 around runs as ICU does:
// combining marks that begin a run at the start of the text or after a
// character that is neither a letter nor a digit join what precedes them
// (WB4), Node breaks after them, and only the rest of the run is divided
// here; after a letter or digit the whole run is divided
// (TestThaiBreaksMatchNode checks both against Node).
func thaiBreaks(run []rune) []int { return thaiLang.breaks(run) }

// thaiBreaksWith is thaiBreaks with the dictionary's trie and offset given.
func thaiBreaksWith(trie []byte, off rune, run []rune) []int {
	return thaiLang.breaksWith(trie, off, run)
}
