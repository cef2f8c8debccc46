// Command genintervals writes ../../intervals_gen.go: the interval formats
// (formatRange's patterns, CLDR's dateTimeFormats.intervalFormats) of the
// Gregorian calendar and of the other calendars gencldr writes, for the
// CLDR directories of cldr_gen.go, read from CLDR 48.0's JSON: the npm
// package cldr-dates-full@48.0.0 (its tarball's sha256 is
// 72fece9f1c86dc2a5e5ae71fdece65f0dc9907ce4371453b3033cb6ed0c2438b) and
// the cldr-cal-*-full packages of the unicode-org/cldr-json repository at
// its tag 48.0.0, fetched as ../gencldr's doc comment says. From
// sandbox/internal/intl:
//
//	npm pack cldr-dates-full@48.0.0 && mkdir dates && tar xzf cldr-dates-full-48.0.0.tgz -C dates
//	git -C cldr-json archive 48.0.0 cldr-json/cldr-cal-{buddhist,coptic,ethiopic,hebrew,indian,islamic,japanese,persian,roc}-full | tar x
//	go run ./internal/genintervals dates/package/main cldr-json > intervals_gen.go
//	gofmt -w intervals_gen.go
//
// A locale's formats are its fallback and a map from skeleton to the
// pattern for each greatest differing field (era, year, month, day, am/pm,
// hour, minute);
// the calendars and locales that share a table (most calendars share
// CLDR's generic one) point at one copy of it.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// calendars are the other calendars by their BCP 47 name, their package
// and their CLDR key (gencldr's otherCalendars).
var calendars = []struct{ name, pkg, key string }{
	{"buddhist", "buddhist", "buddhist"},
	{"coptic", "coptic", "coptic"},
	{"ethioaa", "ethiopic", "ethiopic-amete-alem"},
	{"ethiopic", "ethiopic", "ethiopic"},
	{"hebrew", "hebrew", "hebrew"},
	{"indian", "indian", "indian"},
	{"islamic-civil", "islamic", "islamic-civil"},
	{"islamic-tbla", "islamic", "islamic-tbla"},
	{"islamic-umalqura", "islamic", "islamic-umalqura"},
	{"japanese", "japanese", "japanese"},
	{"persian", "persian", "persian"},
	{"roc", "roc", "roc"},
}

// fieldIndex is the slot of a CLDR greatest-difference key: G y M d, the
// day period (a, B) and the hour (h, H), m.
var fieldIndex = map[string]int{"G": 0, "y": 1, "M": 2, "d": 3, "a": 4, "B": 4, "h": 5, "H": 5, "m": 6}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "genintervals:", err)
		os.Exit(1)
	}
}

// dirs are cldr_gen.go's calendar directories, read off its cldrDates.
func dirs() []string {
	b, err := os.ReadFile("cldr_gen.go")
	must(err)
	s := string(b)
	start := strings.Index(s, "var cldrDates = map[string]*calendar{")
	end := strings.Index(s, "var cldrCalendars")
	if start < 0 || end < start {
		must(fmt.Errorf("cldr_gen.go: no cldrDates"))
	}
	var out []string
	for _, line := range strings.Split(s[start:end], "\n") {
		if strings.HasPrefix(line, "\t\"") && strings.HasSuffix(line, "\": {") {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(line, "\t\""), "\": {"))
		}
	}
	return out
}

// load reads a calendar's interval formats: skeleton → field → pattern.
func load(path, dir, key string) map[string]map[string]string {
	b, err := os.ReadFile(path)
	must(err)
	var top struct {
		Main map[string]struct {
			Dates struct {
				Calendars map[string]struct {
					DateTimeFormats struct {
						IntervalFormats map[string]json.RawMessage `json:"intervalFormats"`
					} `json:"dateTimeFormats"`
				} `json:"calendars"`
			} `json:"dates"`
		} `json:"main"`
	}
	must(json.Unmarshal(b, &top))
	c, ok := top.Main[dir].Dates.Calendars[key]
	if !ok {
		must(fmt.Errorf("%s: no %s calendar", path, key))
	}
	out := map[string]map[string]string{}
	for sk, raw := range c.DateTimeFormats.IntervalFormats {
		if sk == "intervalFormatFallback" {
			var f string
			must(json.Unmarshal(raw, &f))
			out[""] = map[string]string{"": f}
			continue
		}
		var m map[string]string
		must(json.Unmarshal(raw, &m))
		out[sk] = m
	}
	return out
}

// table is a table's Go source, the key it is deduplicated by.
func table(f map[string]map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{%q, map[string][7]string{", f[""][""])
	for _, sk := range sorted(f) {
		if sk == "" {
			continue
		}
		var slots [7]string
		for _, k := range sorted(f[sk]) {
			if strings.Contains(k, "-alt-") {
				continue // ICU reads no alternative forms
			}
			i, ok := fieldIndex[k]
			if !ok {
				must(fmt.Errorf("skeleton %s: unknown field %q", sk, k))
			}
			// a and B are both ICU's AM_PM field: the first in the
			// resource's (sorted) order, B, is the one it keeps.
			if slots[i] == "" {
				slots[i] = f[sk][k]
			}
		}
		fmt.Fprintf(&b, "%q: {", sk)
		for i, p := range slots {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q", p)
		}
		b.WriteString("},\n")
	}
	b.WriteString("}}")
	return b.String()
}

func sorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: genintervals DATES_MAIN CALENDARS_DIR")
		os.Exit(2)
	}
	datesDir, calDir := os.Args[1], os.Args[2]
	var tables []string
	index := map[string]int{}
	ref := func(f map[string]map[string]string) int {
		src := table(f)
		if i, ok := index[src]; ok {
			return i
		}
		index[src] = len(tables)
		tables = append(tables, src)
		return len(tables) - 1
	}
	ds := dirs()
	refs := map[string]map[string]int{"gregory": {}}
	for _, d := range ds {
		refs["gregory"][d] = ref(load(filepath.Join(datesDir, d, "ca-gregorian.json"), d, "gregorian"))
	}
	for _, c := range calendars {
		refs[c.name] = map[string]int{}
		for _, d := range ds {
			path := filepath.Join(calDir, "cldr-cal-"+c.pkg+"-full", "main", d, "ca-"+c.key+".json")
			refs[c.name][d] = ref(load(path, d, c.key))
		}
	}
	w := os.Stdout
	fmt.Fprintln(w, "// Code generated by internal/genintervals from CLDR 48.0 (cldr-dates-full, cldr-cal-*-full); DO NOT EDIT.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "package intl")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "// cldrIntervalTables are the distinct interval format tables: the")
	fmt.Fprintln(w, "// fallback, and skeleton → the pattern where the era, year, month, day,")
	fmt.Fprintln(w, "// day period, hour or minute is the greatest field the two dates differ in.")
	fmt.Fprintln(w, "var cldrIntervalTables = []intervalTable{")
	for _, t := range tables {
		fmt.Fprintf(w, "%s,\n", t)
	}
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "// cldrIntervals is each calendar's and CLDR directory's table in")
	fmt.Fprintln(w, "// cldrIntervalTables.")
	fmt.Fprintln(w, "var cldrIntervals = map[string]map[string]int{")
	for _, ca := range sorted(refs) {
		fmt.Fprintf(w, "%q: {", ca)
		for _, d := range ds {
			fmt.Fprintf(w, "%q: %d, ", d, refs[ca][d])
		}
		fmt.Fprintln(w, "},")
	}
	fmt.Fprintln(w, "}")
}
