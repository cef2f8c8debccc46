package intl

import (
	"sort"
	"strings"
)

// This file is ICU's DateTimePatternGenerator (icu4c dtptngen.cpp) as V8
// drives it for Intl.DateTimeFormat, rewritten in Go: a pattern map
// holding the single-letter canonical items, the locale's date and time
// style patterns and its CLDR availableFormats, in ICU's order; the
// distance between skeletons by ICU's field types; the search that keeps
// the first nearest pattern; missing fields appended with CLDR's
// appendItems; and the widths of the found pattern's fields adjusted to
// the request (UDATPG_MATCH_HOUR_FIELD_LENGTH, as V8 asks).

// The generator's fields (UDateTimePatternField), in skeleton order.
const (
	pgEra = iota
	pgYear
	pgQuarter
	pgMonth
	pgWeekOfYear
	pgWeekOfMonth
	pgWeekday
	pgDayOfYear
	pgDayOfWeekInMonth
	pgDay
	pgDayPeriod
	pgHour
	pgMinute
	pgSecond
	pgFractional
	pgZone
	pgFields
)

// pgDateMask are the date fields; the others are the time's.
const pgDateMask = 1<<pgDayPeriod - 1

// ICU's field types: text widths are negative, numbers positive (plus the
// field's length); a letter's variants are DT_DELTA apart.
const (
	dtNarrow  = -0x101
	dtShorter = -0x102
	dtShort   = -0x103
	dtLong    = -0x104
	dtNumeric = 0x100
	dtDelta   = 0x10

	pgExtraField   = 0x10000
	pgMissingField = 0x1000
)

// pgType is a row of ICU's dtTypes: a pattern letter from minLen on.
type pgType struct {
	c      byte
	field  int
	typ    int
	minLen int
}

var pgTypes = []pgType{
	{'G', pgEra, dtShort, 1}, {'G', pgEra, dtLong, 4}, {'G', pgEra, dtNarrow, 5},
	{'y', pgYear, dtNumeric, 1}, {'Y', pgYear, dtNumeric + dtDelta, 1}, {'u', pgYear, dtNumeric + 2*dtDelta, 1},
	{'r', pgYear, dtNumeric + 3*dtDelta, 1},
	{'U', pgYear, dtShort, 1}, {'U', pgYear, dtLong, 4}, {'U', pgYear, dtNarrow, 5},
	{'Q', pgQuarter, dtNumeric, 1}, {'Q', pgQuarter, dtShort, 3}, {'Q', pgQuarter, dtLong, 4}, {'Q', pgQuarter, dtNarrow, 5},
	{'q', pgQuarter, dtNumeric + dtDelta, 1}, {'q', pgQuarter, dtShort - dtDelta, 3}, {'q', pgQuarter, dtLong - dtDelta, 4},
	{'q', pgQuarter, dtNarrow - dtDelta, 5},
	{'M', pgMonth, dtNumeric, 1}, {'M', pgMonth, dtShort, 3}, {'M', pgMonth, dtLong, 4}, {'M', pgMonth, dtNarrow, 5},
	{'L', pgMonth, dtNumeric + dtDelta, 1}, {'L', pgMonth, dtShort - dtDelta, 3}, {'L', pgMonth, dtLong - dtDelta, 4},
	{'L', pgMonth, dtNarrow - dtDelta, 5}, {'l', pgMonth, dtNumeric + dtDelta, 1},
	{'w', pgWeekOfYear, dtNumeric, 1}, {'W', pgWeekOfMonth, dtNumeric, 1},
	{'E', pgWeekday, dtShort, 1}, {'E', pgWeekday, dtLong, 4}, {'E', pgWeekday, dtNarrow, 5}, {'E', pgWeekday, dtShorter, 6},
	{'c', pgWeekday, dtNumeric + 2*dtDelta, 1}, {'c', pgWeekday, dtShort - 2*dtDelta, 3}, {'c', pgWeekday, dtLong - 2*dtDelta, 4},
	{'c', pgWeekday, dtNarrow - 2*dtDelta, 5}, {'c', pgWeekday, dtShorter - 2*dtDelta, 6},
	{'e', pgWeekday, dtNumeric + dtDelta, 1}, {'e', pgWeekday, dtShort - dtDelta, 3}, {'e', pgWeekday, dtLong - dtDelta, 4},
	{'e', pgWeekday, dtNarrow - dtDelta, 5}, {'e', pgWeekday, dtShorter - dtDelta, 6},
	{'d', pgDay, dtNumeric, 1}, {'g', pgDay, dtNumeric + dtDelta, 1},
	{'D', pgDayOfYear, dtNumeric, 1}, {'F', pgDayOfWeekInMonth, dtNumeric, 1},
	{'a', pgDayPeriod, dtShort, 1}, {'a', pgDayPeriod, dtLong, 4}, {'a', pgDayPeriod, dtNarrow, 5},
	{'b', pgDayPeriod, dtShort - dtDelta, 1}, {'b', pgDayPeriod, dtLong - dtDelta, 4}, {'b', pgDayPeriod, dtNarrow - dtDelta, 5},
	{'B', pgDayPeriod, dtShort - 3*dtDelta, 1}, {'B', pgDayPeriod, dtLong - 3*dtDelta, 4}, {'B', pgDayPeriod, dtNarrow - 3*dtDelta, 5},
	{'H', pgHour, dtNumeric + 10*dtDelta, 1}, {'k', pgHour, dtNumeric + 11*dtDelta, 1},
	{'h', pgHour, dtNumeric, 1}, {'K', pgHour, dtNumeric + dtDelta, 1},
	{'m', pgMinute, dtNumeric, 1}, {'s', pgSecond, dtNumeric, 1}, {'A', pgSecond, dtNumeric + dtDelta, 1},
	{'S', pgFractional, dtNumeric, 1},
	{'v', pgZone, dtShort - 2*dtDelta, 1}, {'v', pgZone, dtLong - 2*dtDelta, 4},
	{'z', pgZone, dtShort, 1}, {'z', pgZone, dtLong, 4},
	{'Z', pgZone, dtNarrow - dtDelta, 1}, {'Z', pgZone, dtLong - dtDelta, 4}, {'Z', pgZone, dtShort - dtDelta, 5},
	{'O', pgZone, dtShort - dtDelta, 1}, {'O', pgZone, dtLong - dtDelta, 4},
	{'V', pgZone, dtShort - dtDelta, 1}, {'V', pgZone, dtLong - dtDelta, 2}, {'V', pgZone, dtLong - 1 - dtDelta, 3},
	{'V', pgZone, dtLong - 2 - dtDelta, 4},
	{'X', pgZone, dtNarrow - dtDelta, 1}, {'X', pgZone, dtShort - dtDelta, 2}, {'X', pgZone, dtLong - dtDelta, 4},
	{'x', pgZone, dtNarrow - dtDelta, 1}, {'x', pgZone, dtShort - dtDelta, 2}, {'x', pgZone, dtLong - dtDelta, 4},
}

// pgRow is the dtTypes row of a field of n letters c (getCanonicalIndex),
// or nil for a letter the generator does not know.
func pgRow(c byte, n int) *pgType {
	var best *pgType
	for i := range pgTypes {
		r := &pgTypes[i]
		if r.c != c {
			continue
		}
		if best != nil && r.minLen > n {
			break
		}
		best = r
	}
	return best
}

// pgFieldNames are the fields' keys in CLDR's field display names.
var pgFieldNames = [pgFields]string{"era", "year", "quarter", "month", "week", "", "weekday", "", "", "day", "dayperiod", "hour", "minute", "second", "", "zone"}

// pgSkeleton is ICU's PtnSkeleton: each field's letters as written
// (original), its letter at its row's minimum length (base), its type.
type pgSkeleton struct {
	typ            [pgFields]int
	original, base [pgFields]string
	// defaultPeriod: the day period was added for a 12-hour hour.
	defaultPeriod bool
}

// pgItems cuts a pattern into ICU's FormatParser items: runs of one ASCII
// letter, quoted literals (quotes kept) and single other characters.
func pgItems(p string) []string {
	var out []string
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(p) && p[j] == c {
				j++
			}
			out = append(out, p[i:j])
			i = j
		case c == '\'':
			j := i + 1
			for j < len(p) {
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						j += 2
						continue
					}
					j++
					break
				}
				j++
			}
			out = append(out, p[i:j])
			i = j
		default:
			// One character, which may take several bytes.
			j := i + 1
			for j < len(p) && p[j]&0xc0 == 0x80 {
				j++
			}
			out = append(out, p[i:j])
			i = j
		}
	}
	return out
}

func isLetterItem(s string) bool {
	c := s[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// pgSkeletonOf is DateTimeMatcher::set: the skeleton of a pattern or of a
// skeleton string.
func pgSkeletonOf(p string) pgSkeleton {
	var s pgSkeleton
	for _, it := range pgItems(p) {
		if !isLetterItem(it) {
			continue
		}
		r := pgRow(it[0], len(it))
		if r == nil {
			continue
		}
		s.original[r.field] = it
		s.base[r.field] = strings.Repeat(string(r.c), r.minLen)
		t := r.typ
		if t > 0 {
			t += len(it)
		}
		s.typ[r.field] = t
	}
	if h := s.original[pgHour]; h != "" {
		if h[0] == 'h' || h[0] == 'K' {
			if s.original[pgDayPeriod] == "" {
				s.original[pgDayPeriod], s.base[pgDayPeriod] = "a", "a"
				s.typ[pgDayPeriod] = dtShort
				s.defaultPeriod = true
			}
		} else if s.original[pgDayPeriod] != "" {
			s.original[pgDayPeriod], s.base[pgDayPeriod], s.typ[pgDayPeriod] = "", "", 0
		}
	}
	return s
}

// skeleton is the fields as written, the default day period left out
// (PtnSkeleton::getSkeleton).
func (s *pgSkeleton) skeleton() string {
	var b strings.Builder
	for i, f := range s.original {
		if i == pgDayPeriod && s.defaultPeriod {
			continue
		}
		b.WriteString(f)
	}
	return b.String()
}

func (s *pgSkeleton) baseSkeleton() string {
	var b strings.Builder
	for i, f := range s.base {
		if i == pgDayPeriod && s.defaultPeriod {
			continue
		}
		b.WriteString(f)
	}
	return b.String()
}

func (s *pgSkeleton) mask() int {
	m := 0
	for i, t := range s.typ {
		if t != 0 {
			m |= 1 << i
		}
	}
	return m
}

// distance is DateTimeMatcher::getDistance: how far other is from s,
// counting only s's fields in include, with the fields other lacks
// (missing) and has beyond them (extra).
func (s *pgSkeleton) distance(other *pgSkeleton, include int) (d, missing, extra int) {
	for i := 0; i < pgFields; i++ {
		my := s.typ[i]
		if include&(1<<i) == 0 {
			my = 0
		}
		ot := other.typ[i]
		switch {
		case my == ot:
		case my == 0:
			d += pgExtraField
			extra |= 1 << i
		case ot == 0:
			d += pgMissingField
			missing |= 1 << i
		default:
			d += abs(my - ot)
		}
	}
	return d, missing, extra
}

// pgEntry is one pattern of the map.
type pgEntry struct {
	base      string
	skel      pgSkeleton
	pattern   string
	specified bool // added with its availableFormats skeleton
}

// patternGen is one locale's and calendar's generator.
type patternGen struct {
	// buckets by the base skeleton's first letter, A–Z then a–z, each in
	// the order the patterns were added: the order ICU searches them.
	buckets     [52][]*pgEntry
	defaultHour byte // the short time pattern's hour letter
	appendItems [pgFields]string
	appendNames [pgFields]string
	atTime      []string // the date-time joins, full to short
}

func pgBucket(c byte) int {
	if c >= 'A' && c <= 'Z' {
		return int(c - 'A')
	}
	if c >= 'a' && c <= 'z' {
		return int(c-'a') + 26
	}
	return -1
}

// byBase is PatternMap::getPatternFromBasePattern.
func (g *patternGen) byBase(base string) *pgEntry {
	if base == "" {
		return nil
	}
	if b := pgBucket(base[0]); b >= 0 {
		for _, e := range g.buckets[b] {
			if e.base == base {
				return e
			}
		}
	}
	return nil
}

// bySkeleton is PatternMap::getPatternFromSkeleton.
func (g *patternGen) bySkeleton(s *pgSkeleton) *pgEntry {
	base := s.baseSkeleton()
	if base == "" {
		return nil
	}
	if b := pgBucket(base[0]); b >= 0 {
		for _, e := range g.buckets[b] {
			if e.skel.original == s.original {
				return e
			}
		}
	}
	return nil
}

// add is addPatternWithSkeleton: a style pattern (skeleton "") never
// replaces an entry; an availableFormats one replaces what was derived
// from style patterns where override is set.
func (g *patternGen) add(pattern, skeleton string, override bool) {
	src := pattern
	if skeleton != "" {
		src = skeleton
	}
	s := pgSkeletonOf(src)
	base := s.baseSkeleton()
	if base == "" || pgBucket(base[0]) < 0 {
		return
	}
	if e := g.byBase(base); e != nil && (!e.specified || skeleton != "" && !override) && !override {
		return
	}
	if e := g.bySkeleton(&s); e != nil {
		if !override || skeleton != "" && e.specified {
			return
		}
		e.pattern, e.specified = pattern, skeleton != ""
		return
	}
	b := pgBucket(base[0])
	g.buckets[b] = append(g.buckets[b], &pgEntry{base: base, skel: s, pattern: pattern, specified: skeleton != ""})
}

// newPatternGen builds the generator of a calendar: the canonical items,
// the style patterns (full to short, the date's then the time's), then
// the availableFormats.
func newPatternGen(cal *calendar, levels string, appendItems [pgFields]string, names nameTables) *patternGen {
	g := &patternGen{appendItems: appendItems, atTime: cal.atTime}
	for _, c := range "GyQMwWEDFdaHmsSv" {
		g.add(string(c), "", false)
	}
	for i := 0; i < 4; i++ {
		g.add(cal.date[i], "", false)
		g.add(cal.time[i], "", false)
	}
	g.defaultHour = 'H'
	for _, it := range pgItems(cal.time[3]) {
		if c := it[0]; c == 'h' || c == 'H' || c == 'k' || c == 'K' {
			g.defaultHour = c
			break
		}
	}
	// ICU reads the locale's own formats, then its parents', each in key
	// order, root's last (levels: cldrAvailLevels).
	level := map[string]int{}
	for _, kl := range strings.Fields(levels) {
		k, l, _ := strings.Cut(kl, ":")
		if l == "r" {
			level[k] = 9
		} else {
			level[k] = int(l[0] - '0')
		}
	}
	keys := make([]string, 0, len(cal.avail))
	for k := range cal.avail {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if li, lj := level[keys[i]], level[keys[j]]; li != lj {
			return li < lj
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		g.add(cal.avail[k], k, true)
	}
	for i, k := range pgFieldNames {
		if k != "" {
			if n := names.get("f:" + k); n != "" {
				g.appendNames[i] = n
			} else {
				g.appendNames[i] = k
			}
		}
	}
	return g
}

// bestRaw is getBestRaw: the first pattern nearest to req over the
// fields in include, with the fields it misses.
func (g *patternGen) bestRaw(req *pgSkeleton, include int) (e *pgEntry, missing, extra int) {
	bestD, bestMissing := int(^uint(0)>>1), -1
	for b := range g.buckets {
		for _, t := range g.buckets[b] {
			d, m, x := req.distance(&t.skel, include)
			if d < bestD || d == bestD && bestMissing < m {
				bestD, bestMissing = d, m
				e, missing, extra = t, m, x
				if d == 0 {
					return e, missing, extra
				}
			}
		}
	}
	return e, missing, extra
}

// adjust is adjustFieldTypes, with UDATPG_MATCH_HOUR_FIELD_LENGTH but
// where keepHour says the hour keeps the found pattern's width.
func (g *patternGen) adjust(p string, e *pgEntry, req *pgSkeleton, keepHour bool) string {
	var b strings.Builder
	for _, it := range pgItems(p) {
		if !isLetterItem(it) {
			b.WriteString(it)
			continue
		}
		r := pgRow(it[0], len(it))
		if r == nil || req.typ[r.field] == 0 {
			b.WriteString(it)
			continue
		}
		f := r.field
		reqField := req.original[f]
		reqChar, reqLen := reqField[0], len(reqField)
		if reqChar == 'E' && reqLen < 3 {
			reqLen = 3
		}
		n := reqLen
		switch {
		case f == pgMinute || f == pgSecond || f == pgHour && keepHour:
			n = len(it)
		case e != nil && e.specified && reqChar != 'c' && reqChar != 'e':
			skelLen := len(e.skel.original[f])
			patNum, skelNum := r.typ > 0, e.skel.typ[f] > 0
			if skelLen == reqLen || patNum != skelNum {
				n = len(it)
			}
		}
		c := reqChar
		if f == pgHour || f == pgMonth || f == pgWeekday || f == pgYear && reqChar != 'Y' {
			c = it[0]
		}
		if f == pgHour && g.defaultHour != 0 {
			switch {
			case reqChar == g.defaultHour:
				c = g.defaultHour
			case reqChar == 'h' && g.defaultHour == 'K':
				c = 'K'
			case reqChar == 'H' && g.defaultHour == 'k':
				c = 'k'
			case reqChar == 'k' && g.defaultHour == 'H':
				c = 'H'
			case reqChar == 'K' && g.defaultHour == 'h':
				c = 'h'
			}
		}
		b.WriteString(strings.Repeat(string(c), n))
	}
	return b.String()
}

// best is getBestPattern for a skeleton ('j' already mapped), the hour
// as wide as the found pattern's where keepHour is set.
func (g *patternGen) best(skeleton string, keepHour bool) string {
	req := pgSkeletonOf(skeleton)
	e, missing, extra := g.bestRaw(&req, -1)
	if e == nil {
		return ""
	}
	if missing == 0 && extra == 0 {
		return g.adjust(e.pattern, e, &req, keepHour)
	}
	need := req.mask()
	dp := g.appending(&req, need&pgDateMask, keepHour)
	tp := g.appending(&req, need&^pgDateMask, keepHour)
	switch {
	case dp == "":
		return tp
	case tp == "":
		return dp
	}
	style := 3
	switch len(req.base[pgMonth]) {
	case 4:
		style = 1
		if req.base[pgWeekday] != "" {
			style = 0
		}
	case 3:
		style = 2
	}
	return strings.NewReplacer("{1}", dp, "{0}", tp).Replace(g.atTime[style])
}

// appending is getBestAppending: the nearest pattern for the fields in
// want, and the fields it lacks appended with the appendItems.
func (g *patternGen) appending(req *pgSkeleton, want int, keepHour bool) string {
	if want == 0 {
		return ""
	}
	e, missing, _ := g.bestRaw(req, want)
	if e == nil {
		return ""
	}
	out := g.adjust(e.pattern, e, req, keepHour)
	last := 0
	for missing != 0 && missing != last {
		last = missing
		start := missing
		e2, m2, _ := g.bestRaw(req, missing)
		if e2 == nil {
			break
		}
		tp := g.adjust(e2.pattern, e2, req, keepHour)
		found := start &^ m2
		top := 0
		for i := pgFields - 1; i >= 0; i-- {
			if found&(1<<i) != 0 {
				top = i
				break
			}
		}
		if f := g.appendItems[top]; f != "" {
			out = strings.NewReplacer("{0}", out, "{1}", tp, "{2}", "'"+g.appendNames[top]+"'").Replace(f)
		}
		missing = m2
	}
	return out
}

// pgReplaceSkeleton is V8's ReplaceSkeleton: the hour in the cycle's
// letter, the day period dropped.
func pgReplaceSkeleton(s, cycle string) string {
	to := map[string]rune{"h11": 'K', "h12": 'h', "h23": 'H', "h24": 'k'}[cycle]
	var b strings.Builder
	for _, c := range s {
		switch c {
		case 'a', 'b', 'B':
		case 'h', 'H', 'K', 'k':
			b.WriteRune(to)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// patternGen is the generator of a locale's calendar ca, built once per
// handler.
func (h *Handler) patternGen(lc loc, ca string, cal *calendar) *patternGen {
	dir := calendarDir(lc)
	return h.cached("pg\x00"+dir+"\x00"+ca, func() any {
		var levels string // the other calendars' formats count as the locale's own
		if _, ok := cldrCalendars[ca][dir]; !ok {
			levels = cldrAvailLevels[dir]
		}
		items, ok := cldrAppendItems[dir]
		if !ok {
			items = cldrAppendItems["en"]
		}
		return newPatternGen(cal, levels, items, h.namesOf(lc))
	}).(*patternGen)
}

// forOptions is the pattern V8 has ICU make for component options:
// the skeleton of the options (the hour in the cycle's letter where
// hcSet, else in the locale's), its best pattern, the hour then written
// in the cycle's letter.
func (g *patternGen) forOptions(o *dtOptions, hcSet bool, cycle string) string {
	var b strings.Builder
	text := map[string]int{"short": 3, "long": 4, "narrow": 5}
	num := map[string]int{"numeric": 1, "2-digit": 2}
	put := func(c byte, n int) {
		b.WriteString(strings.Repeat(string(c), n))
	}
	if o.Weekday != "" {
		put('E', text[o.Weekday])
	}
	if o.Era != "" {
		put('G', text[o.Era])
	}
	if o.Year != "" {
		put('y', num[o.Year])
	}
	switch o.Month {
	case "":
	case "numeric", "2-digit":
		put('M', num[o.Month])
	default:
		put('M', text[o.Month])
	}
	if o.Day != "" {
		put('d', num[o.Day])
	}
	if o.Hour != "" {
		c := g.defaultHour
		if hcSet {
			c = map[string]byte{"h11": 'K', "h12": 'h', "h23": 'H', "h24": 'k'}[cycle]
		}
		put(c, num[o.Hour])
	}
	if o.Minute != "" {
		put('m', num[o.Minute])
	}
	if o.Second != "" {
		put('s', num[o.Second])
	}
	switch o.TimeZoneName {
	case "short":
		put('z', 1)
	case "long":
		put('z', 4)
	case "shortOffset":
		put('O', 1)
	case "longOffset":
		put('O', 4)
	case "shortGeneric":
		put('v', 1)
	case "longGeneric":
		put('v', 4)
	}
	p := g.best(b.String(), false)
	if hcSet {
		p = pgHourCycle(p, cycle)
	}
	return p
}

// forKeyword is the time style pattern p as ICU's SimpleDateFormat writes
// it for a locale whose hc keyword has the other cycle (en-US-u-hc-h23's
// medium "HH:mm:ss"): the best pattern for its skeleton in the keyword's
// cycle, the hour as wide as the found pattern has it.
func (g *patternGen) forKeyword(p, hc string) string {
	s := pgSkeletonOf(p)
	return pgHourCycle(g.best(pgReplaceSkeleton(s.skeleton(), hc), true), hc)
}

// forStyle is V8's pattern of a date and time style in another hour
// cycle than its own: ICU's best pattern for the style's skeleton with
// the hour in the cycle's letter and no day period.
func (g *patternGen) forStyle(p, cycle string) string {
	s := pgSkeletonOf(p)
	return pgHourCycle(g.best(pgReplaceSkeleton(s.skeleton(), cycle), false), cycle)
}

// pgHourCycle is V8's ReplaceHourCycleInPattern: every hour letter
// outside quotes in the cycle's, a space put between a day and an hour.
func pgHourCycle(p, cycle string) string {
	to := map[string]rune{"h11": 'K', "h12": 'h', "h23": 'H', "h24": 'k'}[cycle]
	var b strings.Builder
	in := false
	var last rune
	for _, c := range p {
		switch c {
		case '\'':
			in = !in
			b.WriteRune(c)
		case 'h', 'H', 'K', 'k':
			if !in && last == 'd' {
				b.WriteByte(' ')
			}
			if in {
				b.WriteRune(c)
			} else {
				b.WriteRune(to)
			}
		default:
			b.WriteRune(c)
		}
		last = c
	}
	return b.String()
}

// v8Widths sets resolvedOptions' component fields as V8 reads them off
// the pattern: each field's first pair found anywhere in the pattern,
// quoted literals included (fr-CA's "HH 'h' mm" has an hour "numeric"
// for its "h", pt's "'de'" a day, de's "'Sekunde'" a fractional second
// digit).
func v8Widths(p string, res *dtResolved) {
	find := func(pairs ...string) string {
		for i := 0; i+1 < len(pairs); i += 2 {
			if strings.Contains(p, pairs[i]) {
				return pairs[i+1]
			}
		}
		return ""
	}
	res.Weekday = find("EEEEE", "narrow", "EEEE", "long", "EEE", "short", "ccccc", "narrow", "cccc", "long", "ccc", "short")
	res.Era = find("GGGGG", "narrow", "GGGG", "long", "GGG", "short")
	res.Year = find("yy", "2-digit", "y", "numeric")
	res.Month = find("MMMMM", "narrow", "MMMM", "long", "MMM", "short", "MM", "2-digit", "M", "numeric",
		"LLLLL", "narrow", "LLLL", "long", "LLL", "short", "LL", "2-digit", "L", "numeric")
	res.Day = find("dd", "2-digit", "d", "numeric")
	res.DayPeriod = find("BBBBB", "narrow", "bbbbb", "narrow", "BBBB", "long", "bbbb", "long", "B", "short", "b", "short")
	res.Hour = find("HH", "2-digit", "H", "numeric", "hh", "2-digit", "h", "numeric", "kk", "2-digit", "k", "numeric", "KK", "2-digit", "K", "numeric")
	res.Minute = find("mm", "2-digit", "m", "numeric")
	res.Second = find("ss", "2-digit", "s", "numeric")
	res.FractionalSecondDigits = min(strings.Count(p, "S"), 3)
	res.TimeZoneName = find("zzzz", "long", "z", "short", "OOOO", "longOffset", "O", "shortOffset", "vvvv", "longGeneric", "v", "shortGeneric")
}
