package intl

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The times audit (issue 23): every linked locale (and the Chinese
// regions Node tells apart: zh-TW, zh-HK, zh-MO) formats the hours of a
// day and a few dates with the hour-cycle, style and dayPeriod options as
// Node 20 does: format, formatToParts and resolvedOptions of
// Intl.DateTimeFormat, and toLocaleString, toLocaleDateString and
// toLocaleTimeString.

// timeInstants are every hour of a day, the minutes and seconds around
// noon and midnight (where the flexible day periods name noon), and a few
// dates.
func timeInstants() []string {
	var out []string
	for h := 0; h < 24; h++ {
		out = append(out, fmt.Sprintf("2024-01-01T%02d:00:00Z", h))
	}
	return append(out, "2024-01-01T12:00:05Z", "2024-01-01T12:30:00Z", "2024-01-01T00:00:05Z", "2024-01-01T05:30:00Z",
		"1970-01-01T00:00:00Z", "2024-07-15T18:45:30Z", "2023-12-31T23:59:59Z")
}

// timeOptions are the options compared; the kinds after "|" say which of
// toLocaleString (s), toLocaleDateString (d) and toLocaleTimeString (t)
// also run with them (Intl.DateTimeFormat always does).
var timeOptions = []string{
	`{}|sdt`, `{"hour12":true}|st`, `{"hour12":false}|st`, `{"hourCycle":"h11"}|st`, `{"hourCycle":"h12"}|st`,
	`{"hourCycle":"h23"}|st`, `{"hourCycle":"h24"}|st`,
	`{"hour":"numeric"}|`, `{"hour":"numeric","minute":"2-digit"}|`, `{"hour":"2-digit","minute":"2-digit","hour12":true}|`,
	`{"hour":"numeric","minute":"2-digit","hourCycle":"h23"}|`,
	`{"timeStyle":"short"}|`, `{"timeStyle":"medium"}|`, `{"timeStyle":"long"}|`, `{"timeStyle":"full"}|`,
	`{"timeStyle":"short","hour12":true}|`, `{"timeStyle":"short","hour12":false}|`, `{"timeStyle":"medium","hourCycle":"h11"}|`,
	`{"timeStyle":"medium","hourCycle":"h23"}|`,
	`{"dateStyle":"short","timeStyle":"short"}|`, `{"dateStyle":"medium","timeStyle":"medium"}|`, `{"dateStyle":"long","timeStyle":"short"}|`,
	`{"dateStyle":"full","timeStyle":"long"}|`,
	`{"dayPeriod":"narrow"}|st`, `{"dayPeriod":"short"}|`, `{"dayPeriod":"long"}|`,
	`{"hour":"numeric","dayPeriod":"narrow"}|`, `{"hour":"numeric","dayPeriod":"short"}|`, `{"hour":"numeric","dayPeriod":"long"}|st`,
	`{"hour":"numeric","minute":"numeric","dayPeriod":"short"}|`, `{"hour":"2-digit","minute":"2-digit","second":"2-digit","dayPeriod":"long"}|`,
	`{"hour":"numeric","dayPeriod":"long","hour12":false}|`, `{"hour":"numeric","dayPeriod":"long","hourCycle":"h11"}|`,
	`{"hour":"numeric","dayPeriod":"long","hourCycle":"h12"}|`,
	`{"weekday":"short","hour":"numeric","minute":"numeric","dayPeriod":"short"}|`,
	`{"year":"numeric","month":"numeric","day":"numeric","hour":"numeric","minute":"numeric","dayPeriod":"long"}|`,
	`{"dateStyle":"short","dayPeriod":"long"}|`, `{"dayPeriod":"medium"}|`,
	`{"hour":"numeric","hour12":false}|`, `{"hour":"numeric","minute":"numeric","second":"numeric","hourCycle":"h24"}|`,
	`{"weekday":"short","hour":"numeric","minute":"2-digit","hourCycle":"h23"}|`,
	`{"month":"short","day":"numeric","hour":"numeric","minute":"2-digit","hour12":false}|`,
	`{"hour":"2-digit","minute":"2-digit","hourCycle":"h23"}|`, `{"hour":"numeric","minute":"2-digit","hourCycle":"h11"}|`,
}

// timeDifferences are the (locale, timeOptions index) pairs still known
// to differ from Node (guest-sdk/js/README.md). Each must still differ:
// the test says when one starts to match. None is left since the pattern
// generator (dtpatgen.go) chooses patterns as ICU's does.
var timeDifferences = map[string][]int{}

func timeLocales() []string {
	seen := map[string]bool{}
	var out []string
	for _, tr := range translators {
		l := strings.ReplaceAll(tr().Locale(), "_", "-")
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	out = append(out, "zh-TW", "zh-HK", "zh-MO", "zh-Hant", "zh-Hant-HK")
	sort.Strings(out)
	return out
}

const timesNode = `
const [locales, options, instants] = JSON.parse(require("fs").readFileSync(0, "utf8"));
const ms = instants.map((d) => Date.parse(d));
const out = [];
for (const l of locales) for (const spec of options) {
  const [os, kinds] = spec.split("|");
  const o = Object.assign({ timeZone: "UTC" }, JSON.parse(os));
  const run = (k) => {
    try {
      if (k === "f") {
        const f = new Intl.DateTimeFormat(l, o);
        return [JSON.stringify(f.resolvedOptions()), ...ms.map((v) => f.format(v) + "\n" + JSON.stringify(f.formatToParts(v).map((p) => [p.type, p.value])))];
      }
      const m = { s: "toLocaleString", d: "toLocaleDateString", t: "toLocaleTimeString" }[k];
      return ["", ...ms.map((v) => new Date(v)[m](l, o))];
    } catch (e) {
      return [String(e)];
    }
  };
  for (const k of "f" + kinds) out.push(run(k));
}
process.stdout.write(JSON.stringify(out));
`

func TestTimesMatchNode(t *testing.T) {
	node := requireNode(t, "audit times")
	locales, instants := timeLocales(), timeInstants()
	var want [][]string
	nodeJSON(t, node, timesNode, []any{locales, timeOptions, instants}, &want)
	ms := nodeDates(t, node, instants)
	var dump *os.File
	if p := os.Getenv("TIMES_AUDIT_DUMP"); p != "" {
		dump, _ = os.Create(p)
		defer dump.Close()
	}
	h := New()
	compared, bad, listed := 0, 0, 0
	differs := map[string]bool{}
	next := 0
	for _, l := range locales {
		for oi, spec := range timeOptions {
			opts, kinds, _ := strings.Cut(spec, "|")
			key := fmt.Sprintf("%s %d", l, oi)
			known := false
			for _, i := range timeDifferences[l] {
				known = known || i == oi
			}
			report := func(format string, a ...any) {
				differs[key] = true
				if dump != nil {
					fmt.Fprintf(dump, format+"\n", a...)
				}
				if known {
					listed++
					return
				}
				bad++
				if bad <= 40 {
					t.Errorf(format, a...)
				}
			}
			for _, k := range "f" + kinds {
				w := want[next]
				next++
				var o map[string]any
				require.NoError(t, json.Unmarshal([]byte(opts), &o))
				o["timeZone"] = "UTC"
				switch k {
				case 'f':
					o["required"], o["defaults"] = "any", "date"
				case 's':
					o["required"], o["defaults"] = "any", "all"
				case 'd':
					o["required"], o["defaults"] = "date", "date"
				case 't':
					o["required"], o["defaults"] = "time", "time"
				}
				v, err := h.dateTimeFormat(&request{Op: "dtf", L: []string{l}, O: mustJSON(o)})
				if len(w) == 1 {
					compared++
					if err == nil || err.Error() != w[0] {
						report("%s %s %c: airlock %v, node %s", l, opts, k, err, w[0])
					}
					continue
				}
				if err != nil {
					compared++
					report("%s %s %c: %v", l, opts, k, err)
					continue
				}
				ans := v.(*dtAnswer)
				if k == 'f' {
					compared++
					if r := string(mustJSON(ans.R)); r != w[0] {
						report("%s %s resolvedOptions\n  airlock: %s\n  node:    %s", l, opts, r, w[0])
					}
				}
				for i, d := range instants {
					parts, err := ans.format(ms[i])
					require.NoError(t, err)
					compared++
					got := strings.ReplaceAll(joinParts(parts), "\u202f", " ")
					if k == 'f' {
						got += "\n" + string(mustJSON(parts))
					}
					if got != w[i+1] {
						report("%s %s %c %s\n  airlock: %q\n  node:    %q", l, opts, k, d, got, w[i+1])
					}
				}
			}
		}
	}
	require.Equal(t, len(want), next)
	for l, is := range timeDifferences {
		for _, oi := range is {
			if !differs[fmt.Sprintf("%s %d", l, oi)] {
				t.Errorf("%s %s now matches Node: remove it from timeDifferences", l, timeOptions[oi])
			}
		}
	}
	t.Logf("%d outputs and resolvedOptions compared with Node; %d differ unlisted, %d listed", compared, bad, listed)
}
