package intl

import "strings"

// The flexible day periods ("in the evening", 晚上): the pattern letter B,
// which Intl.DateTimeFormat's dayPeriod option asks for and some locales'
// time styles have (zh-Hant's Bh:mm). Their names and each language's
// rules are CLDR 48's (dayperiods_gen.go).

// The generated tables list the day periods in the order am, pm,
// midnight, noon, morning1, morning2, afternoon1, afternoon2, evening1,
// evening2, night1, night2 (internal/gendayperiods).
const (
	periodPM   = 1
	periodNoon = 3
)

// dayPeriodRules are a language's rules: the period of each hour, and
// whether noon has a name of its own.
type dayPeriodRules struct {
	hours [24]uint8
	noon  bool
}

// flexibleDayPeriod names the day period of hour:minute:second in the
// locale whose CLDR directory is dir, as ICU 78 writes the pattern field
// B repeated n times (1 to 3 abbreviated, 4 wide, 5 narrow): noon where
// the language names it and the minute and second are zero (or not
// shown: the caller passes zero), never midnight (ICU leaves it out as
// ambiguous, and takes the hour's period), and AM or PM where the locale
// has no name for the period or the language no rules.
func flexibleDayPeriod(dir string, hour, minute, second, n int) string {
	w := 0
	switch {
	case n == 4:
		w = 1
	case n == 5:
		w = 2
	}
	names, ok := cldrDayPeriodNames[dir]
	if !ok {
		return ""
	}
	lang, _, _ := strings.Cut(dir, "-")
	rules, ok := cldrDayPeriodRules[lang]
	p := 0
	if hour >= 12 {
		p = periodPM
	}
	if ok {
		p = int(rules.hours[hour])
		if hour == 12 && minute == 0 && second == 0 && rules.noon && names[w][periodNoon] != "" {
			p = periodNoon
		}
	}
	if names[w][p] == "" {
		p = 0
		if hour >= 12 {
			p = periodPM
		}
	}
	return names[w][p]
}

// withDayPeriod sets the day period field of a pattern the pattern
// generator matched: B repeated width times for the dayPeriod option
// (1 short, 4 long, 5 narrow), or, with width 0, a (AM/PM) where the
// locale's format has B (ICU's pattern generator writes the requested
// field, and V8 asks for a with a 12-hour cycle).
func withDayPeriod(p string, width int) string {
	var b strings.Builder
	rs := []rune(p)
	in := false
	for i := 0; i < len(rs); {
		c := rs[i]
		if c == '\'' {
			in = !in
		}
		if in || c == '\'' || (c != 'B' && (width == 0 || c != 'a' && c != 'b')) {
			b.WriteRune(c)
			i++
			continue
		}
		for i < len(rs) && rs[i] == c {
			i++
		}
		if width == 0 {
			b.WriteByte('a')
		} else {
			b.WriteString(strings.Repeat("B", width))
		}
	}
	return b.String()
}

// dayPeriodWidth is the width of the B field the dayPeriod option asks
// for (narrow BBBBB, short B, long BBBB), or 0 where it asks for none or
// the hour is in a 24-hour cycle (ICU then leaves the period out: zh's
// "20時").
func dayPeriodWidth(o *dtOptions, cycle string) int {
	if o.Hour != "" && !is12(cycle) {
		return 0
	}
	return map[string]int{"narrow": 5, "short": 1, "long": 4}[o.DayPeriod]
}
