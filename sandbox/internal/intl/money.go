package intl

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
)

// money is what a locale says of a currency (names_gen.go's "m:" records,
// written by internal/gennames from CLDR 48's currencies.json), with
// ICU's fallbacks applied: a symbol is the ISO code where the locale has
// none, a narrow symbol the symbol, a plural form's name the "other"
// name, that the display name, that the code.
type money struct {
	code, symbol, narrow string
	// pattern, decimal and group are CLDR's currency-specific pattern and
	// separators ("" where it has none).
	pattern, decimal, group string
	display                 string            // the display name
	names                   map[string]string // plural count → name
}

// special reports whether CLDR gives the currency a pattern or separators
// of its own.
func (m *money) special() bool {
	return m.pattern != "" || m.decimal != "" || m.group != ""
}

// name is the currency's name for the plural count.
func (m *money) name(count string) string {
	if v, ok := m.names[count]; ok {
		return v
	}
	if v, ok := m.names["other"]; ok {
		return v
	}
	if m.display != "" {
		return m.display
	}
	return m.code
}

// moneyOf returns code's record in lc's locale (code upper case, three
// letters: the callers check it).
func (h *Handler) moneyOf(lc loc, code string) *money {
	m := &money{code: code, symbol: code, display: nameLine(lc, "c:"+code)}
	rec := nameLine(lc, "m:"+code)
	if rec == "" {
		m.narrow = code
		return m
	}
	fields := strings.Split(rec, "|")
	for len(fields) < 5 {
		fields = append(fields, "")
	}
	m.symbol = cmpOr(fields[0], code)
	m.narrow = cmpOr(fields[1], m.symbol)
	m.pattern, m.decimal, m.group = fields[2], fields[3], fields[4]
	for _, f := range fields[5:] {
		if count, name, ok := strings.Cut(f, "="); ok {
			if m.names == nil {
				m.names = map[string]string{}
			}
			m.names[count] = name
		}
	}
	return m
}

// specialMoney is the currency-specific pattern and separators ICU formats
// code with in lc: the currency's own where CLDR has them (TRY in Turkish),
// else those of the currency of lc's region (tr-TR formats every currency
// with TRY's "¤#,##0.00", en-DE with EUR's): ICU's DecimalFormatSymbols
// take the region's currency first, then the formatted one's where it
// has any. nil where neither has.
func (h *Handler) specialMoney(lc loc, code string) *money {
	if m := h.moneyOf(lc, code); m.special() {
		return m
	}
	r, conf := lc.lang.Region()
	if conf != language.Exact {
		return nil
	}
	rc := regionCurrency(r.String())
	if rc == "" || rc == code {
		return nil
	}
	if m := h.moneyOf(lc, rc); m.special() {
		return m
	}
	return nil
}

// nameLine finds key's line in lc's names (as namesOf's tables would),
// searching the generated text rather than parsing it: a formatter reads
// a currency's two lines, and the parsed tables, some 100 KB of names a
// locale, come and go in the bounded cache.
func nameLine(lc loc, key string) string {
	for _, c := range numberCandidates(lc) {
		s, ok := cldrNames[c]
		if !ok {
			continue
		}
		i := -1
		if strings.HasPrefix(s, key+"\t") {
			i = 0
		} else if j := strings.Index(s, "\n"+key+"\t"); j >= 0 {
			i = j + 1
		}
		if i >= 0 {
			v := s[i+len(key)+1:]
			if end := strings.IndexByte(v, '\n'); end >= 0 {
				v = v[:end]
			}
			return v
		}
		if c == namesBase(c) {
			break
		}
	}
	return ""
}

// regionCurrency is the region's current currency, "" if none.
func regionCurrency(region string) string {
	if len(region) != 2 {
		return ""
	}
	// The records are "XX:YYY", joined by spaces: 7 bytes each.
	for i := 0; i+6 <= len(cldrRegionCurrencies); i += 7 {
		if cldrRegionCurrencies[i:i+2] == region {
			return cldrRegionCurrencies[i+3 : i+6]
		}
	}
	return ""
}

// currencyDigits is the currency's number of fraction digits (CLDR's
// currencyData, as ICU has it: 0 for JPY and HUF, 3 for KWD, 2 for a code
// CLDR does not list).
func currencyDigits(code string) int {
	if i := strings.Index(cldrCurrencyDigits, code+":"); i >= 0 && i%6 == 0 {
		return int(cldrCurrencyDigits[i+4] - '0')
	}
	return 2
}

// patternMoneyAffixes are the affixes of a currency-specific pattern
// ("¤#,##0.00", positive only: a negative amount takes the minus sign
// before it), the currency written as text, with CLDR's currency spacing:
// a no-break space between a letter of the currency and the digits
// ("F CFA 1").
func patternMoneyAffixes(sym *symbols, pattern, text string) *affixes {
	a := &affixes{}
	pre, suf := patternAffixes(pattern)
	barePre := strings.Replace(pre, "¤", text, 1)
	bareSuf := strings.Replace(suf, "¤", text, 1)
	if strings.HasSuffix(pre, "¤") && spacedCurrency(text, true) {
		pre = strings.TrimSuffix(pre, "¤") + text + "\u00a0"
		a.spacing++
	} else {
		pre = barePre
	}
	if strings.HasPrefix(suf, "¤") && spacedCurrency(text, false) {
		suf = "\u00a0" + text + strings.TrimPrefix(suf, "¤")
		a.spacing++
	} else {
		suf = bareSuf
	}
	for i, sg := range []string{"", sym.minus, sym.plus} {
		a.pre[i] = tokenize(sg+pre, text)
		a.suf[i] = tokenize(suf, text)
		a.barePre[i] = tokenize(sg+barePre, text)
		a.bareSuf[i] = tokenize(bareSuf, text)
	}
	return a
}

// spacedCurrency reports whether CLDR's currency spacing
// ("[[:^S:]&[:^Z:]]" next to a digit) separates text from the number: its
// last character (before the number) or its first (after it) is neither a
// symbol nor a separator.
func spacedCurrency(text string, before bool) bool {
	if text == "" {
		return false
	}
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(text)
	} else {
		r, _ = utf8.DecodeRuneInString(text)
	}
	return !unicode.In(r, unicode.S, unicode.Z)
}
