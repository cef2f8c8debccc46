package intl

import (
	"encoding/json"
	"errors"
	"strings"

	"golang.org/x/text/language"
)

// Intl.DisplayNames: the names of languages, regions, scripts and
// currencies from CLDR 48 (names_gen.go, written by internal/gennames),
// composed as ICU's LocaleDisplayNames composes a language tag's name.

type dnOptions struct {
	Style           string `json:"style"`
	Type            string `json:"type"`
	Fallback        string `json:"fallback"`
	LanguageDisplay string `json:"languageDisplay"`
}

// dnResolved is resolvedOptions(), in V8's order.
type dnResolved struct {
	Locale          string `json:"locale"`
	Style           string `json:"style"`
	Type            string `json:"type"`
	Fallback        string `json:"fallback"`
	LanguageDisplay string `json:"languageDisplay,omitempty"`
}

type dnAnswer struct {
	R dnResolved `json:"r"`
	// S is the name; absent (undefined) when there is none and fallback
	// is "none".
	S *string `json:"s,omitempty"`
}

func (h *Handler) displayNames(req *request) (any, error) {
	lc, err := resolve(req.L)
	if err != nil {
		return nil, err
	}
	var o dnOptions
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	res := dnResolved{Locale: lc.tag}
	if res.Style, err = enumOption("DisplayNames", "style", o.Style, "long", "narrow", "short", "long"); err != nil {
		return nil, err
	}
	if o.Type == "" {
		return nil, typeErr("invalid_argument")
	}
	if res.Type, err = enumOption("DisplayNames", "type", o.Type, "", "language", "region", "script", "currency", "calendar", "dateTimeField"); err != nil {
		return nil, err
	}
	if res.Fallback, err = enumOption("DisplayNames", "fallback", o.Fallback, "code", "code", "none"); err != nil {
		return nil, err
	}
	display, err := enumOption("DisplayNames", "languageDisplay", o.LanguageDisplay, "dialect", "dialect", "standard")
	if err != nil {
		return nil, err
	}
	if res.Type == "language" {
		res.LanguageDisplay = display
	}
	ans := &dnAnswer{R: res}
	if len(req.V) == 0 {
		return ans, nil
	}
	var code string
	if err := json.Unmarshal(req.V, &code); err != nil {
		return nil, typeErr("malformed Intl value")
	}
	if len(code) > maxString {
		return nil, rangeErr("invalid_argument")
	}
	names := h.namesOf(lc)
	short := res.Style != "long"
	// Region and script codes are looked up as given (ICU's names are
	// case-sensitive): "gb" has no name, and falls back to itself.
	var name string
	found := false
	switch res.Type {
	case "language":
		name, found, err = languageName(names, code, short, res.LanguageDisplay == "dialect")
		if err != nil {
			return nil, err
		}
	case "region":
		if !regionCode(strings.ToUpper(code)) {
			return nil, rangeErr("invalid_argument")
		}
		name = names.pick("r:", code, short)
	case "script":
		if len(code) != 4 || !alpha(code) {
			return nil, rangeErr("invalid_argument")
		}
		name = names.pick("s:", code, short)
	case "currency":
		if !wellFormedCurrency(code) {
			return nil, rangeErr("invalid_argument")
		}
		name = names.get("c:" + strings.ToUpper(code))
	case "calendar":
		if !typeSequence(code) {
			return nil, rangeErr("invalid_argument")
		}
		name = names.get("k:" + cmpOr(cldrCalendarKeys[code], code))
	case "dateTimeField":
		key, ok := dateTimeFields[code]
		if !ok {
			return nil, rangeErr("invalid_argument")
		}
		if res.Style != "long" {
			key += "-" + res.Style
		}
		name = names.get("f:" + key)
	}
	if res.Type != "language" {
		found = name != ""
		if !found {
			name = code
		}
	}
	if found || res.Fallback == "code" {
		ans.S = &name
	}
	return ans, nil
}

// cldrCalendarKeys are CLDR's names of the BCP 47 calendar types whose
// names differ.
var cldrCalendarKeys = map[string]string{"gregory": "gregorian", "ethioaa": "ethiopic-amete-alem"}

// dateTimeFields are ECMA-402's date fields and CLDR's names of them.
var dateTimeFields = map[string]string{"era": "era", "year": "year", "quarter": "quarter", "month": "month",
	"weekOfYear": "week", "weekday": "weekday", "day": "day", "dayPeriod": "dayperiod", "hour": "hour",
	"minute": "minute", "second": "second", "timeZoneName": "zone"}

// nameTables are a locale's names, most specific first: its own region's
// differences, then its language's.
type nameTables []map[string]string

func (t nameTables) get(key string) string {
	for _, m := range t {
		if v, ok := m[key]; ok {
			return v
		}
	}
	return ""
}

// pick is the name of code of a kind ("r:"), its short form where asked
// and CLDR has one.
func (t nameTables) pick(kind, code string, short bool) string {
	if short {
		if v := t.get(kind + code + "-alt-short"); v != "" {
			return v
		}
	}
	return t.get(kind + code)
}

// namesOf returns lc's name tables, parsed once and cached: its own, then
// its language's (or language and script's: zh-Hant is not zh).
func (h *Handler) namesOf(lc loc) nameTables {
	var out nameTables
	for _, c := range numberCandidates(lc) {
		if _, ok := cldrNames[c]; !ok {
			continue
		}
		out = append(out, h.cached("names\x00"+c, func() any { return parseNames(cldrNames[c]) }).(map[string]string))
		if c == namesBase(c) {
			break
		}
	}
	return out
}

// namesBase is the locale whose names a locale's table adds to: its
// language, or its language and script (as gennames writes them).
func namesBase(l string) string {
	parts := strings.Split(l, "-")
	if len(parts) > 1 && len(parts[1]) == 4 {
		return parts[0] + "-" + parts[1]
	}
	return parts[0]
}

func parseNames(s string) map[string]string {
	m := make(map[string]string, strings.Count(s, "\n")+1)
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(line, "\t"); ok {
			m[k] = v
		}
	}
	return m
}

func alpha(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// regionCode reports whether s is a region subtag: two letters or three
// digits.
func regionCode(s string) bool {
	if len(s) == 2 {
		return alpha(s)
	}
	if len(s) != 3 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// languageName is ICU's locale display name of a unicode_language_id:
// with dialect names, "en-US" is "American English" where CLDR has such a
// name; the script, region and variants not named so go in parentheses
// ("Chinese (Traditional, Taiwan)"), as codes where CLDR has no name.
// Extensions are left out. found is false when the language itself has
// no name.
func languageName(names nameTables, code string, short, dialect bool) (name string, found bool, err error) {
	lower := strings.ToLower(code)
	for _, sep := range []string{"-u-", "-x-", "-t-"} {
		if i := strings.Index(lower, sep); i > 0 {
			code, lower = code[:i], lower[:i]
		}
	}
	if code == "" {
		code, lower = "und", "und"
	}
	if !wellFormed(code) {
		return "", false, rangeErr("invalid_argument")
	}
	if _, err := language.Parse(code); err != nil {
		var ve interface{ Subtag() string }
		if !errors.As(err, &ve) {
			return "", false, rangeErr("invalid_argument")
		}
	}
	subs := strings.Split(lower, "-")
	lang, script, region := subs[0], "", ""
	if t, err := language.Parse(lang); err == nil {
		if b, conf := t.Base(); conf == language.Exact {
			lang = b.String() // iw is he
		}
	}
	rest := subs[1:]
	if len(rest) > 0 && len(rest[0]) == 4 && alpha(rest[0]) {
		script, rest = strings.ToUpper(rest[0][:1])+rest[0][1:], rest[1:]
	}
	if len(rest) > 0 && regionCode(strings.ToUpper(rest[0])) {
		region, rest = strings.ToUpper(rest[0]), rest[1:]
	}
	base := ""
	if dialect {
		key := ""
		switch {
		case script != "" && region != "":
			key = lang + "-" + script + "-" + region
		case script != "":
			key = lang + "-" + script
		case region != "":
			key = lang + "-" + region
		}
		if v := names.pick("l:", key, short); key != "" && v != "" {
			base, script, region = v, "", ""
		}
	}
	if base == "" {
		base = names.pick("l:", lang, short)
	}
	if lang == "und" {
		base = "root" // ICU names the root locale so, in every language
	}
	found = base != ""
	if !found {
		base = lang
	}
	var details []string
	if script != "" {
		details = append(details, cmpOr(names.pick("s:", script, short), script))
	}
	if region != "" {
		details = append(details, cmpOr(names.pick("r:", region, short), region))
	}
	for _, v := range rest {
		v = strings.ToUpper(v)
		details = append(details, cmpOr(names.get("v:"+v), v))
	}
	if len(details) == 0 {
		return base, found, nil
	}
	// ICU turns parentheses inside the details into brackets.
	brackets := strings.NewReplacer("(", "[", ")", "]", "（", "［", "）", "］")
	for i := range details {
		details[i] = brackets.Replace(details[i])
	}
	sep := cmpOr(names.get("p:localeSeparator"), "{0}, {1}")
	list := details[0]
	for _, d := range details[1:] {
		list = strings.NewReplacer("{0}", list, "{1}", d).Replace(sep)
	}
	pat := cmpOr(names.get("p:localePattern"), "{0} ({1})")
	return strings.NewReplacer("{0}", base, "{1}", list).Replace(pat), found, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
