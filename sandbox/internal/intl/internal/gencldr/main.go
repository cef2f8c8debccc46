// Command gencldr writes ../../cldr_gen.go: the Gregorian calendar
// data (names, date and time patterns, available formats, GMT formats) of
// the linked locales, read from the CLDR JSON distribution (the npm package
// cldr-dates-full, CLDR 48.0, the version Node 20's ICU 78.2 ships, whose data is already resolved):
//
//	npm pack cldr-dates-full@48.0.0 cldr-misc-full@48.0.0 cldr-numbers-full@48.0.0 cldr-units-full@48.0.0 cldr-core@48.0.0 cldr-bcp47@48.2.0
//	for p in dates misc numbers units; do mkdir $p && tar xzf cldr-$p-full-48.0.0.tgz -C $p; done
//	mkdir core bcp && tar xzf cldr-core-48.0.0.tgz -C core && tar xzf cldr-bcp47-48.2.0.tgz -C bcp
//	git -C cldr-json archive 48.0.0 cldr-json/cldr-cal-{buddhist,coptic,ethiopic,hebrew,indian,islamic,japanese,persian,roc}-full | tar x
//	go run ./internal/gencldr {dates,misc,numbers,units}/package/main core/package/supplemental cldr-json > cldr_gen.go
//	gofmt -w cldr_gen.go
//	go run ./internal/genzones dates/package/main core/package/supplemental bcp/package/bcp47 > zonenames_gen.go
//	gofmt -w zonenames_gen.go
//	go run ./internal/gennum numbers/package/main core/package/supplemental > numbers_gen.go
//	gofmt -w numbers_gen.go
//	npm pack cldr-localenames-full@48.0.0 && mkdir localenames && tar xzf cldr-localenames-full-48.0.0.tgz -C localenames
//	go run ./internal/gennames localenames/package/main numbers/package/main dates/package/main core/package/supplemental > names_gen.go
//	gofmt -w names_gen.go
//	go run ./internal/gendayperiods dates/package/main core/package/supplemental > dayperiods_gen.go
//	gofmt -w dayperiods_gen.go
//
// The other calendars' data (cldrCalendars: Buddhist, Coptic, Ethiopic,
// Hebrew, Indian, Islamic, Japanese, Persian, ROC) come from the packages
// cldr-cal-{buddhist,coptic,ethiopic,hebrew,indian,islamic,japanese,persian,roc}-full, which the npm
// registry has at no 48.0.0 (japanese and buddhist stop at 39, roc at 28):
// the command above takes them from a clone of the unicode-org/cldr-json
// repository at its tag 48.0.0 (the same release as the npm packages above;
// its cldr-dates-full/main is byte for byte theirs).
// The Japanese eras' first days come from cldr-core's calendarData.json.
//
// It also writes the list patterns (cldr-misc-full), the relative time
// fields (dateFields.json), the unit patterns (cldr-units-full) and the
// currency unit patterns (cldr-numbers-full). The zone names (metazones, their names and
// the zones' metazones over time) are ../genzones' (zonenames_gen.go).
//
// The locales are those of locales_gen.go (gen_locales.sh), each mapped to
// the nearest CLDR directory (zh_Hans_CN → zh); the calendars also have
// regionalCalendars (zh-Hant-HK).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

type names struct {
	Abbreviated, Narrow, Wide, Short map[string]string
}

type gregorian struct {
	Months, Days struct {
		Format     names `json:"format"`
		StandAlone names `json:"stand-alone"`
	}
	DayPeriods struct {
		Format names `json:"format"`
	} `json:"dayPeriods"`
	Eras struct {
		Names  map[string]string `json:"eraNames"`
		Abbr   map[string]string `json:"eraAbbr"`
		Narrow map[string]string `json:"eraNarrow"`
	} `json:"eras"`
	DateFormats     map[string]json.RawMessage `json:"dateFormats"`
	TimeFormats     map[string]json.RawMessage `json:"timeFormats"`
	DateTimeFormats map[string]any             `json:"dateTimeFormats"`
	AtTime          struct {
		Standard map[string]string `json:"standard"`
	} `json:"dateTimeFormats-atTime"`
}

func load(dir, loc, file string, into func(json.RawMessage) error) error {
	b, err := os.ReadFile(filepath.Join(dir, loc, file))
	if err != nil {
		return err
	}
	var top struct {
		Main map[string]struct {
			Dates json.RawMessage `json:"dates"`
		} `json:"main"`
	}
	if err := json.Unmarshal(b, &top); err != nil {
		return err
	}
	return into(top.Main[loc].Dates)
}

var days = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// months lists a calendar's month names by number: twelve, or thirteen
// (Coptic, Ethiopic, Hebrew), then the Hebrew leap year's Adar II
// ("7-yeartype-leap") after them.
func months(m map[string]string) []string {
	out := make([]string, 12)
	for i := range out {
		out[i] = m[strconv.Itoa(i+1)]
	}
	if v, ok := m["13"]; ok {
		out = append(out, v)
	}
	if v, ok := m["7-yeartype-leap"]; ok {
		out = append(out, v)
	}
	return out
}
func weekdays(m map[string]string) []string {
	out := make([]string, 7)
	for i, d := range days {
		out[i] = m[d]
	}
	return out
}
func styles(m map[string]string) []string {
	return []string{m["full"], m["long"], m["medium"], m["short"]}
}

// regionalCalendars are the CLDR directories whose calendar data is
// written besides the linked locales': Hong Kong's and Macao's
// Traditional Chinese (zh-Hant-HK, d/M/y and a.m./p.m. times), which
// Node formats apart from Taiwan's (calendarDir).
var regionalCalendars = []string{"zh-Hant-HK"}

func main() {
	if len(os.Args) != 7 {
		fmt.Fprintln(os.Stderr, "usage: gencldr DATES_MAIN MISC_MAIN NUMBERS_MAIN UNITS_MAIN CORE_SUPPLEMENTAL CALENDARS_DIR")
		os.Exit(2)
	}
	dir, misc, numbers, units, core, cal := os.Args[1], os.Args[2], os.Args[3], os.Args[4], os.Args[5], os.Args[6]
	src, err := os.ReadFile("locales_gen.go")
	must(err)
	var dirs []string
	seen := map[string]bool{}
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasSuffix(line, ".New,") {
			continue
		}
		parts := strings.Split(strings.TrimSuffix(line, ".New,"), "_")
		for n := len(parts); n > 0; n-- {
			d := strings.Join(parts[:n], "-")
			if _, err := os.Stat(filepath.Join(dir, d)); err == nil {
				if !seen[d] {
					seen[d] = true
					dirs = append(dirs, d)
				}
				break
			}
		}
	}
	sort.Strings(dirs)
	// The calendars also have the regional data Node tells apart from
	// its parent's where no translator of its own is linked.
	calDirs := slices.Sorted(slices.Values(append(slices.Clone(dirs), regionalCalendars...)))
	w := os.Stdout
	fmt.Fprintln(w, "// Code generated by internal/gencldr from CLDR 48.0 (cldr-{dates,misc,numbers,units}-full, cldr-cal-*-full, cldr-core); DO NOT EDIT.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "package intl")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "var cldrDates = map[string]*calendar{")
	for _, d := range calDirs {
		g := loadCalendar(filepath.Join(dir, d, "ca-gregorian.json"), d, "gregorian")
		writeCalendar(w, d, g, loadZoneNames(dir, d), false)
	}
	fmt.Fprintln(w, "}")
	writeOtherCalendars(w, dir, cal, core, calDirs)
	writeLists(w, misc, dirs)
	writeRelative(w, dir, dirs)
	writeUnits(w, units, dirs)
	writeCurrencyNames(w, numbers, dirs)
}

// writeCurrencyNames writes cldrCurrencyNames: locale → "|one" → the
// pattern joining number ({0}) and a currency's name ({1}). The names
// are ../gennames' (names_gen.go's money records).
func writeCurrencyNames(w *os.File, numbers string, dirs []string) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "var cldrCurrencyNames = map[string]map[string]string{")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(numbers, d, "numbers.json"))
		must(err)
		var num struct {
			Main map[string]struct {
				Numbers map[string]any `json:"numbers"`
			} `json:"main"`
		}
		must(json.Unmarshal(b, &num))
		n := num.Main[d].Numbers
		ns, _ := n["defaultNumberingSystem"].(string)
		cf, _ := n["currencyFormats-numberSystem-"+ns].(map[string]any)
		out := map[string]string{}
		for k, v := range cf {
			if count, ok := strings.CutPrefix(k, "unitPattern-count-"); ok {
				out["|"+count], _ = v.(string)
			}
		}
		keys := make([]string, 0, len(out))
		for k := range out {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "\t%q: {", d)
		for _, k := range keys {
			fmt.Fprintf(w, "%q: %q, ", k, out[k])
		}
		fmt.Fprintln(w, "},")
	}
	fmt.Fprintln(w, "}")
}

// sanctioned are ECMA-402's simple units, and the compound units CLDR has
// patterns for.
var sanctioned = []string{"acre", "bit", "byte", "celsius", "centimeter", "day", "degree", "fahrenheit",
	"fluid-ounce", "foot", "gallon", "gigabit", "gigabyte", "gram", "hectare", "hour", "inch", "kilobit",
	"kilobyte", "kilogram", "kilometer", "liter", "megabit", "megabyte", "meter", "microsecond", "mile",
	"mile-scandinavian", "milliliter", "millimeter", "millisecond", "minute", "month", "nanosecond", "ounce",
	"percent", "petabyte", "pound", "second", "stone", "terabit", "terabyte", "week", "yard", "year",
	"kilometer-per-hour", "mile-per-hour", "meter-per-second", "liter-per-kilometer", "mile-per-gallon"}

// writeUnits writes cldrUnits: locale → "short|kilometer|one" → pattern.
func writeUnits(w *os.File, units string, dirs []string) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "var cldrUnits = map[string]map[string]string{")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(units, d, "units.json"))
		must(err)
		var top struct {
			Main map[string]struct {
				Units map[string]map[string]any `json:"units"`
			} `json:"main"`
		}
		must(json.Unmarshal(b, &top))
		out := map[string]string{}
		for _, st := range []string{"long", "short", "narrow"} {
			for key, v := range top.Main[d].Units[st] {
				_, name, ok := strings.Cut(key, "-")
				if !ok {
					continue
				}
				for _, u := range sanctioned {
					if name != u {
						continue
					}
					m, _ := v.(map[string]any)
					for ck, cv := range m {
						if count, ok := strings.CutPrefix(ck, "unitPattern-count-"); ok && !strings.Contains(count, "-") {
							out[st+"|"+u+"|"+count], _ = cv.(string)
						}
					}
				}
			}
		}
		keys := make([]string, 0, len(out))
		for k := range out {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "\t%q: {", d)
		for _, k := range keys {
			fmt.Fprintf(w, "%q: %q, ", k, out[k])
		}
		fmt.Fprintln(w, "},")
	}
	fmt.Fprintln(w, "}")
}

// writeLists writes cldrLists: locale → "standard", "or-short", … →
// {start, middle, end, two}.
func writeLists(w *os.File, misc string, dirs []string) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "var cldrLists = map[string]map[string][4]string{")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(misc, d, "listPatterns.json"))
		must(err)
		var top struct {
			Main map[string]struct {
				LP map[string]map[string]string `json:"listPatterns"`
			} `json:"main"`
		}
		must(json.Unmarshal(b, &top))
		lp := top.Main[d].LP
		keys := make([]string, 0, len(lp))
		for k := range lp {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "\t%q: {", d)
		for _, k := range keys {
			p := lp[k]
			fmt.Fprintf(w, "%q: {%q, %q, %q, %q}, ", strings.TrimPrefix(k, "listPattern-type-"), p["start"], p["middle"], p["end"], p["2"])
		}
		fmt.Fprintln(w, "},")
	}
	fmt.Fprintln(w, "}")
}

// writeRelative writes cldrRelative: locale → "unit|style|key" → text,
// where key is "-1", "0", "1" (…) for the named days, or
// "future|one", "past|other" (…) for the patterns.
func writeRelative(w *os.File, dir string, dirs []string) {
	units := []string{"year", "quarter", "month", "week", "day", "hour", "minute", "second"}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "var cldrRelative = map[string]map[string]string{")
	for _, d := range dirs {
		var fields map[string]map[string]any
		must(load(dir, d, "dateFields.json", func(r json.RawMessage) error {
			var c struct {
				Fields map[string]map[string]any `json:"fields"`
			}
			err := json.Unmarshal(r, &c)
			fields = c.Fields
			return err
		}))
		out := map[string]string{}
		for _, u := range units {
			for _, st := range []string{"long", "short", "narrow"} {
				name := u
				if st != "long" {
					name += "-" + st
				}
				f := fields[name]
				for k, v := range f {
					switch {
					case strings.HasPrefix(k, "relative-type-"):
						out[u+"|"+st+"|"+strings.TrimPrefix(k, "relative-type-")], _ = v.(string)
					case strings.HasPrefix(k, "relativeTime-type-"):
						dir := strings.TrimPrefix(k, "relativeTime-type-")
						m, _ := v.(map[string]any)
						for ck, cv := range m {
							out[u+"|"+st+"|"+dir+"|"+strings.TrimPrefix(ck, "relativeTimePattern-count-")], _ = cv.(string)
						}
					}
				}
			}
		}
		keys := make([]string, 0, len(out))
		for k := range out {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "\t%q: {", d)
		for _, k := range keys {
			fmt.Fprintf(w, "%q: %q, ", k, out[k])
		}
		fmt.Fprintln(w, "},")
	}
	fmt.Fprintln(w, "}")
}

func q(ss []string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = strconv.Quote(s)
	}
	return "[]string{" + strings.Join(parts, ", ") + "}"
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
