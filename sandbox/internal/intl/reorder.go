package intl

import (
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/language"
)

// The locale a Collator resolves to, and the order of scripts it sorts
// in, as ICU 78 has them (collation_gen.go, written by
// internal/gencollation from what Node 20 answers).

// collationLocale is the locale V8 resolves a Collator's requested locales
// to: the first that names, or falls back to, a locale ICU has collation
// data for (the request's tag with subtags dropped from the end, as
// ECMA-402's BestAvailableLocale does), or the default locale. req is the
// requested tag it came from (its -u- keys are the Collator's), zero for
// the default.
func collationLocale(ls []string) (tag string, req language.Tag, err error) {
	for _, s := range ls {
		t, err := parseTag(s)
		if err != nil {
			return "", language.Tag{}, err
		}
		if tag != "" || t == language.Und {
			continue // still validate the rest, as V8 does
		}
		for c := stripExt(t).String(); c != ""; {
			if collationLocales[c] {
				tag, req = c, t
				break
			}
			i := strings.LastIndexByte(c, '-')
			if i < 0 {
				break
			}
			if i >= 2 && c[i-2] == '-' {
				i -= 2 // a singleton goes with what follows it
			}
			c = c[:i]
		}
	}
	if tag == "" {
		return defaultLocale, language.Tag{}, nil
	}
	return tag, req, nil
}

// scriptStart is where a script's letters start among x/text's root
// primary weights (scriptStarts): up to the next start, the weights are
// the script's.
type scriptStart struct {
	p      uint32
	script string
}

// tailoredHan is where x/text puts the characters a tailoring orders
// after all the root's letters, past every root weight: the Han
// characters of the Chinese and Japanese tailorings (pinyin, stroke,
// JIS). ICU sorts them before the Han characters no tailoring lists.
const tailoredHan = 0x100000

// maxPrimary bounds x/text's primary weights (23 bits).
const maxPrimary = 1 << 23

// reordering maps x/text's primary weights to the order of a locale's
// scripts: a weight p in [lo[i], lo[i+1]) becomes p - lo[i] + to[i].
type reordering struct {
	lo, to []uint32
}

var reorderings sync.Map // the scripts first (collationReorders) → *reordering

// reorderingFor returns the reordering of a collation locale with its
// collation (co, "" for the default; one without an entry of its own is
// the locale's default), nil where its scripts are in the root's order.
func reorderingFor(locale, co string) *reordering {
	first, ok := collationReorders[locale]
	if co != "" {
		// A collation Node names no order for is the locale's default
		// (stroke in zh-TW, zh-HK, zh-Hant…): its order is the locale's.
		if f, found := collationReorders[locale+"-u-co-"+co]; found || !ok {
			first, ok = f, found
		}
	}
	if !ok {
		return nil
	}
	if r, ok := reorderings.Load(first); ok {
		return r.(*reordering)
	}
	r, _ := reorderings.LoadOrStore(first, newReordering(strings.Fields(first)))
	return r.(*reordering)
}

// newReordering moves the weights of the scripts first to the start of
// the letters, in that order, and the other scripts' after them in the
// root's order. A script's tailored Han weights come before its others.
func newReordering(first []string) *reordering {
	type span struct {
		lo, hi uint32
		script string
	}
	var spans []span
	for i, s := range scriptStarts {
		hi := uint32(tailoredHan)
		if i+1 < len(scriptStarts) {
			hi = scriptStarts[i+1].p
		}
		spans = append(spans, span{s.p, hi, s.script})
	}
	spans = append(spans, span{tailoredHan, maxPrimary, "Han"})
	var order []span
	for _, name := range first {
		for i := len(spans) - 1; i >= 0; i-- {
			if s := spans[i]; s.script == name && s.lo >= tailoredHan {
				order = append(order, s)
			}
		}
		for _, s := range spans {
			if s.script == name && s.lo < tailoredHan {
				order = append(order, s)
			}
		}
	}
	for _, s := range spans {
		if !slices.Contains(first, s.script) {
			order = append(order, s)
		}
	}
	r := &reordering{}
	at := scriptStarts[0].p
	for _, s := range order {
		r.lo, r.to = append(r.lo, s.lo), append(r.to, at)
		at += s.hi - s.lo
	}
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(r.lo[a]) - int(r.lo[b]) })
	lo, to := make([]uint32, len(idx)), make([]uint32, len(idx))
	for i, j := range idx {
		lo[i], to[i] = r.lo[j], r.to[j]
	}
	r.lo, r.to = lo, to
	return r
}

// primary maps one primary weight.
func (r *reordering) primary(p uint32) uint32 {
	i, found := slices.BinarySearch(r.lo, p)
	if !found {
		i--
	}
	if i < 0 {
		return p // spaces, punctuation, symbols, digits
	}
	return p - r.lo[i] + r.to[i]
}

// apply returns key (an x/text collation key) with its primary weights
// mapped. The primary weights come first, each in two bytes up to 0x7FFF
// and three with the top bit set above, and end at two zero bytes or the
// key's end (collate.appendPrimary, keyFromElems); the other levels are
// unchanged. A weight's first byte may be 0: with numeric, a number's
// digit count is a primary weight (colltab.numberConverter), 1 to 0xFF
// for most.
func (r *reordering) apply(key []byte) []byte {
	out := make([]byte, 0, len(key)+len(key)/2)
	i := 0
	for i+1 < len(key) && (key[i] != 0 || key[i+1] != 0) {
		var p uint32
		if key[i]&0x80 != 0 {
			if i+2 >= len(key) {
				break
			}
			p = uint32(key[i]&0x7f)<<16 | uint32(key[i+1])<<8 | uint32(key[i+2])
			i += 3
		} else {
			p = uint32(key[i])<<8 | uint32(key[i+1])
			i += 2
		}
		if p = r.primary(p); p <= 0x7FFF {
			out = append(out, byte(p>>8), byte(p))
		} else {
			out = append(out, byte(p>>16)|0x80, byte(p>>8), byte(p))
		}
	}
	return append(out, key[i:]...)
}
