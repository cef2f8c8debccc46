package intl

import (
	"encoding/json"
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
	parts := joinList(items, pats)
	s := joinParts(parts)
	ans.S = &s
	if req.P {
		ans.P = parts
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
