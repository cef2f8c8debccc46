package intl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// stripMarks removes combining marks (after canonical decomposition).
func stripMarks(s string) string {
	out, _, err := transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s)
	if err != nil {
		return s
	}
	return out
}

// swapCase swaps the case of the letters whose case mapping is one to one
// (not Turkish İ and ı) and whose two cases x/text's tables weigh as one
// letter (caseSwappable): Georgian's Mtavruli, Cherokee's small letters
// and some Latin, Greek and Cyrillic letters are newer than its data and,
// swapped, would sort after every script.
func swapCase(s string) string {
	ok := caseSwappable()
	return strings.Map(func(r rune) rune {
		if r >= 0x80 && !ok[r] {
			return r
		}
		switch {
		case unicode.IsUpper(r) && unicode.ToUpper(unicode.ToLower(r)) == r:
			return unicode.ToLower(r)
		case unicode.IsLower(r) && unicode.ToLower(unicode.ToUpper(r)) == r:
			return unicode.ToUpper(r)
		}
		return r
	}, s)
}

// caseSwappable are the letters from U+0080 up whose case partner x/text's
// root collation weighs the same but for case (some 1,400 pairs, both
// ways), found once.
var caseSwappable = sync.OnceValue(func() map[rune]bool {
	c := collate.New(language.Und, collate.IgnoreCase, collate.IgnoreWidth)
	ok := map[rune]bool{}
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if !unicode.IsUpper(r) {
			continue
		}
		l := unicode.ToLower(r)
		if l == r || unicode.ToUpper(l) != r || unicode.ToLower(unicode.ToUpper(l)) != l {
			continue
		}
		if c.CompareString(string(r), string(l)) == 0 {
			ok[r], ok[l] = true, true
		}
	}
	return ok
})

// languageOnly is the locale V8 reports for collation and plural rules,
// whose ICU data is per language.
func languageOnly(lc loc) string {
	b, _ := lc.lang.Base()
	return b.String()
}

// collations are the collations x/text has besides each language's
// default (ICU has more: eor, emoji, trad, zhuyin, …, which resolve to the
// default here).
var collations = map[string]bool{"de-phonebk": true, "zh-stroke": true}

// colOptions are Intl.Collator's options.
type colOptions struct {
	Usage             string  `json:"usage"`
	Sensitivity       string  `json:"sensitivity"`
	IgnorePunctuation *bool   `json:"ignorePunctuation"`
	Numeric           *bool   `json:"numeric"`
	CaseFirst         string  `json:"caseFirst"`
	Collation         *string `json:"collation"`
}

// colResolved is resolvedOptions(), in V8's order.
type colResolved struct {
	Locale            string `json:"locale"`
	Usage             string `json:"usage"`
	Sensitivity       string `json:"sensitivity"`
	IgnorePunctuation bool   `json:"ignorePunctuation"`
	Collation         string `json:"collation"`
	Numeric           bool   `json:"numeric"`
	CaseFirst         string `json:"caseFirst"`
}

type colAnswer struct {
	R colResolved `json:"r"`
	C *int        `json:"c,omitempty"`
}

// lockedCollator serializes a collate.Collator, which keeps buffers.
type lockedCollator struct {
	mu sync.Mutex
	c  *collate.Collator
	// r puts the scripts in the locale's order (reorder.go), nil where
	// the root's is the locale's.
	r *reordering
}

// compare compares a and b as the collator orders them.
func (l *lockedCollator) compare(a, b string) int {
	if l.r == nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.c.CompareString(a, b)
	}
	var ba, bb collate.Buffer
	return bytes.Compare(keyOf(l, &ba, a), keyOf(l, &bb, b))
}

// collator compares two strings (v, w) with x/text's CLDR collation, or
// just resolves the options.
func (h *Handler) collator(req *request) (any, error) {
	locale, requested, err := collationLocale(req.L)
	if err != nil {
		return nil, err
	}
	lc := loc{tag: locale, lang: language.MustParse(locale), req: requested}
	var o colOptions
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	res := colResolved{Collation: "default"}
	kw, kept := keywords(lc), map[string]string{}
	if o.Collation != nil && !typeSequence(*o.Collation) {
		if err := checkLen("collation", *o.Collation); err != nil {
			return nil, err
		}
		return nil, rangeErr("Invalid collation : %s", *o.Collation)
	}
	base := languageOnly(lc)
	if co, _ := keyword(kw, "co", o.Collation, func(v string) bool { return collations[base+"-"+v] }); co != "" {
		// V8 names the collation in the locale even when an option chose it.
		res.Collation, kept["co"] = co, co
	}
	if res.Usage, err = enumOption("Collator", "usage", o.Usage, "sort", "sort", "search"); err != nil {
		return nil, err
	}
	if res.Sensitivity, err = enumOption("Collator", "sensitivity", o.Sensitivity, "variant", "base", "accent", "case", "variant"); err != nil {
		return nil, err
	}
	if res.CaseFirst, err = enumOption("Collator", "caseFirst", o.CaseFirst, "false", "upper", "lower", "false"); err != nil {
		return nil, err
	}
	// V8 keeps kn and kf in the locale as requested, even where the
	// options override them.
	if kn, ok := kw["kn"]; ok {
		res.Numeric, kept["kn"] = kn != "false", kn
		if kn != "false" {
			kept["kn"] = "true"
		}
	}
	if kf, ok := kw["kf"]; ok {
		if kf != "upper" && kf != "lower" && kf != "false" {
			return nil, rangeErr("Invalid language tag: %s", lc.req)
		}
		res.CaseFirst, kept["kf"] = kf, kf
		if o.CaseFirst != "" {
			res.CaseFirst = o.CaseFirst
		}
	}
	if o.Numeric != nil {
		res.Numeric = *o.Numeric
	}
	res.Locale = withKeywords(locale, kept)
	res.IgnorePunctuation = o.IgnorePunctuation != nil && *o.IgnorePunctuation
	ans := &colAnswer{R: res}
	if len(req.V) == 0 {
		return ans, nil
	}
	var a, b string
	if json.Unmarshal(req.V, &a) != nil || json.Unmarshal(req.W, &b) != nil {
		return nil, typeErr("malformed Intl value")
	}
	lc = res.withCollation(lc)
	lcol := h.collatorFor(lc, res.Sensitivity, res.Numeric, res.IgnorePunctuation)
	if res.Sensitivity == "case" {
		// x/text has no case level: the base comparison decides, and
		// between equal bases, the case of the text without diacritics.
		base := h.collatorFor(lc, "base", res.Numeric, res.IgnorePunctuation)
		if c := base.compare(a, b); c != 0 {
			ans.C = &c
			return ans, nil
		}
		a, b = stripMarks(a), stripMarks(b)
	}
	if res.CaseFirst == "upper" {
		// x/text has no caseFirst: swapping case turns its lower-first
		// tertiary order into upper-first.
		a, b = swapCase(a), swapCase(b)
	}
	c := lcol.compare(a, b)
	ans.C = &c
	return ans, nil
}

// withCollation returns lc with the collation res resolved (phonebk,
// stroke…) as its co keyword, which is how x/text selects one.
func (res colResolved) withCollation(lc loc) loc {
	if res.Collation != "default" {
		if t, err := lc.lang.SetTypeForKey("co", res.Collation); err == nil {
			lc.lang = t
		}
	}
	return lc
}

// collatorFor returns the (cached) collator for a collation locale (lc.tag
// as collationLocale resolves it, lc.lang with its collation keyword) and
// options.
func (h *Handler) collatorFor(lc loc, sensitivity string, numeric, loose bool) *lockedCollator {
	key := fmt.Sprintf("col\x00%s\x00%s\x00%s\x00%t\x00%t", lc.tag, lc.lang, sensitivity, numeric, loose)
	return h.cached(key, func() any {
		var opts []collate.Option
		switch sensitivity {
		case "base":
			opts = append(opts, collate.IgnoreCase, collate.IgnoreDiacritics, collate.IgnoreWidth)
		case "accent":
			opts = append(opts, collate.IgnoreCase, collate.IgnoreWidth)
		}
		if numeric {
			opts = append(opts, collate.Numeric)
		}
		if loose {
			opts = append(opts, collate.Loose)
		}
		return &lockedCollator{c: collate.New(lc.lang, opts...), r: reorderingFor(lc.tag, lc.lang.TypeForKey("co"))}
	}).(*lockedCollator)
}
