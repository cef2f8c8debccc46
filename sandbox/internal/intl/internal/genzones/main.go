// Command genzones writes ../../zonenames_gen.go: what Intl.DateTimeFormat
// needs to name a time zone as ICU does (timeZoneName "long", "short",
// "longGeneric", "shortGeneric"; timeStyle "full" and "long"), from the
// CLDR 48.0 JSON packages the other generated data comes from (see
// ../gencldr for how they are fetched):
//
//	go run ./internal/genzones dates/package/main core/package/supplemental bcp/package/bcp47 > zonenames_gen.go
//	gofmt -w zonenames_gen.go
//
// It writes:
//
//   - zoneSpellings: the zone IDs the intl package's capitalisation of a
//     name does not spell (Africa/Dar_es_Salaam, America/Port-au-Prince);
//   - zoneAliases: the IANA names CLDR does not use as its own (Asia/Kolkata)
//     → CLDR's (Asia/Calcutta), from cldr-bcp47's timezone.json;
//   - zoneMetazones: each zone's metazones over time (metaZones.json's
//     metazoneInfo, with its periods' UTC bounds in Unix seconds; a first
//     period without a start starts in 1970, as ICU has it; one without an
//     end ends in 9999, metazoneAt's metazonesEnd);
//   - metazoneGolden: each metazone's reference zone, by region;
//   - zoneHomes: each zone's country (the first two letters of its BCP 47
//     key, as CLDR defines them, but for the few keys older than their
//     country's code: ancur is Curaçao's) and whether ICU names its location by the
//     country (the country's only zone, or its primary one: primaryZones.json)
//     or by its exemplar city;
//   - zoneNameTables: each linked locale's zone names (timeZoneNames.json):
//     "m:" metazone and "z:" zone lines with six tab-separated names (long
//     generic, standard, daylight, then short), "c:" the exemplar cities of
//     zones ICU may name by their city, where they differ from the one ICU
//     derives from the zone's ID, "f:" the region and fallback formats. A language's
//     own locale (and a language and script's: zh-Hant) lists everything; a
//     regional one (en-GB) only the lines that differ from its language's.
//
// The locales are those of locales_gen.go, each mapped to the nearest CLDR
// directory, as gencldr maps them.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "genzones:", err)
		os.Exit(1)
	}
}

func readJSON(path string, into any) {
	b, err := os.ReadFile(path)
	must(err)
	must(json.Unmarshal(b, into))
}

// base is the locale a regional locale's table adds to.
func base(l string) string {
	parts := strings.Split(l, "-")
	if len(parts) > 1 && len(parts[1]) == 4 {
		return parts[0] + "-" + parts[1]
	}
	return parts[0]
}

// cldrTime reads metaZones.json's "2006-04-02 07:00" (UTC).
func cldrTime(s string) int64 {
	t, err := time.Parse("2006-01-02 15:04", s)
	must(err)
	return t.Unix()
}

type span struct {
	from int64
	mz   string
}

// walkZones calls f with each zone path of a tree keyed by the zone ID's
// parts; leaf says whether a node is a zone.
func walkZones(prefix string, v any, leaf func(any) bool, f func(string, any)) {
	if leaf(v) {
		f(strings.TrimPrefix(prefix, "/"), v)
		return
	}
	m, _ := v.(map[string]any)
	for k, c := range m {
		walkZones(prefix+"/"+k, c, leaf, f)
	}
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: genzones DATES_MAIN CORE_SUPPLEMENTAL BCP47_DIR")
		os.Exit(2)
	}
	dates, core, bcp := os.Args[1], os.Args[2], os.Args[3]
	src, err := os.ReadFile("locales_gen.go")
	must(err)
	var dirs []string
	seen := map[string]bool{}
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasSuffix(line, ".New,") {
			continue
		}
		parts := strings.Split(strings.TrimSuffix(line, ".New,"), "_")
		for n := len(parts); n > 0; n-- {
			d := strings.Join(parts[:n], "-")
			if _, err := os.Stat(filepath.Join(dates, d)); err == nil {
				if !seen[d] {
					seen[d] = true
					dirs = append(dirs, d)
				}
				break
			}
		}
	}
	sort.Strings(dirs)

	// Metazones over time.
	var mz struct {
		Supplemental struct {
			MetaZones struct {
				Info struct {
					Timezone map[string]any `json:"timezone"`
				} `json:"metazoneInfo"`
				Metazones []struct {
					MapZone struct {
						Other     string `json:"_other"`
						Type      string `json:"_type"`
						Territory string `json:"_territory"`
					} `json:"mapZone"`
				} `json:"metazones"`
			} `json:"metaZones"`
		} `json:"supplemental"`
	}
	readJSON(filepath.Join(core, "metaZones.json"), &mz)
	spans := map[string][]span{}
	isList := func(v any) bool { _, ok := v.([]any); return ok }
	walkZones("", mz.Supplemental.MetaZones.Info.Timezone, isList, func(zone string, v any) {
		var out []span
		end := int64(0)
		open := false // the previous period has no end
		for i, e := range v.([]any) {
			u := e.(map[string]any)["usesMetazone"].(map[string]any)
			// A period without a start starts in 1970, as in ICU's
			// metaZones.txt: before it, no zone has a metazone.
			from := int64(0)
			if s, ok := u["_from"].(string); ok {
				from = cldrTime(s)
			}
			if i > 0 && !open && from > end {
				out = append(out, span{end, ""}) // a gap between periods
			}
			out = append(out, span{from, u["_mzone"].(string)})
			s, ok := u["_to"].(string)
			open = !ok
			if ok {
				end = cldrTime(s)
			}
		}
		if !open {
			out = append(out, span{end, ""})
		}
		spans[zone] = out
	})
	golden := map[string]map[string]string{}
	for _, m := range mz.Supplemental.MetaZones.Metazones {
		z := m.MapZone
		if golden[z.Other] == nil {
			golden[z.Other] = map[string]string{}
		}
		golden[z.Other][z.Territory] = z.Type
	}

	// Aliases and countries, from the BCP 47 keys.
	var tzk struct {
		Keyword struct {
			U struct {
				TZ map[string]any `json:"tz"`
			} `json:"u"`
		} `json:"keyword"`
	}
	readJSON(filepath.Join(bcp, "timezone.json"), &tzk)
	aliases := map[string]string{}
	country := map[string]string{}
	zonesOf := map[string]int{}
	// The keys made before their country had a code of its own, or not
	// named after one (gazastrp is not Gabon's).
	special := map[string]string{"gazastrp": "PS", "hebron": "PS", "jeruslm": "IL", "ancur": "CW", "fimhq": "AX", "gpmsb": "MF", "gpsbh": "BL"}
	for key, v := range tzk.Keyword.U.TZ {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		a, _ := m["_alias"].(string)
		names := strings.Fields(a)
		if len(names) == 0 {
			continue
		}
		for _, n := range names[1:] {
			aliases[n] = names[0]
		}
		if dep, _ := m["_deprecated"].(bool); dep {
			continue
		}
		cc := special[key]
		if cc == "" && len(key) >= 5 && strings.Trim(key, "abcdefghijklmnopqrstuvwxyz") == "" && !strings.HasPrefix(key, "utc") {
			cc = strings.ToUpper(key[:2])
		}
		if cc != "" {
			country[names[0]] = cc
			zonesOf[cc]++
		}
	}
	var primary struct {
		Supplemental struct {
			PrimaryZones map[string]string `json:"primaryZones"`
		} `json:"supplemental"`
	}
	readJSON(filepath.Join(core, "primaryZones.json"), &primary)
	byCity := map[string]bool{}
	needCity := map[string]bool{} // ICU may name its location by its city
	for z, cc := range country {
		byCity[z] = zonesOf[cc] > 1 && primary.Supplemental.PrimaryZones[cc] != z
		needCity[z] = byCity[z]
		for _, s := range spans[z] {
			// A partial location ("Central European Time (Germany)")
			// names the country only for the metazone's zone there.
			g := golden[s.mz][cc]
			if g == "" {
				g = golden[s.mz]["001"]
			}
			if s.mz != "" && g != z {
				needCity[z] = true
			}
		}
	}
	for z := range spans {
		if _, ok := country[z]; !ok {
			needCity[z] = true
		}
	}

	// The names.
	tables := map[string]map[string]string{}
	for _, d := range dirs {
		var top struct {
			Main map[string]struct {
				Dates struct {
					TZ map[string]any `json:"timeZoneNames"`
				} `json:"dates"`
			} `json:"main"`
		}
		readJSON(filepath.Join(dates, d, "timeZoneNames.json"), &top)
		tz := top.Main[d].Dates.TZ
		lines := map[string]string{}
		six := func(v any) string {
			m, _ := v.(map[string]any)
			var f []string
			for _, w := range []string{"long", "short"} {
				n, _ := m[w].(map[string]any)
				for _, k := range []string{"generic", "standard", "daylight"} {
					s, _ := n[k].(string)
					if s == "∅∅∅" {
						s = ""
					}
					f = append(f, s)
				}
			}
			return strings.Join(f, "\t")
		}
		empty := strings.Repeat("\t", 5)
		meta, _ := tz["metazone"].(map[string]any)
		for k, v := range meta {
			if s := six(v); s != empty {
				lines["m:"+k] = s
			}
		}
		isZone := func(v any) bool {
			m, ok := v.(map[string]any)
			if !ok {
				return false
			}
			for _, k := range []string{"long", "short", "exemplarCity", "_type"} {
				if _, ok := m[k]; ok {
					return true
				}
			}
			return false
		}
		walkZones("", tz["zone"], isZone, func(zone string, v any) {
			if s := six(v); s != empty {
				lines["z:"+zone] = s
			}
			city, _ := v.(map[string]any)["exemplarCity"].(string)
			if needCity[zone] && city != "" && city != defaultCity(zone) {
				lines["c:"+zone] = city
			}
		})
		rf, _ := tz["regionFormat"].(string)
		ff, _ := tz["fallbackFormat"].(string)
		lines["f:"] = rf + "\t" + ff
		tables[d] = lines
	}

	w := os.Stdout
	fmt.Fprintln(w, "// Code generated by internal/genzones from CLDR 48.0 (cldr-dates-full, cldr-core, cldr-bcp47); DO NOT EDIT.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "package intl")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "// zoneAliases maps the IANA names CLDR does not use to CLDR's.")
	fmt.Fprintln(w, "var zoneAliases = map[string]string{")
	for _, k := range sortedKeys(aliases) {
		fmt.Fprintf(w, "%q: %q,\n", k, aliases[k])
	}
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w)
	ids := map[string]bool{}
	for a, c := range aliases {
		ids[a], ids[c] = true, true
	}
	for z := range spans {
		ids[z] = true
	}
	fmt.Fprintln(w, "// zoneSpellings are the zone IDs that canonicalZone's capitalisation does not spell, by their lower case.")
	fmt.Fprintln(w, "var zoneSpellings = map[string]string{")
	for _, id := range sortedKeys(ids) {
		if capitalized(id) != id {
			fmt.Fprintf(w, "%q: %q,\n", strings.ToLower(id), id)
		}
	}
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "// zoneMetazones are each zone's metazones over time, oldest first.")
	fmt.Fprintln(w, "var zoneMetazones = map[string][]metazoneSpan{")
	for _, k := range sortedKeys(spans) {
		fmt.Fprintf(w, "%q: {", k)
		for _, s := range spans[k] {
			fmt.Fprintf(w, "{%d, %q}, ", s.from, s.mz)
		}
		fmt.Fprintln(w, "},")
	}
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "// metazoneGolden are each metazone's reference zones by region (\"001\": the default).")
	fmt.Fprintln(w, "var metazoneGolden = map[string]map[string]string{")
	for _, k := range sortedKeys(golden) {
		fmt.Fprintf(w, "%q: {", k)
		for _, r := range sortedKeys(golden[k]) {
			fmt.Fprintf(w, "%q: %q, ", r, golden[k][r])
		}
		fmt.Fprintln(w, "},")
	}
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "// zoneHomes are each zone's country and whether ICU names its location by its city.")
	fmt.Fprintln(w, "var zoneHomes = map[string]zoneHome{")
	for _, k := range sortedKeys(country) {
		fmt.Fprintf(w, "%q: {%q, %v},\n", k, country[k], byCity[k])
	}
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "// zoneNameTables are each locale's zone names (see internal/genzones).")
	fmt.Fprintln(w, "var zoneNameTables = map[string]string{")
	for _, d := range dirs {
		lines := tables[d]
		if lang, _, ok := strings.Cut(d, "-"); ok && base(d) == d && equalTables(lines, tables[lang]) {
			continue // a script's locale with its language's names (zh-Hans): found as zh
		}
		var parent map[string]string
		if b := base(d); b != d {
			parent = tables[b]
			if parent == nil {
				must(fmt.Errorf("%s: its language's locale %s is not linked", d, b))
			}
		}
		var out []string
		keys := map[string]bool{}
		for k := range lines {
			keys[k] = true
		}
		for k := range parent {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			v, ok := lines[k]
			if parent != nil {
				if pv, pok := parent[k]; pok == ok && pv == v {
					continue
				}
			}
			if !ok {
				v = strings.Repeat("\t", 5) // none, where the language has one
				if strings.HasPrefix(k, "c:") {
					v = defaultCity(strings.TrimPrefix(k, "c:"))
				}
			}
			out = append(out, k+"\t"+v)
		}
		fmt.Fprintf(w, "%q: %q,\n", d, strings.Join(out, "\n"))
	}
	fmt.Fprintln(w, "}")
}

func equalTables(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// capitalized spells a zone ID as the intl package's canonicalZone does
// (upper case after a separator, Etc/GMT+5), to list the IDs it misspells
// (Africa/Dar_es_Salaam, CST6CDT).
func capitalized(id string) string {
	b := []byte(strings.ToLower(id))
	up := true
	for i, c := range b {
		if up && c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
		up = c == '/' || c == '_' || c == '-'
	}
	return strings.Replace(string(b), "Etc/Gmt", "Etc/GMT", 1)
}

// defaultCity is the exemplar city ICU derives from a zone's ID where the
// locale has none: its last part, with spaces for underscores.
func defaultCity(zone string) string {
	i := strings.LastIndexByte(zone, '/')
	if i < 0 || strings.HasPrefix(zone, "Etc/") || strings.HasPrefix(zone, "SystemV/") {
		return ""
	}
	return strings.ReplaceAll(zone[i+1:], "_", " ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
