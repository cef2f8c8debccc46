package intl

import (
	"encoding/json"
	"slices"
	"strings"
)

type listOptions struct {
	Type  string `json:"type"`
	Style string `json:"style"`
}

type listResolved struct {
	Locale string `json:"locale"`
	Type   string `json:"type"`
	Style  string `json:"style"`
}

type listAnswer struct {
	R listResolved `json:"r"`
	S *string      `json:"s,omitempty"`
	P [][2]string  `json:"p,omitempty"`
}

// maxListItems bounds a ListFormat's list.
const maxListItems = 10000

// cldrOf finds a locale's entry in one of the generated CLDR tables.
func cldrOf[T any](table map[string]T, lc loc) T {
	parts := strings.Split(strings.ReplaceAll(lc.tr.Locale(), "_", "-"), "-")
	for n := len(parts); n > 0; n-- {
		if v, ok := table[strings.Join(parts[:n], "-")]; ok {
			return v
		}
	}
	return table["en"]
}

// enumOption checks the option name of Intl.<class> against its allowed
// values: v itself, def when v is empty, or V8's RangeError.
func enumOption(class, name, v string, def string, allowed ...string) (string, error) {
	if v == "" {
		return def, nil
	}
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	if err := checkLen(name, v); err != nil {
		return "", err
	}
	return "", rangeErr("Value %s out of range for Intl.%s options property %s", v, class, name)
}

// listFormat implements Intl.ListFormat with CLDR's list patterns.
func (h *Handler) listFormat(req *request) (any, error) {
	lc, err := resolve(req.L)
	if err != nil {
		return nil, err
	}
	var o listOptions
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	res := listResolved{Locale: lc.tag}
	if res.Type, err = enumOption("ListFormat", "type", o.Type, "conjunction", "conjunction", "disjunction", "unit"); err != nil {
		return nil, err
	}
	if res.Style, err = enumOption("ListFormat", "style", o.Style, "long", "long", "short", "narrow"); err != nil {
		return nil, err
	}
	ans := &listAnswer{R: res}
	if len(req.V) == 0 {
		return ans, nil
	}
	var items []string
	if err := json.Unmarshal(req.V, &items); err != nil {
		return nil, typeErr("malformed Intl value")
	}
	if len(items) > maxListItems {
		return nil, rangeErr("a list of %d items exceeds %d", len(items), maxListItems)
	}
	key := map[string]string{"conjunction": "standard", "disjunction": "or", "unit": "unit"}[res.Type]
	if res.Style != "long" {
		key += "-" + res.Style
	}
	pats := cldrOf(cldrLists, lc)[key]
	if b, _ := lc.lang.Base(); b.String() == "es" && len(items) > 1 {
		last := items[len(items)-1]
		pats[2], pats[3] = spanishConjunction(pats[2], last), spanishConjunction(pats[3], last)
	}
	parts := joinList(items, pats)
	s := joinParts(parts)
	ans.S = &s
	if req.P {
		// V8 has no part for an empty item.
		ans.P = slices.DeleteFunc(parts, func(p [2]string) bool { return p[1] == "" })
	}
	return ans, nil
}

// joinList applies CLDR's start, middle, end and two-item patterns.
func joinList(items []string, pats [4]string) [][2]string {
	n := len(items)
	switch n {
	case 0:
		return nil
	case 1:
		return [][2]string{{"element", items[0]}}
	}
	// Pattern k joins item k ({0}) with the rest of the list ({1}): the
	// pair pattern for two items, else start, middle…, end. Writing each
	// pattern's pieces into one slice, the rest in place of {1}, keeps the
	// work linear in the list (joining the joined rest over and over was
	// quadratic).
	out := make([][2]string, 0, 2*n)
	var emit func(k int)
	emit = func(k int) {
		p := pats[1]
		switch {
		case n == 2:
			p = pats[3]
		case k == 0:
			p = pats[0]
		case k == n-2:
			p = pats[2]
		}
		for p != "" {
			i := strings.Index(p, "{")
			if i < 0 || i+2 >= len(p) || p[i+2] != '}' {
				out = append(out, [2]string{"literal", p})
				break
			}
			if i > 0 {
				out = append(out, [2]string{"literal", p[:i]})
			}
			switch {
			case p[i+1] == '0':
				out = append(out, [2]string{"element", items[k]})
			case k == n-2:
				out = append(out, [2]string{"element", items[n-1]})
			default:
				emit(k + 1)
			}
			p = p[i+3:]
		}
	}
	emit(0)
	return out
}

// spanishConjunction is ICU's Spanish pattern before the list's last item:
// "y" becomes "e" before an i sound ("i…", "hi…" but not "hia…", "hie…")
// and "o" becomes "u" before an o sound ("o…", "ho…", "8…", "11" alone
// or before a space), where the pattern is exactly "{0} y {1}" or
// "{0} o {1}". The test is ICU's, on the first UTF-16 units as given: an
// accented "í" or "ó" does not count.
func spanishConjunction(pat, last string) string {
	lower := func(i int) byte {
		if i < len(last) && last[i] >= 'A' && last[i] <= 'Z' {
			return last[i] + 'a' - 'A'
		}
		if i < len(last) {
			return last[i]
		}
		return 0
	}
	switch pat {
	case "{0} y {1}":
		if lower(0) == 'i' || lower(0) == 'h' && lower(1) == 'i' && lower(2) != 'a' && lower(2) != 'e' {
			return "{0} e {1}"
		}
	case "{0} o {1}":
		if lower(0) == 'o' || lower(0) == '8' || lower(0) == 'h' && lower(1) == 'o' ||
			strings.HasPrefix(last, "11") && (len(last) == 2 || last[2] == ' ') {
			return "{0} u {1}"
		}
	}
	return pat
}
