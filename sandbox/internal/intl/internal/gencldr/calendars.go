package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// otherCalendars are the calendars besides the Gregorian whose data
// gencldr writes into cldrCalendars, by their BCP 47 name: the CLDR JSON
// packages cldr-cal-<pkg>-full, which the npm registry stops publishing at
// CLDR 39; the unicode-org/cldr-json repository has them at its tag
// 48.0.0. CLDR names the calendar key ("ethiopic-amete-alem") and its
// file after its long name where BCP 47 has a short one ("ethioaa").
var otherCalendars = []struct{ name, pkg, key string }{
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

// loadCalendar reads one calendar (gregorian, japanese, …) of a locale's
// ca-*.json file.
func loadCalendar(path, loc, name string) gregorian {
	b, err := os.ReadFile(path)
	must(err)
	var top struct {
		Main map[string]struct {
			Dates struct {
				Calendars map[string]gregorian `json:"calendars"`
			} `json:"dates"`
		} `json:"main"`
	}
	must(json.Unmarshal(b, &top))
	g, ok := top.Main[loc].Dates.Calendars[name]
	if !ok {
		must(fmt.Errorf("%s: no %s calendar for %s", path, name, loc))
	}
	return g
}

func loadZoneNames(dir, d string) map[string]any {
	var tz map[string]any
	must(load(dir, d, "timeZoneNames.json", func(r json.RawMessage) error {
		var c struct {
			TZ map[string]any `json:"timeZoneNames"`
		}
		err := json.Unmarshal(r, &c)
		tz = c.TZ
		return err
	}))
	return tz
}

// eraList orders a calendar's era names by their number ("0", "1", …,
// "236"); a missing name takes the abbreviation's.
func eraList(m, abbr map[string]string) []string {
	n := 0
	for k := range abbr {
		if i, err := strconv.Atoi(k); err == nil && i+1 > n {
			n = i + 1
		}
	}
	out := make([]string, n)
	for i := range out {
		k := strconv.Itoa(i)
		if v, ok := m[k]; ok {
			out[i] = v
		} else {
			out[i] = abbr[k]
		}
	}
	return out
}

// eraTables are the distinct era name lists (wide, abbreviated, narrow)
// of the calendars written so far, which share them (en-GB's Japanese eras
// are en's), and eraIndex finds one by its Go text.
var (
	eraTables []string
	eraIndex  = map[string]int{}
)

// eraTable returns the index in cldrEras of a calendar's era names.
func eraTable(g gregorian) int {
	t := fmt.Sprintf("{%s, %s, %s}", q(eraList(g.Eras.Names, g.Eras.Abbr)), q(eraList(g.Eras.Abbr, g.Eras.Abbr)), q(eraList(g.Eras.Narrow, g.Eras.Abbr)))
	i, ok := eraIndex[t]
	if !ok {
		i = len(eraTables)
		eraIndex[t] = i
		eraTables = append(eraTables, t)
	}
	return i
}

// writeEraTables writes cldrEras, which the calendars index.
func writeEraTables(w *os.File) {
	fmt.Fprintln(w, "var cldrEras = [][3][]string{")
	for _, t := range eraTables {
		fmt.Fprintf(w, "%s,\n", t)
	}
	fmt.Fprintln(w, "}")
}

// writeCalendar writes one locale's *calendar literal.
func writeCalendar(w *os.File, d string, g gregorian, tz map[string]any, styleSkeletons bool) {
	fmt.Fprintf(w, "\t%q: {\n", d)
	mf, ms := g.Months.Format, g.Months.StandAlone
	fmt.Fprintf(w, "\t\tmonths: [3][]string{%s, %s, %s},\n", q(months(mf.Wide)), q(months(mf.Abbreviated)), q(months(mf.Narrow)))
	fmt.Fprintf(w, "\t\tmonthsSA: [3][]string{%s, %s, %s},\n", q(months(ms.Wide)), q(months(ms.Abbreviated)), q(months(ms.Narrow)))
	df, ds := g.Days.Format, g.Days.StandAlone
	fmt.Fprintf(w, "\t\tdays: [3][]string{%s, %s, %s},\n", q(weekdays(df.Wide)), q(weekdays(df.Abbreviated)), q(weekdays(df.Narrow)))
	fmt.Fprintf(w, "\t\tdaysSA: [3][]string{%s, %s, %s},\n", q(weekdays(ds.Wide)), q(weekdays(ds.Abbreviated)), q(weekdays(ds.Narrow)))
	p := g.DayPeriods.Format.Abbreviated
	fmt.Fprintf(w, "\t\tperiods: []string{%q, %q},\n", p["am"], p["pm"])
	fmt.Fprintf(w, "\t\teras: cldrEras[%d],\n", eraTable(g))
	fmt.Fprintf(w, "\t\tdate: %s,\n\t\ttime: %s,\n", q(styles(plainStyles(g.DateFormats))), q(styles(plainStyles(g.TimeFormats))))
	dt := map[string]string{}
	for _, s := range []string{"full", "long", "medium", "short"} {
		if v, ok := g.DateTimeFormats[s].(string); ok {
			dt[s] = v
		}
	}
	at := g.AtTime.Standard
	if strings.HasPrefix(d, "zh-Hant") {
		// Node 20's ICU 78.2 joins a Traditional Chinese date and time
		// with a space, a thin space (U+2009) in the short style
		// ("1970/1/1 上午12:00:00"), where CLDR 48's JSON has none.
		join := func(style, v string) string {
			sep := " "
			if style == "short" {
				sep = "\u2009"
			}
			return strings.ReplaceAll(v, "{1}{0}", "{1}"+sep+"{0}")
		}
		at = map[string]string{}
		for k, v := range dt {
			dt[k] = join(k, v)
		}
		for k, v := range g.AtTime.Standard {
			at[k] = join(k, v)
		}
	}
	fmt.Fprintf(w, "\t\tdateTime: %s,\n\t\tatTime: %s,\n", q(styles(dt)), q(styles(at)))
	iv, _ := g.DateTimeFormats["intervalFormats"].(map[string]any)
	fb, _ := iv["intervalFormatFallback"].(string)
	fmt.Fprintf(w, "\t\tintervalFallback: %q,\n", fb)
	avail, _ := g.DateTimeFormats["availableFormats"].(map[string]any)
	if styleSkeletons {
		// ICU's pattern generator also knows the date styles' patterns,
		// by the skeletons of their fields (dd/MM/y GGGGG: ddMMyGGGGG);
		// they do not replace an available format of the same skeleton.
		for _, p := range plainStyles(g.DateFormats) {
			if k := patternSkeleton(p); avail[k] == nil {
				avail[k] = p
			}
		}
	}
	keys := make([]string, 0, len(avail))
	for k := range avail {
		if !strings.Contains(k, "-alt-") && !strings.Contains(k, "-count-") && !strings.ContainsAny(k, "QwW") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "\t\tavail: map[string]string{")
	for _, k := range keys {
		fmt.Fprintf(w, "%q: %q, ", k, avail[k])
	}
	fmt.Fprintf(w, "},\n")
	gf, _ := tz["gmtFormat"].(string)
	gz, _ := tz["gmtZeroFormat"].(string)
	utc := [2]string{}
	if z, ok := tz["zone"].(map[string]any); ok {
		if etc, ok := z["Etc"].(map[string]any); ok {
			if u, ok := etc["UTC"].(map[string]any); ok {
				l, _ := u["long"].(map[string]any)
				sh, _ := u["short"].(map[string]any)
				utc[0], _ = l["standard"].(string)
				utc[1], _ = sh["standard"].(string)
			}
		}
	}
	hf, _ := tz["hourFormat"].(string)
	fmt.Fprintf(w, "\t\tgmt: %q, gmtZero: %q, hourFormat: %q, utcLong: %q, utcShort: %q,\n", gf, gz, hf, utc[0], utc[1])
	fmt.Fprintf(w, "\t},\n")
}

// patternSkeleton is the skeleton of a pattern's fields: its letters
// outside quotes.
func patternSkeleton(p string) string {
	var b strings.Builder
	in := false
	for _, c := range p {
		switch {
		case c == '\'':
			in = !in
		case !in && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			b.WriteRune(c)
		}
	}
	return b.String()
}

// plainStyles reads date or time formats that may carry a numbering
// override ({"_value": "Gy年M月d日", "_numbers": "y=jpanyear"}): the
// override is applied in the host (date.go's gannen year).
func plainStyles(m map[string]json.RawMessage) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) != nil {
			var o struct {
				Value string `json:"_value"`
			}
			must(json.Unmarshal(v, &o))
			s = o.Value
		}
		out[k] = s
	}
	return out
}

// writeOtherCalendars writes cldrCalendars (calendar → locale → data) and
// japaneseEras (each era's first day, from cldr-core's calendarData).
func writeOtherCalendars(w *os.File, dates, cal, core string, dirs []string) {
	fmt.Fprintln(w, "var cldrCalendars = map[string]map[string]*calendar{")
	for _, c := range otherCalendars {
		fmt.Fprintf(w, "%q: {\n", c.name)
		for _, d := range dirs {
			path := filepath.Join(cal, "cldr-cal-"+c.pkg+"-full", "main", d, "ca-"+c.key+".json")
			writeCalendar(w, d, loadCalendar(path, d, c.key), loadZoneNames(dates, d), true)
		}
		fmt.Fprintln(w, "},")
	}
	fmt.Fprintln(w, "}")
	b, err := os.ReadFile(filepath.Join(core, "calendarData.json"))
	must(err)
	var cd struct {
		Supplemental struct {
			CalendarData map[string]struct {
				Eras map[string]struct {
					Start string `json:"_start"`
				} `json:"eras"`
			} `json:"calendarData"`
		} `json:"supplemental"`
	}
	must(json.Unmarshal(b, &cd))
	eras := cd.Supplemental.CalendarData["japanese"].Eras
	writeEraTables(w)
	fmt.Fprintln(w, "var japaneseEras = []eraStart{")
	for i := 0; i < len(eras); i++ {
		e, ok := eras[strconv.Itoa(i)]
		if !ok {
			must(fmt.Errorf("calendarData: japanese era %d missing", i))
		}
		var y, m, d int
		if _, err := fmt.Sscanf(e.Start, "%d-%d-%d", &y, &m, &d); err != nil {
			must(fmt.Errorf("calendarData: japanese era %d: %q: %w", i, e.Start, err))
		}
		fmt.Fprintf(w, "{%d, %d, %d}, ", y, m, d)
	}
	fmt.Fprintln(w, "}")
}
