package intl

import (
	"encoding/json"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

type segOptions struct {
	Granularity string `json:"granularity"`
}

type segResolved struct {
	Locale      string `json:"locale"`
	Granularity string `json:"granularity"`
}

// segAnswer lists the segments as [start, end] UTF-16 offsets (and, for
// words, whether each is word-like: 1 or 0).
type segAnswer struct {
	R segResolved `json:"r"`
	B [][]int     `json:"b,omitempty"`
}

// segmenter implements Intl.Segmenter with UAX #29 (github.com/rivo/uniseg).
func (h *Handler) segmenter(req *request) (any, error) {
	lc, err := resolve(req.L)
	if err != nil {
		return nil, err
	}
	var o segOptions
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	res := segResolved{Locale: lc.tag}
	if res.Granularity, err = enumOption("Segmenter", "granularity", o.Granularity, "grapheme", "grapheme", "word", "sentence"); err != nil {
		return nil, err
	}
	ans := &segAnswer{R: res}
	if len(req.V) == 0 {
		return ans, nil
	}
	var s string
	if err := json.Unmarshal(req.V, &s); err != nil {
		return nil, typeErr("malformed Intl value")
	}
	ans.B = [][]int{}
	if res.Granularity == "word" {
		words, like := dictWords(s)
		pos := 0
		for k, w := range words {
			n := utf16Len(w)
			ans.B = append(ans.B, []int{pos, pos + n, like[k]})
			pos += n
		}
		return ans, nil
	}
	pos, state := 0, -1
	for s != "" {
		var seg string
		if res.Granularity == "grapheme" {
			seg, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		} else {
			seg, s, state = uniseg.FirstSentenceInString(s, state)
		}
		n := utf16Len(seg)
		ans.B = append(ans.B, []int{pos, pos + n})
		pos += n
	}
	return ans, nil
}

// wordSegments splits s by Unicode's default word rules (UAX #29).
func wordSegments(s string) []string {
	var segs []string
	for state := -1; s != ""; {
		var seg string
		seg, s, state = uniseg.FirstWordInString(s, state)
		segs = append(segs, seg)
	}
	return segs
}

// dictEngine is one of ICU's dictionary break engines: the characters it
// handles and how it cuts a maximal run of them into words.
type dictEngine struct {
	handles func(rune) bool
	breaks  func(run []rune) []int
}

var dictEngines = [...]dictEngine{
	{isCJDict, func(run []rune) []int {
		d, err := cjDictionary()
		if err != nil {
			return nil
		}
		return cjBreaks(d, run)
	}},
	{isThaiDict, thaiBreaks},
	{isLaoDict, laoLang.breaks},
	{isBurmeseDict, burmeseLang.breaks},
	{isKhmerDict, khmerLang.breaks},
}

// dictWords returns the words of s as ICU finds them, each with whether
// it is word-like: segs (the default rules' words, UAX #29) are first
// joined into ICU's own rule segments, which differ around the
// characters its dictionaries handle, and each rule segment holding such
// characters is then cut by the dictionary engines.
//
// ICU's word rules, unlike UAX #29, chain adjacent Han, Hiragana and
// Katakana into one segment, and treat Thai, Lao, Burmese and Khmer
// letters as letters (so "abc" and Thai after it are one segment). Within a rule segment, a range
// starts at a character of the rules' dictionary set (those scripts and
// Hangul syllables) and runs while the engine handles the characters
// (Chinese and Japanese: also the half-width sound marks and the
// prolonged sound mark); the engine's boundaries strictly inside each
// range are added, and every word cut from a rule segment is word-like if
// the segment is (ICU gives them the rule segment's status). The engine
// is chosen as ICU chooses it, with what earlier ranges of the text made
// (engineChoice): a character no engine handles (Hangul, 〵, ゛) starts a
// run of its script that is not cut.
func dictWords(s string) (words []string, wordLike []int) {
	runes := []rune(s)
	// The rules' boundaries, in runes: Thai, Lao, Burmese and Khmer
	// letters ruled as letters, and Han, Hiragana and Hangul syllables as
	// ideographs, which join nothing (UAX #29 has some of them letters:
	// 々, Hangul).
	sub := make([]rune, len(runes))
	for i, r := range runes {
		switch {
		case isRuleComplexLetter(r):
			sub[i] = 'a'
		case r == newTaiLueThamOne:
			sub[i] = '0'
		case isKanaKanji(r) && !isWordKatakana(r), isHangulSyllable(r):
			sub[i] = '一'
		default:
			sub[i] = r
		}
	}
	rules := []int{0}
	for _, seg := range wordSegments(string(sub)) {
		rules = append(rules, rules[len(rules)-1]+utf8.RuneCountInString(seg))
	}
	// Adjacent kana and kanji chain into one rule segment, as do Hangul
	// syllables.
	kept := rules[:1]
	for _, b := range rules[1:] {
		if b < len(runes) && (isKanaKanji(runes[b-1]) && isKanaKanji(runes[b]) ||
			isHangulSyllable(runes[b-1]) && isHangulSyllable(runes[b])) {
			continue
		}
		kept = append(kept, b)
	}
	rules = kept
	var engines engineChoice
	for k := 1; k < len(rules); k++ {
		a, b := rules[k-1], rules[k]
		like := segmentWordLike(runes[a:b])
		cut := a
		for i := a; i < b; {
			if !isRuleDict(runes[i]) {
				i++
				continue
			}
			e := engines.pick(runes[i])
			if e == nil {
				// ICU's UnhandledEngine takes the run of its script
				// whole: no engine cuts it.
				i = sameScriptEnd(runes, i, b, engines.unhandled)
				continue
			}
			j := i + 1
			for j < b && e.handles(runes[j]) {
				j++
			}
			for _, x := range e.breaks(runes[i:j]) {
				words = append(words, string(runes[cut:i+x]))
				wordLike = append(wordLike, like)
				cut = i + x
			}
			i = j
		}
		words = append(words, string(runes[cut:b]))
		wordLike = append(wordLike, like)
	}
	return words, wordLike
}

// segmentWordLike is the word-likeness of a rule segment, as ICU's rule
// status, which the last rule matched in the segment sets: kana and
// ideographs (with the marks after them) are word-like, as is a chain of
// kana and kanji ending in another Han character (々, a radical), but
// not such a character alone or with a mark after it; otherwise the
// segment is word-like if it holds a letter or digit other than a mark
// (a segment of marks alone, or punctuation with marks, is not) and does
// not end in a symbol (an emoji joined by a ZWJ) or in marks after a
// Hangul syllable or a character other than a letter or digit.
func segmentWordLike(seg []rune) int {
	end := len(seg)
	for end > 0 && isWordExtend(seg[end-1]) {
		end--
	}
	if end == 0 {
		return 0
	}
	base := seg[end-1]
	if isKanaKanji(base) {
		// ICU's $KatakanaEx, $HiraganaEx and $IdeographicEx take the
		// marks after them, so these hold with marks too (゜ﾟ, ㋐ﾟ).
		switch {
		case !unicode.Is(unicode.Han, base) || unicode.Is(unicode.Ideographic, base):
			return 1
		case end == len(seg) && end > 1 && isKanaKanji(seg[end-2]):
			return 1
		}
		return 0
	}
	if end == len(seg) && isExtendNumLet(base) {
		// Connectors alone: ICU's rules give one after another a letter's
		// status ("__", "_‿"), not one alone or marks after them.
		n := 0
		for _, r := range seg {
			if isExtendNumLet(r) {
				n++
			} else if !isWordExtend(r) {
				n = -len(seg)
			}
		}
		if n >= 2 {
			return 1
		}
	}
	// ICU's rules take the Complex_Context characters that are not marks
	// as letters, Myanmar's symbols (႞, ꩷) among them.
	letter := func(r rune) bool { return unicode.IsLetter(r) || isRuleComplexLetter(r) }
	digit := func(r rune) bool { return unicode.IsDigit(r) || r == newTaiLueThamOne }
	switch {
	case unicode.Is(unicode.So, base) && !isRuleComplexLetter(base):
		return 0 // an emoji sequence, joined by a ZWJ to what precedes it
	case end < len(seg) && (isHangulSyllable(base) || !letter(base) && !digit(base)):
		// Marks after a Hangul syllable, a connector (_) or punctuation
		// end the segment with ICU's rule for marks, which has no status.
		return 0
	}
	for _, r := range seg {
		// Letters (Roman numerals among them) and decimal digits; not
		// other numbers (², ①, ½), which the rules give no status.
		if !isWordExtend(r) && (letter(r) || digit(r) || unicode.Is(unicode.Nl, r)) {
			return 1
		}
	}
	return 0
}

// isExtendNumLet reports Word_Break ExtendNumLet: the connectors (_, ‿,
// ＿) and the narrow no-break space.
func isExtendNumLet(r rune) bool { return unicode.Is(unicode.Pc, r) || r == 0x202f }

// isWordExtend reports Word_Break Extend, Format or ZWJ.
func isWordExtend(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc, unicode.Cf) || r == 0xff9e || r == 0xff9f ||
		r >= 0x1f3fb && r <= 0x1f3ff
}

// isKanaKanji is ICU's $KanaKanji: Han, Hiragana, and Word_Break
// Katakana.
func isKanaKanji(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || isWordKatakana(r)
}

// isWordKatakana is Word_Break=Katakana (Unicode 16).
func isWordKatakana(r rune) bool {
	switch {
	case r >= 0x3031 && r <= 0x3035, r == 0x309b, r == 0x309c, r >= 0x30a0 && r <= 0x30fa,
		r >= 0x30fc && r <= 0x30ff, r >= 0x31f0 && r <= 0x31ff, r >= 0x32d0 && r <= 0x32fe,
		r >= 0x3300 && r <= 0x3357, r >= 0xff66 && r <= 0xff9d, r >= 0x1aff0 && r <= 0x1aff3,
		r >= 0x1aff5 && r <= 0x1affb, r == 0x1affd, r == 0x1affe, r == 0x1b000,
		r >= 0x1b120 && r <= 0x1b122, r == 0x1b155, r >= 0x1b164 && r <= 0x1b167:
		return true
	}
	return false
}

// isRuleDict is ICU's $dictionary for word rules: the characters whose
// runs go to a dictionary engine (Line_Break Complex_Context, kana, kanji,
// Hangul syllables).
func isRuleDict(r rune) bool {
	return isKanaKanji(r) || isRuleComplex(r) || isHangulSyllable(r)
}

func isHangulSyllable(r rune) bool { return r >= 0xac00 && r <= 0xd7a3 }

// newTaiLueThamOne, U+19DA NEW TAI LUE THAM DIGIT ONE, is a digit to ICU's
// word rules (Word_Break Numeric), where uniseg's Unicode 15 tables have it
// neither a digit nor a letter.
const newTaiLueThamOne = 0x19da

// isRuleComplex is Line_Break=Complex_Context as ICU 78 has it (less
// Unicode 17's Tai Yo, which Go's Unicode 15 tables do not know): Thai,
// Lao, Burmese and Khmer, which ICU cuts by dictionary, and Tai Le, New Tai
// Lue, Tai Tham, Tai Viet and Ahom, whose runs its UnhandledEngine keeps
// whole.
func isRuleComplex(r rune) bool {
	switch {
	case r < 0x0e01:
		return false
	case r < 0x1780:
		return isThaiDict(r) || isLaoDict(r) || isBurmeseDict(r)
	case r < 0x1950:
		return isKhmerDict(r)
	}
	return r >= 0x1950 && r <= 0x196d || r >= 0x1970 && r <= 0x1974 || // Tai Le
		r >= 0x1980 && r <= 0x19ab || r >= 0x19b0 && r <= 0x19c9 || r == 0x19de || r == 0x19df || // New Tai Lue
		r >= 0x1a20 && r <= 0x1a5e || r >= 0x1a60 && r <= 0x1a7c || r >= 0x1aa0 && r <= 0x1aad || // Tai Tham
		isBurmeseDict(r) || // Myanmar Extended-A and -B
		r >= 0xaa80 && r <= 0xaac2 || r >= 0xaadb && r <= 0xaadf || // Tai Viet
		r >= 0x11700 && r <= 0x1171a || r >= 0x1171d && r <= 0x1172b || r == 0x1173a || r == 0x1173b || r >= 0x1173f && r <= 0x11746 // Ahom
}

// isRuleComplexLetter is isRuleComplex less marks: what ICU's rules treat
// as letters.
func isRuleComplexLetter(r rune) bool {
	return isRuleComplex(r) && !isWordExtend(r)
}

// engineChoice picks the dictionary engine for a range as an ICU break
// iterator does over one text: an engine it has already made that
// handles the character, else its UnhandledEngine if that has taken the
// character's script, else a new engine for the character, else the
// UnhandledEngine, which then takes the character's script (all of
// Common for 〵 or ゛: a later ー then goes to it, not to the Chinese and
// Japanese engine, unless that was made before).
type engineChoice struct {
	made      [len(dictEngines)]bool // dictEngines made, by index
	unhandled *unicode.RangeTable    // the UnhandledEngine's script; nil before it is made
	hasSkip   bool                   // whether the UnhandledEngine is made
}

// pick returns the engine for a range starting at r, nil for the
// UnhandledEngine.
func (c *engineChoice) pick(r rune) *dictEngine {
	k := -1
	for i := range dictEngines {
		if dictEngines[i].handles(r) {
			k = i
			break
		}
	}
	switch {
	case k >= 0 && c.made[k]:
		return &dictEngines[k]
	case c.hasSkip && c.unhandled != nil && unicode.Is(c.unhandled, r):
		return nil
	case k >= 0:
		c.made[k] = true
		return &dictEngines[k]
	}
	c.hasSkip, c.unhandled = true, scriptOf(r)
	return nil
}

// sameScriptEnd returns the end of the run of runes[i:b] in script
// (runes[i] alone for a nil script).
func sameScriptEnd(runes []rune, i, b int, script *unicode.RangeTable) int {
	j := i + 1
	if script == nil {
		return j
	}
	for j < b && unicode.Is(script, runes[j]) {
		j++
	}
	return j
}

// scriptOf returns the Unicode script table holding r, nil for none.
func scriptOf(r rune) *unicode.RangeTable {
	for _, t := range []*unicode.RangeTable{unicode.Common, unicode.Hangul} {
		if unicode.Is(t, r) {
			return t
		}
	}
	for _, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return t
		}
	}
	return nil
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

type caseAnswer struct {
	S string `json:"s"`
}

// caseMap implements toLocaleUpperCase and toLocaleLowerCase with
// x/text/cases, which applies the language's special casing (Turkish and
// Azeri dotted and dotless i, Lithuanian dot above).
func (h *Handler) caseMap(req *request) (any, error) {
	var lang language.Tag
	for _, l := range req.L {
		t, err := parseTag(l)
		if err != nil {
			return nil, err
		}
		if lang == language.Und {
			lang = t
		}
	}
	var o struct {
		Upper bool `json:"upper"`
	}
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	var s string
	if err := json.Unmarshal(req.V, &s); err != nil || !utf8.ValidString(s) {
		return nil, typeErr("malformed Intl value")
	}
	b, _ := lang.Base()
	t := language.Make(b.String())
	if o.Upper {
		return caseAnswer{S: cases.Upper(t).String(s)}, nil
	}
	return caseAnswer{S: cases.Lower(t).String(s)}, nil
}
