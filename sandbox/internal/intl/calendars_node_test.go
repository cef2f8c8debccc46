package intl

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The calendars audit (issue 23): the linked locales format dates in the
// Japanese, Buddhist, ROC, tabular Islamic, Umm al-Qura, Persian, Hebrew,
// Indian, Coptic and Ethiopic calendars (and the Gregorian, with eras) as
// Node 20 does, where calendarLocales lists them: format, formatToParts
// and resolvedOptions of Intl.DateTimeFormat, and toLocaleDateString and
// toLocaleString, over dates on both sides of every modern era's first
// day, the Julian to Gregorian change, the Islamic epoch and new years,
// the Persian, Hebrew, Indian, Coptic and Ethiopic new years and leap
// months, the ends of the Umm al-Qura table, years before 1 and the ends
// of the time range. A locale left out of calendarLocales must still differ somewhere
// (it runs with every calendar on to see), so that one that comes to match
// is added.

var calendarDates = []string{
	"2024-01-15T15:04:05Z", "1970-01-01T00:00:00Z",
	"2019-05-01T00:00:00Z", "2019-04-30T23:59:59Z", // Reiwa
	"1989-01-08T00:00:00Z", "1989-01-07T12:00:00Z", // Heisei
	"1926-12-25T00:00:00Z", "1926-12-24T00:00:00Z", // Shōwa
	"1912-07-30T00:00:00Z", "1912-07-29T00:00:00Z", // Taishō
	"1868-10-23T00:00:00Z", "1868-10-22T00:00:00Z", // Meiji
	"1912-01-01T00:00:00Z", "1911-12-31T00:00:00Z", // Minguo
	"1872-12-31T00:00:00Z", "1873-01-01T00:00:00Z",
	"1582-10-15T00:00:00Z", "1582-10-14T00:00:00Z", // Gregorian, Julian
	"1500-01-01T00:00:00Z", "0645-07-22T00:00:00Z", "0645-07-21T00:00:00Z", // Taika
	"0001-01-01T00:00:00Z", "0000-12-31T00:00:00Z", "-000050-03-01T00:00:00Z", "-001000-01-01T00:00:00Z",
	"2000-02-29T00:00:00Z", "2100-12-31T23:00:00Z", "2008-01-01T00:00:00Z", "2009-01-01T00:00:00Z", // two-digit years
	"+275760-09-13T00:00:00Z", "-271821-04-20T00:00:00Z",
	"0622-07-19T00:00:00Z", "0622-07-18T00:00:00Z", "0622-03-22T00:00:00Z", "0622-03-21T00:00:00Z", // Islamic epoch
	"2024-03-20T00:00:00Z", "2024-03-19T00:00:00Z", "2025-03-21T00:00:00Z", "2023-07-19T00:00:00Z", "2024-07-07T00:00:00Z", "2025-06-26T00:00:00Z",
	"2124-03-19T00:00:00Z", "2124-03-20T00:00:00Z", "2123-03-21T00:00:00Z", // Persian 1502 AP, not leap in ICU 78
	"2024-02-10T00:00:00Z", "2024-03-11T00:00:00Z", "2024-04-09T00:00:00Z", "2025-03-01T00:00:00Z", "2024-10-03T00:00:00Z", "2024-10-02T00:00:00Z", // Hebrew Adar I, Adar II, Nisan, Adar, Tishri
	"2024-03-21T00:00:00Z", "2023-03-22T00:00:00Z", "2023-03-21T00:00:00Z", // Indian Chaitra
	"1882-11-12T00:00:00Z", "1882-11-11T00:00:00Z", "2174-10-27T00:00:00Z", "2174-10-26T00:00:00Z", "2174-11-26T00:00:00Z", "2174-11-25T00:00:00Z", // Umm al-Qura's table
	"2023-09-12T00:00:00Z", "2023-09-11T00:00:00Z", "2024-09-10T00:00:00Z", "0284-08-29T00:00:00Z", "0008-08-27T00:00:00Z", // Coptic and Ethiopic new years
}

var calendarOptions = []string{
	`{}`, `{"era":"long"}`, `{"era":"short"}`, `{"era":"narrow"}`,
	`{"year":"numeric"}`, `{"year":"2-digit"}`, `{"era":"long","year":"numeric"}`, `{"era":"narrow","year":"2-digit"}`,
	`{"year":"2-digit","month":"short"}`, `{"year":"numeric","month":"long"}`, `{"month":"long"}`, `{"month":"short","day":"numeric"}`,
	`{"month":"numeric","day":"numeric"}`, `{"year":"numeric","month":"numeric"}`,
	`{"year":"numeric","month":"long","day":"numeric"}`, `{"year":"numeric","month":"short","day":"numeric"}`,
	`{"year":"2-digit","month":"2-digit","day":"2-digit"}`, `{"year":"numeric","month":"numeric","day":"numeric","weekday":"short"}`,
	`{"year":"numeric","month":"long","day":"numeric","weekday":"long"}`,
	`{"era":"long","year":"numeric","month":"long","day":"numeric"}`, `{"era":"short","year":"numeric","month":"short","day":"numeric"}`,
	`{"era":"narrow","year":"numeric","month":"numeric","day":"numeric"}`, `{"era":"short","year":"2-digit","month":"numeric","day":"numeric"}`,
	`{"dateStyle":"full"}`, `{"dateStyle":"long"}`, `{"dateStyle":"medium"}`, `{"dateStyle":"short"}`,
	`{"dateStyle":"full","timeStyle":"short"}`, `{"dateStyle":"long","timeStyle":"medium"}`, `{"dateStyle":"medium","timeStyle":"long"}`, `{"dateStyle":"short","timeStyle":"full"}`,
	`{"timeStyle":"short"}`, `{"year":"numeric","month":"numeric","day":"numeric","hour":"numeric","minute":"2-digit"}`,
	`{"year":"numeric","month":"short","day":"numeric","hour":"2-digit","minute":"2-digit","second":"2-digit","hour12":false}`,
}

// fewDates index the calendarDates that toLocaleDateString and
// toLocaleString format (each call builds a formatter in Node).
const fewDates = "0,3,10,23"

var auditCalendars = []string{"japanese", "buddhist", "roc", "gregory", "islamic-civil", "islamic-tbla",
	"persian", "hebrew", "indian", "islamic-umalqura", "coptic", "ethiopic", "ethioaa"}

// gregorianDifferences are the locales whose Gregorian dates differ from
// Node's with an era option (none since Traditional Chinese day periods and
// date-time joins match).
var gregorianDifferences = []string{}

// expectedToMatch reports whether the audit requires calendar ca to match
// Node in the locale whose CLDR directory is dir.
func expectedToMatch(ca, dir string) bool {
	if ca == "gregory" {
		return !slices.Contains(gregorianDifferences, dir)
	}
	return slices.Contains(strings.Fields(calendarLocales[ca]), dir)
}

// calendarLocales are the linked locales' CLDR directories and the
// regional tags scripts write.
func auditCalendarLocales() []string {
	var out []string
	for l := range cldrDates {
		out = append(out, l)
	}
	out = append(out, "en-US", "ja-JP", "zh-TW", "ar-SA")
	sort.Strings(out)
	return out
}

type calendarCase struct {
	Locale  string `json:"l"`
	Options string `json:"o"`
	// Kind: "dtf" (format, formatToParts, resolvedOptions), "date"
	// (toLocaleDateString) or "all" (toLocaleString).
	Kind string `json:"k"`
}

const calendarNode = `
const [cases, dates] = JSON.parse(require("fs").readFileSync(0, "utf8"));
const ms = dates.map((d) => Date.parse(d));
const few = ` + "[" + fewDates + "]" + `;
const out = cases.map((c) => {
  const o = Object.assign({ timeZone: "UTC" }, JSON.parse(c.o));
  try {
    if (c.k === "dtf") {
      const f = new Intl.DateTimeFormat(c.l, o);
      return [JSON.stringify(f.resolvedOptions()), ...ms.map((v) => f.format(v) + "\n" + JSON.stringify(f.formatToParts(v).map((p) => [p.type, p.value])))];
    }
    const m = c.k === "date" ? "toLocaleDateString" : "toLocaleString";
    return ["", ...few.map((i) => new Date(ms[i])[m](c.l, o))];
  } catch (e) {
    return [String(e)];
  }
});
process.stdout.write(JSON.stringify(out));
`

func TestCalendarsMatchNode(t *testing.T) {
	node := requireNode(t, "audit calendars")
	var cases []calendarCase
	for _, l := range auditCalendarLocales() {
		for ci, ca := range auditCalendars {
			for oi, o := range calendarOptions {
				if ca == "gregory" && !strings.Contains(o, "era") {
					continue // the Gregorian's other options have their own tests
				}
				tag, opts := l+"-u-ca-"+ca, o
				if (ci+oi)%2 == 1 {
					// Half the cases name the calendar in an option.
					tag = l
					opts = strings.Replace(o, "{", `{"calendar":"`+ca+`",`, 1)
					opts = strings.Replace(opts, ",}", "}", 1)
				}
				cases = append(cases, calendarCase{tag, opts, "dtf"})
				if !strings.Contains(o, "Style") && oi%2 == 0 {
					cases = append(cases, calendarCase{tag, opts, "date"})
				}
				if oi%3 == 0 {
					cases = append(cases, calendarCase{tag, opts, "all"})
				}
			}
		}
	}
	var want [][]string
	nodeJSON(t, node, calendarNode, []any{cases, calendarDates}, &want)
	require.Len(t, want, len(cases))

	h := New()
	h.everyCalendar = true
	msOf := map[string]float64{}
	{
		ms := exec.Command(node, "-e", `process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]).map((d) => Date.parse(d))))`, string(mustJSON(calendarDates)))
		b, err := ms.Output()
		require.NoError(t, err)
		var vs []float64
		require.NoError(t, json.Unmarshal(b, &vs))
		for i, d := range calendarDates {
			msOf[d] = vs[i]
		}
	}
	compared, bad := 0, 0
	perCalendar := map[string]int{} // outputs compared in honoured locales
	// differs[calendar][CLDR directory]: some case differs from Node.
	differs := map[string]map[string]bool{}
	for _, ca := range auditCalendars {
		differs[ca] = map[string]bool{}
	}
	var dump *os.File
	if p := os.Getenv("CALENDAR_AUDIT_DUMP"); p != "" {
		dump, _ = os.Create(p)
		defer dump.Close()
	}
	var ca, dir string
	report := func(format string, a ...any) {
		differs[ca][dir] = true
		if dump != nil {
			fmt.Fprintf(dump, format+"\n", a...)
		}
		if !expectedToMatch(ca, dir) {
			return
		}
		bad++
		if bad <= 40 {
			t.Errorf(format, a...)
		}
	}
	for i, c := range cases {
		w := want[i]
		lc, err := resolve([]string{c.Locale})
		require.NoError(t, err)
		dir = calendarDir(lc)
		for _, a := range auditCalendars {
			if strings.Contains(c.Locale, "-ca-"+a) || strings.Contains(c.Options, `"calendar":"`+a+`"`) {
				ca = a
			}
		}
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(c.Options), &o))
		o["timeZone"] = "UTC"
		switch c.Kind {
		case "dtf":
			o["required"], o["defaults"] = "any", "date"
		case "date":
			o["required"], o["defaults"] = "date", "date"
		default:
			o["required"], o["defaults"] = "any", "all"
		}
		v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{c.Locale}, O: mustJSON(o)})
		if len(w) == 1 {
			// Node threw: so must airlock.
			compared++
			perCalendar[ca] += int(b2i(expectedToMatch(ca, dir)))
			if err == nil || err.Error() != w[0] {
				report("%s %s %s: airlock %v, node %s", c.Locale, c.Options, c.Kind, err, w[0])
			}
			continue
		}
		if err != nil {
			report("%s %s %s: %v", c.Locale, c.Options, c.Kind, err)
			continue
		}
		ans := v.(*dtAnswer)
		if c.Kind == "dtf" {
			compared++
			perCalendar[ca] += int(b2i(expectedToMatch(ca, dir)))
			if r := string(mustJSON(ans.R)); r != w[0] {
				report("%s %s resolvedOptions\n  airlock: %s\n  node:    %s", c.Locale, c.Options, r, w[0])
			}
		}
		for di, d := range calendarDates {
			if c.Kind != "dtf" && !strings.Contains(","+fewDates+",", fmt.Sprintf(",%d,", di)) {
				continue
			}
			wi := di + 1
			if c.Kind != "dtf" {
				wi = 1 + strings.Count(fewDates[:strings.Index(","+fewDates+",", fmt.Sprintf(",%d,", di))], ",")
			}
			parts, err := ans.format(msOf[d])
			require.NoError(t, err)
			compared++
			perCalendar[ca] += int(b2i(expectedToMatch(ca, dir)))
			got := strings.ReplaceAll(joinParts(parts), "\u202f", " ")
			if c.Kind == "dtf" {
				got += "\n" + string(mustJSON(parts))
			}
			if got != w[wi] {
				report("%s %s %s %s\n  airlock: %q\n  node:    %q", c.Locale, c.Options, c.Kind, d, got, w[wi])
			}
		}
	}
	for _, ca := range auditCalendars {
		for _, dir := range slices.Sorted(maps.Keys(cldrDates)) {
			if !differs[ca][dir] && !expectedToMatch(ca, dir) {
				t.Errorf("%s in %s now matches Node: add it to calendarLocales (or remove it from gregorianDifferences)", ca, dir)
			}
		}
	}
	t.Logf("%d cases, %d formats and resolvedOptions compared with Node; %d differ where they should match", len(cases), compared, bad)
	t.Logf("compared where honoured, by calendar: %v", perCalendar)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

const calendarDaysNode = `
const [cals, times] = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cals.map((ca) => {
  const f = new Intl.DateTimeFormat("en", { calendar: ca, era: "short", year: "numeric", month: "numeric", day: "numeric", timeZone: "UTC" });
  return times.map((t) => f.format(t));
})));
`

// TestCalendarDaysMatchNode checks the day arithmetic of every calendar
// (eras, years, months, days; Julian days before 1582) on 4,000 days spread
// over Date's whole range and 2,000 around the present, against Node.
func TestCalendarDaysMatchNode(t *testing.T) {
	node := requireNode(t, "audit calendars")
	cals := slices.Sorted(maps.Keys(cldrCalendars))
	var times []float64
	x := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < 6000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		span := 8.64e15
		if i%3 == 2 {
			span = 4e12 // 1843 to 2096
		}
		times = append(times, float64(int64(x%uint64(2*span/864e5))-int64(span/864e5))*864e5+float64(x>>40%864e5))
	}
	var want [][]string
	nodeJSON(t, node, calendarDaysNode, []any{cals, times}, &want)
	h := New()
	h.everyCalendar = true // the arithmetic, whatever the locales
	bad := 0
	for i, ca := range cals {
		v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{"en"}, O: mustJSON(map[string]any{
			"calendar": ca, "era": "short", "year": "numeric", "month": "numeric", "day": "numeric", "timeZone": "UTC", "required": "any", "defaults": "date"})})
		require.NoError(t, err)
		for j, ms := range times {
			parts, err := v.(*dtAnswer).format(ms)
			require.NoError(t, err)
			if got := joinParts(parts); got != want[i][j] {
				bad++
				if bad <= 60 {
					t.Errorf("%s %v: airlock %q, node %q", ca, ms, got, want[i][j])
				}
			}
		}
	}
	t.Logf("%d calendars × %d days compared with Node, %d differ", len(cals), len(times), bad)
}

// newCalendars are the calendars whose day arithmetic calendar_days.go
// writes.
var newCalendars = []string{"persian", "hebrew", "indian", "islamic-umalqura", "coptic", "ethiopic", "ethioaa"}

// TestCalendarEveryDayMatchesNode compares every day from 1800 to 2250 (the
// Umm al-Qura table whole, Persian years on both sides of 1502 AP, every
// Hebrew year type many times) with Node, month numbers and names both.
func TestCalendarEveryDayMatchesNode(t *testing.T) {
	node := requireNode(t, "audit calendars")
	const first, last = -62091, 102579 // 1800-01-01, 2250-12-31 in days since 1970
	const script = `
const [cals, first, last] = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cals.map((ca) => {
  const f = new Intl.DateTimeFormat("en", { calendar: ca, era: "short", year: "numeric", month: "numeric", day: "numeric", timeZone: "UTC" });
  const g = new Intl.DateTimeFormat("en", { calendar: ca, month: "long", timeZone: "UTC" });
  const out = [];
  for (let d = first; d <= last; d++) out.push(f.format(d * 864e5) + " " + g.format(d * 864e5));
  return out.join("\n");
})));
`
	var want []string
	nodeJSON(t, node, script, []any{newCalendars, first, last}, &want)
	h := New()
	bad := 0
	for i, ca := range newCalendars {
		lines := strings.Split(want[i], "\n")
		require.Len(t, lines, last-first+1)
		f, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{"en"}, O: mustJSON(map[string]any{
			"calendar": ca, "era": "short", "year": "numeric", "month": "numeric", "day": "numeric", "timeZone": "UTC", "required": "any", "defaults": "date"})})
		require.NoError(t, err)
		g, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{"en"}, O: mustJSON(map[string]any{
			"calendar": ca, "month": "long", "timeZone": "UTC", "required": "any", "defaults": "date"})})
		require.NoError(t, err)
		for d := first; d <= last; d++ {
			p, err := f.(*dtAnswer).format(float64(d) * 864e5)
			require.NoError(t, err)
			q, err := g.(*dtAnswer).format(float64(d) * 864e5)
			require.NoError(t, err)
			if got := joinParts(p) + " " + joinParts(q); got != lines[d-first] {
				bad++
				if bad <= 20 {
					t.Errorf("%s day %d: airlock %q, node %q", ca, d, got, lines[d-first])
				}
			}
		}
	}
	t.Logf("%d calendars × %d days compared with Node, %d differ", len(newCalendars), last-first+1, bad)
}

// TestCalendarDaysAreConsecutive walks every day of ±2,000,000 days
// around 1970 (3500 BC to AD 7400) and both ends of Date's range in each
// calendar of calendar_days.go: each day is the day after the one before
// (the next day of the month, or day 1 of the next month or year), months
// are 29 to 31 days (5 or 6 for the Coptic and Ethiopic thirteenth), and a
// year has 12 or 13 of them. (It caught the Umm al-Qura table's last year
// ending six days late.)
func TestCalendarDaysAreConsecutive(t *testing.T) {
	const limit = 100_000_000 // Date's range in days either side of 1970
	spans := [][2]int64{{-limit, -limit + 50_000}, {-2_000_000, 2_000_000}, {limit - 50_000, limit}}
	for _, ca := range newCalendars {
		t.Run(ca, func(t *testing.T) {
			for _, sp := range spans {
				prev := dayIn(ca, time.UnixMilli(sp[0]*864e5).UTC())
				monthLen, months := 0, 0
				for d := sp[0] + 1; d <= sp[1]; d++ {
					cur := dayIn(ca, time.UnixMilli(d*864e5).UTC())
					switch {
					case cur.era == prev.era && cur.year == prev.year && cur.month == prev.month && cur.name == prev.name && cur.day == prev.day+1:
					case cur.day == 1 && cur.year == prev.year && cur.month == prev.month+1:
						months++
						require.True(t, monthLen == 0 || prev.day >= 29 && prev.day <= 31 || prev.month == 13 && (prev.day == 5 || prev.day == 6), "%s day %d: month of %d days", ca, d, prev.day)
						monthLen = 1
					case cur.day == 1 && cur.month == 1 && (cur.year == prev.year+1 || cur.era != prev.era ||
						ca == "coptic" && cur.era == 0 && cur.year == prev.year-1): // the Coptic era before 1 counts back
						require.True(t, months == 0 || prev.month == 12 || prev.month == 13, "%s day %d: year of %d months", ca, d, prev.month)
						months = 1
					default:
						t.Fatalf("%s day %d: %+v follows %+v", ca, d, cur, prev)
					}
					prev = cur
				}
			}
		})
	}
}

// TestCalendarAliasesMatchNode checks the deprecated calendar names V8
// resolves to another (islamicc, ethiopic-amete-alem), in the tag and the
// option, alone and against each other, with Node.
func TestCalendarAliasesMatchNode(t *testing.T) {
	node := requireNode(t, "audit calendars")
	cases := [][2]string{
		{"en-u-ca-islamicc", `{}`}, {"en", `{"calendar":"islamicc"}`}, {"en-u-ca-islamicc", `{"calendar":"islamic-civil"}`},
		{"en-u-ca-islamic-civil", `{"calendar":"islamicc"}`}, {"de-u-ca-islamicc", `{"calendar":"islamicc"}`},
		{"en-u-ca-ethiopic-amete-alem", `{}`}, {"fr", `{"calendar":"ethiopic-amete-alem"}`}, {"en-u-ca-ethioaa", `{"calendar":"ethiopic-amete-alem"}`},
		{"en-u-ca-ethiopic-amete-alem", `{"calendar":"ethioaa"}`}, {"ja-u-ca-islamicc", `{"calendar":"ethiopic-amete-alem","dateStyle":"long"}`},
		{"en-u-nu-arab-ca-islamicc", `{}`}, {"en", `{"calendar":"ethiopic-amete"}`},
	}
	const script = `
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(([l, o]) => {
  const f = new Intl.DateTimeFormat(l, Object.assign({ timeZone: "UTC" }, JSON.parse(o)));
  return JSON.stringify(f.resolvedOptions()) + " " + f.format(Date.UTC(2024, 0, 15));
})));
`
	var want []string
	nodeJSON(t, node, script, cases, &want)
	h := New()
	for i, c := range cases {
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(c[1]), &o))
		o["timeZone"], o["required"], o["defaults"] = "UTC", "any", "date"
		v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{c[0]}, O: mustJSON(o)})
		require.NoError(t, err)
		parts, err := v.(*dtAnswer).format(1705276800000)
		require.NoError(t, err)
		require.Equal(t, want[i], string(mustJSON(v.(*dtAnswer).R))+" "+joinParts(parts), "%s %s", c[0], c[1])
	}
}

// TestCalendarZonesMatchNode checks that the calendars number the day of
// the time zone, not of UTC: times within hours of midnight in zones on
// both sides of UTC (Tehran's +03:30, Jerusalem, Addis Ababa, Kolkata,
// Riyadh, Los Angeles), against Node.
func TestCalendarZonesMatchNode(t *testing.T) {
	node := requireNode(t, "audit calendars")
	zones := []string{"Asia/Tehran", "Asia/Jerusalem", "Africa/Addis_Ababa", "Asia/Kolkata", "Asia/Riyadh", "America/Los_Angeles"}
	var times []float64
	for d := int64(-3000); d < 3000; d += 7 {
		for _, h := range []int64{-9, -3, 0, 2, 20, 23} {
			times = append(times, float64((19800+d)*86400000+h*3600000+1800000)) // around 2024
		}
	}
	const script = `
const [cals, zones, times] = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cals.flatMap((ca) => zones.map((tz) => {
  const f = new Intl.DateTimeFormat("en", { calendar: ca, year: "numeric", month: "long", day: "numeric", hour: "numeric", timeZone: tz });
  return times.map((t) => f.format(t));
}))));
`
	var want [][]string
	nodeJSON(t, node, script, []any{newCalendars, zones, times}, &want)
	h := New()
	bad, i := 0, 0
	for _, ca := range newCalendars {
		for _, tz := range zones {
			v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{"en"}, O: mustJSON(map[string]any{
				"calendar": ca, "year": "numeric", "month": "long", "day": "numeric", "hour": "numeric", "timeZone": tz, "required": "any", "defaults": "date"})})
			require.NoError(t, err)
			for j, ms := range times {
				parts, err := v.(*dtAnswer).format(ms)
				require.NoError(t, err)
				if got := strings.ReplaceAll(joinParts(parts), "\u202f", " "); got != strings.ReplaceAll(want[i][j], "\u202f", " ") {
					bad++
					if bad <= 20 {
						t.Errorf("%s %s %v: airlock %q, node %q", ca, tz, ms, got, want[i][j])
					}
				}
			}
			i++
		}
	}
	t.Logf("%d calendars × %d zones × %d times compared with Node, %d differ", len(newCalendars), len(zones), len(times), bad)
}
