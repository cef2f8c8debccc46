package intl

import (
	"strconv"
	"strings"

	"golang.org/x/text/language"
)

// numberData is one locale's number symbols and patterns for its default
// numbering system, from CLDR (numbers_gen.go, written by internal/gennum).
type numberData struct {
	ns                             string
	zero                           rune
	decimal, group, percent        string
	plus, minus, exp, nan, inf     string
	curDecimal, curGroup           string // "" when the same as decimal, group
	minGrouping                    int
	decimalPattern, percentPattern string
	compact                        int // index in cldrCompactData
}

// key names the record for the formatter cache (a record made up for a
// numbering system without CLDR symbols is named by its base record and
// that system).
func (d *numberData) key() string {
	for i := range cldrNumberData {
		if cldrNumberData[i] == *d {
			return strconv.Itoa(i)
		}
	}
	for i := range cldrNumberData {
		e := cldrNumberData[i]
		e.ns, e.zero, e.curDecimal, e.curGroup = d.ns, d.zero, "", ""
		if r, ok := rootSymbols[d.ns]; ok {
			e.decimal, e.group, e.percent, e.plus, e.minus, e.exp = r[0], r[1], r[2], r[3], r[4], r[5]
			if d.ns == "arab" {
				e.percentPattern = "#,##0%"
			}
		}
		if e == *d {
			return strconv.Itoa(i) + "|" + d.ns
		}
	}
	return "?"
}

// numberCandidates are the CLDR locales to try for lc, as ICU falls back:
// language, script (as given, or ICU's alias) and region, then without the
// region, the script, both.
func numberCandidates(lc loc) []string {
	b, _ := lc.lang.Base()
	s, sconf := lc.lang.Script()
	r, rconf := lc.lang.Region()
	if sconf != language.Exact {
		// ICU's aliases name a script only for these (zh_TW → zh_Hant_TW);
		// elsewhere the language's own data applies (zh-MY is zh).
		switch {
		case b.String() == "zh" && rconf == language.Exact && (r.String() == "TW" || r.String() == "HK" || r.String() == "MO"):
			s = language.MustParseScript("Hant")
		case b.String() == "zh" && rconf == language.Exact && r.String() == "SG":
			s = language.MustParseScript("Hans")
		default:
			s = language.Script{}
		}
	}
	var cands []string
	if rconf == language.Exact {
		if s != (language.Script{}) {
			cands = append(cands, b.String()+"-"+s.String()+"-"+r.String())
		}
		cands = append(cands, b.String()+"-"+r.String())
	}
	if s != (language.Script{}) {
		cands = append(cands, b.String()+"-"+s.String())
	}
	return append(cands, b.String())
}

// numberDataOf finds lc's CLDR record for the numbering system ns ("" for
// the locale's default): the locale's own symbols for ns where CLDR has
// them, else ICU root's (arab, arabext), else the locale's default symbols
// with ns's digits.
func numberDataOf(lc loc, ns string) *numberData {
	var def *numberData
	for _, c := range numberCandidates(lc) {
		i, ok := cldrNumberLocales[c]
		if !ok {
			continue
		}
		def = &cldrNumberData[i]
		if ns == "" || ns == def.ns {
			return def
		}
		if j, ok := cldrNumberLocales[c+"|"+ns]; ok {
			return &cldrNumberData[j]
		}
		if j, ok := cldrNumberLocales[c+"|latn"]; ok {
			def = &cldrNumberData[j] // the base for other digits is latn's
		}
		break
	}
	if def == nil {
		def = &cldrNumberData[cldrNumberLocales["en"]]
	}
	if ns == "" || ns == def.ns {
		return def
	}
	d := *def
	d.ns, d.zero, d.curDecimal, d.curGroup = ns, []rune(cldrDigits[ns])[0], "", ""
	if root, ok := rootSymbols[ns]; ok {
		d.decimal, d.group, d.percent, d.plus, d.minus, d.exp = root[0], root[1], root[2], root[3], root[4], root[5]
		if ns == "arab" {
			d.percentPattern = "#,##0%" // root's; arabext keeps the locale's
		}
	}
	return &d
}

// rootSymbols are ICU root's symbols (decimal, group, percent, plus, minus,
// exponential) of the numbering systems that have their own (CLDR's JSON
// has no root locale); root's arab percent pattern is "#,##0%".
var rootSymbols = map[string][6]string{
	"arab":    {"٫", "٬", "٪\u061c", "\u061c+", "\u061c-", "اس"},
	"arabext": {"٫", "٬", "٪", "\u200e+\u200e", "\u200e-\u200e", "×۱۰^"},
}

// readSymbols derives the formatter's symbols from the CLDR record.
func readSymbols(d *numberData) any {
	s := &symbols{numbering: d.ns, zero: d.zero, decimal: d.decimal, group: d.group, minGrouping: d.minGrouping,
		minus: d.minus, plus: d.plus, percent: d.percent, exp: d.exp, nan: d.nan, inf: d.inf, data: d}
	s.primary, s.second = groupSizes(d.decimalPattern)
	return s
}

// groupSizes reads a pattern's grouping sizes: "#,##,##0.###" is 3 then 2;
// no separator is no grouping (0).
func groupSizes(pattern string) (primary, secondary int) {
	p, _, _ := strings.Cut(pattern, ";")
	start := strings.IndexAny(p, "#0,")
	end := strings.LastIndexAny(p, "#0,")
	if start < 0 {
		return 0, 0
	}
	p = p[start : end+1]
	p, _, _ = strings.Cut(p, ".")
	last := strings.LastIndex(p, ",")
	if last < 0 {
		return 0, 0
	}
	primary = len(p) - last - 1
	prev := strings.LastIndex(p[:last], ",")
	if prev < 0 {
		return primary, primary
	}
	return primary, last - prev - 1
}

// patternAffixes is the text of a pattern's positive subpattern before and
// after its number.
func patternAffixes(pattern string) (pre, suf string) {
	p, _, _ := strings.Cut(pattern, ";")
	start := strings.IndexAny(p, "#0,.")
	end := strings.LastIndexAny(p, "#0,.")
	if start < 0 {
		return p, ""
	}
	return strings.ReplaceAll(p[:start], "'", ""), strings.ReplaceAll(p[end+1:], "'", "")
}

// symbolsOf returns the (cached) symbols of lc's locale in the numbering
// system ns ("" for the locale's default).
func (h *Handler) symbolsOf(lc loc, ns string) *symbols {
	d := numberDataOf(lc, ns)
	return h.cached("sym\x00"+d.key(), func() any { return readSymbols(d) }).(*symbols)
}

// digit is the digit d (0-9) of the numbering system whose zero is zero:
// hanidec's are not consecutive code points.
func digit(zero rune, d rune) rune {
	if zero == '〇' {
		return []rune("〇一二三四五六七八九")[d]
	}
	return zero + d
}
