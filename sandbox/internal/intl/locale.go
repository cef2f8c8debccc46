package intl

import (
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/bojanz/currency"
	"github.com/go-playground/locales"
	"golang.org/x/text/language"
)

// defaultLocale is the guest's locale when a script names none: the host's
// locale would make a script's output depend on where it runs.
const defaultLocale = "en-US"

// loc is a resolved locale.
type loc struct {
	tag  string // what resolvedOptions().locale reports, without extensions
	lang language.Tag
	req  language.Tag       // the requested tag, with its extensions (extension.go)
	tr   locales.Translator // names and patterns (go-playground/locales)
	cur  currency.Locale    // numbers and currencies (bojanz/currency)
}

type registry struct {
	tags    []language.Tag
	trs     []locales.Translator
	matcher language.Matcher
}

var supported = sync.OnceValue(func() *registry {
	r := &registry{}
	for _, f := range translators {
		tr := f()
		t, err := language.Parse(strings.ReplaceAll(tr.Locale(), "_", "-"))
		if err != nil {
			continue
		}
		r.tags = append(r.tags, t)
		r.trs = append(r.trs, tr)
	}
	r.matcher = language.NewMatcher(r.tags)
	return r
})

// parseTag canonicalizes one requested locale. A well-formed tag whose
// subtags x/text does not know (e.g. "xx") is valid, and resolves to the
// default locale.
func parseTag(s string) (language.Tag, error) {
	if s == "" || len(s) > maxString {
		return language.Tag{}, rangeErr("Invalid language tag: %s", s)
	}
	t, err := language.Parse(s)
	if err != nil {
		var ve interface{ Subtag() string }
		if errors.As(err, &ve) && wellFormed(s) {
			return language.Und, nil
		}
		return language.Tag{}, rangeErr("Invalid language tag: %s", s)
	}
	return t, nil
}

// wellFormed reports whether s is alphanumeric subtags of 1-8 characters
// joined by hyphens, with a first subtag of 2-3 or 5-8 letters.
func wellFormed(s string) bool {
	for i, sub := range strings.Split(s, "-") {
		if len(sub) == 0 || len(sub) > 8 || i == 0 && (len(sub) < 2 || len(sub) == 4) {
			return false
		}
		for _, c := range sub {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

// canonical is the canonical form of s (parsed as t).
func canonical(s string, t language.Tag) string {
	if t == language.Und && !strings.EqualFold(s, "und") {
		return strings.ToLower(s)
	}
	return t.String()
}

// canonicalLocales implements Intl.getCanonicalLocales with
// Intl.Locale's canonicalizer (localeid.go): ICU 78's, from CLDR 48's
// aliases.
func canonicalLocales(ls []string) (any, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range ls {
		c, err := canonicalTag(s)
		if err != nil {
			return nil, err
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// canonicalTag is s canonicalized as V8's getCanonicalLocales does, with
// its two messages: one for a tag that does not start with a language id,
// one for a malformed rest (V8 writes the tag in lowercase).
func canonicalTag(s string) (string, error) {
	// V8's fast path: a lowercase two-letter language other than the
	// legacy ones (and "fil") is canonical as it is, alias or not ("bh").
	if len(s) == 2 && s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'a' && s[1] <= 'z' &&
		!slices.Contains([]string{"in", "iw", "ji", "jw", "mo", "sh", "tl", "no"}, s) || s == "fil" {
		return s, nil
	}
	id, ok := parseLocaleID(s)
	if !ok {
		if startsWithLanguageID(s) {
			return "", rangeErr("Invalid language tag: %s", strings.ToLower(s))
		}
		return "", rangeErr("Incorrect locale information provided")
	}
	id.canonicalize()
	return id.String(), nil
}

// startsWithLanguageID is V8's StartsWithUnicodeLanguageId: a language id
// followed by nothing or by a one-character subtag.
func startsWithLanguageID(s string) bool {
	if len(s) > maxString {
		return false
	}
	parts := strings.Split(s, "-")
	id := &localeID{}
	i, ok := parseLanguageIDLoose(parts, id)
	return ok && (i == len(parts) || len(parts[i]) == 1 || parts[i] == "" && i == len(parts)-1)
}

// resolve picks the first requested locale the linked data covers, or the
// default locale.
func resolve(ls []string) (loc, error) {
	r := supported()
	var pick, req language.Tag
	idx := -1
	for _, s := range ls {
		t, err := parseTag(s)
		if err != nil {
			return loc{}, err
		}
		if idx >= 0 || t == language.Und {
			continue // still validate the rest, as V8 does
		}
		base, _ := t.Base()
		_, i, conf := r.matcher.Match(t)
		if conf >= language.High {
			mb, _ := r.tags[i].Base()
			if mb == base {
				pick, req, idx = stripExt(t), t, i
			}
		}
	}
	if idx < 0 {
		pick = language.MustParse(defaultLocale)
		_, idx, _ = r.matcher.Match(pick)
	}
	return loc{tag: pick.String(), lang: pick, req: req, tr: r.trs[idx], cur: currency.NewLocale(bojanzID(pick))}, nil
}

// stripExt drops extensions and private use: the formatters use none.
func stripExt(t language.Tag) language.Tag {
	b, s, rg := t.Raw()
	out, err := language.Compose(b, s, rg)
	if err != nil {
		return t
	}
	if vs := t.Variants(); len(vs) > 0 {
		if o2, err := language.Compose(b, s, rg, vs); err == nil {
			return o2
		}
	}
	return out
}

// bojanzID names t for bojanz/currency, which falls back from
// language-Script-REGION to its parents.
func bojanzID(t language.Tag) string {
	b, s, rg := t.Raw()
	id := b.String()
	if sc := s.String(); sc != "Zzzz" {
		id += "-" + sc
	} else if id == "zh" {
		// CLDR data for zh-CN lives under zh-Hans.
		if ms, _ := t.Script(); ms.String() != "Zzzz" {
			id += "-" + ms.String()
		}
	}
	if r := rg.String(); r != "ZZ" {
		id += "-" + r
	}
	return id
}

// supportedLocales implements supportedLocalesOf: the canonical requested
// locales the linked data covers.
func supportedLocales(ls []string) (any, error) {
	out := []string{}
	for _, s := range ls {
		lc, err := resolve([]string{s})
		if err != nil {
			return nil, err
		}
		t, _ := parseTag(s)
		if t != language.Und && lc.tag == stripExt(t).String() {
			c, err := canonicalTag(s)
			if err != nil {
				c = canonical(s, t)
			}
			out = append(out, c)
		}
	}
	return out, nil
}
