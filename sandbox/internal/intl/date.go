package intl

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // IANA time zones whatever the host has installed
)

// calendar is one locale's Gregorian calendar data (cldr_gen.go).
type calendar struct {
	months, monthsSA [3][]string // wide, abbreviated, narrow
	days, daysSA     [3][]string // Sunday first
	periods          []string
	eras             [3][]string // wide, abbreviated, narrow; by era number
	// date, time, dateTime and atTime are the full, long, medium and short
	// patterns.
	date, time, dateTime, atTime []string
	avail                        map[string]string // skeleton → pattern
	gmt, gmtZero, hourFormat     string
	utcLong, utcShort            string
	intervalFallback             string // "{0} – {1}"
}

type dtOptions struct {
	DateStyle    string `json:"dateStyle"`
	TimeStyle    string `json:"timeStyle"`
	Weekday      string `json:"weekday"`
	Era          string `json:"era"`
	Year         string `json:"year"`
	Month        string `json:"month"`
	Day          string `json:"day"`
	DayPeriod    string `json:"dayPeriod"`
	Hour         string `json:"hour"`
	Minute       string `json:"minute"`
	Second       string `json:"second"`
	TimeZoneName string `json:"timeZoneName"`
	Hour12       *bool  `json:"hour12"`
	HourCycle    string `json:"hourCycle"`
	TimeZone     string `json:"timeZone"`
	// Calendar and NumberingSystem are the options of the ca and nu
	// keywords (extension.go).
	Calendar        *string `json:"calendar"`
	NumberingSystem *string `json:"numberingSystem"`
	// Required and Defaults are ToDateTimeOptions' arguments: "date",
	// "time" or "any", and "date", "time" or "all".
	Required string `json:"required"`
	Defaults string `json:"defaults"`
	// patternHour: the hour takes the matched pattern's width, not the
	// option's (a numeric hour in 24 hours where the locale counts 12).
	patternHour bool
	// eraWidth, where set, is the era's width as a skeleton asks for it
	// (formatRange's interval formats: a G keeps the matched pattern's).
	eraWidth int
}

// dtResolved is resolvedOptions(), in V8's order.
type dtResolved struct {
	Locale          string `json:"locale"`
	Calendar        string `json:"calendar"`
	NumberingSystem string `json:"numberingSystem"`
	TimeZone        string `json:"timeZone"`
	HourCycle       string `json:"hourCycle,omitempty"`
	Hour12          *bool  `json:"hour12,omitempty"`
	Weekday         string `json:"weekday,omitempty"`
	Era             string `json:"era,omitempty"`
	Year            string `json:"year,omitempty"`
	Month           string `json:"month,omitempty"`
	Day             string `json:"day,omitempty"`
	DayPeriod       string `json:"dayPeriod,omitempty"`
	Hour            string `json:"hour,omitempty"`
	Minute          string `json:"minute,omitempty"`
	Second          string `json:"second,omitempty"`
	// FractionalSecondDigits is read off the pattern as V8 reads it (the
	// option itself is not supported).
	FractionalSecondDigits int    `json:"fractionalSecondDigits,omitempty"`
	TimeZoneName           string `json:"timeZoneName,omitempty"`
	DateStyle              string `json:"dateStyle,omitempty"`
	TimeStyle              string `json:"timeStyle,omitempty"`
}

type dtAnswer struct {
	R dtResolved  `json:"r"`
	S *string     `json:"s,omitempty"`
	P [][2]string `json:"p,omitempty"`
	// format renders a time (ms since the epoch) with R, for a compiled
	// formatter (compiled.go).
	format func(ms float64) ([][2]string, error)
}

var styleIndex = map[string]int{"full": 0, "long": 1, "medium": 2, "short": 3}

// zone loads an IANA time zone; the name's case is canonicalized.
func (h *Handler) zone(name string) (*time.Location, string, error) {
	if name == "" {
		return time.UTC, "UTC", nil
	}
	if err := checkLen("timeZone", name); err != nil {
		return nil, "", err
	}
	switch strings.ToUpper(name) {
	case "UTC", "ETC/UTC", "GMT", "ETC/GMT", "Z", "ETC/UCT", "UCT", "ETC/ZULU", "ZULU", "ETC/UNIVERSAL", "UNIVERSAL", "ETC/GREENWICH", "GREENWICH",
		"GMT0", "GMT+0", "GMT-0", "ETC/GMT0", "ETC/GMT+0", "ETC/GMT-0":
		return time.UTC, "UTC", nil
	}
	canon, ok := zoneSpellings[strings.ToLower(name)]
	if !ok {
		canon = canonicalZone(name)
	}
	// "Local" would be the host's own zone, and a path is not a zone name:
	// both are refused before anything is looked up. Unknown names are not
	// cached, so that they cannot push known ones out of the cache.
	if strings.EqualFold(canon, "local") || strings.EqualFold(canon, "factory") || strings.Contains(canon, "..") || strings.HasPrefix(canon, "/") {
		return nil, "", rangeErr("Invalid time zone specified: %s", name)
	}
	// resolvedOptions reports CLDR's ID of the zone, as V8 does
	// (Asia/Kolkata is Asia/Calcutta, US/Pacific America/Los_Angeles).
	id := canon
	if a, ok := zoneAliases[canon]; ok {
		id = a
	}
	if v, ok := h.lookup("tz\x00" + canon); ok {
		return v.(*time.Location), id, nil
	}
	l, err := time.LoadLocation(canon)
	if err != nil || l == time.Local {
		return nil, "", rangeErr("Invalid time zone specified: %s", name)
	}
	h.cached("tz\x00"+canon, func() any { return l })
	return l, id, nil
}

// canonicalZone spells a zone name as the IANA database does:
// "america/new_york" → "America/New_York" (zoneSpellings lists the names
// it would misspell).
func canonicalZone(s string) string {
	b := []byte(strings.ToLower(s))
	up := true
	for i, c := range b {
		if up && c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
		up = c == '/' || c == '_' || c == '-'
	}
	out := string(b)
	// Etc/GMT+5 and the like keep upper-case GMT.
	out = strings.Replace(out, "Etc/Gmt", "Etc/GMT", 1)
	return out
}

func (h *Handler) dateTimeFormat(req *request) (any, error) {
	lc, err := resolve(req.L)
	if err != nil {
		return nil, err
	}
	var o dtOptions
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	kw, kept := keywords(lc), map[string]string{}
	dir := calendarDir(lc)
	ca, err := calendarKeyword(kw, o.Calendar, kept, func(ca string) bool { return h.formatsCalendar(ca, dir) })
	if err != nil {
		return nil, err
	}
	ns, err := numberingSystem(kw, o.NumberingSystem, kept)
	if err != nil {
		return nil, err
	}
	checks := []struct {
		name, v string
		allowed []string
	}{
		{"weekday", o.Weekday, []string{"narrow", "short", "long"}},
		{"era", o.Era, []string{"narrow", "short", "long"}},
		{"year", o.Year, []string{"2-digit", "numeric"}},
		{"month", o.Month, []string{"2-digit", "numeric", "narrow", "short", "long"}},
		{"day", o.Day, []string{"2-digit", "numeric"}},
		{"dayPeriod", o.DayPeriod, []string{"narrow", "short", "long"}},
		{"hour", o.Hour, []string{"2-digit", "numeric"}},
		{"minute", o.Minute, []string{"2-digit", "numeric"}},
		{"second", o.Second, []string{"2-digit", "numeric"}},
		{"timeZoneName", o.TimeZoneName, []string{"short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"}},
		{"hourCycle", o.HourCycle, []string{"h11", "h12", "h23", "h24"}},
		{"dateStyle", o.DateStyle, []string{"full", "long", "medium", "short"}},
		{"timeStyle", o.TimeStyle, []string{"full", "long", "medium", "short"}},
	}
	for _, c := range checks {
		if _, err := enumOption("DateTimeFormat", c.name, c.v, "", c.allowed...); err != nil {
			return nil, err
		}
	}
	loc, zoneName, err := h.zone(o.TimeZone)
	if err != nil {
		return nil, err
	}
	cal := calendarOf(lc, ca)
	sym := h.symbolsOf(lc, ns)
	res := dtResolved{Calendar: ca, NumberingSystem: sym.numbering, TimeZone: zoneName}

	styled := o.DateStyle != "" || o.TimeStyle != ""
	if styled {
		for _, c := range checks[:10] {
			if c.v != "" {
				return nil, typeErr("Can't set option %s when %s is used", c.name, map[bool]string{true: "dateStyle", false: "timeStyle"}[o.DateStyle != ""])
			}
		}
		if o.Required == "date" && o.TimeStyle != "" {
			return nil, typeErr("Invalid option : timeStyle")
		}
		if o.Required == "time" && o.DateStyle != "" {
			return nil, typeErr("Invalid option : dateStyle")
		}
	} else {
		// ToDateTimeOptions.
		need := true
		if o.Required != "time" && (o.Weekday != "" || o.Year != "" || o.Month != "" || o.Day != "") {
			need = false
		}
		if o.Required != "date" && (o.DayPeriod != "" || o.Hour != "" || o.Minute != "" || o.Second != "") {
			need = false
		}
		if need && (o.Defaults == "date" || o.Defaults == "all" || o.Defaults == "") {
			o.Year, o.Month, o.Day = "numeric", "numeric", "numeric"
		}
		if need && (o.Defaults == "time" || o.Defaults == "all") {
			o.Hour, o.Minute, o.Second = "numeric", "numeric", "numeric"
		}
	}
	// The hour cycle: the locale's, from its short time pattern, unless
	// hour12 or hourCycle says otherwise.
	cycle := hourCycleOf(cal.time[3])
	// The hc keyword: the locale's cycle, unless hour12 or a different
	// hourCycle option overrides it (which drops it from the locale).
	hc, hasHC := kw["hc"]
	if hasHC = hasHC && (hc == "h11" || hc == "h12" || hc == "h23" || hc == "h24"); hasHC {
		cycle = hc
	}
	// hour12 as V8 (ECMA-402 before 2023) reads it: relative to the
	// locale's cycle, so en-US with hour12:false is h24 ("24:07").
	switch {
	case o.Hour12 != nil && *o.Hour12:
		if cycle == "h11" || cycle == "h23" {
			cycle = "h11"
		} else {
			cycle = "h12"
		}
	case o.Hour12 != nil:
		if cycle == "h11" || cycle == "h23" {
			cycle = "h23"
		} else {
			cycle = "h24"
		}
	case o.HourCycle != "":
		cycle = o.HourCycle
	}
	// V8 keeps the keyword where the options end on the same cycle.
	if hasHC && cycle == hc {
		kept["hc"] = hc
	}
	res.Locale = withKeywords(lc.tag, kept)
	var pattern string
	if styled {
		res.DateStyle, res.TimeStyle = o.DateStyle, o.TimeStyle
		var dp, tp string
		if o.DateStyle != "" {
			dp = cal.date[styleIndex[o.DateStyle]]
		}
		if o.TimeStyle != "" {
			tp = cal.time[styleIndex[o.TimeStyle]]
			if hasHC && is12(hc) != is12(hourCycleOf(tp)) {
				// ICU applies the hc keyword to the style's pattern.
				tp = h.patternGen(lc, ca, cal).forKeyword(tp, hc)
			}
			res.HourCycle = cycle
		}
		switch {
		case dp != "" && tp != "":
			pattern = strings.NewReplacer("{1}", dp, "{0}", tp).Replace(cal.atTime[styleIndex[o.DateStyle]])
		case dp != "":
			pattern = dp
		default:
			pattern = tp
		}
		if tp != "" && cycle != hourCycleOf(tp) {
			// V8 has ICU generate the style's fields in the other cycle.
			pattern = h.patternGen(lc, ca, cal).forStyle(pattern, cycle)
		}
	} else {
		res.Weekday, res.Era, res.Year, res.Month, res.Day = o.Weekday, o.Era, o.Year, o.Month, o.Day
		res.Hour, res.Minute, res.Second, res.TimeZoneName = o.Hour, o.Minute, o.Second, o.TimeZoneName
		if o.Hour != "" {
			res.HourCycle = cycle
		}
		if o.DayPeriod == "" {
			pattern = h.patternGen(lc, ca, cal).forOptions(&o, o.Hour12 != nil || o.HourCycle != "" || hasHC, cycle)
			v8Widths(pattern, &res)
		} else {
			// V8 asks ICU for a 24-hour hour, where the locale counts 12,
			// without its width: en's HH:mm for {hour: "numeric", hourCycle:
			// "h23"}.
			o.patternHour = o.Hour == "numeric" && !is12(cycle) && is12(hourCycleOf(cal.time[3]))
			pattern = withDayPeriod(buildPattern(cal, &o, cycle), dayPeriodWidth(&o, cycle))
			res.Era = ""
			widths(pattern, &res)
		}
	}
	if res.HourCycle != "" {
		b := res.HourCycle == "h11" || res.HourCycle == "h12"
		res.Hour12 = &b
	}
	var zone *zoneNaming // only for a pattern that names the zone
	if strings.ContainsAny(stripQuoted(pattern), "zvVOZxX") {
		switch strings.ToUpper(o.TimeZone) {
		case "ETC/GREENWICH", "GREENWICH", "ETC/GMT0", "ETC/GMT+0", "ETC/GMT-0":
			// V8 reports UTC but has ICU name the zone asked for, Greenwich's.
			zone = h.zoneNaming(lc, "Etc/GMT")
		default:
			zone = h.zoneNaming(lc, zoneName)
		}
	}
	format := func(ms float64) ([][2]string, error) {
		if math.IsNaN(ms) || math.Abs(ms) > 8.64e15 {
			return nil, rangeErr("Invalid time value")
		}
		t := time.UnixMilli(int64(ms)).In(loc)
		return renderDate(cal, ca, lc, sym, pattern, t, zone, o.TimeZoneName), nil
	}
	ans := &dtAnswer{R: res, format: format}
	if len(req.V) > 0 && len(req.W) > 0 {
		// formatRange and formatRangeToParts (intervals.go).
		return h.dateRange(req, res, &rangeInput{cal: cal, ca: ca, lc: lc, sym: sym, pattern: pattern, loc: loc, zone: zone,
			tzStyle: o.TimeZoneName, cycle: cycle, format: format})
	}
	if len(req.V) > 0 {
		var ms float64
		if err := json.Unmarshal(req.V, &ms); err != nil {
			return nil, typeErr("malformed Intl value")
		}
		parts, err := format(ms)
		if err != nil {
			return nil, err
		}
		// V8's format() prints U+0020 where CLDR has U+202F (before AM/PM),
		// for pages that parse its output; formatToParts keeps U+202F.
		s := strings.ReplaceAll(joinParts(parts), "\u202f", " ")
		ans.S = &s
		if req.P {
			ans.P = parts
		}
	}
	return ans, nil
}

func hourCycleOf(p string) string {
	for _, c := range stripQuoted(p) {
		switch c {
		case 'h':
			return "h12"
		case 'H':
			return "h23"
		case 'K':
			return "h11"
		case 'k':
			return "h24"
		}
	}
	return "h23"
}

func stripQuoted(p string) string {
	var b strings.Builder
	in := false
	for _, c := range p {
		if c == '\'' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// setCycle rewrites a time pattern's hour field for the hour cycle; going
// from a 12-hour to a 24-hour pattern drops the day period, and the other
// way the locale's 12-hour pattern is used.
// is12 reports whether an hour cycle counts 12 hours.
func is12(c string) bool { return c == "h11" || c == "h12" }

func setCycle(p, cycle string, _ *calendar) string {
	cur := hourCycleOf(p)
	if cur == cycle {
		return p
	}
	want := map[string]rune{"h11": 'K', "h12": 'h', "h23": 'H', "h24": 'k'}[cycle]
	if is12(cur) != is12(cycle) {
		return ""
	}
	return mapUnquoted(p, func(c rune) rune {
		if c == 'h' || c == 'H' || c == 'K' || c == 'k' {
			return want
		}
		return c
	})
}

func mapUnquoted(p string, f func(rune) rune) string {
	var b strings.Builder
	in := false
	for _, c := range p {
		if c == '\'' {
			in = !in
		}
		if in || c == '\'' {
			b.WriteRune(c)
		} else {
			b.WriteRune(f(c))
		}
	}
	return b.String()
}

// field is one requested field of a skeleton: its letter and width.
type field struct {
	c rune
	n int
}

// buildPattern finds the locale's available format closest to the
// requested fields (a simplified ICU DateTimePatternGenerator), adjusts
// its field widths and joins the date and time parts. Only options with
// dayPeriod (the flexible day periods, which TestTimesMatchNode compares
// with Node) still take it; patternGen.forOptions (dtpatgen.go) makes the
// others as ICU does.
func buildPattern(cal *calendar, o *dtOptions, cycle string) string {
	var date, tm []field
	width := map[string]int{"numeric": 1, "2-digit": 2, "short": 3, "long": 4, "narrow": 5}
	if o.Weekday != "" {
		date = append(date, field{'E', map[string]int{"short": 3, "long": 4, "narrow": 5}[o.Weekday]})
	}
	if o.Era != "" {
		// V8 asks ICU for G, GGGG or GGGGG.
		n := map[string]int{"short": 3, "long": 4, "narrow": 5}[o.Era]
		if o.eraWidth > 0 {
			n = o.eraWidth
		}
		date = append(date, field{'G', n})
	}
	if o.Year != "" {
		date = append(date, field{'y', width[o.Year]})
	}
	if o.Month != "" {
		date = append(date, field{'M', width[o.Month]})
	}
	if o.Day != "" {
		date = append(date, field{'d', width[o.Day]})
	}
	hourLetter := 'H'
	if cycle == "h11" || cycle == "h12" {
		hourLetter = 'h'
	}
	if o.Hour != "" {
		n := width[o.Hour]
		if o.patternHour {
			n = 0 // the pattern's width
		}
		tm = append(tm, field{hourLetter, n})
	}
	if o.Minute != "" {
		tm = append(tm, field{'m', width[o.Minute]})
	}
	if o.Second != "" {
		tm = append(tm, field{'s', width[o.Second]})
	}
	if n := dayPeriodWidth(o, cycle); n > 0 {
		tm = append([]field{{'B', n}}, tm...)
	}
	zone := o.TimeZoneName != ""
	if len(date) > 0 && len(tm) > 0 && !zone {
		// A format with every field ("Ehm") beats joining two.
		if p := bestPattern(cal, append(append([]field{}, date...), tm...), false); p != "" {
			return fixCycle(p, cycle)
		}
	}
	dp := bestPattern(cal, date, false)
	if dp == "" {
		dp = joinFields(date)
	}
	var tp string
	if zone && o.Hour != "" && o.Minute != "" && o.Second != "" && (o.TimeZoneName == "short" || o.TimeZoneName == "long") {
		// ICU matches the long (z) or full (zzzz) time format first.
		i := 1
		if strings.HasPrefix(o.TimeZoneName, "long") {
			i = 0
		}
		if tp = setCycle(cal.time[i], cycle, cal); tp != "" {
			tp = adjustWidths(tp, skeletonFields(stripQuoted(tp)), tm)
		}
	}
	if tp == "" && zone && len(tm) > 0 {
		tp = bestZonePattern(cal, tm, o.TimeZoneName == "long" || o.TimeZoneName == "longGeneric")
	}
	if tp == "" {
		tp = bestPattern(cal, tm, zone)
	}
	if tp == "" {
		tp = joinFields(tm)
	}
	switch {
	case zone && len(tm) == 0:
		// A zone without a time is a time part of its own, joined to
		// the date as a time is (1/15/2024, Pacific Standard Time).
		tp = "v"
	case zone && !strings.ContainsAny(stripQuoted(tp), "vz"):
		tp += " v"
	}
	if tp != "" {
		tp = fixCycle(tp, cycle)
		if zone {
			z := 'z'
			if strings.HasPrefix(o.TimeZoneName, "long") {
				z = 'Z' // rendered as the long name
			}
			tp = mapUnquoted(tp, func(c rune) rune {
				if c == 'v' || c == 'z' {
					return z
				}
				return c
			})
		}
	}
	switch {
	case dp != "" && tp != "":
		style := 3
		for _, f := range date {
			if f.c == 'M' && f.n == 4 {
				style = 1
				if o.Weekday != "" {
					style = 0
				}
			} else if f.c == 'M' && f.n == 3 && style > 2 {
				style = 2
			}
		}
		// ICU 78 joins them with the "at time" forms.
		return strings.NewReplacer("{1}", dp, "{0}", tp).Replace(cal.atTime[style])
	case dp != "":
		return dp
	}
	return tp
}

// skeletonFields parses an available format's skeleton.
func skeletonFields(s string) []field {
	var out []field
	for _, c := range s {
		switch c {
		case 'L':
			c = 'M'
		case 'c':
			c = 'E'
		case 'a', 'v', 'z':
			continue
		}
		if n := len(out); n > 0 && out[n-1].c == c {
			out[n-1].n++
		} else {
			out = append(out, field{c, 1})
		}
	}
	return out
}

// bestPattern picks among the formats with a zone (v) when zone is set, and
// among those without one otherwise.
func bestPattern(cal *calendar, want []field, zone bool) string {
	if len(want) == 0 {
		return ""
	}
	best, bestKey, bestScore := "", "", math.MaxInt
	for k, p := range cal.avail {
		if strings.ContainsAny(k, "vz") != zone {
			continue
		}
		fs := skeletonFields(k)
		if len(fs) != len(want) {
			continue
		}
		score := 0
		for _, w := range want {
			found := false
			for _, f := range fs {
				if f.c == w.c {
					found = true
					if f.c == 'G' {
						score += abs(f.n - w.n) // every era name is text
						continue
					}
					if f.c == 'y' || f.c == 'd' {
						score += abs(f.n - w.n) // numbers of any width
						continue
					}
					if f.c == 'E' {
						// E to EEE are all the abbreviated name; the
						// abbreviated and the full name are further apart
						// than two widths of a month.
						score += 2 * abs(max(f.n, 3)-max(w.n, 3))
						continue
					}
					if f.c == 'M' && (f.n >= 3) != (w.n >= 3) {
						score += 100 // a month's number against its name
					}
					score += abs(f.n - w.n)
				}
			}
			if !found {
				score = math.MaxInt
				break
			}
		}
		if score < bestScore || score == bestScore && k < bestKey {
			best, bestKey, bestScore = p, k, score
		}
	}
	if best == "" && zone {
		return bestPattern(cal, want, false)
	}
	if best == "" {
		return ""
	}
	if bestScore == 0 && sameWidths(skeletonFields(bestKey), want) {
		return best // an exact match is used as it is
	}
	return adjustWidths(best, skeletonFields(bestKey), want)
}

// bestZonePattern is the available format with a zone whose skeleton has
// exactly the time fields asked for ("Hmv"), the long zone's ("Hmsvvvv":
// "H:mm:ss (vvvv)") for a long name where the locale has one: ICU keeps
// its widths, a two-digit hour's included ("HH:mm v" for a numeric hour),
// and writes a one-digit hour with two digits where two are asked for.
// "" if there is none.
func bestZonePattern(cal *calendar, want []field, long bool) string {
	var key []rune
	twoDigitHour := false
	for _, w := range want {
		key = append(key, w.c)
		twoDigitHour = twoDigitHour || (w.c == 'h' || w.c == 'H') && w.n == 2
	}
	for _, k := range [2]string{string(key) + "vvvv", string(key) + "v"} {
		p, ok := cal.avail[k]
		if !ok || !long && strings.HasSuffix(k, "vvvv") {
			continue
		}
		if twoDigitHour {
			p = widenHour(p)
		}
		return p
	}
	return ""
}

// widenHour writes a pattern's one-letter hour (h, H, K, k) with two.
func widenHour(p string) string {
	var b strings.Builder
	rs := []rune(p)
	in := false
	for i, c := range rs {
		if c == '\'' {
			in = !in
		}
		b.WriteRune(c)
		hour := c == 'h' || c == 'H' || c == 'K' || c == 'k'
		if !in && hour && (i == 0 || rs[i-1] != c) && (i+1 == len(rs) || rs[i+1] != c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func sameWidths(have, want []field) bool {
	for _, w := range want {
		for _, f := range have {
			if f.c == w.c && f.n != w.n && !(f.c == 'E' && max(f.n, w.n) <= 3) {
				return false
			}
		}
	}
	return true
}

// joinFields is the pattern of fields no available format has: each
// alone, space-separated.
func joinFields(want []field) string {
	var parts []string
	for _, w := range want {
		parts = append(parts, strings.Repeat(string(w.c), w.n))
	}
	return strings.Join(parts, " ")
}

// fixCycle sets the hour letter of a pattern to the hour cycle's.
func fixCycle(p, cycle string) string {
	want := map[string]rune{"h11": 'K', "h12": 'h', "h23": 'H', "h24": 'k'}[cycle]
	return mapUnquoted(p, func(c rune) rune {
		if c == 'h' || c == 'H' || c == 'K' || c == 'k' {
			return want
		}
		return c
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// adjustWidths adjusts a matched pattern's fields to the requested widths
// as ICU's DateTimePatternGenerator does with V8's options: the hour takes
// the requested width; minutes and seconds keep the pattern's; other
// fields keep the pattern's when the matched skeleton had the requested
// width or differs in kind (numeric or text), and take the request's
// otherwise.
func adjustWidths(p string, key, want []field) string {
	var b strings.Builder
	rs := []rune(p)
	in := false
	for i := 0; i < len(rs); {
		c := rs[i]
		if c == '\'' {
			in = !in
			b.WriteRune(c)
			i++
			continue
		}
		j := i
		for j < len(rs) && rs[j] == c {
			j++
		}
		n := j - i
		if !in {
			cls := c
			switch c {
			case 'L':
				cls = 'M'
			case 'c':
				cls = 'E'
			case 'H', 'K', 'k':
				cls = 'h'
			}
			for _, w := range want {
				wc := w.c
				if wc == 'H' {
					wc = 'h'
				}
				if wc != cls {
					continue
				}
				keyN := 0
				for _, f := range key {
					fc := f.c
					if fc == 'H' {
						fc = 'h'
					}
					if fc == cls {
						keyN = f.n
					}
				}
				switch {
				case cls == 'm' || cls == 's':
				case cls == 'h':
					if w.n > 0 {
						n = w.n
					}
				case cls == 'G':
					if keyN != w.n {
						n = w.n
					}
				case keyN == w.n || (n >= 3) != (w.n >= 3) && cls != 'E':
				default:
					n = w.n
				}
			}
		}
		b.WriteString(strings.Repeat(string(c), n))
		i = j
	}
	return b.String()
}

// renderDate formats t with a CLDR pattern, as parts.
func renderDate(cal *calendar, ca string, lc loc, sym *symbols, p string, t time.Time, zone *zoneNaming, tzStyle string) [][2]string {
	var out [][2]string
	day := dayIn(ca, t)
	// ICU writes the first year of a Japanese era as 元 (gannen) in
	// Japanese patterns that spell the year with 年, without padding.
	gannen := ca == "japanese" && strings.HasPrefix(lc.tag, "ja") && strings.ContainsRune(p, '年')
	lit := func(s string) {
		if n := len(out); n > 0 && out[n-1][0] == "literal" {
			out[n-1][1] += s
		} else {
			out = append(out, [2]string{"literal", s})
		}
	}
	num := func(v, n int) string {
		s := strconv.Itoa(abs(v))
		if len(s) < n {
			s = strings.Repeat("0", n-len(s)) + s
		}
		s = localizeDigits(s, sym.zero)
		if v < 0 {
			// A year before an era's first (Taika -694, Islamic -04):
			// the locale's minus sign (sv U+2212, ar U+200E before the
			// hyphen) before the padded digits.
			s = sym.minus + s
		}
		return s
	}
	rs := []rune(p)
	for i := 0; i < len(rs); {
		c := rs[i]
		if c == '\'' {
			j := i + 1
			var s strings.Builder
			for j < len(rs) {
				if rs[j] == '\'' {
					if j+1 < len(rs) && rs[j+1] == '\'' {
						s.WriteRune('\'')
						j += 2
						continue
					}
					break
				}
				s.WriteRune(rs[j])
				j++
			}
			if j == i+1 {
				s.WriteRune('\'')
			}
			lit(s.String())
			i = j + 1
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			lit(string(c))
			i++
			continue
		}
		j := i
		for j < len(rs) && rs[j] == c {
			j++
		}
		n := j - i
		i = j
		switch c {
		case 'G':
			w := 1 // G to GGG: abbreviated
			switch n {
			case 4:
				w = 0
			case 5:
				w = 2
			}
			// An era CLDR leaves unnamed (the Coptic before year 1 in
			// most locales) writes no part, as in ICU.
			if names := cal.eras[w]; day.era < len(names) && names[day.era] != "" {
				out = append(out, [2]string{"era", names[day.era]})
			}
		case 'y':
			y := day.year
			if gannen {
				s := num(y, 1)
				if y == 1 {
					s = "元"
				}
				out = append(out, [2]string{"year", s})
			} else if n == 2 {
				out = append(out, [2]string{"year", num(y%100, 2)})
			} else {
				out = append(out, [2]string{"year", num(y, n)})
			}
		case 'M', 'L':
			m := day.name
			names := cal.months
			if c == 'L' {
				names = cal.monthsSA
			}
			switch n {
			case 1, 2:
				out = append(out, [2]string{"month", num(day.month, n)})
			case 3:
				out = append(out, [2]string{"month", names[1][m]})
			case 4:
				out = append(out, [2]string{"month", names[0][m]})
			default:
				out = append(out, [2]string{"month", names[2][m]})
			}
		case 'd':
			out = append(out, [2]string{"day", num(day.day, n)})
		case 'E', 'c':
			d := int(t.Weekday())
			names := cal.days
			if c == 'c' {
				names = cal.daysSA
			}
			switch {
			case n == 4:
				out = append(out, [2]string{"weekday", names[0][d]})
			case n == 5:
				out = append(out, [2]string{"weekday", names[2][d]})
			default:
				out = append(out, [2]string{"weekday", names[1][d]})
			}
		case 'B':
			hm, hs := 0, 0
			if strings.ContainsRune(stripQuoted(p), 'm') {
				hm = t.Minute()
			}
			if strings.ContainsRune(stripQuoted(p), 's') {
				hs = t.Second()
			}
			out = append(out, [2]string{"dayPeriod", flexibleDayPeriod(calendarDir(lc), t.Hour(), hm, hs, n)})
		case 'a', 'b':
			pd := cal.periods[0]
			if t.Hour() >= 12 {
				pd = cal.periods[1]
			}
			out = append(out, [2]string{"dayPeriod", pd})
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			out = append(out, [2]string{"hour", num(h, n)})
		case 'K':
			out = append(out, [2]string{"hour", num(t.Hour()%12, n)})
		case 'H':
			out = append(out, [2]string{"hour", num(t.Hour(), n)})
		case 'k':
			h := t.Hour()
			if h == 0 {
				h = 24
			}
			out = append(out, [2]string{"hour", num(h, n)})
		case 'm':
			out = append(out, [2]string{"minute", num(t.Minute(), n)})
		case 's':
			out = append(out, [2]string{"second", num(t.Second(), n)})
		case 'S':
			ms := t.Nanosecond() / 1e6
			s := num(ms, 3)
			if n < len(s) {
				s = s[:n]
			}
			out = append(out, [2]string{"fractionalSecond", s})
		case 'z', 'v', 'V', 'O', 'Z', 'x', 'X':
			out = append(out, [2]string{"timeZoneName", zoneText(cal, zone, t, tzStyle, c, n, sym)})
		default:
			lit(strings.Repeat(string(c), n))
		}
	}
	return out
}

// zoneText names the zone in the style tzStyle asks for, else as the
// pattern's letter c (n times) does: CLDR's name for UTC, the specific
// (z) or generic (v) name where the locale has one (zonenames.go), else the
// localized GMT format ("GMT+1", "GMT-05:00" for the long form).
func zoneText(cal *calendar, z *zoneNaming, t time.Time, tzStyle string, c rune, n int, sym *symbols) string {
	style := tzStyle
	if style == "" {
		long := map[bool]string{true: "long", false: "short"}[n >= 4]
		switch c {
		case 'z':
			style = long
		case 'v':
			style = long + "Generic"
		default:
			style = map[bool]string{true: "longOffset", false: "shortOffset"}[n >= 4 || c == 'Z']
		}
	}
	long := strings.HasPrefix(style, "long")
	var name string
	switch {
	case z == nil || strings.HasSuffix(style, "Offset"):
	case z.zone == "Etc/UTC" && style == "long":
		name = cal.utcLong
	case z.zone == "Etc/UTC" && style == "short":
		name = cal.utcShort
	case strings.HasSuffix(style, "Generic"):
		name = z.generic(t, !long)
	default:
		name = z.specific(t, !long)
	}
	if name != "" {
		return name
	}
	return gmtText(cal, t, long, sym)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func localizeDigits(s string, zero rune) string {
	if zero == '0' {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			r = digit(zero, r-'0')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// widths reports the requested fields' widths as the pattern has them, as
// V8's resolvedOptions does.
// V8 reads them off the pattern as it is written: a month asked for by
// name is numeric where the pattern writes a number (ja: M月), and a d in a
// quoted literal (pt: MMMM 'de' y) reports a day.
func widths(p string, res *dtResolved) {
	num := map[int]string{1: "numeric", 2: "2-digit"}
	text := map[int]string{1: "short", 2: "short", 3: "short", 4: "long", 5: "narrow"}
	for _, f := range skeletonFields(stripQuoted(p)) {
		switch f.c {
		case 'y':
			if res.Year != "" {
				res.Year = map[bool]string{true: "2-digit", false: "numeric"}[f.n == 2]
			}
		case 'M':
			if res.Month != "" {
				if f.n <= 2 {
					res.Month = num[f.n]
				} else {
					res.Month = text[f.n]
				}
			}
		case 'd':
			if res.Day != "" {
				res.Day = num[min(f.n, 2)]
			}
		case 'h', 'H', 'K', 'k':
			if res.Hour != "" {
				res.Hour = num[min(f.n, 2)]
			}
		case 'm':
			if res.Minute != "" {
				res.Minute = num[min(f.n, 2)]
			}
		case 's':
			if res.Second != "" {
				res.Second = num[min(f.n, 2)]
			}
		case 'E':
			if res.Weekday != "" {
				res.Weekday = text[f.n]
			}
		case 'B':
			res.DayPeriod = map[int]string{4: "long", 5: "narrow"}[f.n]
			if res.DayPeriod == "" {
				res.DayPeriod = "short"
			}
		case 'G':
			// V8 reads the era's width off the pattern, asked for or not
			// (GGGGG narrow, GGGG long, GGG short; a lone G is not read).
			res.Era = map[int]string{3: "short", 4: "long", 5: "narrow"}[f.n]
		}
	}
	if res.Day == "" {
		var quoted strings.Builder
		in := false
		for _, c := range p {
			if c == '\'' {
				in = !in
			} else if in {
				quoted.WriteRune(c)
			}
		}
		if q := quoted.String(); strings.Contains(q, "dd") {
			res.Day = "2-digit"
		} else if strings.Contains(q, "d") {
			res.Day = "numeric"
		}
	}
}
