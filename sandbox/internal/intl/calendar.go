package intl

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// calendarLocales are, for each calendar besides the Gregorian whose CLDR
// data gencldr writes into cldrCalendars, the locales (CLDR directories)
// whose dates in it match Node 20's (TestCalendarsMatchNode, which fails
// when one listed differs or one left out matches). Elsewhere, and for any
// other calendar, a ca keyword or calendar option is ignored and the date
// is Gregorian (README.md): ICU finds a calendar's patterns that a locale
// does not spell out along another path through CLDR's inheritance than
// CLDR's resolved JSON, and in the locales left out that changes which
// pattern some options get (en-CA's era with a numeric date, Polish
// date-time joins, Hindi's Buddhist era first).
var calendarLocales = map[string]string{
	"buddhist": "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant",
	"japanese": "ar ar-EG de de-AT de-CH en en-AU en-CA en-GB en-IN es fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant",
	"roc":      "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant",
	// The tabular Islamic calendars, as ICU computes them.
	"islamic-civil": "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant",
	"islamic-tbla":  "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant",
	// Umm al-Qura: ICU's table of 1300 to 1600 AH (calendars_icu_gen.go),
	// the civil arithmetic outside it.
	"islamic-umalqura": "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant",
	// Persian: the 33-year arithmetic with ICU 78's leap years from 1502
	// AP (calendars_icu_gen.go).
	"persian":  "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant zh-Hant-HK",
	"hebrew":   "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant",
	"indian":   "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant zh-Hant-HK",
	"coptic":   "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant zh-Hant-HK",
	"ethiopic": "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant zh-Hant-HK",
	"ethioaa":  "ar ar-EG de de-AT de-CH en en-AU en-IN es es-MX fr fr-CA hi it ja ko nl pt pt-PT ru sv tr zh zh-Hans zh-Hant zh-Hant-HK",
}

// formatsCalendar reports whether a ca keyword or calendar option naming
// ca is honoured in the locale whose CLDR directory is dir.
func (h *Handler) formatsCalendar(ca, dir string) bool {
	if ca == "gregory" {
		return true
	}
	if _, ok := cldrCalendars[ca]; !ok {
		return false
	}
	return h.everyCalendar || slices.Contains(strings.Fields(calendarLocales[ca]), dir)
}

// eraStart is the first day of a Japanese era (cldr-core's calendarData),
// in the calendar ICU counts it in: Julian before 15 October 1582.
type eraStart struct{ y, m, d int32 }

// calendarOf finds the CLDR data of calendar ca ("" or "gregory" for the
// Gregorian) for a resolved locale. The other calendars join a date and a
// time with the locale's Gregorian patterns, as Node does in the locales of
// calendarLocales (where CLDR's resolved JSON has other joins for them, as
// Arabic's short "{1}, {0}", Node keeps the Gregorian "{1}، {0}"; Polish,
// which takes its calendar's own, is left out).
func calendarOf(lc loc, ca string) *calendar {
	dir := calendarDir(lc)
	greg := cldrDates[dir]
	if c, ok := cldrCalendars[ca][dir]; ok {
		cc := *c
		cc.dateTime, cc.atTime, cc.intervalFallback = greg.dateTime, greg.atTime, greg.intervalFallback
		return &cc
	}
	return greg
}

// regionalCalendar is the CLDR directory of the regional calendar data
// (cldr_gen.go's regional calendars) for the locale asked for: zh-HK and
// zh-MO (and zh-Hant-HK, zh-Hant-MO) format as CLDR's zh-Hant-HK, which
// zh-Hant-MO inherits, though they resolve to the linked zh-Hant-TW.
func regionalCalendar(lc loc) string {
	base, script, region := lc.lang.Raw()
	if base.String() != "zh" {
		return ""
	}
	if script.String() == "Zzzz" {
		script, _ = lc.lang.Script()
	}
	if r := region.String(); script.String() == "Hant" && (r == "HK" || r == "MO") {
		return "zh-Hant-HK"
	}
	return ""
}

// calendarDir is the CLDR directory of a resolved locale's data.
func calendarDir(lc loc) string {
	if d := regionalCalendar(lc); d != "" {
		return d
	}
	parts := strings.Split(strings.ReplaceAll(lc.tr.Locale(), "_", "-"), "-")
	for n := len(parts); n > 0; n-- {
		if d := strings.Join(parts[:n], "-"); cldrDates[d] != nil {
			return d
		}
	}
	return "en"
}

// calDate is a day as a calendar numbers it: its era (an index into the
// calendar's era names), the year in that era, the month (1–13, as the
// pattern letter M writes it) and day, and the index of the month's name
// in the calendar's month names (month−1 but in the Hebrew calendar).
type calDate struct{ era, year, month, day, name int }

// ymd is a day of a calendar whose month names follow its month numbers.
func ymd(era, year, month, day int) calDate { return calDate{era, year, month, day, month - 1} }

// julianDay is the Julian day number of 15 October 1582, the first day of
// the Gregorian calendar in ICU's GregorianCalendar: the Japanese, Buddhist
// and ROC calendars count the days before it in the Julian calendar (V8
// makes only the Gregorian calendar proleptic).
const gregorianCutover = 2299161

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// dayIn numbers t's day (in t's zone) as calendar ca does.
func dayIn(ca string, t time.Time) calDate {
	y, m, d := t.Year(), int(t.Month()), t.Day()
	if ca == "gregory" || ca == "" {
		if y <= 0 {
			return ymd(0, 1-y, m, d)
		}
		return ymd(1, y, m, d)
	}
	_, off := t.Zone()
	jdn := floorDiv(t.Unix()+int64(off), 86400) + 2440588
	switch ca {
	case "islamic-civil":
		return islamicDay(jdn - 1948440) // 16 July 622 (Julian)
	case "islamic-tbla":
		return islamicDay(jdn - 1948439) // a day earlier
	case "islamic-umalqura":
		return umalquraDay(jdn)
	case "persian":
		return persianDay(jdn)
	case "hebrew":
		return hebrewDay(jdn)
	case "indian":
		return indianDay(t)
	case "coptic":
		// Before year 1, era 0 counts back from 0 as 1.
		y, m, d := copticDay(jdn - copticEpoch)
		if y <= 0 {
			return ymd(0, 1-y, m, d)
		}
		return ymd(1, y, m, d)
	case "ethiopic":
		// Before year 1 of the Incarnation era (Amete Mihret), the
		// years of the World (Amete Alem), 5500 more.
		y, m, d := copticDay(jdn - ethiopicEpoch)
		if y <= 0 {
			return ymd(0, y+5500, m, d)
		}
		return ymd(1, y, m, d)
	case "ethioaa":
		y, m, d := copticDay(jdn - ethiopicEpoch)
		return ymd(0, y+5500, m, d)
	}
	if jdn < gregorianCutover {
		// The Julian calendar's date of the Julian day number.
		c := jdn + 32082
		dd := floorDiv(4*c+3, 1461)
		e := c - floorDiv(1461*dd, 4)
		mm := floorDiv(5*e+2, 153)
		d = int(e - floorDiv(153*mm+2, 5) + 1)
		m = int(mm + 3 - 12*floorDiv(mm, 10))
		y = int(dd - 4800 + floorDiv(mm, 10))
	}
	switch ca {
	case "buddhist":
		return ymd(0, y+543, m, d)
	case "roc":
		if y > 1911 {
			return ymd(1, y-1911, m, d)
		}
		return ymd(0, 1912-y, m, d)
	case "japanese":
		// The last era that began on or before the day; before the
		// first (Taika, 645), Taika's years count back through zero.
		i := sort.Search(len(japaneseEras), func(i int) bool {
			e := japaneseEras[i]
			return int(e.y) > y || int(e.y) == y && (int(e.m) > m || int(e.m) == m && int(e.d) > d)
		}) - 1
		i = max(i, 0)
		return ymd(i, y-int(japaneseEras[i].y)+1, m, d)
	}
	return ymd(1, y, m, d)
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// islamicDay numbers a day of the tabular Islamic calendar (30-year cycle
// of 11 leap years, as ICU's islamic-civil and islamic-tbla): days since
// its epoch, the first of Muharram of year 1.
func islamicDay(days int64) calDate {
	yearStart := func(y int64) int64 { return (y-1)*354 + floorDiv(3+11*y, 30) }
	y := floorDiv(30*days+10646, 10631)
	m := min(ceilDiv(2*(days-29-yearStart(y)), 59), 11) // ⌈(days−29−start)/29.5⌉
	m = max(m, 0)
	d := days - (ceilDiv(59*m, 2) + yearStart(y)) + 1
	return ymd(0, int(y), int(m)+1, int(d))
}
