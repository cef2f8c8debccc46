package intl

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
)

// formatRange and formatRangeToParts: V8 writes a range with ICU's
// DateIntervalFormat, made from the skeleton of the formatter's pattern in
// the locale with the resolved hour cycle. The interval formatter finds
// the greatest field the two dates differ in and writes them with the
// locale's interval pattern for it (intervals_gen.go: "MMM d – d, y"), or
// joins two whole dates with the fallback ("{0} – {1}"), or, within a day,
// writes the date once beside a time range. Where the dates differ in
// nothing the pattern shows, V8 writes the first alone, as format does.
// This follows ICU 78's dtitvfmt.cpp and dtitvinf.cpp.

// The interval fields, in ICU's order (kIPI_*): era, year, month, day, day
// period, hour, minute, second, millisecond.
const (
	ivEra = iota
	ivYear
	ivMonth
	ivDay
	ivAmPm
	ivHour
	ivMinute
	ivSecond
	ivMilli
	ivFields
)

// ivLetters are the fields' pattern letters; ivLevels their levels as
// SimpleDateFormat ranks them.
var (
	ivLetters = [ivFields]byte{'G', 'y', 'M', 'd', 'a', 'h', 'm', 's', 'S'}
	ivLevels  = [ivFields]int{0, 10, 20, 30, 40, 50, 60, 70, 80}
)

// ivPattern is an interval pattern cut where the second date starts; a
// fallback has only its second part, the pattern each date is written in.
type ivPattern struct {
	first, second string
	laterFirst    bool
}

// intervalTable is a calendar's interval formats in a locale
// (intervals_gen.go).
type intervalTable struct {
	fallback string               // "{0} – {1}"
	formats  map[string][7]string // skeleton → pattern by greatest field
}

// rangeFormat is a DateIntervalFormat: its calendar's interval formats and
// the patterns it derived for each greatest differing field.
type rangeFormat struct {
	table      map[string][7]string
	order      []string
	fallback   string
	laterFirst bool
	skeleton   string
	pattern    string // the generator's for skeleton
	patterns   [ivFields]ivPattern
	// datePattern and timePattern write a date and a time apart, for a
	// range within a day with no interval pattern; glue joins them.
	datePattern, timePattern string
	glue                     string
	cal                      *calendar
	cycle                    string
}

// rangeInput is what formatRange needs of the formatter.
type rangeInput struct {
	cal     *calendar
	ca      string
	lc      loc
	sym     *symbols
	pattern string
	loc     *time.Location
	zone    *zoneNaming
	tzStyle string
	cycle   string
	format  func(ms float64) ([][2]string, error)
}

// dtRangeAnswer is formatRange's answer: the text and the parts, each with
// its source ("startRange", "endRange" or "shared").
type dtRangeAnswer struct {
	R dtResolved  `json:"r"`
	S string      `json:"s"`
	P [][3]string `json:"p"`
}

// dateRange answers a formatRange request (V and W both set).
func (h *Handler) dateRange(req *request, res dtResolved, in *rangeInput) (any, error) {
	var x, y float64
	if json.Unmarshal(req.V, &x) != nil || json.Unmarshal(req.W, &y) != nil {
		return nil, typeErr("malformed Intl value")
	}
	for _, v := range [2]float64{x, y} {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 8.64e15 {
			return nil, rangeErr("Invalid time value")
		}
	}
	x, y = math.Trunc(x), math.Trunc(y)
	ans := &dtRangeAnswer{R: res}
	// The interval formatter depends on the calendar's data, the pattern
	// and its hour cycle and zone style, not on the dates: it is cached.
	key := strings.Join([]string{"itv", calendarDir(in.lc), in.ca, in.pattern, in.cycle, in.tzStyle}, "\x00")
	rf := h.cached(key, func() any { return newRangeFormat(in) }).(*rangeFormat)
	parts, spans := rf.format(in, x, y)
	if spans == nil {
		// No part is the start's or the end's alone: V8 formats the
		// first date as format and formatToParts do.
		p, err := in.format(x)
		if err != nil {
			return nil, err
		}
		ans.S = strings.ReplaceAll(joinParts(p), "\u202f", " ")
		for _, q := range p {
			ans.P = append(ans.P, [3]string{q[0], q[1], "shared"})
		}
		return ans, nil
	}
	var b strings.Builder
	pos := 0 // in UTF-16 units, as ICU counts
	for _, q := range parts {
		n := len(utf16.Encode([]rune(q[1])))
		src := "shared"
		switch {
		case spans[0][0] <= pos && pos+n <= spans[0][1]:
			src = "startRange"
		case spans[1][0] <= pos && pos+n <= spans[1][1]:
			src = "endRange"
		}
		b.WriteString(q[1])
		ans.P = append(ans.P, [3]string{q[0], q[1], src})
		pos += n
	}
	ans.S = b.String()
	return ans, nil
}

// newRangeFormat is DateIntervalFormat's constructor and initializePattern.
func newRangeFormat(in *rangeInput) *rangeFormat {
	dir := calendarDir(in.lc)
	ca := in.ca
	if ca == "" {
		ca = "gregory"
	}
	ti, ok := cldrIntervals[ca][dir]
	if !ok {
		ti = cldrIntervals["gregory"][dir]
	}
	r := &rangeFormat{table: cldrIntervalTables[ti].formats, order: intervalOrder(ti), fallback: cldrIntervalTables[ti].fallback,
		pattern: in.pattern, cal: in.cal, cycle: in.cycle}
	if i, j := strings.Index(r.fallback, "{0}"), strings.Index(r.fallback, "{1}"); i < 0 || j < 0 {
		r.fallback = "{0} – {1}"
	} else {
		r.laterFirst = i > j
	}
	r.skeleton = patternSkeleton(zoneLetters(in.pattern, in.tzStyle))
	// The interval formatter writes a single date with the generator's
	// pattern for the skeleton, not the formatter's own.
	r.pattern = r.best(r.skeleton)
	for i := range r.patterns {
		r.patterns[i].laterFirst = r.laterFirst
	}
	converted := r.normalizeHour(r.skeleton)
	dateSk, normDate, timeSk, normTime := dateTimeSkeletons(converted)
	if timeSk != "" && dateSk != "" && len(utf16.Encode([]rune(in.cal.dateTime[2]))) >= 3 {
		r.glue = in.cal.dateTime[2]
	}
	found := r.setSeparate(normDate, normTime)
	if !found || dateSk == "" {
		// A time alone (or with seconds, which no interval format has):
		// across days, each end as a short date and the time.
		if timeSk != "" && dateSk == "" {
			p := r.best("yMd" + timeSk)
			for _, f := range []int{ivDay, ivMonth, ivYear} {
				r.patterns[f] = ivPattern{second: p, laterFirst: r.laterFirst}
			}
			r.patterns[ivEra] = ivPattern{second: r.best("GyMd" + timeSk), laterFirst: r.laterFirst}
		}
		return r
	}
	if timeSk == "" {
		return r
	}
	// A date and a time: across days, both ends whole, with every field
	// down to the one that differs; within a day, the date once.
	sk := r.skeleton
	for _, f := range []int{ivDay, ivMonth, ivYear, ivEra} {
		if !strings.ContainsRune(dateSk, rune(ivLetters[f])) {
			sk = string(ivLetters[f]) + sk
			r.patterns[f] = ivPattern{second: r.best(sk), laterFirst: r.laterFirst}
		}
	}
	if r.glue == "" {
		return r
	}
	dp := r.best(dateSk)
	for _, f := range []int{ivAmPm, ivHour, ivMinute} {
		p := r.patterns[f]
		if p.first == "" {
			continue
		}
		r.setOrdered(f, strings.NewReplacer("{0}", p.first+p.second, "{1}", dp).Replace(r.glue), p.laterFirst)
	}
	return r
}

// best is DateFormat::getBestPattern for a skeleton, in the formatter's
// hour cycle.
func (r *rangeFormat) best(sk string) string {
	// ICU's generator keeps the hour width of the format it matched
	// (V8 asks its own for the requested width).
	// The generator holds the locale's date and time style patterns too,
	// under the available formats of the same skeleton.
	if _, ok := r.cal.avail[strings.ReplaceAll(sk, "a", "")]; !ok {
		for _, p := range [2][]string{r.cal.date, r.cal.time} {
			for _, q := range p {
				if patternSkeleton(q) == sk {
					return q
				}
			}
		}
	}
	if d, t := splitSkeleton(sk); d != "" && t != "" && !strings.ContainsAny(sk, "zvO") && !r.combined(sk) {
		// A date and a time no available format has together: each
		// apart (a style's pattern where it is one), joined as
		// buildPattern joins them.
		style := 3
		for _, f := range runs(d) {
			switch {
			case f.c == 'M' && f.n == 4 && strings.ContainsRune(d, 'E'):
				style = 0
			case f.c == 'M' && f.n == 4:
				style = 1
			case f.c == 'M' && f.n == 3:
				style = 2
			}
		}
		return strings.NewReplacer("{1}", r.best(d), "{0}", r.best(t)).Replace(r.cal.atTime[style])
	}
	o := dtOptions{patternHour: true}
	cycle := r.cycle
	text := map[int]string{1: "short", 2: "short", 3: "short", 4: "long", 5: "narrow"}
	num := map[int]string{1: "numeric", 2: "2-digit"}
	for _, f := range runs(sk) {
		n := f.n
		switch f.c {
		case 'G':
			o.Era, o.eraWidth = text[min(n, 5)], min(n, 5)
		case 'y':
			o.Year = num[min(n, 2)]
			if n > 2 {
				o.Year = "numeric"
			}
		case 'M', 'L':
			if n <= 2 {
				o.Month = num[n]
			} else {
				o.Month = text[min(n, 5)]
			}
		case 'E', 'c':
			o.Weekday = text[min(n, 5)]
		case 'd':
			o.Day = num[min(n, 2)]
		case 'B':
			o.DayPeriod = map[int]string{4: "long", 5: "narrow"}[n]
			if o.DayPeriod == "" {
				o.DayPeriod = "short"
			}
		case 'h', 'H', 'K', 'k':
			o.Hour = num[min(n, 2)]
			cycle = map[rune]string{'h': "h12", 'H': "h23", 'K': "h11", 'k': "h24"}[f.c]
		case 'm':
			o.Minute = num[min(n, 2)]
		case 's':
			o.Second = num[min(n, 2)]
		case 'z':
			o.TimeZoneName = map[bool]string{true: "long", false: "short"}[n >= 4]
		case 'v':
			o.TimeZoneName = map[bool]string{true: "longGeneric", false: "shortGeneric"}[n >= 4]
		case 'O':
			o.TimeZoneName = map[bool]string{true: "longOffset", false: "shortOffset"}[n >= 4]
		}
	}
	p := withDayPeriod(buildPattern(r.cal, &o, cycle), dayPeriodWidth(&o, cycle))
	for _, f := range runs(sk) {
		if strings.ContainsRune("zvO", f.c) {
			// buildPattern writes a long name as Z, which renderDate
			// reads by the timeZoneName option; a style's zone has none.
			p = withZone(p, strings.Repeat(string(f.c), f.n))
		}
	}
	return p
}

// splitSkeleton cuts a skeleton into its date and its time fields.
func splitSkeleton(sk string) (date, tm string) {
	for _, f := range runs(sk) {
		if dtpgField(f.c) >= 10 {
			tm += strings.Repeat(string(f.c), f.n)
		} else {
			date += strings.Repeat(string(f.c), f.n)
		}
	}
	return date, tm
}

// combined reports whether an available format has all of a date-and-time
// skeleton's fields, as buildPattern looks for one.
func (r *rangeFormat) combined(sk string) bool {
	letters := func(fs []field) string {
		var b []byte
		for _, f := range fs {
			c := byte(f.c)
			switch c {
			case 'a', 'b', 'B', 'v', 'z':
				continue
			case 'K':
				c = 'h'
			case 'k':
				c = 'H'
			case 'L':
				c = 'M'
			case 'c':
				c = 'E'
			}
			b = append(b, c)
		}
		sort.Slice(b, func(i, j int) bool { return b[i] < b[j] })
		return string(b)
	}
	want := letters(runs(sk))
	for k := range r.cal.avail {
		if !strings.ContainsAny(k, "vz") && letters(skeletonFields(k)) == want {
			return true
		}
	}
	return false
}

// runs splits a skeleton or pattern's unquoted letters into fields.
func runs(p string) []field {
	var out []field
	in := false
	prev := rune(-1)
	for _, c := range p {
		if c == '\'' {
			in = !in
			prev = -1
			continue
		}
		if in || !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			prev = -1
			continue
		}
		if c == prev {
			out[len(out)-1].n++
		} else {
			out = append(out, field{c, 1})
		}
		prev = c
	}
	return out
}

// withZone writes a pattern's zone field as z.
func withZone(p, z string) string {
	var b strings.Builder
	rs := []rune(p)
	in := false
	for i := 0; i < len(rs); {
		c := rs[i]
		if c == '\'' {
			in = !in
		}
		if in || !strings.ContainsRune("zZvVOxX", c) {
			b.WriteRune(c)
			i++
			continue
		}
		for i < len(rs) && rs[i] == c {
			i++
		}
		b.WriteString(z)
	}
	return b.String()
}

// zoneLetters writes the zone field of a formatter's pattern as ICU has
// it for the timeZoneName option (date.go renders long names from Z).
func zoneLetters(p, style string) string {
	if style == "" {
		return p
	}
	return withZone(p, map[string]string{"short": "z", "long": "zzzz", "shortGeneric": "v", "longGeneric": "vvvv",
		"shortOffset": "O", "longOffset": "OOOO"}[style])
}

// dtpgField is the DateTimePatternGenerator field of a pattern letter, in
// the order a skeleton lists them; -1 for none.
func dtpgField(c rune) int {
	switch c {
	case 'G':
		return 0
	case 'y', 'Y', 'u', 'U', 'r':
		return 1
	case 'Q', 'q':
		return 2
	case 'M', 'L':
		return 3
	case 'w':
		return 4
	case 'W':
		return 5
	case 'E', 'c', 'e':
		return 6
	case 'D':
		return 7
	case 'F':
		return 8
	case 'd', 'g':
		return 9
	case 'a', 'b', 'B':
		return 10
	case 'h', 'H', 'K', 'k':
		return 11
	case 'm':
		return 12
	case 's':
		return 13
	case 'S', 'A':
		return 14
	case 'z', 'Z', 'O', 'v', 'V', 'X', 'x':
		return 15
	}
	return -1
}

// patternSkeleton is DateTimePatternGenerator::staticGetSkeleton: a
// pattern's fields as written, in the generator's field order, with a day
// period added to a 12-hour hour and dropped from a 24-hour one.
func patternSkeleton(p string) string {
	var fields [16]string
	for _, f := range runs(p) {
		if i := dtpgField(f.c); i >= 0 {
			fields[i] = strings.Repeat(string(f.c), f.n)
		}
	}
	if h := fields[11]; h != "" {
		if h[0] == 'h' || h[0] == 'K' {
			if fields[10] == "" {
				fields[10] = "a"
			}
		} else {
			fields[10] = ""
		}
	}
	return strings.Join(fields[:], "")
}

// normalizeHour is normalizeHourMetacharacters: the hour letter the
// locale uses for the skeleton's, with the day period its 12-hour format
// writes (zh-Hant's B), as wide as the skeleton asked for.
func (r *rangeFormat) normalizeHour(sk string) string {
	var hourC, periodC byte
	hourStart, hourLen, periodStart, periodLen := 0, 0, 0, 0
	for i := 0; i < len(sk); i++ {
		c := sk[i]
		switch {
		case strings.IndexByte("jJChHkK", c) >= 0:
			if hourC == 0 {
				hourC, hourStart = c, i
			}
			hourLen++
		case c == 'a' || c == 'b' || c == 'B':
			if periodC == 0 {
				periodC, periodStart = c, i
			}
			periodLen++
		default:
			if hourC != 0 && periodC != 0 {
				i = len(sk)
			}
		}
	}
	if hourC == 0 {
		return sk
	}
	// The pattern generator answers the hour alone in the formatter's
	// cycle (the -u-hc V8 adds): its letter is the skeleton's, and Node's
	// day period stays AM/PM even where the locale's "h" format has B
	// (zh-Hant's "Bh時").
	hourChar := hourC
	if periodC == 0 {
		periodC = 'a'
	}
	repl := string(hourChar)
	if hourChar != 'H' && hourChar != 'k' {
		n := 1
		switch {
		case periodLen >= 5 || hourLen >= 5:
			n = 5
		case periodLen >= 3 || hourLen >= 3:
			n = 3
		}
		repl += strings.Repeat(string(periodC), n)
	}
	out := sk[:hourStart] + repl + sk[hourStart+hourLen:]
	if periodStart > hourStart {
		periodStart += len(repl) - hourLen
	}
	return out[:periodStart] + out[periodStart+periodLen:]
}

// dateTimeSkeletons is getDateTimeSkeleton: the date and the time fields
// of a skeleton, each as written and normalized.
func dateTimeSkeletons(sk string) (date, normDate, tm, normTime string) {
	var d, nd, t, nt strings.Builder
	var nE, nd2, nM, ny, nm, nv, nz int
	var hourC byte
	for i := 0; i < len(sk); i++ {
		c := sk[i]
		switch c {
		case 'E':
			d.WriteByte(c)
			nE++
		case 'd':
			d.WriteByte(c)
			nd2++
		case 'M':
			d.WriteByte(c)
			nM++
		case 'y':
			d.WriteByte(c)
			ny++
		case 'G', 'Y', 'u', 'Q', 'q', 'L', 'l', 'W', 'w', 'D', 'F', 'g', 'e', 'c', 'U', 'r':
			nd.WriteByte(c)
			d.WriteByte(c)
		case 'h', 'H', 'k', 'K':
			t.WriteByte(c)
			if hourC == 0 {
				hourC = c
			}
		case 'm':
			t.WriteByte(c)
			nm++
		case 'z':
			nz++
			t.WriteByte(c)
		case 'v':
			nv++
			t.WriteByte(c)
		case 'a', 'V', 'Z', 'j', 's', 'S', 'A', 'b', 'B':
			t.WriteByte(c)
			nt.WriteByte(c)
		}
	}
	nd.WriteString(strings.Repeat("y", ny))
	if nM > 0 {
		if nM < 3 {
			nd.WriteByte('M')
		} else {
			nd.WriteString(strings.Repeat("M", min(nM, 5)))
		}
	}
	if nE > 0 {
		if nE <= 3 {
			nd.WriteByte('E')
		} else {
			nd.WriteString(strings.Repeat("E", min(nE, 5)))
		}
	}
	if nd2 > 0 {
		nd.WriteByte('d')
	}
	if hourC != 0 {
		nt.WriteByte(hourC)
	}
	if nm > 0 {
		nt.WriteByte('m')
	}
	if nz > 0 {
		nt.WriteByte('z')
	}
	if nv > 0 {
		nt.WriteByte('v')
	}
	return d.String(), nd.String(), t.String(), nt.String()
}

// widthsOf counts each ASCII letter of a skeleton.
func widthsOf(sk string) (w [128]int) {
	for i := 0; i < len(sk); i++ {
		if c := sk[i]; c < 128 {
			w[c]++
		}
	}
	return w
}

// bestSkeleton is DateIntervalInfo::getBestSkeleton: the locale's skeleton
// nearest sk, and how it differs: 0 not at all, 1 in widths, 2 in zone or
// hour letters too, -1 in its fields. Of two as near, the first in ICU's
// hash table order wins.
func (r *rangeFormat) bestSkeleton(sk string) (string, int) {
	replaced := false
	if strings.ContainsAny(sk, "zkKab") {
		sk = strings.NewReplacer("z", "v", "k", "H", "K", "h", "a", "", "b", "").Replace(sk)
		replaced = true
	}
	in := widthsOf(sk)
	best, bestDist, info := "", math.MaxInt32, 0
	for _, cand := range r.order {
		w := widthsOf(cand)
		dist, diff := 0, 1
		for i := range w {
			a, b := in[i], w[i]
			switch {
			case a == b:
			case a == 0 || b == 0:
				diff = -1
				dist += 0x1000
			case i == 'M' && (a <= 2) != (b <= 2):
				dist += 0x100
			default:
				dist += abs(a - b)
			}
		}
		if dist < bestDist {
			best, bestDist, info = cand, dist, diff
		}
		if dist == 0 {
			info = 0
			break
		}
	}
	if replaced && info != -1 {
		info = 2
	}
	return best, info
}

// pattern is getIntervalPattern.
func (r *rangeFormat) intervalPattern(sk string, f int) string {
	if f > ivMinute {
		return ""
	}
	return r.table[sk][f]
}

// setSeparate is setSeparateDateTimePtn.
func (r *rangeFormat) setSeparate(dateSk, timeSk string) bool {
	sk := dateSk
	if timeSk != "" {
		sk = timeSk
	}
	best, diff := r.bestSkeleton(sk)
	if best == "" {
		return false
	}
	if dateSk != "" {
		r.datePattern = r.best(dateSk)
	}
	if timeSk != "" {
		r.timePattern = r.best(timeSk)
	}
	if diff == -1 {
		return false
	}
	if timeSk == "" {
		var ext, extBest string
		skp, bestp := &sk, &best
		r.setInterval(ivDay, skp, bestp, diff, &ext, &extBest)
		if r.setInterval(ivMonth, skp, bestp, diff, &ext, &extBest) {
			skp, bestp = &ext, &extBest
		}
		r.setInterval(ivYear, skp, bestp, diff, &ext, &extBest)
		r.setInterval(ivEra, skp, bestp, diff, &ext, &extBest)
	} else {
		r.setInterval(ivMinute, &sk, &best, diff, nil, nil)
		r.setInterval(ivHour, &sk, &best, diff, nil, nil)
		r.setInterval(ivAmPm, &sk, &best, diff, nil, nil)
	}
	return true
}

// setInterval is the six-argument setIntervalPattern; it reports whether
// it found the pattern by extending the skeleton.
func (r *rangeFormat) setInterval(f int, sk, bestSk *string, diff int, ext, extBest *string) bool {
	best := *bestSk
	p := r.intervalPattern(best, f)
	suppress := strings.IndexByte(r.skeleton, 'J') >= 0
	if p == "" {
		if fieldUnitIgnored(best, f) {
			return false
		}
		if f == ivAmPm {
			// A 24-hour format may have no pattern for a change of day
			// period, which is then a change of hour.
			if p = r.intervalPattern(best, ivHour); p != "" {
				r.setOrdered(f, adjustFieldWidth(*sk, best, p, diff, suppress), r.laterFirst)
			}
			return false
		}
		if ext != nil {
			l := string(ivLetters[f])
			*ext = l + *sk
			*extBest = l + *bestSk
			p = r.intervalPattern(*extBest, f)
			if p == "" && diff == 0 {
				tmp, d := r.bestSkeleton(*extBest)
				diff = d
				if tmp != "" && d != -1 {
					p = r.intervalPattern(tmp, f)
					best = tmp
				}
			}
		}
	}
	if p == "" {
		return false
	}
	if diff != 0 || suppress {
		p = adjustFieldWidth(*sk, best, p, diff, suppress)
	}
	r.setOrdered(f, p, r.laterFirst)
	return ext != nil && *ext != ""
}

// setOrdered is the three-argument setIntervalPattern.
func (r *rangeFormat) setOrdered(f int, p string, laterFirst bool) {
	if rest, ok := strings.CutPrefix(p, "latestFirst:"); ok {
		p, laterFirst = rest, true
	} else if rest, ok := strings.CutPrefix(p, "earliestFirst:"); ok {
		p, laterFirst = rest, false
	}
	i := splitInTwo(p)
	r.patterns[f] = ivPattern{first: p[:i], second: p[i:], laterFirst: laterFirst}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// splitInTwo is splitPatternInto2Part: the byte index where a pattern
// letter first comes back, where the second date starts.
func splitInTwo(p string) int {
	var seen [128]bool
	in := false
	var prev byte
	count := 0
	found := false
	i := 0
	for ; i < len(p); i++ {
		c := p[i]
		if c != prev && count > 0 {
			if !seen[prev] {
				seen[prev] = true
			} else {
				found = true
				break
			}
			count = 0
		}
		if c == '\'' {
			if i+1 < len(p) && p[i+1] == '\'' {
				i++
			} else {
				in = !in
			}
		} else if !in && isLetter(c) {
			prev = c
			count++
		}
	}
	if count > 0 && !found && !seen[prev] {
		count = 0
	}
	return i - count
}

// replaceUnquoted is findReplaceInPattern.
func replaceUnquoted(p, old, repl string) string {
	var b strings.Builder
	for {
		q := strings.IndexByte(p, '\'')
		if q < 0 {
			b.WriteString(strings.ReplaceAll(p, old, repl))
			return b.String()
		}
		e := strings.IndexByte(p[q+1:], '\'')
		if e < 0 {
			e = len(p) - 1
		} else {
			e += q + 1
		}
		b.WriteString(strings.ReplaceAll(p[:q], old, repl))
		b.WriteString(p[q : e+1])
		p = p[e+1:]
	}
}

// adjustFieldWidth is ICU's: an interval pattern of the nearest skeleton
// with its fields as wide as the skeleton asked for and its zone, hour and
// day period letters the skeleton's.
func adjustFieldWidth(input, best, p string, diff int, suppress bool) string {
	inW, bestW := widthsOf(input), widthsOf(best)
	if suppress {
		for _, s := range []string{"\u00a0a", "\u202fa", "a\u00a0", "a\u202f", "a"} {
			p = replaceUnquoted(p, s, "")
		}
		p = strings.TrimSpace(replaceUnquoted(p, "  ", " "))
	}
	if diff == 2 {
		for _, x := range [][3]string{{"z", "v", "z"}, {"K", "h", "K"}, {"k", "H", "k"}, {"b", "a", "b"}} {
			if strings.Contains(input, x[0]) {
				p = replaceUnquoted(p, x[1], x[2])
			}
		}
	}
	if strings.IndexByte(p, 'a') >= 0 && bestW['a'] == 0 {
		bestW['a'] = 1
	}
	if strings.IndexByte(p, 'b') >= 0 && bestW['b'] == 0 {
		bestW['b'] = 1
	}
	var b strings.Builder
	in := false
	var prev byte
	count := 0
	widen := func() {
		c := prev
		if c == 'L' {
			c = 'M'
		}
		if have, want := bestW[c], inW[c]; have == count && want > have {
			b.WriteString(strings.Repeat(string(prev), want-have))
		}
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != prev && count > 0 {
			widen()
			count = 0
		}
		b.WriteByte(c)
		if c == '\'' {
			if i+1 < len(p) && p[i+1] == '\'' {
				i++
				b.WriteByte('\'')
			} else {
				in = !in
			}
		} else if !in && isLetter(c) {
			prev = c
			count++
		}
	}
	if count > 0 {
		widen()
	}
	return b.String()
}

// letterLevel is SimpleDateFormat::getLevelFromChar.
func letterLevel(c byte) int {
	switch c {
	case 'G', 'O', 'V', 'X', 'Z', 'g', 'l', 'v', 'x', 'z':
		return 0
	case 'U', 'Y', 'r', 'u', 'y':
		return 10
	case 'D', 'L', 'M', 'Q', 'q', 'w':
		return 20
	case 'E', 'F', 'W', 'c', 'd', 'e':
		return 30
	case 'A', 'a', 'b', 'B':
		return 40
	case 'H', 'K', 'h', 'k':
		return 50
	case 'm':
		return 60
	case 's':
		return 70
	case 'S':
		return 80
	}
	return -1
}

// fieldUnitIgnored is SimpleDateFormat::isFieldUnitIgnored: whether a
// pattern shows nothing as small as field f.
func fieldUnitIgnored(p string, f int) bool {
	level := ivLevels[f]
	in := false
	var prev byte
	count := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != prev && count > 0 {
			if level <= letterLevel(prev) {
				return false
			}
			count = 0
		}
		if c == '\'' {
			if i+1 < len(p) && p[i+1] == '\'' {
				i++
			} else {
				in = !in
			}
		} else if !in && isLetter(c) {
			prev = c
			count++
		}
	}
	return !(count > 0 && level <= letterLevel(prev))
}

// rangeMoment is one date's calendar fields, compared field by field.
type rangeMoment struct {
	t    time.Time
	day  calDate
	ms   int
	ampm int
}

// format is formatImpl: the parts, and the two dates' spans (in UTF-16
// units), nil where no part is either date's alone.
func (r *rangeFormat) format(in *rangeInput, x, y float64) ([][2]string, *[2][2]int) {
	moment := func(ms float64) rangeMoment {
		t := time.UnixMilli(int64(ms)).In(in.loc)
		return rangeMoment{t: t, day: dayIn(in.ca, t), ms: t.Nanosecond() / 1e6, ampm: t.Hour() / 12}
	}
	a, b := moment(x), moment(y)
	f := -1
	switch {
	case a.day.era != b.day.era:
		f = ivEra
	case a.day.year != b.day.year:
		f = ivYear
	case a.day.month != b.day.month || a.day.name != b.day.name:
		f = ivMonth
	case a.day.day != b.day.day:
		f = ivDay
	case a.ampm != b.ampm:
		f = ivAmPm
	case a.t.Hour()%12 != b.t.Hour()%12:
		f = ivHour
	case a.t.Minute() != b.t.Minute():
		f = ivMinute
	case a.t.Second() != b.t.Second():
		f = ivSecond
	case a.ms != b.ms:
		f = ivMilli
	}
	if f < 0 {
		return nil, nil
	}
	write := func(p string, m rangeMoment) [][2]string {
		// The interval patterns write the zone with ICU's letters (z,
		// zzzz, v, O…), which name it, not the timeZoneName option: a
		// long name's interval pattern may write the short one.
		return renderDate(in.cal, in.ca, in.lc, in.sym, p, m.t, in.zone, "")
	}
	sameDay := f >= ivAmPm
	ip := r.patterns[f]
	var parts [][2]string
	first := 0
	switch {
	case ip.first == "" && ip.second == "":
		if fieldUnitIgnored(r.pattern, f) {
			return nil, nil
		}
		parts, first = r.fallbackFormat(write, r.pattern, a, b, sameDay)
	case ip.first == "":
		parts, first = r.fallbackFormat(write, ip.second, a, b, sameDay)
	default:
		m1, m2 := a, b
		if ip.laterFirst {
			m1, m2, first = b, a, 1
		}
		parts = write(ip.first, m1)
		if ip.second != "" {
			parts = appendParts(parts, write(ip.second, m2))
		}
	}
	return parts, overlapSpans(parts, first)
}

// appendParts appends q to p, merging adjacent literals as ICU's single
// string does.
func appendParts(p, q [][2]string) [][2]string {
	for _, x := range q {
		if n := len(p); n > 0 && x[0] == "literal" && p[n-1][0] == "literal" {
			p[n-1][1] += x[1]
			continue
		}
		p = append(p, x)
	}
	return p
}

// fallbackFormat is DateIntervalFormat::fallbackFormat: two whole dates
// joined by the fallback, or within a day the date once beside two times.
func (r *rangeFormat) fallbackFormat(write func(string, rangeMoment) [][2]string, p string, a, b rangeMoment, sameDay bool) ([][2]string, int) {
	if sameDay && r.datePattern != "" && r.timePattern != "" && r.glue != "" {
		var out [][2]string
		first := 0
		glueParts(r.glue, func(arg int) {
			if arg == 0 {
				var q [][2]string
				q, first = r.fallbackRange(write, r.timePattern, a, b)
				out = appendParts(out, q)
			} else {
				out = appendParts(out, write(r.datePattern, a))
			}
		}, func(s string) { out = appendParts(out, [][2]string{{"literal", s}}) })
		return out, first
	}
	return r.fallbackRange(write, p, a, b)
}

// fallbackRange is fallbackFormatRange: both dates in one pattern, joined
// by the fallback.
func (r *rangeFormat) fallbackRange(write func(string, rangeMoment) [][2]string, p string, a, b rangeMoment) ([][2]string, int) {
	var out [][2]string
	first := 0
	if r.laterFirst {
		first = 1
	}
	glueParts(r.fallback, func(arg int) {
		m := a
		if arg == 1 {
			m = b
		}
		out = appendParts(out, write(p, m))
	}, func(s string) { out = appendParts(out, [][2]string{{"literal", s}}) })
	return out, first
}

// glueParts walks a two-argument pattern ("{1}, {0}"), calling arg for
// each argument and text for the text between them.
func glueParts(p string, arg func(int), text func(string)) {
	for p != "" {
		i0, i1 := strings.Index(p, "{0}"), strings.Index(p, "{1}")
		i, n := i0, 0
		if i < 0 || i1 >= 0 && i1 < i {
			i, n = i1, 1
		}
		if i < 0 {
			text(p)
			return
		}
		if i > 0 {
			text(p[:i])
		}
		arg(n)
		p = p[i+3:]
	}
}

// overlapSpans is addOverlapSpans: the extent of the fields that come
// twice, the first time and the second, which ICU takes for the two
// dates; first says which date was written first.
func overlapSpans(parts [][2]string, first int) *[2][2]int {
	type fld struct {
		typ        string
		start, end int
	}
	var fs []fld
	pos := 0
	for _, p := range parts {
		n := len(utf16.Encode([]rune(p[1])))
		if p[0] != "literal" {
			fs = append(fs, fld{p[0], pos, pos + n})
		}
		pos += n
	}
	s1a, s1b, s2a, s2b := math.MaxInt32, 0, math.MaxInt32, 0
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			if fs[i].typ != fs[j].typ {
				continue
			}
			s1a, s1b = min(s1a, fs[i].start), max(s1b, fs[i].end)
			s2a, s2b = min(s2a, fs[j].start), max(s2b, fs[j].end)
			break
		}
	}
	if s1a == math.MaxInt32 {
		return nil
	}
	var sp [2][2]int
	sp[first] = [2]int{s1a, s1b}
	sp[1-first] = [2]int{s2a, s2b}
	return &sp
}

// intervalOrders caches each table's skeletons in ICU's hash order.
var intervalOrders sync.Map // int → []string

// intervalOrder is the order ICU's Hashtable walks table ti's skeletons in,
// put into it in sorted order (as the resource bundle lists them): open
// addressing over 127 slots (the table never holds the 64 that would grow
// it) with double hashing of UnicodeString's hash code.
func intervalOrder(ti int) []string {
	if v, ok := intervalOrders.Load(ti); ok {
		return v.([]string)
	}
	keys := make([]string, 0, len(cldrIntervalTables[ti].formats))
	for k := range cldrIntervalTables[ti].formats {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	const size = 127
	var slots [size]string
	for _, k := range keys {
		var h uint32
		for _, u := range utf16.Encode([]rune(k)) {
			h = h*37 + uint32(u)
		}
		hc := int32(h)
		if hc == 0 {
			hc = 1
		}
		hc &= 0x7fffffff
		i, jump := (hc^0x4000000)%size, int32(0)
		for slots[i] != "" {
			if jump == 0 {
				jump = hc%(size-1) + 1
			}
			i = (i + jump) % size
		}
		slots[i] = k
	}
	out := make([]string, 0, len(keys))
	for _, k := range slots {
		if k != "" {
			out = append(out, k)
		}
	}
	intervalOrders.Store(ti, out)
	return out
}
