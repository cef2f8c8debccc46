package intl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The pattern audit: for every linked locale, many combinations of
// Intl.DateTimeFormat's component options (weekday, era, year, month, day,
// hour, minute, second, timeZoneName in each width, with and without
// hour12 and hourCycle; fractionalSecondDigits) and of dateStyle and
// timeStyle with the hour cycles, compared with Node 20: resolvedOptions() and format() of a few
// instants. It checks the pattern airlock's generator (buildPattern)
// chooses against the one ICU's DateTimePatternGenerator chooses in V8.

// dtPatternCycles are the hour12 and hourCycle variants of each set.
var dtPatternCycles = []string{``, `"hour12":true`, `"hour12":false`, `"hourCycle":"h11"`, `"hourCycle":"h12"`, `"hourCycle":"h23"`, `"hourCycle":"h24"`}

// dtPatternOptions are the option sets compared, as JSON.
func dtPatternOptions() []string {
	var out []string
	add := func(kv ...string) {
		var s []string
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] != "" {
				s = append(s, fmt.Sprintf("%q:%q", kv[i], kv[i+1]))
			}
		}
		if len(s) > 0 {
			out = append(out, "{"+strings.Join(s, ",")+"}")
		}
	}
	text := []string{"", "narrow", "short", "long"}
	num := []string{"", "numeric", "2-digit"}
	months := []string{"", "numeric", "2-digit", "narrow", "short", "long"}
	// Dates.
	for _, w := range text {
		for _, y := range num {
			for _, m := range months {
				for _, d := range num {
					add("weekday", w, "year", y, "month", m, "day", d)
				}
			}
		}
	}
	// Eras.
	for _, g := range text[1:] {
		for _, y := range num {
			for _, m := range []string{"", "numeric", "short", "long"} {
				for _, d := range []string{"", "numeric"} {
					add("era", g, "year", y, "month", m, "day", d)
				}
			}
		}
	}
	// Times in each cycle.
	for _, c := range dtPatternCycles {
		for _, h := range num {
			for _, mi := range num {
				for _, s := range num {
					if h+mi+s == "" {
						continue
					}
					o := []string{"hour", h, "minute", mi, "second", s}
					n := len(out)
					add(o...)
					if c != "" && len(out) > n {
						out[n] = strings.TrimSuffix(out[n], "}") + "," + c + "}"
					}
				}
			}
		}
	}
	// Dates with times.
	for _, c := range []string{``, `"hour12":true`, `"hourCycle":"h23"`, `"hour12":false`} {
		for _, w := range text {
			for _, m := range []string{"", "numeric", "short", "long"} {
				for _, d := range []string{"", "numeric"} {
					for _, y := range []string{"", "numeric"} {
						for _, h := range []string{"numeric", "2-digit"} {
							for _, mi := range []string{"", "2-digit"} {
								if w+m+d+y == "" {
									continue
								}
								n := len(out)
								add("weekday", w, "year", y, "month", m, "day", d, "hour", h, "minute", mi)
								if c != "" {
									out[n] = strings.TrimSuffix(out[n], "}") + "," + c + "}"
								}
							}
						}
					}
				}
			}
		}
	}
	// Zone names.
	for _, z := range []string{"short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"} {
		for _, c := range []string{``, `"hour12":true`, `"hourCycle":"h23"`} {
			for _, f := range [][]string{
				{}, {"hour", "numeric"}, {"hour", "numeric", "minute", "2-digit"}, {"hour", "2-digit", "minute", "2-digit"},
				{"hour", "numeric", "minute", "numeric", "second", "numeric"}, {"minute", "numeric"},
				{"year", "numeric", "month", "numeric", "day", "numeric"}, {"month", "short", "day", "numeric", "hour", "numeric", "minute", "2-digit"},
				{"weekday", "long", "hour", "numeric", "minute", "2-digit"},
			} {
				n := len(out)
				add(append([]string{"timeZoneName", z}, f...)...)
				if c != "" {
					out[n] = strings.TrimSuffix(out[n], "}") + "," + c + "}"
				}
			}
		}
	}
	// Fractional seconds, which airlock does not write (README.md): listed
	// in testdata/dtpattern_differences.txt.
	for _, n := range []string{"1", "2", "3"} {
		out = append(out, `{"second":"numeric","fractionalSecondDigits":`+n+`}`,
			`{"hour":"numeric","minute":"2-digit","second":"2-digit","fractionalSecondDigits":`+n+`}`)
	}
	// Styles.
	for _, c := range dtPatternCycles {
		for _, d := range []string{"", "full", "long", "medium", "short"} {
			for _, t := range []string{"", "full", "long", "medium", "short"} {
				if d+t == "" {
					continue
				}
				n := len(out)
				add("dateStyle", d, "timeStyle", t)
				if c != "" {
					out[n] = strings.TrimSuffix(out[n], "}") + "," + c + "}"
				}
			}
		}
	}
	return out
}

// dtPatternInstants: a Monday's midnight (where hour cycles differ), a
// summer afternoon and a date before the era.
var dtPatternInstants = []string{"2024-01-15T00:05:09Z", "2024-07-04T15:30:45Z", "-000100-03-01T12:00:00Z"}

const dtPatternNode = `
const [locales, options, instants] = JSON.parse(require("fs").readFileSync(0, "utf8"));
const ms = instants.map((d) => Date.parse(d));
const out = [];
for (const l of locales) for (const os of options) {
  try {
    const f = new Intl.DateTimeFormat(l, Object.assign({ timeZone: "UTC" }, JSON.parse(os)));
    out.push([JSON.stringify(f.resolvedOptions()), ...ms.map((v) => f.format(v))]);
  } catch (e) {
    out.push([String(e)]);
  }
}
process.stdout.write(JSON.stringify(out));
`

func TestDatePatternsMatchNode(t *testing.T) {
	node := requireNode(t, "audit date patterns")
	locales, opts := timeLocales(), dtPatternOptions()
	var want [][]string
	nodeJSON(t, node, dtPatternNode, []any{locales, opts, dtPatternInstants}, &want)
	require.Len(t, want, len(locales)*len(opts))
	ms := nodeDates(t, node, dtPatternInstants)
	known := map[string]bool{}
	for _, k := range dtPatternDifferences() {
		known[k] = true
	}
	var dump *bufio.Writer
	if p := os.Getenv("DTPATTERN_AUDIT_DUMP"); p != "" {
		f, err := os.Create(p)
		require.NoError(t, err)
		defer f.Close()
		dump = bufio.NewWriter(f)
		defer dump.Flush()
	}
	h := New()
	compared, bad, listed := 0, 0, 0
	differs := map[string]bool{}
	next := 0
	for _, l := range locales {
		for _, os := range opts {
			w := want[next]
			next++
			key := l + " " + os
			var diffs []string
			var o map[string]any
			require.NoError(t, json.Unmarshal([]byte(os), &o))
			o["timeZone"], o["required"], o["defaults"] = "UTC", "any", "date"
			v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{l}, O: mustJSON(o)})
			compared++
			switch {
			case len(w) == 1:
				if err == nil || err.Error() != w[0] {
					diffs = append(diffs, fmt.Sprintf("error: airlock %v, node %s", err, w[0]))
				}
			case err != nil:
				diffs = append(diffs, fmt.Sprintf("error: airlock %v", err))
			default:
				ans := v.(*dtAnswer)
				if r := string(mustJSON(ans.R)); r != w[0] {
					diffs = append(diffs, fmt.Sprintf("resolvedOptions\n  airlock: %s\n  node:    %s", r, w[0]))
				}
				for i := range ms {
					parts, err := ans.format(ms[i])
					require.NoError(t, err)
					compared++
					if got := strings.ReplaceAll(joinParts(parts), "\u202f", " "); got != w[i+1] {
						diffs = append(diffs, fmt.Sprintf("%s\n  airlock: %q\n  node:    %q", dtPatternInstants[i], got, w[i+1]))
					}
				}
			}
			if len(diffs) == 0 {
				continue
			}
			differs[key] = true
			if dump != nil {
				fmt.Fprintf(dump, "%s %s\n", key, strings.Join(diffs, "\n"))
			}
			if known[key] {
				listed++
				continue
			}
			bad++
			if bad <= 40 {
				t.Errorf("%s %s", key, strings.Join(diffs, "\n"))
			}
		}
	}
	var gone []string
	for k := range known {
		if !differs[k] {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	for i, k := range gone {
		if i < 40 {
			t.Errorf("%s now matches Node: remove it from testdata/dtpattern_differences.txt", k)
		}
	}
	t.Logf("%d locales × %d option sets: %d outputs and resolvedOptions compared with Node; %d sets differ unlisted, %d listed, %d listed now match",
		len(locales), len(opts), compared, bad, listed, len(gone))
}

// dtPatternDifferences are the (locale, options) pairs known to differ
// from Node, from testdata/dtpattern_differences.txt (guest-sdk/js/README.md
// says why).
func dtPatternDifferences() []string {
	b, err := os.ReadFile("testdata/dtpattern_differences.txt")
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}
