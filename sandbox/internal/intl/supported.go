package intl

import (
	"encoding/json"
	"strings"
)

// supportedValues answers "values" (Intl.supportedValuesOf): Node 20's
// list for the key (supported_gen.go) without the values airlock would not
// honour, so that a script choosing from the list gets what it chose:
//
//   - calendar: gregory and the calendars airlock formats (cldrCalendars);
//     chinese, dangi, islamic, islamic-rgsa and iso8601 would format as
//     gregory. The others are honoured in the locales calendarLocales
//     lists.
//   - collation: the ones x/text has (phonebk, stroke), each in its
//     language.
//   - numberingSystem: the numeric systems CLDR has digits for.
//   - unit: the units with CLDR patterns.
//   - currency, timeZone: Node's lists (airlock formats every currency
//     code, and loads every zone of the list: TestSupportedValues).
func (h *Handler) supportedValues(req *request) (any, error) {
	var key string
	if json.Unmarshal(req.V, &key) != nil {
		return nil, typeErr("malformed Intl value")
	}
	all, ok := nodeSupportedValues[key]
	if !ok {
		if err := checkLen("key", key); err != nil {
			return nil, err
		}
		return nil, rangeErr("Invalid key : %s", key)
	}
	keep := func(string) bool { return true }
	switch key {
	case "calendar":
		keep = func(v string) bool { _, ok := cldrCalendars[v]; return ok || v == "gregory" }
	case "collation":
		keep = func(v string) bool {
			for c := range collations {
				if strings.HasSuffix(c, "-"+v) {
					return true
				}
			}
			return false
		}
	case "numberingSystem":
		keep = func(v string) bool { _, ok := cldrDigits[v]; return ok }
	case "unit":
		keep = func(v string) bool { _, ok := cldrUnits["en"]["short|"+v+"|other"]; return ok }
	}
	out := make([]string, 0, len(all))
	for _, v := range all {
		if keep(v) {
			out = append(out, v)
		}
	}
	return struct {
		R []string `json:"r"`
	}{out}, nil
}
