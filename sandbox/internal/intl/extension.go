package intl

import (
	"sort"
	"strings"
)

// Unicode extension keywords (-u-nu-arab, -u-hc-h23, -u-kn, -u-co-phonebk,
// -u-ca-japanese) of the requested locale that resolve picked, and how
// each constructor resolves them with its options (ECMA-402 ResolveLocale).

// maxKeywords bounds the keywords read from one tag (a tag is at most
// maxString bytes anyway).
const maxKeywords = 64

// keywords are the -u- keywords of lc's requested tag: key → type ("true"
// for a key without a type, as ECMA-402 reads it).
func keywords(lc loc) map[string]string {
	ext, ok := lc.req.Extension('u')
	if !ok {
		return nil
	}
	parts := strings.Split(ext.String(), "-")[1:]
	out := map[string]string{}
	for i := 0; i < len(parts) && len(out) < maxKeywords; {
		if len(parts[i]) != 2 {
			i++ // an attribute
			continue
		}
		key := parts[i]
		j := i + 1
		for j < len(parts) && len(parts[j]) > 2 {
			j++
		}
		val := strings.Join(parts[i+1:j], "-")
		if val == "" {
			val = "true"
		}
		if _, dup := out[key]; !dup {
			out[key] = val
		}
		i = j
	}
	return out
}

// keyword resolves one relevant key as V8 does: the extension's value if
// supported, unless an option is given, which replaces it (and drops the
// keyword from the locale) when it differs, with the option's value if
// supported and the locale's default ("") if not. It returns the value and
// whether the keyword stays in the resolved locale.
func keyword(kw map[string]string, key string, option *string, supported func(string) bool) (value string, keep bool) {
	if v, ok := kw[key]; ok && supported(v) {
		value, keep = v, true
	}
	if option != nil && *option != value {
		value, keep = "", false
		if supported(*option) {
			value = *option
		}
	}
	return value, keep
}

// withKeywords is tag with the kept keywords, sorted by key as the
// canonical form has them ("en-u-ca-japanese-hc-h23-nu-arab"); a "true"
// type is left out ("-u-kn").
func withKeywords(tag string, kept map[string]string) string {
	if len(kept) == 0 {
		return tag
	}
	keys := make([]string, 0, len(kept))
	for k := range kept {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(tag)
	b.WriteString("-u")
	for _, k := range keys {
		b.WriteString("-" + k)
		if kept[k] != "true" {
			b.WriteString("-" + kept[k])
		}
	}
	return b.String()
}

// typeSequence reports whether s is a Unicode type sequence (3-8
// alphanumerics, hyphen-joined), as the numberingSystem and calendar
// options must be.
func typeSequence(s string) bool {
	if s == "" || len(s) > maxString {
		return false
	}
	for _, p := range strings.Split(s, "-") {
		if len(p) < 3 || len(p) > 8 {
			return false
		}
		for _, c := range p {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

// numberingSystem resolves the nu keyword and the numberingSystem option:
// the numeric systems CLDR lists (V8 drops algorithmic ones such as
// "roman"). It returns "" for the locale's default.
func numberingSystem(kw map[string]string, option *string, kept map[string]string) (string, error) {
	if option != nil && !typeSequence(*option) {
		if err := checkLen("numberingSystem", *option); err != nil {
			return "", err
		}
		return "", rangeErr("Invalid numberingSystem : %s", *option)
	}
	ns, keep := keyword(kw, "nu", option, func(v string) bool { _, ok := cldrDigits[v]; return ok })
	if keep {
		kept["nu"] = ns
	}
	return ns, nil
}

// calendarAliases are the deprecated calendar names that V8 resolves to
// another.
var calendarAliases = map[string]string{"islamicc": "islamic-civil", "ethiopic-amete-alem": "ethioaa"}

// calendarKeyword resolves the ca keyword and the calendar option: the
// calendar to format in, "gregory" unless one that formats says another.
func calendarKeyword(kw map[string]string, option *string, kept map[string]string, formats func(string) bool) (string, error) {
	if option != nil && !typeSequence(*option) {
		if err := checkLen("calendar", *option); err != nil {
			return "", err
		}
		return "", rangeErr("Invalid calendar : %s", *option)
	}
	// The aliases CLDR's bcp47 data deprecates name the same calendar,
	// as in V8: in the tag they are replaced before anything is compared,
	// an option is compared as written and then replaced.
	if a, ok := calendarAliases[kw["ca"]]; ok {
		kw["ca"] = a
	}
	canonical := func(ca string) string {
		if a, ok := calendarAliases[ca]; ok {
			return a
		}
		return ca
	}
	ca, keep := keyword(kw, "ca", option, func(ca string) bool { return formats(canonical(ca)) })
	ca = canonical(ca)
	if keep {
		kept["ca"] = ca
	}
	if !formats(ca) {
		ca = "gregory"
	}
	return ca, nil
}
