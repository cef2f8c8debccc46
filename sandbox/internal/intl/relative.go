package intl

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

type rtOptions struct {
	NumberingSystem *string `json:"numberingSystem"`
	Style           string  `json:"style"`
	Numeric         string  `json:"numeric"`
}

type rtResolved struct {
	Locale          string `json:"locale"`
	Style           string `json:"style"`
	Numeric         string `json:"numeric"`
	NumberingSystem string `json:"numberingSystem"`
}

type rtAnswer struct {
	R rtResolved `json:"r"`
	S *string    `json:"s,omitempty"`
	P [][]string `json:"p,omitempty"`
}

var rtUnits = map[string]string{"year": "year", "years": "year", "quarter": "quarter", "quarters": "quarter",
	"month": "month", "months": "month", "week": "week", "weeks": "week", "day": "day", "days": "day",
	"hour": "hour", "hours": "hour", "minute": "minute", "minutes": "minute", "second": "second", "seconds": "second"}

// relativeTime implements Intl.RelativeTimeFormat with CLDR's relative
// time fields; the number is formatted as NumberFormat does.
func (h *Handler) relativeTime(req *request) (any, error) {
	lc, err := resolve(req.L)
	if err != nil {
		return nil, err
	}
	var o rtOptions
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	kept := map[string]string{}
	ns, err := numberingSystem(keywords(lc), o.NumberingSystem, kept)
	if err != nil {
		return nil, err
	}
	sym := h.symbolsOf(lc, ns)
	res := rtResolved{Locale: withKeywords(lc.tag, kept), NumberingSystem: sym.numbering}
	if res.Style, err = enumOption("RelativeTimeFormat", "style", o.Style, "long", "long", "short", "narrow"); err != nil {
		return nil, err
	}
	if res.Numeric, err = enumOption("RelativeTimeFormat", "numeric", o.Numeric, "always", "always", "auto"); err != nil {
		return nil, err
	}
	ans := &rtAnswer{R: res}
	if len(req.V) == 0 {
		return ans, nil
	}
	// The value comes as JS prints it, so that -0 survives JSON.
	var vs, unitArg string
	if json.Unmarshal(req.V, &vs) != nil || json.Unmarshal(req.W, &unitArg) != nil || len(vs) > 64 {
		return nil, typeErr("malformed Intl value")
	}
	v, err := strconv.ParseFloat(vs, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return nil, rangeErr("Value need to be finite number for Intl.RelativeTimeFormat.prototype.format()")
	}
	unit, ok := rtUnits[unitArg]
	if !ok {
		if err := checkLen("unit", unitArg); err != nil {
			return nil, err
		}
		return nil, rangeErr("Invalid unit argument for Intl.RelativeTimeFormat.prototype.format() '%s'", unitArg)
	}
	data := cldrOf(cldrRelative, lc)
	neg := v < 0 || v == 0 && math.Signbit(v)
	var parts [][]string
	if res.Numeric == "auto" && v == math.Trunc(v) && math.Abs(v) <= 3 {
		if t, ok := data[unit+"|"+res.Style+"|"+strconv.Itoa(int(v))]; ok {
			parts = [][]string{{"literal", t}}
		}
	}
	if parts == nil {
		text := strconv.FormatFloat(math.Abs(v), 'g', -1, 64)
		nf := h.numFormat(lc, ns, "decimal", "", "", "", "decimal", nil)
		nres := numResolved{Style: "decimal", MinInt: 1, UseGrouping: "auto", SignDisplay: "never"}
		mn, mx := 0, 3
		nres.MinFrac, nres.MaxFrac = &mn, &mx
		num, err := nf.format(&nres, text)
		if err != nil {
			return nil, err
		}
		x, _ := parseDec(text)
		form := pluralCategory(lc, plainDigits(&nres, x))
		dir := "future"
		if neg {
			dir = "past"
		}
		pat, ok := data[unit+"|"+res.Style+"|"+dir+"|"+form]
		if !ok {
			pat = data[unit+"|"+res.Style+"|"+dir+"|other"]
		}
		before, after, hasNum := strings.Cut(pat, "{0}")
		if before != "" {
			parts = append(parts, []string{"literal", before})
		}
		if hasNum {
			for _, p := range num {
				parts = append(parts, []string{p[0], p[1], unit})
			}
		}
		if after != "" {
			parts = append(parts, []string{"literal", after})
		}
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p[1])
	}
	s := b.String()
	ans.S = &s
	if req.P {
		ans.P = parts
	}
	return ans, nil
}
