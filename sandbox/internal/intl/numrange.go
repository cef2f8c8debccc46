package intl

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Intl.NumberFormat.prototype.formatRange and formatRangeToParts, as
// ICU 78's NumberRangeFormatter writes them for V8 (identity fallback
// "approximately", collapse "auto"; icu4c numrange_impl.cpp):
//
//   - A formatted end is three layers around its digits: the inner one
//     (scientific notation's exponent), the middle one (the pattern's
//     affixes: sign, currency, percent sign, compact text) and the outer
//     one (a unit's or currency name's pattern, whose plural form follows
//     the number).
//   - Ends whose layers are alike and whose values are equal, before
//     rounding or after, are one approximate value: "~$3.00", the
//     locale's approximately sign where the pattern's sign goes.
//   - Otherwise the ends go into the locale's range pattern ("{0}–{1}").
//     The outer layer is said once, in the plural form CLDR's plural
//     ranges give the pair ("1–2 kilometers"); the middle one once when
//     both ends have the same and it is more than one character
//     ("3–5 %", "$3–5K", but "5% – 10%", "$3.00 – $5.00"); the inner one
//     never. Where any layer is said twice, spaces surround the range
//     pattern's separator.
//
// The request ("nfr") carries each end as its text and its JavaScript
// type: ICU decides "equal before rounding" on V8's Formattables, a double
// for a Number and, for a string or a BigInt, an integer where the value
// is one that fits 64 bits, else a double.

// rangeEnd is an end of a range as the prelude sends it: its text
// (numText) and "n" for a Number or "d" for a string or BigInt.
type rangeEnd [2]string

// rangeAnswer is the answer to "nfr": the text and, when asked, the parts
// with their source ("startRange", "endRange" or "shared").
type rangeAnswer struct {
	S string      `json:"s"`
	P [][3]string `json:"p,omitempty"`
}

func (h *Handler) numberRange(req *request) (any, error) {
	var start, end rangeEnd
	if json.Unmarshal(req.V, &start) != nil || json.Unmarshal(req.W, &end) != nil {
		return nil, typeErr("malformed Intl value")
	}
	a, err := h.numberFormat(&request{Op: "nf", L: req.L, O: req.O})
	if err != nil {
		return nil, err
	}
	ans := a.(*numAnswer)
	parts, err := ans.nf.formatRange(&ans.R, start, end)
	if err != nil {
		return nil, err
	}
	if ans.R.Style == "unit" && ans.R.Unit == "percent" {
		for i := range parts {
			if parts[i][0] == "percentSign" {
				parts[i][0] = "unit" // as formatPieces names it
			}
		}
	}
	out := rangeAnswer{}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p[1])
	}
	out.S = b.String()
	if req.P {
		out.P = parts
	}
	return out, nil
}

// rangeData is the locale's approximately sign and range pattern in the
// formatter's numbering system (numrange_gen.go), found as numberDataOf
// finds its symbols.
func (nf *numFormat) rangeData() [2]string {
	ns := nf.numbering
	for _, c := range numberCandidates(nf.lc) {
		i, ok := cldrNumberLocales[c]
		if !ok {
			continue
		}
		keys := []string{c + "|" + ns, c + "|latn", c}
		if cldrNumberData[i].ns == ns {
			keys = []string{c}
		}
		for _, k := range keys {
			if r, ok := cldrNumberRangeLocales[k]; ok && (k != c || cldrNumberData[i].ns == "latn" || cldrNumberData[i].ns == ns) {
				return cldrNumberRangeData[r]
			}
		}
		break
	}
	return cldrNumberRangeData[cldrNumberRangeLocales["en"]]
}

// layered is a formatted end split into its layers: the middle layer
// before and after the number (as written, and bare: without currency
// spacing, for comparing), the digits and the exponent.
type layered struct {
	p                numPieces
	pre, suf         [][2]string
	barePre, bareSuf [][2]string
	affPre, affSuf   int // how many parts of pre and suf are the pattern's affixes
	digits, exponent [][2]string
	form             string
}

var digitParts = map[string]bool{"integer": true, "group": true, "decimal": true, "fraction": true, "nan": true, "infinity": true}
var exponentParts = map[string]bool{"exponentSeparator": true, "exponentMinusSign": true, "exponentInteger": true}

func (nf *numFormat) layers(res *numResolved, e rangeEnd, which string) (layered, error) {
	p, err := nf.formatPieces(res, e[0])
	if err != nil {
		return layered{}, err
	}
	if p.x.nan {
		return layered{}, rangeErr("Invalid %s : %s", which, e[0])
	}
	aPre, aSuf := nf.aff.pre[p.which], nf.aff.suf[p.which]
	bPre, bSuf := nf.aff.barePre[p.which], nf.aff.bareSuf[p.which]
	if p.bare {
		aPre, aSuf = bPre, bSuf
	}
	num := p.parts[len(aPre) : len(p.parts)-len(aSuf)]
	i := 0
	for i < len(num) && !digitParts[num[i][0]] && !exponentParts[num[i][0]] {
		i++
	}
	j := i
	for j < len(num) && digitParts[num[j][0]] {
		j++
	}
	k := j
	for k < len(num) && (exponentParts[num[k][0]] ||
		// a bidi mark in the exponent's sign ("E‎-4")
		k > j && num[k][0] == "literal" && k+1 < len(num) && exponentParts[num[k+1][0]]) {
		k++
	}
	l := layered{p: p, digits: num[i:j], exponent: num[j:k], affPre: len(aPre), affSuf: len(aSuf)}
	l.pre = append(append([][2]string{}, aPre...), num[:i]...)
	l.suf = append(append([][2]string{}, num[k:]...), aSuf...)
	l.barePre = append(append([][2]string{}, bPre...), num[:i]...)
	l.bareSuf = append(append([][2]string{}, num[k:]...), bSuf...)
	l.form = nf.pluralOf(res, p.x)
	return l, nil
}

func sameParts(a, b [][2]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func partsRunes(ps ...[][2]string) int {
	n := 0
	for _, p := range ps {
		for _, q := range p {
			n += utf8.RuneCountInString(q[1])
		}
	}
	return n
}

// formatRange formats the range from start to end as parts with their
// source.
func (nf *numFormat) formatRange(res *numResolved, start, end rangeEnd) ([][3]string, error) {
	a, err := nf.layers(res, start, "start")
	if err != nil {
		return nil, err
	}
	b, err := nf.layers(res, end, "end")
	if err != nil {
		return nil, err
	}
	data := nf.rangeData()
	sameMiddle := sameParts(a.barePre, b.barePre) && sameParts(a.bareSuf, b.bareSuf)
	sameInner := sameParts(a.exponent, b.exponent)
	if sameMiddle && sameInner && (formattableEqual(start, end) ||
		a.p.x.neg == b.p.x.neg && sameParts(a.digits, b.digits)) {
		return nf.approximately(res, a, data[0]), nil
	}

	collapseMiddle := sameMiddle && partsRunes(a.barePre, a.bareSuf) > 1
	pat := data[1]
	i, j := strings.Index(pat, "{0}"), strings.Index(pat, "{1}")
	if i < 0 || j < i+3 {
		pat, i, j = "{0}–{1}", 0, 6
	}
	infix := pat[i+3 : j]
	// ICU's spacing heuristic: a layer said twice (the first end's
	// exponent or its middle layer, when not collapsed and not empty)
	// puts spaces around the separator, unless it has them.
	if len(a.exponent) > 0 || !collapseMiddle && partsRunes(a.barePre, a.bareSuf) > 0 {
		if r, _ := utf8.DecodeRuneInString(infix); !patternSpace(r) {
			infix = " " + infix
		}
		if r, _ := utf8.DecodeLastRuneInString(infix); !patternSpace(r) {
			infix += " "
		}
	}
	form := a.form
	if res.Style == "unit" && affStyle(res) != "percent" || res.Style == "currency" && res.CurrencyDisplay == "name" {
		form = rangeCategory(nf.lc, a.form, b.form)
	}
	before, after, hasNum := nf.outer(res, form)

	// The parts in ICU's order: the range pattern's prefix, the collapsed
	// middle layer's prefix, the outer layer's, the ends and the
	// separator, the suffixes. ICU marks each end's span by the lengths it
	// counts, which leave out the currency spacing a collapsed prefix
	// adds ("USD 3.00–5.00": the spans start at the space); V8 makes a
	// part of an end's source if the end's span holds it, else "shared".
	var out [][2]string
	out = append(out, literalParts(pat[:i])...)
	s0 := partsLen(out)
	if !hasNum {
		return withSources(append(out, before...), 0, 0, 0, 0), nil
	}
	var side1, side2 [][2]string
	if collapseMiddle {
		out = append(out, a.pre...)
		s0 += partsLen(a.barePre)
		side1 = concat(a.digits, a.exponent)
		side2 = concat(b.digits, b.exponent)
	} else {
		side1 = concat(a.pre, a.digits, a.exponent, a.suf)
		side2 = concat(b.pre, b.digits, b.exponent, b.suf)
	}
	s0 += partsLen(before)
	out = concat(out, before, side1, literalParts(infix), side2)
	if collapseMiddle {
		out = append(out, b.suf...)
	}
	out = joinCurrency(concat(out, literalParts(pat[j+3:])), after)
	e0 := s0 + partsLen(side1)
	s1 := e0 + partsLen(literalParts(infix))
	return withSources(out, s0, e0, s1, s1+partsLen(side2)), nil
}

func concat(ps ...[][2]string) [][2]string {
	var out [][2]string
	for _, p := range ps {
		out = append(out, p...)
	}
	return out
}

// partsLen is the parts' length in UTF-16 code units.
func partsLen(ps [][2]string) int {
	n := 0
	for _, p := range ps {
		n += utf16Len(p[1])
	}
	return n
}

// withSources joins adjacent literals (V8 reports the text between ICU's
// fields as one literal) and gives each part its source: "startRange"
// within [s0, e0), "endRange" within [s1, e1) (UTF-16 offsets), else
// "shared".
func withSources(parts [][2]string, s0, e0, s1, e1 int) [][3]string {
	var out [][3]string
	pos := 0
	for _, p := range parts {
		if k := len(out) - 1; k >= 0 && p[0] == "literal" && out[k][0] == "literal" {
			out[k][1] += p[1]
			continue
		}
		out = append(out, [3]string{p[0], p[1], ""})
	}
	for k := range out {
		n := utf16Len(out[k][1])
		switch {
		case s0 <= pos && pos+n <= e0:
			out[k][2] = "startRange"
		case s1 <= pos && pos+n <= e1:
			out[k][2] = "endRange"
		default:
			out[k][2] = "shared"
		}
		pos += n
	}
	return out
}

// patternSpace is ICU's PatternProps::isWhiteSpace.
func patternSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u0085', '\u200e', '\u200f', '\u2028', '\u2029':
		return true
	}
	return false
}

func literalParts(s string) [][2]string {
	if s == "" {
		return nil
	}
	return [][2]string{{"literal", s}}
}

// approximately writes the end a as an approximate value: the locale's
// approximately sign where its pattern has the sign (before a minus or a
// plus sign; for a value without one, where the pattern's negative form
// has its minus sign, else first), none for a negative value whose
// pattern has no minus sign (accounting's parentheses).
func (nf *numFormat) approximately(res *numResolved, a layered, sign string) [][3]string {
	approx := [2]string{"approximatelySign", sign}
	aPre, aSuf := a.pre[:a.affPre], a.suf[len(a.suf)-a.affSuf:]
	pre, suf := aPre, aSuf
	switch a.p.which {
	case plusAffix:
		pre, suf = insertBefore(aPre, aSuf, nf.sym.plus, "plusSign", approx, true)
	case negAffix:
		pre, suf = insertBefore(aPre, aSuf, nf.sym.minus, "minusSign", approx, false)
	default:
		if len(a.pre) > a.affPre || len(a.suf) > a.affSuf {
			// A compact pattern ("¤0K") has no negative form: the sign
			// goes first.
			pre = append([][2]string{approx}, aPre...)
			break
		}
		nPre, nSuf := nf.aff.pre[negAffix], nf.aff.suf[negAffix]
		if a.p.bare {
			nPre, nSuf = nf.aff.barePre[negAffix], nf.aff.bareSuf[negAffix]
		}
		if at, n, ok := signAt(nPre, nf.sym.minus, "minusSign"); ok {
			pre, suf = splice(nPre, at, n, approx), nSuf
		} else if at, n, ok := signAt(nSuf, nf.sym.minus, "minusSign"); ok {
			pre, suf = nPre, splice(nSuf, at, n, approx)
		} else {
			pre = append([][2]string{approx}, aPre...)
		}
	}
	before, after, hasNum := nf.outer(res, a.form)
	if !hasNum {
		return withSources(before, 0, 0, 0, 0)
	}
	return withSources(joinCurrency(concat(before, pre, a.pre[a.affPre:], a.digits, a.exponent, a.suf[:len(a.suf)-a.affSuf], suf), after), 0, 0, 0, 0)
}

// joinCurrency appends the currency name pattern's text after the number
// (currencyNameOuter) to a range's parts as appendName does for one
// number: where the parts end in the currency's symbol and only a space
// separates the name from it, ICU's currency field runs from the symbol to
// the end of the name ("1 - 2 ADP Pesetas de Andorra" in pt-CV: one
// currency part, shared).
func joinCurrency(out, after [][2]string) [][2]string {
	n := len(out)
	if n == 0 || out[n-1][0] != "currency" || len(after) == 0 {
		return concat(out, after)
	}
	switch {
	case after[0][0] == "currency":
		out = concat(out[:n-1], [][2]string{{"currency", out[n-1][1] + after[0][1]}}, after[1:])
	case len(after) > 1 && after[0][0] == "literal" && strings.TrimSpace(after[0][1]) == "" && after[1][0] == "currency":
		out = concat(out[:n-1], [][2]string{{"currency", out[n-1][1] + after[0][1] + after[1][1]}}, after[2:])
	default:
		out = concat(out, after)
	}
	return out
}

// insertBefore puts approx before the sign sym (a part of type typ) in pre
// or else suf; where neither has it, first in pre when orFirst.
func insertBefore(pre, suf [][2]string, sym, typ string, approx [2]string, orFirst bool) ([][2]string, [][2]string) {
	if at, _, ok := signAt(pre, sym, typ); ok {
		return splice(pre, at, 0, approx), suf
	}
	if at, _, ok := signAt(suf, sym, typ); ok {
		return pre, splice(suf, at, 0, approx)
	}
	if orFirst {
		return append([][2]string{approx}, pre...), suf
	}
	return pre, suf
}

// signAt finds the sign sym in the parts' text, or else its part of type
// typ: its byte offset and length.
func signAt(parts [][2]string, sym, typ string) (at, n int, ok bool) {
	text := joinParts(parts)
	if sym != "" {
		if i := strings.Index(text, sym); i >= 0 {
			return i, len(sym), true
		}
	}
	off := 0
	for _, p := range parts {
		if p[0] == typ {
			return off, len(p[1]), true
		}
		off += len(p[1])
	}
	return 0, 0, false
}

// splice replaces the del bytes of the parts' text at byte offset at with
// ins, splitting the parts where the bounds fall.
func splice(parts [][2]string, at, del int, ins ...[2]string) [][2]string {
	out := make([][2]string, 0, len(parts)+len(ins)+1)
	off, done := 0, false
	for _, p := range parts {
		s, e := off, off+len(p[1])
		off = e
		if !done && at <= e {
			if at > s {
				out = append(out, [2]string{p[0], p[1][:at-s]})
			}
			out = append(out, ins...)
			done = true
			rest := at + del
			if rest < e {
				out = append(out, [2]string{p[0], p[1][max(rest-s, 0):]})
			}
			continue
		}
		if done && s < at+del {
			if at+del < e {
				out = append(out, [2]string{p[0], p[1][at+del-s:]})
			}
			continue
		}
		out = append(out, p)
	}
	if !done {
		out = append(out, ins...)
	}
	return out
}

// formattableEqual is ICU's Formattable equality of the values V8 gives
// it for two ends: the same type (a double; a 32- or 64-bit integer) and
// the same value.
func formattableEqual(a, b rangeEnd) bool {
	ta, va := formattableOf(a)
	tb, vb := formattableOf(b)
	return ta == tb && va == vb
}

func formattableOf(e rangeEnd) (byte, string) {
	text := strings.TrimSpace(e[0])
	if e[1] == "d" {
		if x, ok := parseDec(text); ok && !x.nan && !x.inf && x.exp >= len(x.d) && x.exp <= 19 {
			ip, _ := x.split()
			if x.neg && len(x.d) > 0 {
				ip = "-" + ip
			}
			if n, err := strconv.ParseInt(ip, 10, 64); err == nil {
				if n == int64(int32(n)) {
					return 'l', strconv.FormatInt(n, 10)
				}
				return 'i', strconv.FormatInt(n, 10)
			}
		}
	}
	f, _ := strconv.ParseFloat(text, 64)
	if f == 0 {
		f = 0 // -0 == 0
	}
	return 'd', strconv.FormatFloat(f, 'g', -1, 64)
}
