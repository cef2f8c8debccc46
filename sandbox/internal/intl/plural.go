package intl

import (
	"encoding/json"
	"sort"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

type plOptions struct {
	numOptions
	Type string `json:"type"`
}

// plResolved is resolvedOptions(), in V8's order.
type plResolved struct {
	Locale           string   `json:"locale"`
	Type             string   `json:"type"`
	MinInt           int      `json:"minimumIntegerDigits"`
	MinFrac          *int     `json:"minimumFractionDigits,omitempty"`
	MaxFrac          *int     `json:"maximumFractionDigits,omitempty"`
	MinSig           *int     `json:"minimumSignificantDigits,omitempty"`
	MaxSig           *int     `json:"maximumSignificantDigits,omitempty"`
	PluralCategories []string `json:"pluralCategories"`
}

type plAnswer struct {
	R plResolved `json:"r"`
	S string     `json:"s,omitempty"`
}

var formNames = map[plural.Form]string{plural.Other: "other", plural.Zero: "zero", plural.One: "one",
	plural.Two: "two", plural.Few: "few", plural.Many: "many"}

// pluralRules implements Intl.PluralRules from x/text's CLDR plural rules:
// the value is formatted with the digit options first, and the rule reads
// the operands of that text, as ECMA-402 says.
func (h *Handler) pluralRules(req *request) (any, error) {
	lc, err := resolve(req.L)
	if err != nil {
		return nil, err
	}
	var o plOptions
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	typ, err := enumOption("Collator", "type", o.Type, "cardinal", "cardinal", "ordinal")
	if err != nil {
		return nil, rangeErr("Value %s out of range for Intl.PluralRules options property type", o.Type)
	}
	// V8 11.3's PluralRules reads only the digit options.
	pluralDigits := numOptions{MinInt: o.MinInt, MinFrac: o.MinFrac, MaxFrac: o.MaxFrac, MinSig: o.MinSig, MaxSig: o.MaxSig}
	var nr numResolved
	if err := digitOptions(&pluralDigits, 0, 3, "standard", &nr); err != nil {
		return nil, err
	}
	rules := plural.Cardinal
	if typ == "ordinal" {
		rules = plural.Ordinal
	}
	res := plResolved{Locale: languageOnly(lc), Type: typ, MinInt: nr.MinInt, MinFrac: nr.MinFrac, MaxFrac: nr.MaxFrac,
		MinSig: nr.MinSig, MaxSig: nr.MaxSig}
	res.PluralCategories = h.cached("plc\x00"+typ+"\x00"+lc.tag, func() any { return categories(rules, lc) }).([]string)
	ans := &plAnswer{R: res}
	if len(req.V) == 0 {
		return ans, nil
	}
	var v string
	if err := json.Unmarshal(req.V, &v); err != nil {
		return nil, typeErr("malformed Intl value")
	}
	if len(v) > maxValueChars {
		return nil, rangeErr("Intl value of %d characters exceeds %d", len(v), maxValueChars)
	}
	x, ok := parseDec(v)
	if !ok || x.nan || x.inf {
		ans.S = "other"
		return ans, nil
	}
	nr.UseGrouping = false
	text := plainDigits(&nr, x)
	ans.S = formNames[selectForm(rules, lc, text)]
	return ans, nil
}

// plainDigits renders x with the digit options, ASCII digits, no grouping.
func plainDigits(res *numResolved, x dec) string {
	ip, fp := roundDigits(res, &x)
	if fp == "" {
		return ip
	}
	return ip + "." + fp
}

// roundDigits rounds x by the significant or fraction digit options and
// returns its integer and fraction digits, the fraction padded to the
// minimum.
func roundDigits(res *numResolved, x *dec) (ip, fp string) {
	if res.MaxSig != nil {
		x.round(*res.MaxSig)
		ip, fp = x.split()
		shown := max(len(x.d), x.exp)
		if len(x.d) == 0 {
			shown = 1
		}
		if shown < *res.MinSig {
			fp += strings.Repeat("0", *res.MinSig-shown)
		}
		return ip, fp
	}
	x.round(x.exp + *res.MaxFrac)
	ip, fp = x.split()
	if len(fp) < *res.MinFrac {
		fp += strings.Repeat("0", *res.MinFrac-len(fp))
	}
	return ip, fp
}

// selectForm computes the CLDR operands of a decimal text and matches the
// rules.
func selectForm(rules *plural.Rules, lc loc, text string) plural.Form {
	ip, fp, _ := strings.Cut(text, ".")
	i := 0
	if len(ip) > 9 {
		// The rules read i modulo powers of ten up to a million, and
		// whether it is zero: keep the last nine digits, never zero.
		ip = ip[len(ip)-9:]
		i = 1e9
	}
	n := 0
	for _, c := range ip {
		n = n*10 + int(c-'0')
	}
	if i == 0 || n != 0 {
		i = n
	}
	ft := strings.TrimRight(fp, "0")
	if len(fp) > 9 {
		fp = fp[:9]
	}
	if len(ft) > 9 {
		ft = ft[:9]
	}
	f, t := 0, 0
	for _, c := range fp {
		f = f*10 + int(c-'0')
	}
	for _, c := range ft {
		t = t*10 + int(c-'0')
	}
	return rules.MatchPlural(pluralTag(lc.lang), i, len(fp), len(ft), f, t)
}

// pluralTag is the tag whose rules ICU uses: plural rules fall back by
// truncation, not through CLDR's parent locales, so only pt-PT has
// European Portuguese's rules (pt-AO has Brazil's).
func pluralTag(t language.Tag) language.Tag {
	if b, _ := t.Base(); b.String() == "pt" {
		if r, conf := t.Region(); conf == language.Exact && r.String() == "PT" {
			return language.MustParse("pt-PT")
		}
		return language.MustParse("pt")
	}
	return t
}

// categories lists the forms the rules produce for sample values, sorted
// as V8 lists them (alphabetically, "other" last).
func categories(rules *plural.Rules, lc loc) any {
	seen := map[plural.Form]bool{plural.Other: true}
	for i := 0; i <= 1000; i++ {
		seen[rules.MatchPlural(lc.lang, i, 0, 0, 0, 0)] = true
		seen[rules.MatchPlural(lc.lang, i%100, 1, 1, i%10, i%10)] = true
		seen[rules.MatchPlural(lc.lang, i%10, 2, 2, i%100, i%100)] = true
	}
	seen[rules.MatchPlural(lc.lang, 1000000, 0, 0, 0, 0)] = true
	var out []string
	for f := range seen {
		if f != plural.Other {
			out = append(out, formNames[f])
		}
	}
	sort.Strings(out)
	return append(out, "other")
}
