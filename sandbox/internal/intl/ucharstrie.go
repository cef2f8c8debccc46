package intl

// ucharsTrie reads ICU's UCharsTrie serialization (ICU's design document
// "UCharsTrie" describes it) one UTF-16 unit at a time: the form of
// cjdict. Nodes, told apart by their lead unit:
//
//   - below 0x30: a branch over the next unit, with the count of choices
//     in it (or in the unit after it); long branches are split in halves
//     by a comparison unit and a jump, short ones list each unit with a
//     final value or a jump;
//   - 0x30 to 0x3f: a linear match of 1 to 16 units;
//   - from 0x40: the lead's high bits also carry a value, final (bit 15)
//     or intermediate (a word ends here and longer ones go on).
//
// Every read is checked against the data: a damaged trie stops matching,
// it does not panic, and each step moves forward through the data, so a
// walk ends.
type ucharsTrie struct {
	u []uint16
	// pos is the next unit to read; -1 once nothing can match.
	pos int
	// rest counts the units of a linear-match node still to match, less
	// one; negative outside such a node.
	rest int
}

// Its results are bytestrie.go's trieResult.

// The serialization's constants.
const (
	ucMaxLinearBranch         = 5
	ucMinLinearMatch          = 0x30
	ucMinValueLead            = 0x40
	ucNodeTypeMask            = 0x3f
	ucValueIsFinal            = 0x8000
	ucMinTwoUnitValueLead     = 0x4000
	ucThreeUnitValueLead      = 0x7fff
	ucMinTwoUnitNodeValueLead = 0x4040
	ucThreeUnitNodeValueLead  = 0x7fc0
	ucMinTwoUnitDeltaLead     = 0xfc00
	ucThreeUnitDeltaLead      = 0xffff
)

// at returns the unit at i, or false past the data.
func (t *ucharsTrie) at(i int) (int, bool) {
	if i < 0 || i >= len(t.u) {
		return 0, false
	}
	return int(t.u[i]), true
}

func (t *ucharsTrie) reset() { t.pos, t.rest = 0, -1 }

func (t *ucharsTrie) stop() trieResult {
	t.pos = -1
	return trieNoMatch
}

// resultAt is the result of having arrived at node position p.
func (t *ucharsTrie) resultAt(p int) trieResult {
	node, ok := t.at(p)
	switch {
	case !ok:
		return t.stop()
	case t.rest >= 0 || node < ucMinValueLead:
		return trieNoValue
	case node&ucValueIsFinal != 0:
		return trieFinalValue
	}
	return trieIntermediateValue
}

// next moves on by one unit.
func (t *ucharsTrie) next(c int) trieResult {
	if t.pos < 0 {
		return trieNoMatch
	}
	if t.rest >= 0 { // inside a linear-match node
		u, ok := t.at(t.pos)
		if !ok || u != c {
			return t.stop()
		}
		t.pos++
		t.rest--
		return t.resultAt(t.pos)
	}
	p := t.pos
	node, ok := t.at(p)
	p++
	for ok {
		switch {
		case node < ucMinLinearMatch:
			return t.branch(p, node, c)
		case node < ucMinValueLead:
			u, ok := t.at(p)
			if !ok || u != c {
				return t.stop()
			}
			t.rest = node - ucMinLinearMatch - 1
			t.pos = p + 1
			return t.resultAt(t.pos)
		case node&ucValueIsFinal != 0:
			return t.stop() // a word ends here, and nothing follows it
		}
		// Skip the intermediate value; the lead's low bits are the node.
		p = skipNodeValue(p, node)
		node &= ucNodeTypeMask
	}
	return t.stop()
}

// branch matches c in the branch node whose choices start at p.
func (t *ucharsTrie) branch(p, n, c int) trieResult {
	if n == 0 {
		var ok bool
		if n, ok = t.at(p); !ok {
			return t.stop()
		}
		p++
	}
	n++
	// Halve the choices until few are left; each step moves p forward.
	for n > ucMaxLinearBranch {
		u, ok := t.at(p)
		if !ok {
			return t.stop()
		}
		p++
		if c < u {
			n >>= 1
			if p, ok = t.jump(p); !ok {
				return t.stop()
			}
		} else {
			n -= n >> 1
			if p, ok = t.skipDelta(p); !ok {
				return t.stop()
			}
		}
	}
	for ; n > 1; n-- {
		u, ok := t.at(p)
		if !ok {
			return t.stop()
		}
		p++
		if u == c {
			lead, ok := t.at(p)
			if !ok {
				return t.stop()
			}
			if lead&ucValueIsFinal != 0 {
				t.pos = p // the value is read there
				return trieFinalValue
			}
			// Otherwise the value is a jump to the next node.
			delta, q, ok := t.readValue(p+1, lead)
			if !ok {
				return t.stop()
			}
			t.pos = q + delta
			return t.resultAt(t.pos)
		}
		if p, ok = t.skipValue(p); !ok {
			return t.stop()
		}
	}
	u, ok := t.at(p)
	if !ok || u != c {
		return t.stop()
	}
	t.pos = p + 1
	return t.resultAt(t.pos)
}

// value is the value of the word just matched (the result had a value).
func (t *ucharsTrie) value() int {
	lead, ok := t.at(t.pos)
	if !ok {
		return 0
	}
	if lead&ucValueIsFinal != 0 {
		v, _, _ := t.readValue(t.pos+1, lead&0x7fff)
		return v
	}
	switch p := t.pos + 1; {
	case lead < ucMinTwoUnitNodeValueLead:
		return lead>>6 - 1
	case lead < ucThreeUnitNodeValueLead:
		u, _ := t.at(p)
		return (lead&0x7fc0-ucMinTwoUnitNodeValueLead)<<10 | u
	default:
		hi, _ := t.at(p)
		lo, _ := t.at(p + 1)
		return hi<<16 | lo
	}
}

// readValue reads a compact value whose lead (bit 15 cleared) came before
// p, and returns it with the position after it.
func (t *ucharsTrie) readValue(p, lead int) (v, next int, ok bool) {
	lead &= 0x7fff
	switch {
	case lead < ucMinTwoUnitValueLead:
		return lead, p, true
	case lead < ucThreeUnitValueLead:
		u, ok := t.at(p)
		return (lead-ucMinTwoUnitValueLead)<<16 | u, p + 1, ok
	}
	hi, ok1 := t.at(p)
	lo, ok2 := t.at(p + 1)
	return hi<<16 | lo, p + 2, ok1 && ok2
}

// skipValue moves past the compact value whose lead is at p.
func (t *ucharsTrie) skipValue(p int) (int, bool) {
	lead, ok := t.at(p)
	if !ok {
		return 0, false
	}
	_, q, ok := t.readValue(p+1, lead)
	return q, ok
}

// skipNodeValue moves past the intermediate value of the node lead just
// read (p is after it).
func skipNodeValue(p, lead int) int {
	switch {
	case lead < ucMinTwoUnitNodeValueLead:
		return p
	case lead < ucThreeUnitNodeValueLead:
		return p + 1
	}
	return p + 2
}

// jump reads the delta at p and returns where it leads.
func (t *ucharsTrie) jump(p int) (int, bool) {
	d, ok := t.at(p)
	if !ok {
		return 0, false
	}
	p++
	switch {
	case d < ucMinTwoUnitDeltaLead:
	case d == ucThreeUnitDeltaLead:
		hi, ok1 := t.at(p)
		lo, ok2 := t.at(p + 1)
		if !ok1 || !ok2 {
			return 0, false
		}
		d, p = hi<<16|lo, p+2
	default:
		u, ok := t.at(p)
		if !ok {
			return 0, false
		}
		d, p = (d-ucMinTwoUnitDeltaLead)<<16|u, p+1
	}
	return p + d, true
}

// skipDelta moves past the delta at p.
func (t *ucharsTrie) skipDelta(p int) (int, bool) {
	d, ok := t.at(p)
	switch {
	case !ok:
		return 0, false
	case d < ucMinTwoUnitDeltaLead:
		return p + 1, true
	case d == ucThreeUnitDeltaLead:
		return p + 3, true
	}
	return p + 2, true
}

// matchWords finds the dictionary words that begin text, of at most
// maxLen code points: their lengths in code points, shortest first, and
// their values, appended to lengths and values. A code point outside the
// BMP matches nothing, as in ICU, whose matcher feeds the trie code
// points as single units.
func (t *ucharsTrie) matchWords(text []rune, maxLen int, lengths, values []int) ([]int, []int) {
	t.reset()
	for n := 1; n <= maxLen && n <= len(text); n++ {
		c := text[n-1]
		r := trieNoMatch
		if c <= 0xffff {
			r = t.next(int(c))
		}
		if r.hasValue() {
			lengths = append(lengths, n)
			values = append(values, t.value())
		}
		if r == trieNoMatch || r == trieFinalValue {
			break
		}
	}
	return lengths, values
}
