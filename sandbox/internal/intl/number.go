package intl

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bojanz/currency"
)

// numOptions are Intl.NumberFormat's options as the prelude passes them:
// strings already converted, digit counts as integers (-1 for a value that
// is not a finite number), absent ones omitted.
type numOptions struct {
	NumberingSystem *string         `json:"numberingSystem"`
	Style           string          `json:"style"`
	Currency        string          `json:"currency"`
	CurrencyDisplay string          `json:"currencyDisplay"`
	CurrencySign    string          `json:"currencySign"`
	Unit            string          `json:"unit"`
	UnitDisplay     string          `json:"unitDisplay"`
	Notation        string          `json:"notation"`
	MinInt          numOpt          `json:"minimumIntegerDigits"`
	MinFrac         numOpt          `json:"minimumFractionDigits"`
	MaxFrac         numOpt          `json:"maximumFractionDigits"`
	MinSig          numOpt          `json:"minimumSignificantDigits"`
	MaxSig          numOpt          `json:"maximumSignificantDigits"`
	UseGrouping     json.RawMessage `json:"useGrouping"`
	SignDisplay     string          `json:"signDisplay"`
	CompactDisplay  string          `json:"compactDisplay"`
	// The rounding options (rounding.go).
	RoundingIncrement   numOpt `json:"roundingIncrement"`
	RoundingMode        string `json:"roundingMode"`
	RoundingPriority    string `json:"roundingPriority"`
	TrailingZeroDisplay string `json:"trailingZeroDisplay"`
}

// numResolved is resolvedOptions(), in V8's property order.
type numResolved struct {
	Locale              string `json:"locale"`
	NumberingSystem     string `json:"numberingSystem"`
	Style               string `json:"style"`
	Unit                string `json:"unit,omitempty"`
	UnitDisplay         string `json:"unitDisplay,omitempty"`
	Currency            string `json:"currency,omitempty"`
	CurrencyDisplay     string `json:"currencyDisplay,omitempty"`
	CurrencySign        string `json:"currencySign,omitempty"`
	MinInt              int    `json:"minimumIntegerDigits"`
	MinSig              *int   `json:"minimumSignificantDigits,omitempty"`
	MaxSig              *int   `json:"maximumSignificantDigits,omitempty"`
	MinFrac             *int   `json:"minimumFractionDigits,omitempty"`
	MaxFrac             *int   `json:"maximumFractionDigits,omitempty"`
	UseGrouping         any    `json:"useGrouping"`
	Notation            string `json:"notation"`
	CompactDisplay      string `json:"compactDisplay,omitempty"`
	SignDisplay         string `json:"signDisplay"`
	RoundingMode        string `json:"roundingMode"`
	RoundingIncrement   int    `json:"roundingIncrement"`
	TrailingZeroDisplay string `json:"trailingZeroDisplay"`
	RoundingPriority    string `json:"roundingPriority"`
}

// numAnswer is the answer to "nf": the resolved options, and the formatted
// value (and its parts) when the request had one.
type numAnswer struct {
	R numResolved `json:"r"`
	S *string     `json:"s,omitempty"`
	P [][2]string `json:"p,omitempty"`
	// nf formats with R, for a compiled formatter (compiled.go).
	nf *numFormat
}

// maxFractionDigits is Node 20's (V8 11.3) upper bound of the fraction
// digit options.
const maxFractionDigits = 20

const maxValueChars = 4096 // a BigInt of up to ~4000 digits; longer is a RangeError

func (h *Handler) numberFormat(req *request) (any, error) {
	lc, err := resolve(req.L)
	if err != nil {
		return nil, err
	}
	var o numOptions
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	kept := map[string]string{}
	ns, err := numberingSystem(keywords(lc), o.NumberingSystem, kept)
	if err != nil {
		return nil, err
	}
	res := numResolved{Locale: withKeywords(lc.tag, kept)}
	if res.Style, err = enumOption("NumberFormat", "style", o.Style, "decimal", "decimal", "percent", "currency", "unit"); err != nil {
		return nil, err
	}
	code := strings.ToUpper(o.Currency)
	if o.Currency != "" && !wellFormedCurrency(o.Currency) {
		if err := checkLen("currency", o.Currency); err != nil {
			return nil, err
		}
		return nil, rangeErr("Invalid currency code : %s", o.Currency)
	}
	display, err := enumOption("NumberFormat", "currencyDisplay", o.CurrencyDisplay, "symbol", "symbol", "narrowSymbol", "code", "name")
	if err != nil {
		return nil, err
	}
	sign, err := enumOption("NumberFormat", "currencySign", o.CurrencySign, "standard", "standard", "accounting")
	if err != nil {
		return nil, err
	}
	if res.Notation, err = enumOption("NumberFormat", "notation", o.Notation, "standard", "standard", "scientific", "engineering", "compact"); err != nil {
		return nil, err
	}
	if res.SignDisplay, err = enumOption("NumberFormat", "signDisplay", o.SignDisplay, "auto", "auto", "never", "always", "exceptZero", "negative"); err != nil {
		return nil, err
	}
	switch res.Style {
	case "currency":
		if code == "" {
			return nil, typeErr("Currency code is required with currency style.")
		}
		res.Currency, res.CurrencyDisplay, res.CurrencySign = code, display, sign
	case "unit":
		if o.Unit == "" {
			return nil, typeErr("Invalid unit argument for Intl.NumberFormat() ''")
		}
		if _, ok := cldrUnits["en"]["short|"+o.Unit+"|other"]; !ok {
			if err := checkLen("unit", o.Unit); err != nil {
				return nil, err
			}
			return nil, rangeErr("Invalid unit argument for Intl.NumberFormat() '%s'", o.Unit)
		}
		res.Unit = o.Unit
		if res.UnitDisplay, err = enumOption("NumberFormat", "unitDisplay", o.UnitDisplay, "short", "short", "long", "narrow"); err != nil {
			return nil, err
		}
	}
	compact := res.Notation == "compact"
	if compact {
		if res.CompactDisplay, err = enumOption("NumberFormat", "compactDisplay", o.CompactDisplay, "short", "short", "long"); err != nil {
			return nil, err
		}
	}
	if res.UseGrouping, err = grouping(o.UseGrouping); err != nil {
		return nil, err
	}
	if compact && (len(o.UseGrouping) == 0 || string(o.UseGrouping) == "null") {
		res.UseGrouping = "min2"
	}

	defMin, defMax := 0, 3
	switch res.Style {
	case "percent":
		defMax = 0
	case "currency":
		d := currencyDigits(code)
		defMin, defMax = d, d
	}
	if err := digitOptions(&o, defMin, defMax, res.Notation, &res); err != nil {
		return nil, err
	}
	affStyle := affStyle(&res)
	symStyle := affStyle
	var special *money
	if res.Style == "currency" && !compact {
		special = h.specialMoney(lc, code)
	}
	switch {
	case special != nil:
		// ICU takes a currency-specific pattern for every display, by name
		// too (tr-TR: "$1.234,57 ABD doları"), and it has no accounting form.
		affStyle, symStyle, sign = "currency", "currency", "standard"
	case res.Style == "currency" && affStyle != "currency":
		symStyle = "currency-name" // a currency's name: the decimal pattern, money's separators
	}
	nf := h.numFormat(lc, ns, affStyle, res.Currency, display, sign, symStyle, special)
	nf.lc = lc
	if compact {
		nf.compact = cldrCompactData[nf.sym.data.compact]
	}
	res.NumberingSystem = nf.numbering
	ans := &numAnswer{R: res, nf: nf}
	if len(req.V) > 0 {
		var v string
		if err := json.Unmarshal(req.V, &v); err != nil {
			return nil, typeErr("malformed Intl value")
		}
		parts, err := nf.format(&res, v)
		if err != nil {
			return nil, err
		}
		s := joinParts(parts)
		ans.S = &s
		if req.P {
			ans.P = parts
		}
	}
	return ans, nil
}

func joinParts(parts [][2]string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p[1])
	}
	return b.String()
}

func wellFormedCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// grouping reads useGrouping: absent "auto", true "always", false (or any
// falsy value) false, or one of the strings.
func grouping(raw json.RawMessage) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "auto", nil
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		if b {
			return "always", nil
		}
		return false, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, typeErr("malformed useGrouping")
	}
	switch s {
	case "auto", "always", "min2":
		return s, nil
	case "true", "false":
		return "auto", nil
	case "":
		return false, nil
	}
	if err := checkLen("useGrouping", s); err != nil {
		return nil, err
	}
	return nil, rangeErr("Value %s out of range for Intl.NumberFormat options property useGrouping", s)
}

// symbols are a locale's number symbols and grouping (numbers.go reads
// them from numbers_gen.go's CLDR data).
type symbols struct {
	numbering       string
	zero            rune
	decimal, group  string
	primary, second int
	minGrouping     int
	minus, plus     string
	percent         string
	exp, nan, inf   string
	data            *numberData
}

// affixes are the parts around the number for positive, negative and
// explicitly positive values (and an accounting negative).
type affixes struct {
	pre, suf [3][][2]string
	// bare are a currency's affixes without the space CLDR's currency
	// spacing puts between a letter and a digit: ICU leaves it out next
	// to NaN and ∞ ("USD∞").
	barePre, bareSuf [3][][2]string
	// spacing is how many characters that currency spacing adds (to a
	// currency-specific pattern's affixes, patternMoneyAffixes).
	spacing int
}

const (
	posAffix = iota
	negAffix
	plusAffix
)

type numFormat struct {
	compact   map[string]string // "short|1000|one" → pattern, for compact notation
	lc        loc
	numbering string
	sym       *symbols
	aff       *affixes
	nanText   string
	money     *money // the currency's names and symbols, for style currency
	special   bool   // formatted with a currency-specific pattern (specialMoney)
}

// numFormat returns the (cached) formatter data for a locale and the
// style of its pattern; symStyle is the style whose separators it uses
// (style, or "currency-name" for a currency written by name); special is
// the currency-specific pattern and separators ICU applies (specialMoney),
// or nil.
func (h *Handler) numFormat(lc loc, ns, style, code, display, sign, symStyle string, special *money) *numFormat {
	sym := h.symbolsOf(lc, ns)
	data := sym.data
	switch {
	case special != nil:
		// ICU's currency data fills in "." and "," where CLDR gives none.
		s := *sym
		s.decimal = cmp.Or(special.decimal, ".")
		s.group = cmp.Or(special.group, ",")
		if special.pattern != "" {
			s.primary, s.second = groupSizes(special.pattern)
		}
		sym = &s
		symStyle = "special"
	}
	switch symStyle {
	case "percent":
		// The percent pattern has its own grouping ("#,##,##0%").
		s := *sym
		s.primary, s.second = groupSizes(data.percentPattern)
		sym = &s
	case "currency", "currency-name":
		// Some locales separate money otherwise ("1 234.50 CHF" in fr-CH,
		// "1.234,50 US-Dollar" in de-AT).
		if data.curDecimal != "" || data.curGroup != "" {
			s := *sym
			s.decimal = cmp.Or(data.curDecimal, s.decimal)
			s.group = cmp.Or(data.curGroup, s.group)
			sym = &s
		}
	}
	text := ""
	var m *money
	if code != "" {
		m = h.moneyOf(lc, code)
		switch display {
		case "symbol":
			text = m.symbol
		case "narrowSymbol":
			text = m.narrow
		case "name":
			text = m.symbol // inside a currency-specific pattern
		default:
			text = code
		}
	}
	pattern := ""
	if special != nil {
		pattern = cmp.Or(special.pattern, "-") // "-": the locale's standard pattern
	}
	key := "aff\x00" + data.key() + "\x00" + lc.cur.String() + "\x00" + lc.tr.Locale() + "\x00" + style + "\x00" + code + "\x00" + display + "\x00" + sign + "\x00" + symStyle + "\x00" + text + "\x00" + pattern
	aff := h.cached(key, func() any {
		if special != nil && special.pattern != "" {
			return patternMoneyAffixes(sym, special.pattern, text)
		}
		return readAffixes(lc, sym, style, code, text, sign)
	}).(*affixes)
	return &numFormat{numbering: sym.numbering, sym: sym, aff: aff, nanText: sym.nan, money: m, special: special != nil}
}

// core returns the part of s from its first to its last digit, and what
// surrounds it.
func core(s string) (pre, mid, suf string) {
	first, last := -1, -1
	for i, r := range s {
		if unicode.IsDigit(r) {
			if first < 0 {
				first = i
			}
			_, n := utf8.DecodeRuneInString(s[i:])
			last = i + n
		}
	}
	if first < 0 {
		return s, "", ""
	}
	return s[:first], s[first:last], s[last:]
}

func probe(f *currency.Formatter, n, code string) string {
	a, err := currency.NewAmount(n, code)
	if err != nil {
		return n
	}
	return f.Format(a)
}

// tokenize splits an affix into parts: signs, percent signs, the currency
// text and literals.
func tokenize(s, cur string) [][2]string {
	var out [][2]string
	lit := ""
	flush := func() {
		if lit != "" {
			out = append(out, [2]string{"literal", lit})
			lit = ""
		}
	}
	for s != "" {
		if cur != "" && strings.HasPrefix(s, cur) {
			flush()
			// Bidi marks in a symbol ("ج.م.\u200f") are literals to ICU.
			text := strings.TrimRight(cur, "\u200e\u200f\u061c")
			out = append(out, [2]string{"currency", text})
			lit = cur[len(text):]
			s = s[len(cur):]
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		switch r {
		case '-', '−':
			flush()
			out = append(out, [2]string{"minusSign", string(r)})
		case '+':
			flush()
			out = append(out, [2]string{"plusSign", string(r)})
		case '%', '٪':
			flush()
			out = append(out, [2]string{"percentSign", string(r)})
		default:
			lit += string(r)
		}
		s = s[n:]
	}
	flush()
	return out
}

// readAffixes reads the affixes of style in lc's locale; a currency's are
// written with text (its symbol, narrow symbol or code).
func readAffixes(lc loc, sym *symbols, style, code, text, sign string) any {
	a := &affixes{}
	switch style {
	case "decimal", "unit":
		a.pre[negAffix] = tokenize(sym.minus, "")
		a.pre[plusAffix] = tokenize(sym.plus, "")
	case "percent":
		pre, suf := patternAffixes(sym.data.percentPattern)
		pre = strings.ReplaceAll(pre, "%", sym.percent)
		suf = strings.ReplaceAll(suf, "%", sym.percent)
		for i, sg := range []string{"", sym.minus, sym.plus} {
			a.pre[i] = tokenize(sg+pre, "")
			a.suf[i] = tokenize(suf, "")
		}
	case "currency":
		probeCode := code
		if !currency.IsValid(code) {
			probeCode = "USD"
		}
		f := currency.NewFormatter(lc.cur)
		f.MinDigits, f.MaxDigits = 0, 0
		f.AccountingStyle = sign == "accounting"
		f.SymbolMap[probeCode] = text
		for i, n := range []string{"1", "-1", "1"} {
			f.AddPlusSign = i == plusAffix
			f.SymbolMap[probeCode] = text
			pre, _, suf := core(probe(f, n, probeCode))
			// CLDR's currency spacing separates any currency that does not
			// end (or start) in a symbol from the digits: bojanz/currency
			// does for letters only ("Cg. 1.00", "р. 5").
			if strings.HasSuffix(pre, text) && spacedCurrency(text, true) {
				pre += "\u00a0"
			}
			if strings.HasPrefix(suf, text) && spacedCurrency(text, false) {
				suf = "\u00a0" + suf
			}
			a.pre[i] = tokenize(pre, text)
			a.suf[i] = tokenize(suf, text)
			f.SymbolMap[probeCode] = "\u00a4" // a sign, never spaced
			pre, _, suf = core(probe(f, n, probeCode))
			a.barePre[i] = tokenize(strings.Replace(pre, "\u00a4", text, 1), text)
			a.bareSuf[i] = tokenize(strings.Replace(suf, "\u00a4", text, 1), text)
		}
	}
	if style != "currency" {
		a.barePre, a.bareSuf = a.pre, a.suf
	}
	return a
}

// dec is a decimal: 0.d × 10^exp, d without leading or trailing zeros
// (empty for zero).
type dec struct {
	neg      bool
	d        []byte
	exp      int
	nan, inf bool
}

const maxExp = 1000

// parseDec reads a decimal numeral as JS prints numbers and BigInts (and
// as ECMA-402 reads a string value).
func parseDec(s string) (dec, bool) {
	s = strings.TrimSpace(s)
	var x dec
	switch s {
	case "NaN":
		x.nan = true
		return x, true
	case "Infinity", "+Infinity":
		x.inf = true
		return x, true
	case "-Infinity":
		x.inf, x.neg = true, true
		return x, true
	}
	if s == "" {
		return x, true // ToNumber("") is 0
	}
	if s[0] == '-' || s[0] == '+' {
		x.neg = s[0] == '-'
		s = s[1:]
	}
	seenDot, digits, e := false, 0, 0
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if c == '0' && len(x.d) == 0 {
				if seenDot {
					e--
				}
				continue
			}
			x.d = append(x.d, c)
			if !seenDot {
				e++
			}
		case c == '.' && !seenDot:
			seenDot = true
		default:
			goto exp
		}
	}
exp:
	if digits == 0 {
		return x, false
	}
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return x, false
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return x, false
		}
		n := 0
		for ; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return x, false
			}
			n = n*10 + int(s[i]-'0')
			if n > maxExp {
				return x, false
			}
		}
		if eneg {
			n = -n
		}
		e += n
	}
	x.exp = e
	x.trim()
	return x, true
}

func (x *dec) trim() {
	for len(x.d) > 0 && x.d[len(x.d)-1] == '0' {
		x.d = x.d[:len(x.d)-1]
	}
	if len(x.d) == 0 {
		x.exp = 0
	}
}

// round keeps n digits of d, rounding half away from zero (halfExpand).
func (x *dec) round(n int) {
	if n >= len(x.d) {
		return
	}
	if n < 0 {
		x.d = x.d[:0]
		x.trim()
		return
	}
	up := x.d[n] >= '5'
	x.d = x.d[:n]
	if up {
		i := n - 1
		for ; i >= 0 && x.d[i] == '9'; i-- {
			x.d[i] = '0'
		}
		if i < 0 {
			x.d = append([]byte{'1'}, x.d...)
			x.exp++
		} else {
			x.d[i]++
		}
	}
	x.trim()
}

func (nf *numFormat) format(res *numResolved, v string) ([][2]string, error) {
	p, err := nf.formatPieces(res, v)
	if err != nil {
		return nil, err
	}
	if res.Style == "currency" && res.CurrencyDisplay == "name" {
		return nf.currencyNameParts(res, p.x, p.parts), nil
	}
	before, after, hasNum := nf.outer(res, nf.pluralOf(res, p.x))
	if !hasNum {
		return before, nil // "درجة": the pattern's words say the number
	}
	out := append(before, p.parts...)
	return append(out, after...), nil
}

// numPieces is a value formatted up to its unit or currency name: the
// parts (affixes, digits, exponent), the value read, and which affixes
// (posAffix, negAffix, plusAffix) and whether their bare form it took.
type numPieces struct {
	parts [][2]string
	x     dec
	which int
	bare  bool
}

// formatPieces formats v without the unit or currency name that outer
// puts around it.
func (nf *numFormat) formatPieces(res *numResolved, v string) (numPieces, error) {
	if len(v) > maxValueChars {
		return numPieces{}, rangeErr("Intl value of %d characters exceeds %d", len(v), maxValueChars)
	}
	x, ok := parseDec(v)
	if !ok {
		x.nan = true
		x.neg = false
	}
	var num [][2]string
	zero := len(x.d) == 0
	switch {
	case x.nan:
		num = [][2]string{{"nan", nf.nanText}}
		zero = true
		x.neg = false
	case x.inf:
		num = [][2]string{{"infinity", nf.sym.inf}}
		zero = false
	case res.Notation == "scientific" || res.Notation == "engineering":
		if res.Style == "percent" && !zero {
			x.exp += 2
		}
		num = nf.formatScientific(res, x)
	case nf.compact != nil && !zero:
		if res.Style == "percent" {
			x.exp += 2
		}
		var err error
		num, zero, err = nf.formatCompact(res, x)
		if err != nil {
			return numPieces{}, err
		}
	default:
		if res.Style == "percent" && !zero {
			x.exp += 2
		}
		ip, fp := roundFor(res, &x)
		zero = len(x.d) == 0
		if len(ip) < res.MinInt {
			ip = strings.Repeat("0", res.MinInt-len(ip)) + ip
		}
		num = nf.digits(ip, fp, res.UseGrouping)
	}
	which := posAffix
	switch res.SignDisplay {
	case "auto":
		if x.neg {
			which = negAffix
		}
	case "always":
		which = plusAffix
		if x.neg {
			which = negAffix
		}
	case "exceptZero":
		if !zero {
			which = plusAffix
			if x.neg {
				which = negAffix
			}
		}
	case "negative":
		if x.neg && !zero {
			which = negAffix
		}
	}
	pre, suf := nf.aff.pre[which], nf.aff.suf[which]
	if x.nan || x.inf {
		pre, suf = nf.aff.barePre[which], nf.aff.bareSuf[which]
	}
	out := make([][2]string, 0, len(num)+4)
	out = append(out, pre...)
	out = append(out, num...)
	out = append(out, suf...)
	if res.Style == "unit" && res.Unit == "percent" {
		// The percent unit takes the percent pattern, but its sign is
		// the unit to ICU.
		for i := range out {
			if out[i][0] == "percentSign" {
				out[i][0] = "unit"
			}
		}
	}
	return numPieces{parts: out, x: x, which: which, bare: x.nan || x.inf}, nil
}

// outer is the text a unit's or currency name's pattern for the plural
// form puts before and after the number (none for the other styles), and
// whether the pattern has the number at all.
func (nf *numFormat) outer(res *numResolved, form string) (before, after [][2]string, hasNum bool) {
	if res.Style == "unit" && affStyle(res) != "percent" {
		return nf.unitParts(res, form)
	}
	if res.Style == "currency" && res.CurrencyDisplay == "name" {
		b, a := nf.currencyNameOuter(res, form)
		return b, a, true
	}
	return nil, nil, true
}

// affStyle is the style whose affixes a format uses: ICU formats the short
// percent unit with the percent pattern, and a currency by name as a
// decimal inside the name pattern.
func affStyle(res *numResolved) string {
	switch {
	case res.Unit == "percent" && res.UnitDisplay != "long":
		return "percent"
	case res.Style == "currency" && res.CurrencyDisplay == "name":
		return "decimal"
	}
	return res.Style
}

// unitParts is the text of the unit's pattern for the plural form before
// and after the number, and whether it has the number.
func (nf *numFormat) unitParts(res *numResolved, form string) (before, after [][2]string, hasNum bool) {
	units := cldrOf(cldrUnits, nf.lc)
	pat, ok := units[res.UnitDisplay+"|"+res.Unit+"|"+form]
	if !ok {
		pat = units[res.UnitDisplay+"|"+res.Unit+"|other"]
	}
	b, a, hasNum := strings.Cut(pat, "{0}")
	return unitAffix(b), unitAffix(a), hasNum
}

// pluralOf is the plural form of x as the options round it.
func (nf *numFormat) pluralOf(res *numResolved, x dec) string {
	if x.nan || x.inf {
		return "other"
	}
	y := x
	y.d = append([]byte(nil), x.d...)
	ip, fp := roundFor(res, &y)
	if fp != "" {
		ip += "." + fp
	}
	return pluralCategory(nf.lc, ip)
}

// currencyNameParts puts the number in CLDR's currency unit pattern with
// the currency's name for its plural form ("1,234.50 US dollars"); a
// currency CLDR has no name for is written as its code.
func (nf *numFormat) currencyNameParts(res *numResolved, x dec, num [][2]string) [][2]string {
	return nf.currencyNameIn(res, nf.pluralOf(res, x), num, nf.special && nf.aff.spacing > 0 && !x.nan && !x.inf)
}

// currencyNameOuter is the text the currency name's pattern for the plural
// form puts before and after the number: a range puts both its ends
// between them.
func (nf *numFormat) currencyNameOuter(res *numResolved, form string) (before, after [][2]string) {
	parts := nf.currencyNameIn(res, form, [][2]string{{"\x00", ""}}, false)
	for i, p := range parts {
		if p[0] == "\x00" {
			return parts[:i:i], parts[i+1:]
		}
	}
	return parts, nil
}

// currencyNameIn puts num in the currency name's pattern for the plural
// form; split cuts the number's last characters as a currency-specific
// pattern's spacing makes ICU do.
func (nf *numFormat) currencyNameIn(res *numResolved, form string, num [][2]string, split bool) [][2]string {
	names := cldrOf(cldrCurrencyNames, nf.lc)
	pick := func(key string) string {
		if v, ok := names[key+"|"+form]; ok {
			return v
		}
		return names[key+"|other"]
	}
	name := nf.money.name(form)
	pat := pick("")
	if pat == "" {
		pat = "{0} {1}"
	}
	// Inside a currency-specific pattern, ICU puts what follows the number
	// where the number ended before currency spacing widened its affixes:
	// that many characters before its end ("F CFA  Batı Afrika CFA
	// frangı1" in tr-TR). It does so in a formatter's first two calls, as
	// a V8 formatter is used once (toLocaleString); from the third, ICU's
	// compiled formatter puts the name at the end (guest-sdk/js/README.md).
	var tail [][2]string
	if split {
		num, tail = splitTail(num, nf.aff.spacing)
	}
	var out [][2]string
	afterNum := -1
	for pat != "" {
		i := strings.Index(pat, "{")
		if i < 0 || i+2 >= len(pat) || pat[i+2] != '}' {
			out = append(out, unitAffix(pat)...)
			break
		}
		if i > 0 {
			out = append(out, unitAffix(pat[:i])...)
		}
		if pat[i+1] == '0' {
			out = append(out, num...)
			afterNum = len(out)
		} else {
			out = appendName(out, afterNum, name)
		}
		pat = pat[i+3:]
	}
	out = append(out, tail...)
	// The literals either side of the cut are one part.
	merged := out[:0]
	for _, p := range out {
		if k := len(merged); k > 0 && p[0] == "literal" && merged[k-1][0] == "literal" {
			merged[k-1][1] += p[1]
			continue
		}
		merged = append(merged, p)
	}
	return merged
}

// appendName appends a currency's name to parts; where the number's parts
// (ending at afterNum) end in the currency's symbol and only a space
// separates the name from them, ICU's currency field runs from the symbol
// to the end of the name: one part ("1234$50 US$ dólares" in pt-CV).
func appendName(out [][2]string, afterNum int, name string) [][2]string {
	n := len(out)
	if afterNum >= 1 && afterNum <= n && out[afterNum-1][0] == "currency" {
		switch {
		case n == afterNum:
			out[n-1][1] += name
			return out
		case n == afterNum+1 && out[n-1][0] == "literal" && strings.TrimSpace(out[n-1][1]) == "":
			out[n-2][1] += out[n-1][1] + name
			return out[:n-1]
		}
	}
	// Bidi marks at the name's end are no part of ICU's field.
	text := strings.TrimRight(name, "\u200e\u200f\u061c")
	out = append(out, [2]string{"currency", text})
	if text != name {
		out = append(out, [2]string{"literal", name[len(text):]})
	}
	return out
}

// splitTail cuts the last k characters off parts.
func splitTail(parts [][2]string, k int) (head, tail [][2]string) {
	head = append([][2]string(nil), parts...)
	for k > 0 && len(head) > 0 {
		last := head[len(head)-1]
		if n := utf8.RuneCountInString(last[1]); n <= k {
			tail = append([][2]string{last}, tail...)
			head = head[:len(head)-1]
			k -= n
			continue
		}
		i := len(last[1])
		for ; k > 0; k-- {
			_, size := utf8.DecodeLastRuneInString(last[1][:i])
			i -= size
		}
		head[len(head)-1] = [2]string{last[0], last[1][:i]}
		tail = append([][2]string{{last[0], last[1][i:]}}, tail...)
	}
	return head, tail
}

func unitAffix(s string) [][2]string {
	var out [][2]string
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		typ := "unit"
		if unicode.IsSpace(r) || r == '\u00a0' || r == '\u202f' || r == '\u200f' || r == '\u200e' || r == '\u061c' {
			typ = "literal"
		}
		if k := len(out); k > 0 && out[k-1][0] == typ {
			out[k-1][1] += s[:n]
		} else if k > 1 && typ == "unit" && out[k-2][0] == "unit" && out[k-1][1] == " " {
			out[k-2][1] += out[k-1][1] + s[:n]
			out = out[:k-1]
		} else {
			out = append(out, [2]string{typ, s[:n]})
		}
		s = s[n:]
	}
	return out
}

// split renders x's integer and fraction digits.
func (x *dec) split() (ip, fp string) {
	d := string(x.d)
	switch {
	case len(x.d) == 0:
		return "0", ""
	case x.exp <= 0:
		return "0", strings.Repeat("0", -x.exp) + d
	case x.exp >= len(d):
		return d + strings.Repeat("0", x.exp-len(d)), ""
	}
	return d[:x.exp], d[x.exp:]
}

func (nf *numFormat) localize(s string) string {
	if nf.sym.zero == '0' {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(digit(nf.sym.zero, r-'0'))
	}
	return b.String()
}

func (nf *numFormat) digits(ip, fp string, useGrouping any) [][2]string {
	sym := nf.sym
	minG := sym.minGrouping
	switch useGrouping {
	case "always":
		minG = 1
	case "min2":
		minG = 2
	case false:
		minG = -1
	}
	var out [][2]string
	if minG < 0 || sym.primary == 0 || len(ip) < minG+sym.primary {
		out = append(out, [2]string{"integer", nf.localize(ip)})
	} else {
		var groups []string
		end := len(ip) - sym.primary
		groups = append(groups, ip[end:])
		for end > 0 {
			start := max(0, end-sym.second)
			groups = append(groups, ip[start:end])
			end = start
		}
		for i := len(groups) - 1; i >= 0; i-- {
			out = append(out, [2]string{"integer", nf.localize(groups[i])})
			if i > 0 {
				out = append(out, [2]string{"group", sym.group})
			}
		}
	}
	if fp != "" {
		out = append(out, [2]string{"decimal", sym.decimal}, [2]string{"fraction", nf.localize(fp)})
	}
	return out
}

// formatCompact formats x with CLDR's compact decimal patterns: the
// pattern for x's magnitude says how many integer digits to keep and
// what to write around them ("0K", "00 Tausend", "0万").
func (nf *numFormat) formatCompact(res *numResolved, x dec) ([][2]string, bool, error) {
	style := res.CompactDisplay
	if res.Style == "currency" && res.CurrencyDisplay != "name" {
		style = "short" // ICU 78 has no long compact money: "$1K", "1 k $US"
	}
	mag := x.exp - 1
	for try := 0; try < 2; try++ {
		pat, zeros, top := nf.compactPattern(style, mag, "other")
		y := x
		y.d = append([]byte(nil), x.d...)
		if zeros > 0 {
			y.exp = x.exp - (top - (zeros - 1))
		}
		ip, fp := roundFor(res, &y)
		if try == 0 && zeros > 0 && len(ip) > zeros {
			mag++ // rounding carried into the next magnitude
			continue
		}
		if try == 0 && zeros == 0 && len(ip) > mag+1 && len(ip) > 3 {
			mag = len(ip) - 1
			continue
		}
		if zeros > 0 {
			text := ip
			if fp != "" {
				text += "." + fp
			}
			pat = nf.compactPlural(style, top, pat, text, x.neg)
		}
		if len(ip) < res.MinInt {
			ip = strings.Repeat("0", res.MinInt-len(ip)) + ip
		}
		num := nf.digits(ip, fp, res.UseGrouping)
		if zeros == 0 {
			return num, len(y.d) == 0, nil
		}
		i := strings.Index(pat, "0")
		if i < 0 {
			return compactAffix(pat), false, nil // "mille": the words say the number
		}
		j := strings.LastIndex(pat, "0")
		out := compactAffix(pat[:i])
		out = append(out, num...)
		out = append(out, compactAffix(pat[j+1:])...)
		return out, len(y.d) == 0, nil
	}
	return nil, false, rangeErr("compact rounding did not settle")
}

// maxCompactMagnitude is above the largest compact pattern key of any
// CLDR locale (10^14 for "100 trillion").
const maxCompactMagnitude = 20

// compactPattern finds the pattern for a magnitude (10^mag): its text, its
// number of zeros (0: no compaction) and the magnitude of its key.
func (nf *numFormat) compactPattern(style string, mag int, form string) (string, int, int) {
	if mag < 3 {
		return "", 0, mag
	}
	// CLDR's compact keys stop at 10^14: larger magnitudes use the
	// largest pattern, so the search starts there.
	for m := min(mag, maxCompactMagnitude); m >= 3; m-- {
		key := "1" + strings.Repeat("0", m)
		p, ok := nf.compact[style+"|"+key+"|"+form]
		if !ok {
			p, ok = nf.compact[style+"|"+key+"|other"]
		}
		if ok {
			if p == "0" {
				return p, 0, m
			}
			return p, strings.Count(p, "0"), m
		}
	}
	return "", 0, mag
}

// compactPlural picks the compact pattern of magnitude 10^top for the
// mantissa text: CLDR's explicit "1" form where the mantissa is exactly 1
// (French "mille"; ICU matches the signed value, so -1000 is "-1 millier"),
// else its plural category's (Italian "mille" is the "one" pattern), else
// pat, the "other" pattern. The mantissa's operands are its own (ICU
// selects before it sets the compact exponent).
func (nf *numFormat) compactPlural(style string, top int, pat, text string, neg bool) string {
	key := style + "|1" + strings.Repeat("0", top) + "|"
	if text == "1" && !neg {
		if p, ok := nf.compact[key+"1"]; ok {
			return p
		}
	}
	if p, ok := nf.compact[key+pluralCategory(nf.lc, text)]; ok && p != "0" {
		return p
	}
	return pat
}

// compactAffix splits a compact pattern's affix into literal spaces and
// the compact text (quotes removed).
func compactAffix(s string) [][2]string {
	s = strings.ReplaceAll(s, "'", "")
	var out [][2]string
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		typ := "compact"
		if r == ' ' || r == '\u00a0' || r == '\u202f' {
			typ = "literal"
		}
		if k := len(out); k > 0 && out[k-1][0] == typ {
			out[k-1][1] += s[:n]
		} else {
			out = append(out, [2]string{typ, s[:n]})
		}
		s = s[n:]
	}
	return out
}

// formatScientific writes x as a mantissa and a power of ten (a multiple
// of three for engineering notation), the mantissa rounded as the options
// say.
func (nf *numFormat) formatScientific(res *numResolved, x dec) [][2]string {
	e := 0
	if len(x.d) > 0 {
		e = x.exp - 1
	}
	step := 1
	if res.Notation == "engineering" {
		step = 3
	}
	e = floorTo(e, step)
	var ip, fp string
	for try := 0; try < 2; try++ {
		y := x
		y.d = append([]byte(nil), x.d...)
		if len(y.d) > 0 {
			y.exp -= e
		}
		ip, fp = roundFor(res, &y)
		if try == 0 && len(ip) > step && len(y.d) > 0 {
			e += step // rounding carried past the mantissa's width
			continue
		}
		break
	}
	if len(ip) < res.MinInt {
		ip = strings.Repeat("0", res.MinInt-len(ip)) + ip
	}
	out := nf.digits(ip, fp, false)
	sep := nf.sym.exp
	out = append(out, [2]string{"exponentSeparator", sep})
	if e < 0 {
		for _, p := range tokenize(nf.sym.minus, "") {
			if p[0] == "minusSign" {
				p[0] = "exponentMinusSign"
			}
			out = append(out, p)
		}
		e = -e
	}
	return append(out, [2]string{"exponentInteger", nf.localize(strconv.Itoa(e))})
}

func floorTo(e, step int) int {
	if e >= 0 {
		return e / step * step
	}
	return -((-e + step - 1) / step * step)
}
