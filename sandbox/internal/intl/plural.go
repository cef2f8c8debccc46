package intl

import (
	"cmp"
	"encoding/json"
	"math"
	"strconv"
	"strings"
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

// pluralRules implements Intl.PluralRules from CLDR 48's plural rules
// (plurals_gen.go): the value is formatted with the digit options first,
// and the rules read the operands of that text, as ECMA-402 says
// ({minimumFractionDigits: 1} makes 1 "1.0", which is "other" in English).
// With a second value (w) it is selectRange: CLDR's plural range of the
// two ends' categories.
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
	rules, tag := pluralRulesOf(lc, typ == "ordinal")
	res := plResolved{Locale: tag, Type: typ, MinInt: nr.MinInt, MinFrac: nr.MinFrac, MaxFrac: nr.MaxFrac,
		MinSig: nr.MinSig, MaxSig: nr.MaxSig}
	res.PluralCategories = rules.cats
	ans := &plAnswer{R: res}
	if len(req.V) == 0 {
		return ans, nil
	}
	nr.UseGrouping = false
	// pick is the category of a value as JS prints it ("" for NaN).
	pick := func(raw json.RawMessage) (string, error) {
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", typeErr("malformed Intl value")
		}
		if len(v) > maxValueChars {
			return "", rangeErr("Intl value of %d characters exceeds %d", len(v), maxValueChars)
		}
		x, ok := parseDec(v)
		if !ok || x.nan {
			return "", nil
		}
		if x.inf {
			return "other", nil
		}
		ops := operandsOf(plainDigits(&nr, x), 0)
		return rules.category(&ops), nil
	}
	start, err := pick(req.V)
	if err != nil {
		return nil, err
	}
	if len(req.W) == 0 {
		ans.S = cmp.Or(start, "other")
		return ans, nil
	}
	// selectRange: V8 11.3 refuses NaN ends, and takes a range whose start
	// is above its end as it comes.
	end, err := pick(req.W)
	if err != nil {
		return nil, err
	}
	if start == "" {
		return nil, rangeErr("Invalid startRange : NaN")
	}
	if end == "" {
		return nil, rangeErr("Invalid endRange : NaN")
	}
	ans.S = rangeCategory(lc, start, end)
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

// pluralSet is a locale's compiled cardinal or ordinal rules
// (plurals_gen.go, from CLDR 48 by internal/genplural).
type pluralSet struct {
	cats  []string     // resolvedOptions().pluralCategories, in V8's order
	rules []pluralRule // tried in order; none matches: "other"
}

// pluralRule is a category and its condition, a disjunction of
// conjunctions of relations.
type pluralRule struct {
	cat string
	ors [][]pluralRel
}

// pluralRel is one relation: the operand op ('n', 'i', 'v', 'w', 'f', 't'
// or 'e'), taken modulo mod when mod is not 0, is (not: is not) in one of
// the ranges in, pairs of bounds.
type pluralRel struct {
	op  byte
	not bool
	mod uint32
	in  []uint32
}

// pluralOperands are CLDR's operands of a formatted number, as ICU 78
// computes them (each a float64, as ICU's DecimalQuantity gives them):
// n the absolute value, i its integer digits (the last 18: ICU truncates),
// v and w the number of fraction digits with and without trailing zeros,
// f and t those digits as an integer (the first 19 at most), e the compact
// exponent.
type pluralOperands struct {
	n, i, v, w, f, t, e float64
}

// operandsOf computes the operands of a decimal text: ASCII digits, an
// optional "." and fraction digits, no sign (the formatter's output, so
// its length is bounded by the digit options). e is the compact exponent
// of a text that is the compact number's whole value ("1200000" with e 6
// for 1.2c6). Every choice Node 20 makes passes 0: ICU 78 picks a compact
// pattern by the mantissa alone ("1 million" in French, where 1c6 is
// "many") and a unit's or currency's name by the value before compaction
// (TestPluralRulesMatchNode), and V8 11.3's PluralRules has no notation
// option; CLDR's samples with c are checked by TestPluralSamples.
func operandsOf(text string, e int) pluralOperands {
	ip, fp, _ := strings.Cut(text, ".")
	var o pluralOperands
	o.n, _ = strconv.ParseFloat(text, 64)
	if len(ip) > 18 {
		ip = ip[len(ip)-18:]
	}
	var i int64
	for _, c := range ip {
		i = i*10 + int64(c-'0')
	}
	o.i = float64(i)
	ft := strings.TrimRight(fp, "0")
	o.v, o.w = float64(len(fp)), float64(len(ft))
	o.f, o.t = fractionLong(fp), fractionLong(ft)
	for o.t > 0 && math.Mod(o.t, 10) == 0 {
		o.t /= 10 // the 19 digits ended in zeros
	}
	o.e = float64(e)
	return o
}

// fractionLong reads leading fraction digits as ICU's toFractionLong
// does: while the value is at most 10^18, wrapping as its int64 would.
func fractionLong(fp string) float64 {
	var r uint64
	for k := 0; k < len(fp) && r <= 1e18; k++ {
		r = r*10 + uint64(fp[k]-'0')
	}
	return float64(int64(r))
}

func (o *pluralOperands) get(op byte) float64 {
	switch op {
	case 'i':
		return o.i
	case 'v':
		return o.v
	case 'w':
		return o.w
	case 'f':
		return o.f
	case 't':
		return o.t
	case 'e':
		return o.e
	}
	return o.n
}

// holds evaluates the relation as ICU does: a value with a fraction is in
// no range (so "n = 1" fails for 1.5 and "n != 1" holds), the modulus is
// a floating remainder.
func (r *pluralRel) holds(o *pluralOperands) bool {
	x := o.get(r.op)
	in := false
	if x == math.Floor(x) {
		if r.mod != 0 {
			x = math.Mod(x, float64(r.mod))
		}
		for k := 0; k+1 < len(r.in); k += 2 {
			if float64(r.in[k]) <= x && x <= float64(r.in[k+1]) {
				in = true
				break
			}
		}
	}
	return in != r.not
}

// category is the first rule's category whose condition holds, or
// "other". The loops are bounded by the generated data.
func (s *pluralSet) category(o *pluralOperands) string {
	for _, r := range s.rules {
		for _, and := range r.ors {
			ok := true
			for k := range and {
				if !and[k].holds(o) {
					ok = false
					break
				}
			}
			if ok {
				return r.cat
			}
		}
	}
	return "other"
}

// pluralRulesOf finds a locale's rules as ICU does, by truncating its tag
// ("pt-PT" has rules of its own, "pt-AO" takes "pt"'s, not CLDR's parent
// locale pt-PT): it returns the tag that has them, which V8 reports as
// resolvedOptions().locale.
func pluralRulesOf(lc loc, ordinal bool) (*pluralSet, string) {
	if tag, ok := truncate(lc, func(t string) bool { _, ok := pluralLocales[t]; return ok }); ok {
		k := pluralLocales[tag][0]
		if ordinal {
			k = pluralLocales[tag][1]
		}
		return &pluralSets[k], tag
	}
	// A linked language always has rules; root's are "other".
	return &pluralSet{cats: []string{"other"}}, languageOnly(lc)
}

// truncate finds the longest prefix of lc's tag, cut at a hyphen, that
// has (ICU's fallback for plural data). Its loop ends with the tag's
// hyphens.
func truncate(lc loc, has func(string) bool) (string, bool) {
	tag := lc.lang.String()
	for {
		if has(tag) {
			return tag, true
		}
		cut := strings.LastIndexByte(tag, '-')
		if cut < 0 {
			return "", false
		}
		tag = tag[:cut]
	}
}

// pluralRange is one row of CLDR's plural ranges: a range from a number
// of category start to one of category end is of category cat.
type pluralRange struct {
	start, end, cat string
}

// rangeCategory is the category of a range whose ends are of categories
// start and end (Intl.PluralRules.prototype.selectRange): CLDR's row for
// the pair, or "other" where the language has none (ICU).
func rangeCategory(lc loc, start, end string) string {
	tag, ok := truncate(lc, func(t string) bool { _, ok := pluralRangeData[t]; return ok })
	if !ok {
		return "other"
	}
	for _, r := range pluralRangeData[tag] {
		if r.start == start && r.end == end {
			return r.cat
		}
	}
	return "other"
}

// pluralCategory is the cardinal category of a decimal text (see
// operandsOf) in the locale.
func pluralCategory(lc loc, text string) string {
	s, _ := pluralRulesOf(lc, false)
	o := operandsOf(text, 0)
	return s.category(&o)
}
