// Command genlocale writes ../../localeid_gen.go: the data of Intl.Locale
// (localeid.go), read from CLDR 48.0's JSON packages, the version Node 20's
// ICU 78.2 ships (see ../gencldr for the other packages):
//
//	npm pack cldr-core@48.0.0 cldr-bcp47@48.2.0
//	mkdir core bcp
//	tar xzf cldr-core-48.0.0.tgz -C core && tar xzf cldr-bcp47-48.2.0.tgz -C bcp
//	go run ./internal/genlocale core/package bcp/package/bcp47 > localeid_gen.go
//	gofmt -w localeid_gen.go
//
// It writes, as line-per-entry strings the package splits once:
//
//   - likelySubtags.json (add and remove likely subtags, maximize and
//     minimize);
//   - aliases.json's language, script, territory and variant aliases
//     (canonicalization, UTS #35's "Replacement" of subtags);
//   - the deprecated and legacy types of the -u- and -t- keys in the
//     bcp47 data (ca-islamicc → islamic-civil, ks-primary → level1,
//     tz-aqams → aqmcm, m0-names → prprname);
//   - calendarPreferenceData.json (Intl.Locale's calendars), weekData.json
//     (weekInfo) and timeData.json (hourCycles).
//
// The files are pinned by SHA-256 (pinned).
//
// With -icu it writes ../../localeid_icu_gen.go instead: the facts of
// ICU 78's own locale data (which CLDR locales it ships, its collation
// resources, its tz database's regions) that V8's getters read, observed
// in Node 20 (ICU 78.2) as ../genicu observes its calendars:
//
//	go run ./internal/genlocale -icu core/package > localeid_icu_gen.go && gofmt -w localeid_icu_gen.go
//
// For each of availableLocales.json's locales it records Node's default
// numbering system, text direction and collations (V8's numberingSystems,
// textInfo and collations, from ICU's resource bundles and their
// fallback), and for each region of likelySubtags.json the canonical time
// zones ICU lists (timeZones); a region without zones is left out. It refuses to run against another ICU than
// 78 (process.versions.icu).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

var pinned = map[string]string{
	"aliases.json":                "b7011c866f27502ed6f160ca83f2a83fa42bce9fdc2176e60e2c6630961d877c",
	"likelySubtags.json":          "38345946ad457213fb39e9645ab50f36b61681bf674b2eef2979a3b58d04afc8",
	"calendarPreferenceData.json": "62ff01888eaadc48876b3b02fe0305229cfdc1015d308962da7c44e34b6f12fe",
	"weekData.json":               "b28ea2cedf6da29e9b93d7492e0f0a8a6852fe49f7990c58f9fc57531bf7c6b3",
	"timeData.json":               "2962960c14e40ffb09526e33832fe60ff932ba1b41a01f4964c601c2274ac61d",
	"calendar.json":               "bcf1a12f71038aca3716f098c23e23d7125f64df7b7dd9945b29ff682eb5ed17",
	"collation.json":              "fcd5f22d3d3db3bf94becf5d83ce21cdca45f3d8c66babd09e88231039669181",
	"measure.json":                "313062c751fcbce1d3027bec924421505f72c0084d8b82ca80f0c8e119ffa2dc",
	"number.json":                 "a8a5d72e55d0bcab49b70887bb69eedbaadc28c7651f6c78661e44e9b28a4cf5",
	"timezone.json":               "c11423884420f00cf52733c854de5c898ddb6657ce560334c638a2bd994a1448",
	"transform.json":              "a9774cdb983dcf2f2cefd65d8181b9ccc36e9c68036f0f9e97ce3cf7056bf472",
}

func readPinned(file string, into any) {
	b, err := os.ReadFile(file)
	check(err)
	if want, ok := pinned[filepath.Base(file)]; ok {
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			check(fmt.Errorf("%s: SHA-256 %s, pinned %s", file, got, want))
		}
	}
	check(json.Unmarshal(b, into))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "genlocale:", err)
		os.Exit(1)
	}
}

type alias struct {
	Replacement string `json:"_replacement"`
}

// lines writes m as "key value" lines, sorted by key.
func lines(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + " " + m[k] + "\n")
	}
	return b.String()
}

var dayNumber = map[string]string{"mon": "1", "tue": "2", "wed": "3", "thu": "4", "fri": "5", "sat": "6", "sun": "7"}

// icuScript prints the ICU facts for the locales and regions of its
// argument (a JSON [locales, regions]).
const icuScript = `
if (!process.versions.icu.startsWith("78.")) throw new Error("ICU " + process.versions.icu + ", want 78");
const [locales, regions] = JSON.parse(process.argv[1]);
const loc = {}, zones = {};
for (const t of locales) {
  const l = new Intl.Locale(t);
  loc[t] = l.numberingSystems[0] + " " + l.textInfo.direction + " " + l.collations.join(",");
}
for (const r of regions) zones[r] = new Intl.Locale("und-" + r).timeZones.join(" ");
console.log(JSON.stringify([loc, zones]));
`

func icuMain(core string) {
	var av struct {
		AvailableLocales struct{ Full []string }
	}
	b, err := os.ReadFile(filepath.Join(core, "availableLocales.json"))
	check(err)
	check(json.Unmarshal(b, &av))
	var likely struct {
		Supplemental struct {
			LikelySubtags map[string]string
		}
	}
	readPinned(filepath.Join(core, "supplemental", "likelySubtags.json"), &likely)
	// The regions: every two-letter code, and the numeric ones of the
	// likely subtags' tags.
	set := map[string]bool{}
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			set[string([]rune{a, b})] = true
		}
	}
	for k, v := range likely.Supplemental.LikelySubtags {
		for _, tag := range []string{k, v} {
			for _, p := range strings.Split(tag, "-")[1:] {
				if len(p) == 3 && p[0] >= '0' && p[0] <= '9' {
					set[p] = true
				}
			}
		}
	}
	set["001"] = true
	var regions []string
	for r := range set {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	arg, err := json.Marshal([]any{av.AvailableLocales.Full, regions})
	check(err)
	out, err := exec.Command("node", "-e", icuScript, string(arg)).Output()
	check(err)
	var facts [2]map[string]string
	check(json.Unmarshal(out, &facts))
	for r, z := range facts[1] {
		if z == "" {
			delete(facts[1], r)
		}
	}
	fmt.Println("// Code generated by internal/genlocale -icu from Node 20 (ICU 78.2); DO NOT EDIT.")
	fmt.Println()
	fmt.Println("package intl")
	fmt.Println()
	fmt.Printf("// icuLocaleData is each CLDR locale's default numbering system, text\n// direction and collations (comma-separated) in ICU 78.\nconst icuLocaleData = %q\n\n", lines(facts[0]))
	fmt.Printf("// icuZoneData is each region's canonical time zones in ICU 78.\nconst icuZoneData = %q\n", lines(facts[1]))
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-icu" {
		icuMain(os.Args[2])
		return
	}
	if len(os.Args) != 3 {
		check(fmt.Errorf("usage: genlocale CORE BCP47, or genlocale -icu CORE"))
	}
	core, bcp := os.Args[1], os.Args[2]
	sup := filepath.Join(core, "supplemental")

	var likely struct {
		Supplemental struct {
			LikelySubtags map[string]string
		}
	}
	readPinned(filepath.Join(sup, "likelySubtags.json"), &likely)

	var aliases struct {
		Supplemental struct {
			Metadata struct {
				Alias map[string]json.RawMessage
			}
		}
	}
	readPinned(filepath.Join(sup, "aliases.json"), &aliases)
	aliasOf := func(kind string) map[string]string {
		var m map[string]alias
		check(json.Unmarshal(aliases.Supplemental.Metadata.Alias[kind], &m))
		out := map[string]string{}
		for k, v := range m {
			out[k] = strings.ReplaceAll(v.Replacement, "_", "-")
		}
		return out
	}

	// The -u- types: deprecated ones by their preferred type, legacy
	// names (the _alias of a key other than tz) by their type.
	uTypes := map[string]string{}
	for _, f := range []string{"calendar", "collation", "measure", "number", "timezone", "transform"} {
		var d struct {
			Keyword struct {
				U, T map[string]map[string]json.RawMessage
			}
		}
		readPinned(filepath.Join(bcp, f+".json"), &d)
		if d.Keyword.U == nil {
			d.Keyword.U = map[string]map[string]json.RawMessage{}
		}
		for key, types := range d.Keyword.T {
			d.Keyword.U[key] = types
		}
		for key, types := range d.Keyword.U {
			for typ, raw := range types {
				if strings.HasPrefix(typ, "_") {
					continue
				}
				var t struct {
					Deprecated bool   `json:"_deprecated"`
					Preferred  string `json:"_preferred"`
					Alias      string `json:"_alias"`
				}
				if json.Unmarshal(raw, &t) != nil {
					continue
				}
				if t.Preferred != "" {
					uTypes[key+"-"+typ] = t.Preferred
				}
				if key == "tz" {
					continue
				}
				for _, a := range strings.Fields(t.Alias) {
					if _, isType := types[strings.ToLower(a)]; !isType && len(a) >= 3 {
						uTypes[key+"-"+strings.ToLower(a)] = typ
					}
				}
			}
		}
	}

	var cal struct {
		Supplemental struct {
			CalendarPreferenceData map[string][]string
		}
	}
	readPinned(filepath.Join(sup, "calendarPreferenceData.json"), &cal)
	cals := map[string]string{}
	bcpCal := map[string]string{"gregorian": "gregory", "ethiopic-amete-alem": "ethioaa"}
	for r, cs := range cal.Supplemental.CalendarPreferenceData {
		var out []string
		for _, c := range cs {
			if b, ok := bcpCal[c]; ok {
				c = b
			}
			out = append(out, c)
		}
		cals[r] = strings.Join(out, " ")
	}

	var week struct {
		Supplemental struct {
			WeekData struct {
				MinDays, FirstDay, WeekendStart, WeekendEnd map[string]string
			}
		}
	}
	readPinned(filepath.Join(sup, "weekData.json"), &week)
	wd := week.Supplemental.WeekData
	weeks := map[string]string{}
	regions := map[string]bool{}
	for _, m := range []map[string]string{wd.MinDays, wd.FirstDay, wd.WeekendStart, wd.WeekendEnd} {
		for r := range m {
			if !strings.Contains(r, "-") {
				regions[r] = true
			}
		}
	}
	get := func(m map[string]string, r string) string {
		if v, ok := m[r]; ok {
			return v
		}
		return m["001"]
	}
	for r := range regions {
		weeks[r] = dayNumber[get(wd.FirstDay, r)] + get(wd.MinDays, r) + dayNumber[get(wd.WeekendStart, r)] + dayNumber[get(wd.WeekendEnd, r)]
	}

	var td struct {
		Supplemental struct {
			TimeData map[string]struct {
				Preferred string `json:"_preferred"`
				Allowed   string `json:"_allowed"`
			}
		}
	}
	readPinned(filepath.Join(sup, "timeData.json"), &td)
	hours := map[string]string{}
	for r, v := range td.Supplemental.TimeData {
		hours[strings.ReplaceAll(r, "-", "_")] = v.Preferred + " " + strings.ReplaceAll(v.Allowed, " ", ",")
	}

	fmt.Println("// Code generated by internal/genlocale from CLDR 48.0 (cldr-core, cldr-bcp47); DO NOT EDIT.")
	fmt.Println()
	fmt.Println("package intl")
	fmt.Println()
	str := func(name, doc, s string) {
		fmt.Printf("// %s %s\nconst %s = %q\n\n", name, doc, name, s)
	}
	str("likelyData", "is likelySubtags.json: a tag and its likely subtags a line.", lines(likely.Supplemental.LikelySubtags))
	str("languageAliasData", "is aliases.json's languageAlias: a tag and its replacement a line.", lines(aliasOf("languageAlias")))
	str("scriptAliasData", "is aliases.json's scriptAlias.", lines(aliasOf("scriptAlias")))
	str("territoryAliasData", "is aliases.json's territoryAlias: a region and its replacements, space-separated.", lines(aliasOf("territoryAlias")))
	str("variantAliasData", "is aliases.json's variantAlias.", lines(aliasOf("variantAlias")))
	str("uTypeAliasData", "is the bcp47 data's deprecated and legacy -u- types: key-type and the type that replaces it.", lines(uTypes))
	str("calendarPrefData", "is calendarPreferenceData.json: a region and its calendars (bcp47 names).", lines(cals))
	str("weekInfoData", "is weekData.json: a region and its first day (1 = Monday), minimal days, weekend start and end.", lines(weeks))
	str("hourData", "is timeData.json: a region (or language_region) and its preferred and allowed hour formats.", lines(hours))
}
