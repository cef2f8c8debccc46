package intl

import (
	"slices"
	"sort"
	"strings"
	"sync"
)

// Unicode locale identifiers (UTS #35) as ICU 78 parses, canonicalizes,
// maximizes and minimizes them for V8's Intl.Locale: the data is CLDR
// 48's (localeid_gen.go, internal/genlocale).

// localeID is a parsed unicode_locale_id. Subtags are in canonical case.
type localeID struct {
	lang, script, region string
	variants             []string
	attrs                []string    // -u- attributes
	kw                   [][2]string // -u- keywords in order: key, type ("" for true)
	tlang                *localeID   // -t- language, or nil
	tfields              [][2]string // -t- fields: key, value
	hasT                 bool
	others               []string // other extensions, "a-bbb"
	private              string   // "x-…", or ""
}

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func isDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z') {
			return false
		}
	}
	return true
}

func langSubtag(s string) bool {
	return isAlpha(s) && (len(s) >= 2 && len(s) <= 3 || len(s) >= 5 && len(s) <= 8)
}
func scriptSubtag(s string) bool { return len(s) == 4 && isAlpha(s) }
func regionSubtag(s string) bool {
	return len(s) == 2 && isAlpha(s) || len(s) == 3 && isDigit(s)
}
func variantSubtag(s string) bool {
	return isAlnum(s) && (len(s) >= 5 && len(s) <= 8 || len(s) == 4 && s[0] >= '0' && s[0] <= '9')
}

func title(s string) string { return strings.ToUpper(s[:1]) + strings.ToLower(s[1:]) }

// parseLanguageID reads a unicode_language_id from parts[i:] (a language
// first, as BCP 47 requires) and returns the index after it.
func parseLanguageID(parts []string, i int, id *localeID) (int, bool) {
	if i >= len(parts) || !langSubtag(parts[i]) {
		return i, false
	}
	id.lang = strings.ToLower(parts[i])
	i++
	if i < len(parts) && scriptSubtag(parts[i]) {
		id.script = title(parts[i])
		i++
	}
	if i < len(parts) && regionSubtag(parts[i]) {
		id.region = strings.ToUpper(parts[i])
		i++
	}
	for i < len(parts) && variantSubtag(parts[i]) {
		v := strings.ToLower(parts[i])
		if slices.Contains(id.variants, v) {
			return i, false
		}
		id.variants = append(id.variants, v)
		i++
	}
	return i, true
}

// parseLanguageIDLoose reads a language id as parseLanguageID does but
// lets a variant repeat (V8's prefix check does not look for repeats).
func parseLanguageIDLoose(parts []string, id *localeID) (int, bool) {
	i := 0
	if len(parts) == 0 || !langSubtag(parts[0]) {
		return 0, false
	}
	i++
	if i < len(parts) && scriptSubtag(parts[i]) {
		i++
	}
	if i < len(parts) && regionSubtag(parts[i]) {
		i++
	}
	for i < len(parts) && variantSubtag(parts[i]) {
		i++
	}
	return i, true
}

// parseLocaleID parses s as ECMA-402's IsStructurallyValidLanguageTag
// accepts it: a unicode_locale_id without "root", a script first or "_",
// with no duplicate variant or singleton.
func parseLocaleID(s string) (*localeID, bool) {
	if s == "" || len(s) > maxString {
		return nil, false
	}
	parts := strings.Split(s, "-")
	id := &localeID{}
	i, ok := parseLanguageID(parts, 0, id)
	if !ok {
		return nil, false
	}
	seen := map[byte]bool{}
	for i < len(parts) {
		p := strings.ToLower(parts[i])
		if len(p) != 1 || !isAlnum(p) {
			return nil, false
		}
		single := p[0]
		if seen[single] {
			return nil, false
		}
		seen[single] = true
		i++
		start := i
		switch single {
		case 'x':
			for i < len(parts) && len(parts[i]) >= 1 && len(parts[i]) <= 8 && isAlnum(parts[i]) {
				i++
			}
			if i == start || i != len(parts) {
				return nil, false
			}
			id.private = "x-" + strings.ToLower(strings.Join(parts[start:], "-"))
		case 'u':
			for i < len(parts) && len(parts[i]) >= 3 && len(parts[i]) <= 8 && isAlnum(parts[i]) {
				id.attrs = append(id.attrs, strings.ToLower(parts[i]))
				i++
			}
			for i < len(parts) && len(parts[i]) == 2 && isAlnum(parts[i][:1]) && isAlpha(parts[i][1:]) {
				key := strings.ToLower(parts[i])
				i++
				j := i
				for i < len(parts) && len(parts[i]) >= 3 && len(parts[i]) <= 8 && isAlnum(parts[i]) {
					i++
				}
				id.kw = append(id.kw, [2]string{key, strings.ToLower(strings.Join(parts[j:i], "-"))})
			}
			if i == start {
				return nil, false
			}
		case 't':
			id.hasT = true
			if i < len(parts) && langSubtag(parts[i]) {
				t := &localeID{}
				var ok bool
				if i, ok = parseLanguageID(parts, i, t); !ok {
					return nil, false
				}
				id.tlang = t
			}
			for i < len(parts) && len(parts[i]) == 2 && isAlpha(parts[i][:1]) && isDigit(parts[i][1:]) {
				key := strings.ToLower(parts[i])
				i++
				j := i
				for i < len(parts) && len(parts[i]) >= 3 && len(parts[i]) <= 8 && isAlnum(parts[i]) {
					i++
				}
				if i == j {
					return nil, false
				}
				id.tfields = append(id.tfields, [2]string{key, strings.ToLower(strings.Join(parts[j:i], "-"))})
			}
			if i == start {
				return nil, false
			}
		default:
			for i < len(parts) && len(parts[i]) >= 2 && len(parts[i]) <= 8 && isAlnum(parts[i]) {
				i++
			}
			if i == start {
				return nil, false
			}
			id.others = append(id.others, p+"-"+strings.ToLower(strings.Join(parts[start:i], "-")))
		}
	}
	return id, !id.overICULimits()
}

// overICULimits reports whether ICU 78 refuses id although it is well
// formed: it holds the variants, and the -t- language's, in 179 bytes and
// at most 25 distinct -u- keys (V8 then throws, as for a malformed tag).
func (id *localeID) overICULimits() bool {
	if id.tlang != nil && variantBytes(id.tlang) > 179 {
		return true
	}
	keys := map[string]bool{}
	for _, kv := range id.kw {
		keys[kv[0]] = true
	}
	return variantBytes(id) > 179 || len(keys) > 25
}

// variantBytes is the length of id's variants joined by hyphens.
func variantBytes(id *localeID) int {
	n := 0
	for _, v := range id.variants {
		n += len(v) + 1
	}
	return n - 1
}

// localeData is localeid_gen.go's data, split once.
type localeData struct {
	likely, langAlias, scriptAlias, regionAlias, variantAlias, uTypes map[string]string
	calendars, weeks, hours, zones, icu                               map[string]string
	trie                                                              likelyTrie
}

func splitLines(s string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(l, " "); ok {
			m[k] = v
		}
	}
	return m
}

var locData = sync.OnceValue(func() *localeData {
	d := &localeData{
		likely: splitLines(likelyData), langAlias: splitLines(languageAliasData), scriptAlias: splitLines(scriptAliasData),
		regionAlias: splitLines(territoryAliasData), variantAlias: splitLines(variantAliasData), uTypes: splitLines(uTypeAliasData),
		calendars: splitLines(calendarPrefData), weeks: splitLines(weekInfoData), hours: splitLines(hourData),
		zones: splitLines(icuZoneData), icu: splitLines(icuLocaleData),
	}
	d.trie = buildLikelyTrie(d.likely)
	return d
})

// base is the language id as a tag: "en-Latn-US-variant".
func (id *localeID) base() string {
	var b strings.Builder
	b.WriteString(id.lang)
	for _, s := range []string{id.script, id.region} {
		if s != "" {
			b.WriteString("-" + s)
		}
	}
	for _, v := range id.variants {
		b.WriteString("-" + v)
	}
	return b.String()
}

// String is the tag, extensions sorted by singleton, private use last.
func (id *localeID) String() string {
	var b strings.Builder
	b.WriteString(id.base())
	type ext struct{ single, text string }
	var exts []ext
	for _, o := range id.others {
		exts = append(exts, ext{o[:1], o})
	}
	if id.hasT {
		t := "t"
		if id.tlang != nil {
			t += "-" + strings.ToLower(id.tlang.base())
		}
		for _, f := range id.tfields {
			t += "-" + f[0] + "-" + f[1]
		}
		exts = append(exts, ext{"t", t})
	}
	if len(id.attrs) > 0 || len(id.kw) > 0 {
		u := "u"
		for _, a := range id.attrs {
			u += "-" + a
		}
		for _, kv := range id.kw {
			u += "-" + kv[0]
			if kv[1] != "" {
				u += "-" + kv[1]
			}
		}
		exts = append(exts, ext{"u", u})
	}
	sort.SliceStable(exts, func(i, j int) bool { return exts[i].single < exts[j].single })
	for _, e := range exts {
		b.WriteString("-" + e.text)
	}
	if id.private != "" {
		b.WriteString("-" + id.private)
	}
	return b.String()
}

// keyword is the type of the -u- key k, and whether the tag has it.
func (id *localeID) keyword(k string) (string, bool) {
	for _, kv := range id.kw {
		if kv[0] == k {
			return kv[1], true
		}
	}
	return "", false
}

// setKeyword sets (or adds) the -u- key k to typ.
func (id *localeID) setKeyword(k, typ string) {
	for i, kv := range id.kw {
		if kv[0] == k {
			id.kw[i][1] = typ
			return
		}
	}
	id.kw = append(id.kw, [2]string{k, typ})
}

// canonicalize replaces aliases as ICU 78's AliasReplacer does (UTS #35
// Annex C), sorts variants, -u- attributes and keywords and -t- fields,
// and replaces deprecated -u- types.
func (id *localeID) canonicalize() {
	d := locData()
	// ICU turns the POSIX variant into a -u-va- keyword.
	if i := slices.Index(id.variants, "posix"); i >= 0 {
		id.variants = slices.Delete(id.variants, i, i+1)
		if _, ok := id.keyword("va"); !ok {
			id.kw = append(id.kw, [2]string{"va", "posix"})
		}
	}
	canonicalizeBase(d, id)
	if id.tlang != nil {
		canonicalizeBase(d, id.tlang)
	}
	// Attributes sorted and unique; keywords unique (the first wins),
	// sorted, their types replaced, "true" dropped.
	sort.Strings(id.attrs)
	id.attrs = slices.Compact(id.attrs)
	var kw [][2]string
	seen := map[string]bool{}
	for _, kv := range id.kw {
		if seen[kv[0]] {
			continue
		}
		seen[kv[0]] = true
		if r, ok := d.uTypes[kv[0]+"-"+kv[1]]; ok {
			kv[1] = r
		}
		if (kv[0] == "rg" || kv[0] == "sd") && kv[1] != "" {
			if r, ok := subdivisionAlias(kv[1]); ok {
				kv[1] = r
			}
		}
		if kv[1] == "true" || kv[1] == "yes" {
			kv[1] = ""
		}
		kw = append(kw, kv)
	}
	sort.SliceStable(kw, func(i, j int) bool { return kw[i][0] < kw[j][0] })
	id.kw = kw
	for i, f := range id.tfields {
		if r, ok := d.uTypes[f[0]+"-"+f[1]]; ok {
			id.tfields[i][1] = r
		}
	}
	sort.SliceStable(id.tfields, func(i, j int) bool { return id.tfields[i][0] < id.tfields[j][0] })
	sort.Strings(id.others)
}

// subdivisionAlias is not in CLDR's JSON subset this package reads; a
// subdivision stays as written.
func subdivisionAlias(string) (string, bool) { return "", false }

// canonicalizeBase applies the language, region, script and variant
// aliases until none applies (ICU stops after ten rounds).
func canonicalizeBase(d *localeData, id *localeID) {
	sort.Strings(id.variants)
	for round := 0; round < 10; round++ {
		if replaceLanguage(d, id, true, true) || replaceLanguage(d, id, true, false) ||
			replaceLanguage(d, id, false, true) || replaceLanguage(d, id, false, false) ||
			replaceUndVariant(d, id) || replaceRegion(d, id) || replaceScript(d, id) || replaceVariant(d, id) {
			continue
		}
		break
	}
}

// replaceLanguage looks up the language with the region and/or a variant
// as languageAlias keys, and applies the first rule found.
func replaceLanguage(d *localeData, id *localeID, withRegion, withVariant bool) bool {
	if withRegion && id.region == "" || withVariant && len(id.variants) == 0 {
		return false
	}
	n := 1
	if withVariant {
		n = len(id.variants)
	}
	for i := 0; i < n; i++ {
		key := id.lang
		if withRegion {
			key += "-" + id.region
		}
		if withVariant {
			key += "-" + id.variants[i]
		}
		r, ok := d.langAlias[key]
		if !ok {
			continue
		}
		variant := ""
		if withVariant {
			variant = id.variants[i]
		}
		return applyLanguageRule(id, r, withRegion, variant)
	}
	return false
}

// replaceUndVariant applies a rule "und-variant", or the rule of all the
// variants ("und-hepburn-heploc").
func replaceUndVariant(d *localeData, id *localeID) bool {
	if len(id.variants) > 1 {
		if r, ok := d.langAlias["und-"+strings.Join(id.variants, "-")]; ok {
			before := id.String()
			vs := id.variants
			id.variants = nil
			if applyLanguageRule(id, r, false, "") {
				return true
			}
			id.variants = vs
			_ = before
		}
	}
	for _, v := range id.variants {
		if r, ok := d.langAlias["und-"+v]; ok {
			return applyLanguageRule(id, r, false, v)
		}
	}
	return false
}

// applyLanguageRule replaces the matched fields by the replacement r's
// and fills the empty ones with r's; it reports whether id changed.
func applyLanguageRule(id *localeID, r string, matchedRegion bool, matchedVariant string) bool {
	before := id.String()
	rep := &localeID{}
	if _, ok := parseLanguageID(strings.Split(r, "-"), 0, rep); !ok {
		return false
	}
	if rep.lang != "und" {
		id.lang = rep.lang
	}
	if id.script == "" {
		id.script = rep.script
	}
	if matchedRegion || id.region == "" {
		id.region = rep.region
	}
	if matchedVariant != "" {
		id.variants = slices.DeleteFunc(id.variants, func(v string) bool { return v == matchedVariant })
	}
	for _, v := range rep.variants {
		if !slices.Contains(id.variants, v) {
			id.variants = append(id.variants, v)
		}
	}
	sort.Strings(id.variants)
	return id.String() != before
}

func replaceRegion(d *localeData, id *localeID) bool {
	r, ok := d.regionAlias[id.region]
	if !ok || id.region == "" {
		return false
	}
	reps := strings.Fields(r)
	pick := reps[0]
	if len(reps) > 1 {
		l := &localeID{lang: id.lang, script: id.script}
		if m := maximize(d, l); m.region != "" && slices.Contains(reps, m.region) {
			pick = m.region
		}
	}
	if pick == id.region {
		return false
	}
	id.region = pick
	return true
}

func replaceScript(d *localeData, id *localeID) bool {
	if r, ok := d.scriptAlias[id.script]; ok && id.script != "" && r != id.script {
		id.script = r
		return true
	}
	return false
}

func replaceVariant(d *localeData, id *localeID) bool {
	for i, v := range id.variants {
		if r, ok := d.variantAlias[v]; ok && r != v {
			id.variants[i] = r
			sort.Strings(id.variants)
			id.variants = slices.Compact(id.variants)
			return true
		}
	}
	return false
}

// likelyTrie is likelyData as ICU 78's likely-subtags trie has it:
// language → script → region → the likely tag, "*" standing for an
// empty subtag ("und" for the language).
type likelyTrie map[string]map[string]map[string]*localeID

func buildLikelyTrie(likely map[string]string) likelyTrie {
	t := likelyTrie{}
	for k, v := range likely {
		src, dst := &localeID{}, &localeID{}
		if _, ok := parseLanguageID(strings.Split(k, "-"), 0, src); !ok {
			continue
		}
		if _, ok := parseLanguageID(strings.Split(v, "-"), 0, dst); !ok {
			continue
		}
		l, s, r := src.lang, src.script, src.region
		if l == "und" {
			l = "*"
		}
		if s == "" {
			s = "*"
		}
		if r == "" {
			r = "*"
		}
		if t[l] == nil {
			t[l] = map[string]map[string]*localeID{}
		}
		if t[l][s] == nil {
			t[l][s] = map[string]*localeID{}
		}
		t[l][s][r] = dst
	}
	return t
}

// macroregions are the UN M.49 areas ICU's likely subtags do not keep as
// a match (its MACROREGION_HARDCODE: 001 to 419, and EU, EZ, QO, UN).
func macroregion(r string) bool {
	return len(r) == 3 && r >= "001" && r <= "419" || r == "EU" || r == "EZ" || r == "QO" || r == "UN"
}

// lsrMaximize is ICU 78's LikelySubtags::maximize with
// returnInputIfUnmatch: the likely language, script and region, or ok
// false when nothing matched.
func lsrMaximize(t likelyTrie, language, script, region string) (l, s, r string, ok bool) {
	if language == "und" {
		language = ""
	}
	if script == "Zzzz" {
		script = ""
	}
	if region == "ZZ" {
		region = ""
	}
	if language != "" && script != "" && region != "" {
		return language, script, region, true
	}
	star := func(x string) string {
		if x == "" {
			return "*"
		}
		return x
	}
	var retainL, retainS, retainR, matchL, matchS, matchR bool
	lnode, found := t[star(language)]
	if found {
		matchL = true
		retainL = language != ""
	} else {
		retainL = true
		lnode = t["*"]
	}
	matchS = found && script != ""
	snode, sfound := lnode[star(script)]
	if sfound {
		retainS = script != ""
	} else {
		retainS = true
		if !found {
			snode = t["*"]["*"]
		} else {
			snode = lnode["*"]
		}
	}
	langMatchedOrScript := found || sfound
	var res *localeID
	if v, ok := snode[star(region)]; ok {
		res = v
		if region != "" && !macroregion(region) {
			retainR, matchR = true, true
		}
	} else {
		retainR = true
		if !langMatchedOrScript {
			res = t["*"]["*"]["*"]
		} else if v, ok := snode["*"]; ok {
			res = v
		} else {
			retainL, retainS, retainR = language != "", script != "", region != ""
			if v, ok := t["*"]["*"][star(region)]; ok {
				res = v
			} else {
				res = t["*"]["*"]["*"]
			}
		}
	}
	if !(matchL || matchS || matchR && language == "") {
		return "", "", "", false
	}
	if res == nil {
		return "", "", "", false
	}
	l, s, r = language, script, region
	if l == "" {
		l = "und"
	}
	if !retainL {
		l = res.lang
	}
	if !retainS {
		s = res.script
	}
	if !retainR {
		r = res.region
	}
	return l, s, r, true
}

// maximize adds likely subtags as ICU 78's addLikelySubtags: a tag with a
// language, a script and a region (any, "Zzzz" and "ZZ" included) stays
// as it is, and so does one the data does not cover. It returns a copy.
func maximize(d *localeData, id *localeID) *localeID {
	out := *id
	if id.lang != "und" && id.script != "" && id.region != "" {
		return &out
	}
	if l, s, r, ok := lsrMaximize(d.trie, id.lang, id.script, id.region); ok {
		out.lang, out.script, out.region = l, s, r
	}
	return &out
}

// minimize removes likely subtags as ICU 78's minimizeSubtags, favouring
// the region: the shortest of language, language-region and
// language-script that maximizes as id does.
func minimize(d *localeData, id *localeID) *localeID {
	out := *id
	ml, ms, mr, ok := lsrMaximize(d.trie, id.lang, id.script, id.region)
	if !ok {
		return &out
	}
	for _, trial := range [][2]string{{"", ""}, {"", mr}, {ms, ""}} {
		l, s, r, ok := lsrMaximize(d.trie, ml, trial[0], trial[1])
		if ok && l == ml && s == ms && r == mr {
			out.lang, out.script, out.region = ml, trial[0], trial[1]
			return &out
		}
	}
	out.lang, out.script, out.region = ml, ms, mr
	return &out
}
