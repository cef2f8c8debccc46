package intl

import (
	"strconv"
	"strings"
	"time"
)

// Zone names as ICU writes them (zonenames_gen.go holds CLDR's data):
//
//   - a specific name (timeZoneName "short" and "long", the z and zzzz of
//     the time styles) is the zone's own name for standard or daylight
//     time, whichever is in force, else its metazone's at that instant
//     (Europe/Kiev was in Moscow's until 1990), else the GMT format;
//   - a generic name ("shortGeneric", "longGeneric") is the zone's own,
//     else the metazone's standard name where the zone keeps no daylight
//     time within 184 days (Asia/Tokyo: "Japan Standard Time"), else its
//     generic name, with the location where the zone's offset differs from
//     the metazone's reference zone's for the locale's region, else the
//     location format ("United Kingdom Time", "Los Angeles Time"), else
//     the GMT format.

// dstCheckRange is how near daylight time must be (184 days) for ICU to
// keep a metazone's generic name in standard time.
const dstCheckRange = 184 * 24 * time.Hour

// metazoneSpan is a period in which a zone uses a metazone ("" none), from
// a Unix second to the next period's first. Before its first period
// (1970 for most) and after its last (9999), a zone has none.
type metazoneSpan struct {
	from int64
	mz   string
}

// zoneHome is a zone's country, and whether ICU names its location by its
// exemplar city (a country of several zones) rather than the country.
type zoneHome struct {
	region string
	byCity bool
}

// The fields of a name line: long generic, standard, daylight, then the
// short ones.
const (
	nameGeneric = iota
	nameStandard
	nameDaylight
	nameShort = 3 // added to the long field
)

// zoneNames are a locale's zone name tables, most specific first: its own
// lines, then its language's (as zoneNameTables writes them).
type zoneNames []map[string]string

func (z zoneNames) get(key string) (string, bool) {
	for _, m := range z {
		if v, ok := m[key]; ok {
			return v, true
		}
	}
	return "", false
}

// field is field i of a zone's ("z:Europe/London") or metazone's
// ("m:GMT") name line, "" where the locale has none.
func (z zoneNames) field(key string, i int) string {
	v, ok := z.get(key)
	if !ok {
		return ""
	}
	for ; i > 0; i-- {
		_, v, ok = strings.Cut(v, "\t")
		if !ok {
			return ""
		}
	}
	v, _, _ = strings.Cut(v, "\t")
	return v
}

// name is the zone's own name of field i, else its metazone's.
func (z zoneNames) name(zone, mz string, i int) string {
	if v := z.field("z:"+zone, i); v != "" {
		return v
	}
	if mz == "" {
		return ""
	}
	return z.field("m:"+mz, i)
}

// zoneNamesOf returns lc's zone name tables, parsed once and cached.
func (h *Handler) zoneNamesOf(lc loc) zoneNames {
	var out zoneNames
	parts := strings.Split(strings.ReplaceAll(lc.tr.Locale(), "_", "-"), "-")
	for n := len(parts); n > 0; n-- {
		c := strings.Join(parts[:n], "-")
		if _, ok := zoneNameTables[c]; !ok {
			continue
		}
		out = append(out, h.cached("zonenames\x00"+c, func() any { return parseNames(zoneNameTables[c]) }).(map[string]string))
		if c == namesBase(c) {
			break
		}
	}
	return out
}

// zoneNaming is what a formatter names its zone with.
type zoneNaming struct {
	zone    string // CLDR's ID of the zone ("UTC" for UTC and its aliases)
	names   zoneNames
	regions nameTables // the locale's region names
	region  string     // the locale's region, for metazones' reference zones
	// load finds a zone by name (nil if the tz database has none).
	load func(string) *time.Location
}

func (h *Handler) zoneNaming(lc loc, zone string) *zoneNaming {
	if a, ok := zoneAliases[zone]; ok {
		zone = a
	}
	r, _ := lc.lang.Region()
	load := func(name string) *time.Location {
		l, _, err := h.zone(name)
		if err != nil {
			return nil
		}
		return l
	}
	return &zoneNaming{zone: zone, names: h.zoneNamesOf(lc), regions: h.namesOf(lc), region: r.String(), load: load}
}

// metazonesEnd ends every zone's last metazone period, as ICU's data has
// it: 9999-12-31 23:59 UTC.
const metazonesEnd = 253402300740

// metazoneAt is the metazone zone uses at t, "" if none.
func metazoneAt(zone string, t time.Time) string {
	spans := zoneMetazones[zone]
	s := t.Unix()
	if s >= metazonesEnd {
		return ""
	}
	for i := len(spans) - 1; i >= 0; i-- {
		if s >= spans[i].from {
			return spans[i].mz
		}
	}
	return ""
}

// specific is the zone's specific name at t (short or long), "" if the
// locale has none.
func (z *zoneNaming) specific(t time.Time, short bool) string {
	i := nameStandard
	if daylight(t) {
		i = nameDaylight
	}
	if short {
		i += nameShort
	}
	return z.names.name(z.zone, metazoneAt(z.zone, t), i)
}

// generic is the zone's generic name at t, "" where ICU would write the
// GMT format.
func (z *zoneNaming) generic(t time.Time, short bool) string {
	i := 0
	if short {
		i = nameShort
	}
	if v := z.names.field("z:"+z.zone, i+nameGeneric); v != "" {
		return v
	}
	if mz := metazoneAt(z.zone, t); mz != "" {
		if !daylight(t) && !nearDST(t) {
			std := z.names.name(z.zone, mz, i+nameStandard)
			if std != "" && !strings.EqualFold(std, z.names.field("m:"+mz, i+nameGeneric)) {
				return std
			}
		}
		if g := z.names.field("m:"+mz, i+nameGeneric); g != "" {
			golden := referenceZone(mz, z.region)
			if golden == "" || golden == z.zone || z.sameOffset(t, golden) {
				return g
			}
			return z.partialLocation(mz, g)
		}
	}
	return z.location()
}

// referenceZone is the metazone's zone for the region, else its default
// (the region "001").
func referenceZone(mz, region string) string {
	if z, ok := metazoneGolden[mz][region]; ok {
		return z
	}
	return metazoneGolden[mz]["001"]
}

// nearDST reports whether t's zone keeps daylight time before its last
// offset change or after its next, within dstCheckRange of t.
func nearDST(t time.Time) bool {
	start, end := t.ZoneBounds()
	if !start.IsZero() && t.Sub(start) < dstCheckRange && daylight(start.Add(-time.Second)) {
		return true
	}
	return !end.IsZero() && end.Sub(t) < dstCheckRange && daylight(end)
}

// daylight reports whether t is in daylight time as ICU's data has it:
// where the tz database has a negative daylight time in winter
// (Europe/Dublin since 1971, Africa/Casablanca in Ramadan), ICU has its
// summer as the daylight time, that is a standard time between two
// daylight times of a lower offset.
func daylight(t time.Time) bool {
	_, off := t.Zone()
	dst := t.IsDST()
	start, end := t.ZoneBounds()
	lower := 0 // neighbours in daylight time with a lower offset
	for _, n := range [2]time.Time{start, end} {
		if n.IsZero() {
			continue
		}
		if n.Equal(start) {
			n = n.Add(-time.Second)
		}
		_, noff := n.Zone()
		switch {
		case dst && !n.IsDST() && noff > off:
			return false // a negative daylight time: ICU's standard time
		case !dst && n.IsDST() && noff < off:
			lower++
		}
	}
	return dst || lower == 2
}

// sameOffset reports whether the zone golden has t's offset and daylight
// time at t's wall time, read as ICU reads one (a wall time a transition
// repeats or skips is in the offset after it).
func (z *zoneNaming) sameOffset(t time.Time, golden string) bool {
	l := z.load(golden)
	if l == nil {
		return false
	}
	_, off := t.Zone()
	wall := t.Unix() + int64(off)
	g := t.In(l)
	for range 4 {
		_, goff := g.Zone()
		start, end := g.ZoneBounds()
		if !start.IsZero() && wall < start.Unix()+int64(goff) {
			g = start.Add(-time.Second)
			continue
		}
		if !end.IsZero() {
			if _, noff := end.Zone(); wall >= end.Unix()+int64(noff) {
				g = end
				continue
			}
		}
		break
	}
	_, goff := g.Zone()
	return off == goff && daylight(t) == daylight(g)
}

// location is the generic location name ("Japan Time", "Los Angeles
// Time"), "" for a zone of no country.
func (z *zoneNaming) location() string {
	home, ok := zoneHomes[z.zone]
	if !ok {
		return ""
	}
	where := z.city()
	if !home.byCity {
		where = z.regions.pick("r:", home.region, false)
	}
	if where == "" {
		return ""
	}
	rf, _, _ := strings.Cut(z.names.field("f:", 0)+"\t", "\t")
	return strings.Replace(rf, "{0}", where, 1)
}

// partialLocation is the metazone's generic name with the zone's location
// ("Mountain Time (Phoenix)" in fallbackFormat's pattern).
func (z *zoneNaming) partialLocation(mz, name string) string {
	home, ok := zoneHomes[z.zone]
	where := ""
	switch {
	case ok && referenceZone(mz, home.region) == z.zone:
		where = z.regions.pick("r:", home.region, false)
	case ok:
		where = z.city()
	default:
		if where = z.city(); where == "" {
			where = z.zone
		}
	}
	return strings.NewReplacer("{1}", name, "{0}", where).Replace(z.names.field("f:", 1))
}

// city is the zone's exemplar city in the locale.
func (z *zoneNaming) city() string {
	if v, ok := z.names.get("c:" + z.zone); ok {
		return v
	}
	i := strings.LastIndexByte(z.zone, '/')
	if i < 0 || strings.HasPrefix(z.zone, "Etc/") || strings.HasPrefix(z.zone, "SystemV/") {
		return ""
	}
	return strings.ReplaceAll(z.zone[i+1:], "_", " ")
}

// gmtText is the localized GMT format of t's offset ("GMT-8", long
// "GMT-08:00"; seconds where the offset has them, as local mean times do).
func gmtText(cal *calendar, t time.Time, long bool, sym *symbols) string {
	_, off := t.Zone()
	// The signs come from the hour format, "+HH:mm;-HH:mm" (fr: U+2212).
	sign := "+"
	pos, neg, _ := strings.Cut(cal.hourFormat, ";")
	if off < 0 {
		sign, off = "-", -off
		if i := strings.IndexAny(neg, "Hh"); i > 0 {
			sign = neg[:i]
		}
	} else if i := strings.IndexAny(pos, "Hh"); i > 0 {
		sign = pos[:i]
	}
	h, m, sec := off/3600, off%3600/60, off%60
	var s string
	if long {
		s = pad2(h) + ":" + pad2(m)
	} else {
		s = strconv.Itoa(h)
		if m != 0 || sec != 0 {
			s += ":" + pad2(m)
		}
	}
	if sec != 0 {
		s += ":" + pad2(sec)
	}
	return strings.Replace(cal.gmt, "{0}", sign+localizeDigits(s, sym.zero), 1)
}
