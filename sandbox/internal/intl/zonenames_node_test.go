package intl

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The zone names audit (issue 23): Intl.DateTimeFormat names time zones as
// Node 20 does (ICU 78.2, CLDR 48.0; TZ=UTC) in every linked locale: the
// specific names (timeZoneName "short" and "long", timeStyle "long" and
// "full"), the generic ones ("shortGeneric", "longGeneric") and the GMT
// formats, in format, formatToParts, toLocaleString and
// toLocaleTimeString, for zones with and without daylight time, in both
// hemispheres, with half-hour and odd offsets, that changed metazone
// (Europe/Kiev, America/Indiana/Knox, Australia/Lord_Howe) or have none
// (Africa/Casablanca since 2018, Etc/GMT+5), at instants in winter and
// summer, around transitions and in the past (1900's local mean times).

var zoneAuditZones = []string{
	"America/Los_Angeles", "America/New_York", "America/Sao_Paulo", "America/St_Johns", "America/Phoenix",
	"America/Indiana/Knox", "America/Nuuk", "America/Argentina/San_Luis", "Europe/London", "Europe/Dublin",
	"Europe/Berlin", "Europe/Moscow", "Europe/Kyiv", "Europe/Lisbon", "Asia/Tokyo", "Asia/Kolkata",
	"Asia/Calcutta", "Asia/Shanghai", "Asia/Tehran", "Asia/Kathmandu", "Asia/Qostanay", "Australia/Sydney",
	"Australia/Lord_Howe", "Pacific/Auckland", "Pacific/Honolulu", "Africa/Cairo", "Africa/Casablanca",
	"Antarctica/Troll", "UTC", "Etc/GMT+5", "Etc/GMT-14", "America/Mexico_City", "Asia/Jerusalem",
}

var zoneAuditInstants = []string{
	"2024-01-15T12:00:00Z", "2024-07-15T12:00:00Z", "1970-01-01T00:00:00Z", "2000-06-01T00:00:00Z",
	"2024-03-10T09:59:59Z", "2024-03-10T10:00:00Z", // America's spring forward
	"2024-10-27T00:59:59Z", "2024-10-27T01:00:00Z", // Europe's fall back
	"1985-07-01T00:00:00Z", "1900-01-01T00:00:00Z",
}

var zoneAuditOptions = []string{
	`{"timeZoneName":"long"}`, `{"timeZoneName":"short"}`, `{"timeZoneName":"longGeneric"}`,
	`{"timeZoneName":"shortGeneric"}`, `{"timeStyle":"full"}`, `{"dateStyle":"short","timeStyle":"long"}`,
	`{"hour":"numeric","minute":"2-digit","timeZoneName":"long"}`, `{"timeZoneName":"longOffset"}`,
	`{"hour":"2-digit","minute":"2-digit","timeZoneName":"short"}`,
	`{"hour":"numeric","minute":"2-digit","second":"2-digit","hour12":false,"timeZoneName":"longGeneric"}`,
	`{"weekday":"long","month":"long","day":"numeric","hour":"numeric","minute":"2-digit","timeZoneName":"shortGeneric"}`,
}

// zoneAuditLocales are the linked locales, as their translators name them.
func zoneAuditLocales() []string {
	var out []string
	for _, tr := range translators {
		out = append(out, strings.ReplaceAll(tr().Locale(), "_", "-"))
	}
	sort.Strings(out)
	return out
}

// zoneNameDifferences are the outputs, "locale zone options instant", that
// differ from Node's, each with the reason. Each must still differ (the test
// says when one starts to match).
var zoneNameDifferences = map[string]string{}

// zoneOnlyLocales differ from Node elsewhere than in zone names (none
// since Traditional Chinese day periods and date-time joins match): the
// audit compares their zone names only, and requires the rest to differ
// still somewhere.
var zoneOnlyLocales = []string{}

// zoneParts are the timeZoneName parts of formatToParts' output.
func zoneParts(t *testing.T, parts string) []string {
	var ps [][2]string
	require.NoError(t, json.Unmarshal([]byte(parts), &ps), parts)
	var out []string
	for _, p := range ps {
		if p[0] == "timeZoneName" {
			out = append(out, p[1])
		}
	}
	return out
}

const zoneNode = `
const [locales, zones, instants, options] = JSON.parse(require("fs").readFileSync(0, "utf8"));
const ms = instants.map((d) => Date.parse(d));
const out = [];
for (const l of locales) for (const z of zones) for (const o of options) {
  const opts = Object.assign({ timeZone: z }, JSON.parse(o));
  const f = new Intl.DateTimeFormat(l, opts);
  out.push(ms.map((v) => JSON.stringify(f.formatToParts(v).map((p) => [p.type, p.value]))));
  const call = (m, v) => { try { return new Date(v)[m](l, opts); } catch (e) { return String(e); } };
  out.push([call("toLocaleString", ms[0]), call("toLocaleTimeString", ms[1])]);
}
process.stdout.write(JSON.stringify(out));
`

func TestZoneNamesMatchNode(t *testing.T) {
	node := requireNode(t, "audit zone names")
	locales := zoneAuditLocales()
	in, err := json.Marshal([]any{locales, zoneAuditZones, zoneAuditInstants, zoneAuditOptions})
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", zoneNode)
	cmd.Env = nodeEnv()
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var want [][]string
	require.NoError(t, json.Unmarshal(b, &want))
	require.Len(t, want, 2*len(locales)*len(zoneAuditZones)*len(zoneAuditOptions))

	h := New()
	compared, bad := 0, 0
	differs := map[string]bool{}
	var dump *os.File
	if p := os.Getenv("ZONE_AUDIT_DUMP"); p != "" {
		dump, _ = os.Create(p)
		defer dump.Close()
	}
	lastParts := "[]"               // the parts of the last toLocale*String output
	otherDiffs := map[string]bool{} // zoneOnlyLocales that differ elsewhere
	check := func(key, got, w string) {
		compared++
		if dump != nil && got != w {
			fmt.Fprintf(dump, "%s\n  airlock: %s\n  node:    %s\n", key, got, w)
		}
		if l, _, _ := strings.Cut(key, " "); slices.Contains(zoneOnlyLocales, l) && got != w {
			otherDiffs[l] = true
			if strings.HasPrefix(got, "[") {
				got, w = fmt.Sprint(zoneParts(t, got)), fmt.Sprint(zoneParts(t, w))
			} else if zs := zoneParts(t, lastParts); len(zs) == 1 {
				// A toLocale*String: its zone name and what follows it
				// (" [太平洋時間]") end both.
				_, tail, _ := strings.Cut(got, zs[0])
				if strings.HasSuffix(w, zs[0]+tail) {
					w = got
				}
			}
		}
		if _, listed := zoneNameDifferences[key]; listed {
			differs[key] = got != w
			return
		}
		if got != w {
			bad++
			if bad <= 60 {
				t.Errorf("%s\n  airlock: %s\n  node:    %s", key, got, w)
			}
		}
	}
	i := 0
	for _, l := range locales {
		for _, z := range zoneAuditZones {
			for _, opt := range zoneAuditOptions {
				var o map[string]any
				require.NoError(t, json.Unmarshal([]byte(opt), &o))
				o["timeZone"] = z
				o["required"], o["defaults"] = "any", "date"
				v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{l}, O: mustJSON(o)})
				require.NoError(t, err)
				f := v.(*dtAnswer).format
				for di, d := range zoneAuditInstants {
					parts, err := f(msOfISO(t, d))
					require.NoError(t, err)
					check(fmt.Sprintf("%s %s %s %s", l, z, opt, d), string(mustJSON(parts)), want[i][di])
				}
				i++
				for k, kind := range []string{"toLocaleString", "toLocaleTimeString"} {
					o["required"], o["defaults"] = "any", "all"
					if kind == "toLocaleTimeString" {
						o["required"], o["defaults"] = "time", "time"
					}
					v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{l}, O: mustJSON(o)})
					if err != nil {
						check(fmt.Sprintf("%s %s %s %s", l, z, opt, kind), err.Error(), want[i][k])
						continue
					}
					parts, err := v.(*dtAnswer).format(msOfISO(t, zoneAuditInstants[k]))
					require.NoError(t, err)
					// V8's toLocaleString writes a space for ICU's U+202F.
					lastParts = string(mustJSON(parts))
					check(fmt.Sprintf("%s %s %s %s", l, z, opt, kind), strings.ReplaceAll(joinParts(parts), "\u202f", " "), want[i][k])
				}
				i++
			}
		}
	}
	for _, l := range zoneOnlyLocales {
		if !otherDiffs[l] {
			t.Errorf("%s now matches Node: remove it from zoneOnlyLocales", l)
		}
	}
	for key := range zoneNameDifferences {
		if !differs[key] {
			t.Errorf("%s now matches Node (or is not audited): remove it from zoneNameDifferences", key)
		}
	}
	t.Logf("%d locales × %d zones × %d options: %d outputs compared with Node; %d differ", len(locales), len(zoneAuditZones), len(zoneAuditOptions), compared, bad)
}

func msOfISO(t *testing.T, s string) float64 {
	tm, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return float64(tm.UnixMilli())
}

const everyZoneNode = `
const [locales, zones, instants, styles] = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = [zones.map((z) => { try { return new Intl.DateTimeFormat("en", { timeZone: z }).resolvedOptions().timeZone; } catch (e) { return null; } })];
for (const l of locales) for (const z of zones) for (const s of styles) {
  let f;
  try { f = new Intl.DateTimeFormat(l, { timeZone: z, timeZoneName: s }); } catch (e) { out.push(null); continue; }
  out.push(instants.map((t) => f.formatToParts(t).find((p) => p.type === "timeZoneName").value));
}
process.stdout.write(JSON.stringify(out));
`

// zonesGone are names ICU still knows that the tz database (Go's) dropped
// long ago: airlock refuses them (RangeError) where Node names them.
var zonesGone = []string{"Canada/East-Saskatchewan", "US/Pacific-New"}

// TestZoneNamesEveryZoneMatchNode names every zone CLDR knows (and its IANA
// aliases) in a few locales, in the four name styles, in winter and summer
// of 2024, in 1985, 2000 and 2100 and at the end of time (+275760, when
// no zone has a metazone), as Node does.
func TestZoneNamesEveryZoneMatchNode(t *testing.T) {
	node := requireNode(t, "audit zone names")
	zones := make([]string, 0, len(zoneMetazones)+len(zoneAliases))
	for z := range zoneMetazones {
		zones = append(zones, z)
	}
	for z := range zoneAliases {
		zones = append(zones, z)
	}
	sort.Strings(zones)
	locales := []string{"en-US", "en-GB", "de", "ja", "hi", "pt-PT", "fr-CA"}
	styles := []string{"long", "short", "longGeneric", "shortGeneric"}
	// Before 1970 the tz database's builds differ (with or without its
	// backzone file), Go's system copy and ICU's among them.
	instants := []float64{1705320000000, 1721044800000, 489024000000, 946684800000, 4118083200000, 8.64e15}
	in, err := json.Marshal([]any{locales, zones, instants, styles})
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", everyZoneNode)
	cmd.Env = nodeEnv()
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var want [][]string
	require.NoError(t, json.Unmarshal(b, &want))
	require.Len(t, want, 1+len(locales)*len(zones)*len(styles))

	h := New()
	i, compared, bad, skipped := 1, 0, 0, 0
	for zi, z := range zones {
		// resolvedOptions().timeZone: CLDR's ID (Asia/Kolkata is Asia/Calcutta).
		w := want[0][zi]
		if w == "" || slices.Contains(zonesGone, z) {
			continue
		}
		v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{"en"}, O: mustJSON(map[string]string{"timeZone": z})})
		require.NoError(t, err, z)
		compared++
		if got := v.(*dtAnswer).R.TimeZone; got != w {
			bad++
			t.Errorf("%s resolvedOptions().timeZone: airlock %q, node %q", z, got, w)
		}
	}
	for _, l := range locales {
		for _, z := range zones {
			for _, s := range styles {
				w := want[i]
				i++
				v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{l}, O: mustJSON(map[string]string{"timeZone": z, "timeZoneName": s})})
				if w == nil {
					skipped++ // Node's ICU does not know the name
					continue
				}
				if gone := slices.Contains(zonesGone, z); gone || err != nil {
					if !gone || err == nil {
						bad++
						t.Errorf("%s %s: airlock %v, node %q (zonesGone lists it: %v)", l, z, err, w, gone)
					}
					continue
				}
				for ti, ms := range instants {
					parts, err := v.(*dtAnswer).format(ms)
					require.NoError(t, err)
					got := ""
					for _, p := range parts {
						if p[0] == "timeZoneName" {
							got = p[1]
						}
					}
					compared++
					if got != w[ti] {
						bad++
						if bad <= 60 {
							t.Errorf("%s %s %s %v: airlock %q, node %q", l, z, s, time.UnixMilli(int64(ms)).UTC().Format("2006-01-02"), got, w[ti])
						}
					}
				}
			}
		}
	}
	t.Logf("%d zones × %d locales × %d styles: %d names compared with Node (%d zone names Node refuses); %d differ", len(zones), len(locales), len(styles), compared, skipped, bad)
}
