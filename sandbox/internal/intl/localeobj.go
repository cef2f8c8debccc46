package intl

import (
	"encoding/json"
	"slices"
	"strings"
)

// Intl.Locale (the guest's 57-intl-locale.js): the constructor's tag and
// options, applied and canonicalized (op "loc"), and the getters of
// Node 20's V8 that read CLDR's supplemental data (op "locinfo").

// localeOptions are the constructor's options, already converted to
// strings (numeric to "true" or "false") by the guest, in V8's order.
type localeOptions struct {
	Language, Script, Region, Calendar, Collation, HourCycle, CaseFirst, Numeric, NumberingSystem *string
}

const badLocale = "Incorrect locale information provided"

// localeRecord is what the guest keeps of an Intl.Locale.
type localeRecord struct {
	Locale    string  `json:"locale"`
	BaseName  string  `json:"baseName"`
	Language  *string `json:"language,omitempty"`
	Script    *string `json:"script,omitempty"`
	Region    *string `json:"region,omitempty"`
	Calendar  *string `json:"calendar,omitempty"`
	CaseFirst *string `json:"caseFirst,omitempty"`
	Collation *string `json:"collation,omitempty"`
	HourCycle *string `json:"hourCycle,omitempty"`
	NumSys    *string `json:"numberingSystem,omitempty"`
	Numeric   bool    `json:"numeric"`
	Max       string  `json:"max"`
	Min       string  `json:"min"`
}

// newLocale implements the Intl.Locale constructor after the guest's
// type checks: the tag (a string) and the options.
func (h *Handler) newLocale(req *request) (any, error) {
	var tag string
	if json.Unmarshal(req.V, &tag) != nil {
		return nil, typeErr("malformed Intl request")
	}
	var o localeOptions
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	// Not kept in h.cache: the work is a few microseconds on a bounded
	// tag, the guest keeps its records per run, and a key per tag a script
	// writes would evict the costly entries every chain shares.
	r, err := makeLocale(tag, &o)
	if err != nil {
		return nil, err
	}
	return map[string]any{"r": r}, nil
}

// makeLocale parses tag, applies the options as ECMA-402's
// ApplyOptionsToTag and ApplyUnicodeExtensionToTag do, and canonicalizes.
func makeLocale(tag string, o *localeOptions) (*localeRecord, error) {
	if tag == "" {
		return nil, rangeErr("First argument to Intl.Locale constructor can't be empty or missing")
	}
	id, ok := parseLocaleID(tag)
	if !ok {
		return nil, rangeErr(badLocale)
	}
	id.canonicalize()
	for _, s := range []*string{o.Language, o.Script, o.Region, o.Calendar, o.Collation, o.HourCycle, o.CaseFirst, o.Numeric, o.NumberingSystem} {
		if s != nil && len(*s) > maxString {
			return nil, rangeErr(badLocale)
		}
	}
	if o.Language != nil {
		if !langSubtag(*o.Language) {
			return nil, rangeErr(badLocale)
		}
		id.lang = strings.ToLower(*o.Language)
	}
	if o.Script != nil {
		if !scriptSubtag(*o.Script) {
			return nil, rangeErr(badLocale)
		}
		id.script = title(*o.Script)
	}
	if o.Region != nil {
		if !regionSubtag(*o.Region) {
			return nil, rangeErr(badLocale)
		}
		id.region = strings.ToUpper(*o.Region)
	}
	for _, kv := range []struct {
		key string
		v   *string
		ok  func(string) bool
	}{
		{"ca", o.Calendar, typeSequence},
		{"co", o.Collation, typeSequence},
		{"hc", o.HourCycle, nil},
		{"kf", o.CaseFirst, nil},
		{"kn", o.Numeric, func(s string) bool { return s == "true" || s == "false" }},
		{"nu", o.NumberingSystem, typeSequence},
	} {
		if kv.v == nil {
			continue
		}
		if kv.ok == nil {
			if err := localeEnum(kv.key, *kv.v); err != nil {
				return nil, err
			}
		} else if !kv.ok(*kv.v) {
			return nil, rangeErr(badLocale)
		}
		id.setKeyword(kv.key, strings.ToLower(*kv.v))
	}
	id.canonicalize()
	if id.overICULimits() {
		return nil, rangeErr(badLocale)
	}
	return record(id), nil
}

// localeEnum checks the hourCycle and caseFirst options, with V8's
// message.
func localeEnum(key, v string) error {
	switch {
	case key == "hc" && !slices.Contains([]string{"h11", "h12", "h23", "h24"}, v):
		return rangeErr("Value %s out of range for locale options property hourCycle", v)
	case key == "kf" && v != "upper" && v != "lower" && v != "false":
		return rangeErr("Value %s out of range for locale options property caseFirst", v)
	}
	return nil
}

// record is the guest's view of a canonical id.
func record(id *localeID) *localeRecord {
	d := locData()
	r := &localeRecord{Locale: id.String(), BaseName: id.base()}
	// ICU keeps the POSIX variant in its base name: V8's baseName has it
	// as the keyword it writes for it.
	if va, _ := id.keyword("va"); va == "posix" {
		r.BaseName += "-u-va-posix"
	}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	// ICU keeps "und" as no language: V8's getter answers undefined.
	if id.lang != "und" {
		r.Language = &id.lang
	}
	r.Script, r.Region = opt(id.script), opt(id.region)
	kw := func(k string) *string {
		v, ok := id.keyword(k)
		if !ok {
			return nil
		}
		switch {
		case v == "" && k == "kf":
			return &v
		case v == "" || v == "yes":
			v = "true"
		}
		return &v
	}
	r.Calendar, r.CaseFirst, r.Collation, r.HourCycle, r.NumSys = kw("ca"), kw("kf"), kw("co"), kw("hc"), kw("nu")
	if kn := kw("kn"); kn != nil && *kn == "true" {
		r.Numeric = true
	}
	max := maximize(d, id)
	r.Max = max.String()
	r.Min = minimize(d, id).String()
	return r
}

// localeInfo answers the getters calendars, collations, hourCycles,
// numberingSystems, textInfo, timeZones and weekInfo of a canonical tag.
func (h *Handler) localeInfo(req *request) (any, error) {
	var tag string
	if json.Unmarshal(req.V, &tag) != nil {
		return nil, typeErr("malformed Intl request")
	}
	// Not kept in h.cache, as newLocale's answers are not.
	id, ok := parseLocaleID(tag)
	if !ok {
		return nil, rangeErr(badLocale)
	}
	id.canonicalize()
	return map[string]any{"r": info(id)}, nil
}

type weekInfo struct {
	FirstDay    int   `json:"firstDay"`
	Weekend     []int `json:"weekend"`
	MinimalDays int   `json:"minimalDays"`
}

type localeInfoRecord struct {
	Calendars        []string          `json:"calendars"`
	Collations       []string          `json:"collations"`
	HourCycles       []string          `json:"hourCycles"`
	NumberingSystems []string          `json:"numberingSystems"`
	TextInfo         map[string]string `json:"textInfo"`
	TimeZones        []string          `json:"timeZones,omitempty"`
	HasZones         bool              `json:"hasZones"`
	WeekInfo         weekInfo          `json:"weekInfo"`
}

// supplementalRegion is the region ICU reads supplemental data by: a
// valid -u-rg- key's, else the tag's, else a valid -u-sd- key's, else the
// likely one.
func supplementalRegion(d *localeData, id *localeID) string {
	if r := regionOfKey(d, id, "rg"); r != "" {
		return r
	}
	if id.region != "" {
		return id.region
	}
	if r := regionOfKey(d, id, "sd"); r != "" {
		return r
	}
	return maximize(d, id).region
}

// regionOfKey is the region a -u-rg- or -u-sd- type starts with, as ICU's
// GetRegionFromKey reads it (a type of 3 to 7 characters, its letters'
// first two), when it is a current region with time zones (Node 20 ignores
// rg-ukzzzz, rg-xxzzzz and rg-001zzz, and reads rg-gbsct as GB).
func regionOfKey(d *localeData, id *localeID, key string) string {
	v, ok := id.keyword(key)
	if !ok || len(v) < 3 || len(v) > 7 || !isAlpha(v[:2]) {
		return ""
	}
	r := strings.ToUpper(v[:2])
	_, zoned := d.zones[r]
	_, alias := d.regionAlias[r]
	if !zoned || alias {
		return ""
	}
	return r
}

func info(id *localeID) *localeInfoRecord {
	d := locData()
	// A keyword without a type reads as "yes" in ICU.
	kwOf := func(k string) (string, bool) {
		v, ok := id.keyword(k)
		if ok && v == "" {
			v = "yes"
		}
		return v, ok
	}
	r := &localeInfoRecord{}
	region := supplementalRegion(d, id)

	if ca, ok := kwOf("ca"); ok {
		r.Calendars = []string{ca}
	} else {
		cs, ok := d.calendars[region]
		if !ok {
			cs = d.calendars["001"]
		}
		r.Calendars = strings.Fields(cs)
	}

	facts := strings.Fields(icuFacts(d, id))
	if co, ok := kwOf("co"); ok {
		r.Collations = []string{co}
	} else {
		r.Collations = strings.Split(facts[2], ",")
	}

	if hc, ok := kwOf("hc"); ok {
		r.HourCycles = []string{hc}
	} else {
		r.HourCycles = []string{hourCycle(d, id)}
	}

	if nu, ok := kwOf("nu"); ok {
		r.NumberingSystems = []string{nu}
	} else {
		r.NumberingSystems = []string{facts[0]}
	}
	r.TextInfo = map[string]string{"direction": facts[1]}

	if id.region != "" {
		r.HasZones = true
		r.TimeZones = strings.Fields(d.zones[id.region])
		if r.TimeZones == nil {
			r.TimeZones = []string{}
		}
	}

	r.WeekInfo = weekOf(d, id, region)
	return r
}

// hourCycle is ICU's DateTimePatternGenerator default hour cycle: the
// preferred hour format of language_region or region in timeData, the
// region the tag's (with "und" taken as no language) or the likely one's,
// and h23 where timeData has neither.
func hourCycle(d *localeData, id *localeID) string {
	lang, region := id.lang, id.region
	if rg, ok := id.keyword("rg"); ok && len(rg) == 6 && strings.HasSuffix(rg, "zzzz") {
		region = strings.ToUpper(rg[:2])
	}
	if lang == "und" || region == "" {
		m := maximize(d, id)
		lang, region = m.lang, m.region
	}
	v, ok := d.hours[lang+"_"+region]
	if !ok {
		v, ok = d.hours[region]
	}
	if !ok {
		return "h23"
	}
	switch strings.Fields(v)[0] {
	case "h":
		return "h12"
	case "K":
		return "h11"
	case "k":
		return "h24"
	}
	return "h23"
}

// icuFacts is ICU's default numbering system, text direction and
// collations of the locale (localeid_icu_gen.go), looked up as ICU falls
// back from a locale to its parents: a script other than the language's
// likely one falls back to root, not to the language.
func icuFacts(d *localeData, id *localeID) string {
	var tries []string
	likely := maximize(d, &localeID{lang: id.lang}).script
	l, s, r := id.lang, id.script, id.region
	switch {
	case s != "" && r != "":
		tries = append(tries, l+"-"+s+"-"+r, l+"-"+s)
		if s == likely {
			tries = append(tries, l+"-"+r, l)
		}
	case s != "":
		tries = append(tries, l+"-"+s)
		if s == likely {
			tries = append(tries, l)
		}
	case r != "":
		tries = append(tries, l+"-"+r)
		if ms := maximize(d, id).script; ms != "" {
			tries = append(tries, l+"-"+ms+"-"+r, l+"-"+ms)
			if ms == likely {
				tries = append(tries, l)
			}
		} else {
			tries = append(tries, l)
		}
	default:
		tries = append(tries, l)
	}
	for _, t := range tries {
		if f, ok := d.icu[t]; ok {
			return f
		}
	}
	return "latn ltr emoji,eor"
}

var weekdays = map[string]int{"mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7}

// weekOf is ICU's week data of the region (001's where CLDR has none),
// with -u-fw- and the ISO 8601 calendar applied as ICU does.
func weekOf(d *localeData, id *localeID, region string) weekInfo {
	v, ok := d.weeks[region]
	if !ok {
		v = d.weeks["001"]
	}
	w := weekInfo{FirstDay: int(v[0] - '0'), MinimalDays: int(v[1] - '0')}
	start, end := int(v[2]-'0'), int(v[3]-'0')
	for day := 1; day <= 7; day++ {
		if start <= end && day >= start && day <= end || start > end && (day >= start || day <= end) {
			w.Weekend = append(w.Weekend, day)
		}
	}
	if ca, _ := id.keyword("ca"); ca == "iso8601" {
		w.FirstDay, w.MinimalDays = 1, 4
	}
	if fw, ok := id.keyword("fw"); ok {
		if n, ok := weekdays[fw]; ok {
			w.FirstDay = n
		}
	}
	return w
}
