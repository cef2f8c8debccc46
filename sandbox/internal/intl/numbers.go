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

// key names the record for the formatter cache.
func (d *numberData) key() string {
	for i := range cldrNumberData {
		if &cldrNumberData[i] == d {
			return strconv.Itoa(i)
		}
	}
	return "?"
}

// numberDataOf finds the CLDR locale for lc as ICU falls back: language,
// script (as given or likely) and region, then without the region, the
// script, both.
func numberDataOf(lc loc) *numberData {
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
	cands = append(cands, b.String())
	for _, c := range cands {
		if i, ok := cldrNumberLocales[c]; ok {
			return &cldrNumberData[i]
		}
	}
	return &cldrNumberData[cldrNumberLocales["en"]]
}

// symbolsOf returns the (cached) symbols of lc's locale.
func (h *Handler) symbolsOf(lc loc) *symbols {
	d := numberDataOf(lc)
	return h.cached("sym\x00"+d.key(), func() any { return readSymbols(d) }).(*symbols)
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
