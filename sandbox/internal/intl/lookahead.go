package intl

// ICU's lookahead dictionary engines (dictbe.cpp's ThaiBreakEngine,
// LaoBreakEngine, BurmeseBreakEngine and KhmerBreakEngine), which Node 20's
// Intl.Segmenter (granularity "word") uses for the scripts of Southeast
// Asia written without spaces: a maximal run of the script's letters and
// marks is cut into words of the script's dictionary (dict.go), choosing
// among the words that begin at a point the one that lets the most words
// follow (up to three), gluing short non-words to the word before them,
// skipping to a likely word start after text no word matches, and never
// ending a word before a combining mark. The four engines share that
// search and differ in their character sets, in the shortest run they
// divide, and in Thai's suffixes (paiyannoi and maiyamok join the word
// before them).

// The heuristics' constants, the same in the four engines of ICU's
// dictbe.cpp.
const (
	lookaheadWords     = 3 // words in a row that make a choice good enough
	rootCombineMax     = 3 // a non-word joins the word before only if that is shorter
	prefixCombineLimit = 3 // ... and the non-word begins fewer code points of a word
)

// lookaheadLang is one engine: its dictionary and character sets.
type lookaheadLang struct {
	dict func() (*dictionary, error)
	// handles reports the characters the engine divides (its script and
	// Line_Break=Complex_Context).
	handles func(rune) bool
	// isMark reports the characters no word begins with: the combining
	// marks of the set (ICU adds the space, which is never in a run).
	isMark func(rune) bool
	// endWord and beginWord report the characters a word may end and
	// begin with, where the engine looks for a word after text no word
	// matches.
	endWord, beginWord func(rune) bool
	// wholeRun is the length, in code points, up to which a run is one
	// word: Thai tests "four code points on reach the end", the others
	// "fewer than four UTF-16 units" (the same for their BMP letters).
	wholeRun int
	// thaiSuffixes: paiyannoi and then maiyamok join the word before
	// them where no dictionary word follows (Thai only).
	thaiSuffixes bool
}

// breaks returns the word boundaries the engine puts strictly inside run,
// a maximal run of l.handles characters, as ascending offsets in runes.
// It returns nil when the dictionary cannot be loaded (the run is then
// one word). Its work is linear in len(run).
func (l *lookaheadLang) breaks(run []rune) []int {
	d, err := l.dict()
	if err != nil || d.bytes == nil {
		return nil
	}
	return l.breaksWith(d.bytes, d.offset, run)
}

// possibleWord holds the dictionary words that begin at one offset of a
// run, as ICU's PossibleWord: the lengths found, which one the search is
// looking at and which one it prefers.
type possibleWord struct {
	offset  int // where the words begin; -1 before the first lookup
	count   int // how many words
	prefix  int // how many code points the lookup read (see bytesTrieMatches)
	mark    int // index of the preferred word
	current int // index of the word the search is trying
	lengths [maxWordCandidates]int
}

// lookaheadText is a run being divided, with the offset the engine stands
// at.
type lookaheadText struct {
	trie []byte
	off  rune
	run  []rune
	pos  int
}

// candidates looks up the words beginning at t.pos (once per offset),
// moves t.pos after the longest, prefers and tries that one, and returns
// how many there are.
func (t *lookaheadText) candidates(w *possibleWord) int {
	start := t.pos
	if start != w.offset {
		w.offset = start
		w.count, w.prefix = bytesTrieMatches(t.trie, t.off, t.run[start:], len(t.run)-start, w.lengths[:])
	}
	if w.count > 0 {
		t.pos = start + w.lengths[w.count-1]
	}
	w.current = w.count - 1
	w.mark = w.current
	return w.count
}

// accept moves t.pos after w's preferred word and returns its length.
func (t *lookaheadText) accept(w *possibleWord) int {
	t.pos = w.offset + w.lengths[w.mark]
	return w.lengths[w.mark]
}

// backUp makes w try its next shorter word, moving t.pos after it; false
// when there is none.
func (t *lookaheadText) backUp(w *possibleWord) bool {
	if w.current <= 0 {
		return false
	}
	w.current--
	t.pos = w.offset + w.lengths[w.current]
	return true
}

// breaksWith is breaks with the dictionary's trie and offset given.
func (l *lookaheadLang) breaksWith(trie []byte, off rune, run []rune) []int {
	n := len(run)
	if n <= l.wholeRun {
		return nil // too short for two words
	}
	t := &lookaheadText{trie: trie, off: off, run: run}
	var words [lookaheadWords]possibleWord
	for i := range words {
		words[i].offset = -1
	}
	// found counts words; word(k) is the lookup slot k words on.
	found := 0
	word := func(k int) *possibleWord { return &words[(found+k)%lookaheadWords] }
	var breaks []int
	for t.pos < n {
		current := t.pos
		length := 0 // of the word found, then of the segment ending here

		// 1. A dictionary word here: the only one, or the longest that
		// lets two more words follow, else the longest followed by one
		// word, else the longest.
		switch c := t.candidates(word(0)); {
		case c == 1:
			length = t.accept(word(0))
			found++
		case c > 1:
			t.chooseWord(word(0), word(1), word(2))
			length = t.accept(word(0))
			found++
		}

		// 2. What follows a short word (or no word) and begins no word is
		// glued on, unless it begins a long enough part of a word: skip
		// to the next point where a word could end and another begin
		// and a dictionary word does begin, or to the end.
		if t.pos < n && length < rootCombineMax {
			if t.candidates(word(0)) <= 0 && (length == 0 || word(0).prefix < prefixCombineLimit) {
				skipped := 0
				for remaining := n - (current + length); ; {
					pc := run[t.pos]
					t.pos++
					skipped++
					if remaining--; remaining <= 0 {
						break
					}
					if l.endWord(pc) && l.beginWord(run[t.pos]) {
						k := t.candidates(word(1))
						t.pos = current + length + skipped
						if k > 0 {
							break
						}
					}
				}
				if length <= 0 {
					found++
				}
				length += skipped
			} else {
				t.pos = current + length
			}
		}

		// 3. No word begins with a combining mark.
		for t.pos < n && l.isMark(run[t.pos]) {
			t.pos++
			length++
		}

		// 4. Thai: where no word follows, paiyannoi (after anything but ฯ
		// or ๆ) and then maiyamok (after anything but ๆ) join the word.
		if l.thaiSuffixes && t.pos < n && length > 0 {
			if t.candidates(word(0)) <= 0 && (run[t.pos] == thaiPaiyannoi || run[t.pos] == thaiMaiyamok) {
				uc := run[t.pos]
				if uc == thaiPaiyannoi {
					if p := run[t.pos-1]; p != thaiPaiyannoi && p != thaiMaiyamok {
						t.pos++
						length++
						uc = -1
						if t.pos < n {
							uc = run[t.pos]
						}
					}
				}
				if uc == thaiMaiyamok && run[t.pos-1] != thaiMaiyamok {
					t.pos++
					length++
				}
			} else {
				t.pos = current + length
			}
		}

		if length > 0 {
			breaks = append(breaks, current+length)
		}
		if t.pos <= current {
			// Unreachable (every round passes at least one code point);
			// kept so that no input can stall the loop.
			t.pos = current + 1
		}
	}
	// The end of the run is no break inside it.
	if len(breaks) > 0 && breaks[len(breaks)-1] >= n {
		breaks = breaks[:len(breaks)-1]
	}
	return breaks
}

// chooseWord marks, among the several words of w0 (t.pos after the
// longest), the longest one after which a word (w1) and then another (w2)
// begin; failing that the longest followed by one word; failing that it
// leaves the longest marked. It stops early at the end of the run.
func (t *lookaheadText) chooseWord(w0, w1, w2 *possibleWord) {
	n := len(t.run)
	if t.pos >= n {
		return
	}
	for {
		if t.candidates(w1) > 0 {
			w0.mark = w0.current
			if t.pos >= n {
				return
			}
			for {
				if t.candidates(w2) > 0 {
					w0.mark = w0.current
					return
				}
				if !t.backUp(w1) {
					break
				}
			}
		}
		if !t.backUp(w0) {
			return
		}
	}
}
