package intl

// A reader of ICU's BytesTrie serialization (the trie of thaidict.dict,
// laodict.dict, burmesedict.dict and khmerdict.dict), enough to walk it one
// byte at a time as ICU's BytesTrie::next does.
//
// The data is a sequence of nodes read from the root at offset 0. A node's
// lead byte says its kind:
//
//   - 0x00..0x0f, a branch: it selects on the next input byte among n
//     edges (n is lead+1, or the following byte plus one when lead is 0).
//     Above trieMaxLinearBranch edges a branch is a binary-search split (one
//     comparison byte and a forward jump taken when the input is less than
//     it); at or below, a list of (byte, value) pairs ends with one last
//     byte that falls through to the node after it. A pair's value is either
//     a final value (a word ends there and nothing follows) or, when not
//     final, a forward jump to the node that continues the word.
//   - 0x10..0x1f, a linear match of lead-0x10+1 bytes, then the next node.
//   - 0x20..0xff, a value: odd lead bytes are final (a word ends and
//     nothing follows), even ones intermediate (a word ends; the next node
//     continues). The value itself (unused by these dictionaries) takes 0
//     to 4 more bytes, according to the lead byte.
//
// Every read checks its index: a damaged trie ends the walk with
// trieNoMatch, never a panic. Jumps only go forward, each next call reads a
// bounded number of nodes, so no walk can loop.

// trieResult is what a trie walk knows after a byte, as ICU's
// UStringTrieResult.
type trieResult uint8

const (
	// trieNoMatch: the bytes so far begin no word; the walk has stopped.
	trieNoMatch trieResult = iota
	// trieNoValue: the bytes so far begin a word but are not one.
	trieNoValue
	// trieFinalValue: the bytes so far are a word and begin no longer one.
	trieFinalValue
	// trieIntermediateValue: the bytes so far are a word and begin longer ones.
	trieIntermediateValue
)

// hasValue reports whether the bytes so far are a word.
func (r trieResult) hasValue() bool { return r >= trieFinalValue }

// Lead bytes and thresholds of the serialization (ICU's bytestrie.h).
const (
	trieMaxLinearBranch = 5    // branch sub-nodes of at most this many edges are lists
	trieMinLinearMatch  = 0x10 // first linear-match lead byte
	trieMinValueLead    = 0x20 // first value lead byte

	// A value's lead byte, shifted right by one, says how many bytes follow.
	trieMinOneByteValue   = 0x10
	trieMinTwoByteValue   = 0x51
	trieMinThreeByteValue = 0x6c
	trieFourByteValue     = 0x7e

	// A jump's first byte says how many bytes follow.
	trieMinTwoByteDelta   = 0xc0
	trieMinThreeByteDelta = 0xf0
	trieFourByteDelta     = 0xfe
)

// bytesTrie is a walk over a BytesTrie. The zero value is not ready: use
// newBytesTrie.
type bytesTrie struct {
	data []byte
	// pos is the offset of the next byte to read, or -1 once the walk has
	// stopped (no word begins with the bytes fed).
	pos int
	// remaining is the number of bytes still to match in a linear-match
	// node, minus one; -1 when the walk is not inside one.
	remaining int
}

func newBytesTrie(data []byte) bytesTrie {
	return bytesTrie{data: data, remaining: -1}
}

func (t *bytesTrie) stop() trieResult {
	t.pos = -1
	return trieNoMatch
}

// byteAt returns data[i], or -1 when i is outside the data.
func (t *bytesTrie) byteAt(i int) int {
	if i < 0 || i >= len(t.data) {
		return -1
	}
	return int(t.data[i])
}

// valueResult is the result for a walk that stands on node lead byte b.
func valueResult(b int) trieResult {
	if b < trieMinValueLead {
		return trieNoValue
	}
	if b&1 != 0 {
		return trieFinalValue
	}
	return trieIntermediateValue
}

// current is the result of the bytes fed so far (trieNoValue at the root).
func (t *bytesTrie) current() trieResult {
	if t.pos < 0 {
		return trieNoMatch
	}
	if t.remaining >= 0 {
		return trieNoValue
	}
	return valueResult(t.byteAt(t.pos))
}

// next feeds one byte and returns what the walk then knows.
func (t *bytesTrie) next(in byte) trieResult {
	if t.pos < 0 {
		return trieNoMatch
	}
	b := int(in)
	if t.remaining >= 0 {
		// Inside a linear-match node.
		if t.byteAt(t.pos) != b {
			return t.stop()
		}
		t.pos++
		t.remaining--
		if t.remaining >= 0 {
			return trieNoValue
		}
		return valueResult(t.byteAt(t.pos))
	}
	pos := t.pos
	// At most two nodes are read: an intermediate value, then a branch or
	// a linear match (a value is never followed by another value; a damaged
	// trie that does so stops the walk).
	for range 2 {
		node := t.byteAt(pos)
		pos++
		switch {
		case node < 0:
			return t.stop()
		case node < trieMinLinearMatch:
			return t.branch(pos, node, b)
		case node < trieMinValueLead:
			if t.byteAt(pos) != b {
				return t.stop()
			}
			t.pos, t.remaining = pos+1, node-trieMinLinearMatch-1
			if t.remaining >= 0 {
				return trieNoValue
			}
			return valueResult(t.byteAt(t.pos))
		case node&1 != 0:
			return t.stop() // a final value: no longer word
		default:
			pos = skipValue(pos, node)
		}
	}
	return t.stop()
}

// branch selects input byte b in the branch node whose lead byte is node
// and whose next byte is at pos.
func (t *bytesTrie) branch(pos, node, b int) trieResult {
	n := node
	if n == 0 {
		if n = t.byteAt(pos); n < 0 {
			return t.stop()
		}
		pos++
	}
	n++
	// Binary search: n halves each round.
	for n > trieMaxLinearBranch {
		c := t.byteAt(pos)
		if c < 0 {
			return t.stop()
		}
		pos++
		if b < c {
			n >>= 1
			var ok bool
			if pos, ok = t.jump(pos); !ok {
				return t.stop()
			}
		} else {
			n -= n >> 1
			pos = t.skipDelta(pos)
		}
	}
	// Linear search among at most trieMaxLinearBranch edges.
	for ; n > 1; n-- {
		c := t.byteAt(pos)
		if c < 0 {
			return t.stop()
		}
		pos++
		lead := t.byteAt(pos)
		if lead < trieMinValueLead {
			return t.stop() // every listed edge carries a value
		}
		if c != b {
			pos = skipValue(pos+1, lead)
			continue
		}
		if lead&1 != 0 {
			// A word ends here and nothing follows: leave the walk on the
			// final value.
			t.pos = pos
			return trieFinalValue
		}
		delta, end, ok := t.readValue(pos+1, lead>>1)
		if !ok {
			return t.stop()
		}
		t.pos = end + delta
		if t.pos >= len(t.data) {
			return t.stop()
		}
		return valueResult(t.byteAt(t.pos))
	}
	if t.byteAt(pos) != b {
		return t.stop()
	}
	t.pos = pos + 1
	if t.pos >= len(t.data) {
		return t.stop()
	}
	return valueResult(t.byteAt(t.pos))
}

// skipValue returns the offset after a value whose lead byte lead was read
// just before pos.
func skipValue(pos, lead int) int {
	switch {
	case lead < trieMinTwoByteValue<<1:
		return pos
	case lead < trieMinThreeByteValue<<1:
		return pos + 1
	case lead < trieFourByteValue<<1:
		return pos + 2
	default:
		return pos + 3 + (lead>>1)&1
	}
}

// readValue decodes the value whose lead byte, shifted right by one, is
// lead and whose further bytes start at pos; it returns the value and the
// offset after it. A value that does not fit in the data or is negative
// (only a damaged trie has one) is not ok.
func (t *bytesTrie) readValue(pos, lead int) (v, end int, ok bool) {
	var extra int
	switch {
	case lead < trieMinTwoByteValue:
		return lead - trieMinOneByteValue, pos, true
	case lead < trieMinThreeByteValue:
		v, extra = lead-trieMinTwoByteValue, 1
	case lead < trieFourByteValue:
		v, extra = lead-trieMinThreeByteValue, 2
	case lead == trieFourByteValue:
		extra = 3
	default:
		extra = 4
	}
	if pos+extra > len(t.data) {
		return 0, 0, false
	}
	for _, c := range t.data[pos : pos+extra] {
		v = v<<8 | int(c)
	}
	if extra == 4 {
		v = int(int32(uint32(v)))
	}
	return v, pos + extra, v >= 0
}

// jump reads the forward jump at pos and returns its target.
func (t *bytesTrie) jump(pos int) (int, bool) {
	d := t.byteAt(pos)
	if d < 0 {
		return 0, false
	}
	pos++
	var extra int
	switch {
	case d < trieMinTwoByteDelta:
	case d < trieMinThreeByteDelta:
		d, extra = d-trieMinTwoByteDelta, 1
	case d < trieFourByteDelta:
		d, extra = d-trieMinThreeByteDelta, 2
	case d == trieFourByteDelta:
		d, extra = 0, 3
	default:
		d, extra = 0, 4
	}
	if pos+extra > len(t.data) {
		return 0, false
	}
	for _, c := range t.data[pos : pos+extra] {
		d = d<<8 | int(c)
	}
	if extra == 4 {
		d = int(int32(uint32(d)))
	}
	if d < 0 || pos+extra+d >= len(t.data) {
		return 0, false
	}
	return pos + extra + d, true
}

// skipDelta returns the offset after the jump at pos (an offset past the
// data when the data ends first; the next read then fails).
func (t *bytesTrie) skipDelta(pos int) int {
	d := t.byteAt(pos)
	switch {
	case d < trieMinTwoByteDelta:
		return pos + 1
	case d < trieMinThreeByteDelta:
		return pos + 2
	case d < trieFourByteDelta:
		return pos + 3
	default:
		return pos + 4 + d&1
	}
}

// maxWordCandidates bounds how many dictionary words a match reports (ICU's
// POSSIBLE_WORD_LIST_MAX: no more words of the dictionaries nest).
const maxWordCandidates = 20

// dictByte is the trie byte for code point c in a dictionary whose
// transform offset is off, as ICU's BytesDictionaryMatcher::transform:
// ZWJ and ZWNJ are 0xff and 0xfe, code points off to off+0xfd their
// distance from off. Any other code point (in a run: the Myanmar
// Extended-A and -B letters, U+A9E0.. and U+AA60..) is ICU's "no byte"
// sentinel, which its trie reads as 0xff, the byte of ZWJ, and so is it
// here.
func dictByte(c, off rune) byte {
	switch c {
	case 0x200d:
		return 0xff
	case 0x200c:
		return 0xfe
	}
	if d := c - off; d >= 0 && d <= 0xfd {
		return byte(d)
	}
	return 0xff
}

// bytesTrieMatches finds the dictionary words that begin text, as ICU's
// BytesDictionaryMatcher::matches: trie is a BytesTrie of words whose code
// points are bytes by dictByte with offset off. It reads at most maxLength
// code points of text, stores the lengths of the words found, in code
// points and shortest first, in lengths (at most len(lengths) of them),
// and returns how many it stored and prefix, the number of code points it
// read: the longest match with the start of a word, plus the code point
// that matched none when the walk stopped on one.
func bytesTrieMatches(trie []byte, off rune, text []rune, maxLength int, lengths []int) (count, prefix int) {
	t := newBytesTrie(trie)
	for i, c := range text {
		r := t.next(dictByte(c, off))
		prefix = i + 1
		if r.hasValue() {
			if count < len(lengths) {
				lengths[count] = prefix
				count++
			}
			if r == trieFinalValue {
				break
			}
		} else if r == trieNoMatch {
			break
		}
		if prefix >= maxLength {
			break
		}
	}
	return count, prefix
}
