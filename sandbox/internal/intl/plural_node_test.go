package intl

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The plural rules audit (issue 23): every linked locale (and the region
// variants whose plural rules ICU finds another way) selects the plural
// category of a few hundred numbers, cardinal and ordinal, with several
// digit options, and lists its categories, as Node 20 does; and the
// formatters that pick a plural form (compact long names, unit and
// currency names, relative times) pick the same one.
//
// Reference: Node 20.20's ICU 78.2 carries CLDR 48.0, the version of
// plurals_gen.go (internal/genplural).

// pluralExtraLocales are variants beside the linked locales, audited for
// PluralRules only (their other data, units or relative times, is not
// all linked): pt-PT has rules of its own, the other Portuguese regions
// take Brazil's (ICU truncates the tag; CLDR's parent of pt-AO is pt-PT).
var pluralExtraLocales = []string{"pt-AO", "pt-MO", "pt-CH", "pt-LU", "fr-CH", "fr-BE", "es-419", "es-AR", "en-150",
	"en-IE", "de-LI", "it-CH", "zh-Hant", "zh-HK", "ar-SA", "ar-MA", "nl-BE", "sv-FI", "ru-UA"}

// pluralOptions are the PluralRules option sets of the audit: each
// changes the digits the rules read (v, f, t and the rounded i).
var pluralOptions = []string{
	`{}`,
	`{"minimumFractionDigits":1}`,
	`{"minimumFractionDigits":2,"maximumFractionDigits":2}`,
	`{"maximumFractionDigits":0}`,
	`{"maximumSignificantDigits":1}`,
	`{"maximumSignificantDigits":2}`,
	`{"minimumSignificantDigits":3}`,
	`{"minimumIntegerDigits":3,"maximumFractionDigits":1}`,
}

// pluralValues are the numbers of the audit (JS expressions).
func pluralValues() []string {
	var vs []string
	for i := 0; i <= 200; i++ {
		vs = append(vs, fmt.Sprint(i))
	}
	for i := 1; i <= 35; i++ {
		if i%10 != 0 {
			vs = append(vs, fmt.Sprintf("%d.%d", i/10, i%10))
		}
	}
	return append(vs, "0.01", "0.05", "1.05", "1.25", "1.50", "2.75", "10.5", "100.5", "1000.5", "1001", "1000", "1e4",
		"1e5", "1e6", "2e6", "1.5e6", "1000001", "3e6", "1e7", "2.5e7", "1e9", "1e12", "1e15", "1e17", "1e18", "1e21", "2e21",
		"-0", "-1", "-2", "-1.5", "-5", "-21", "-1e6", "NaN", "Infinity", "-Infinity", "0.999", "0.9999", "1.0001", "2.0000001e6")
}

// pluralFormatOptions are NumberFormat option sets whose output depends
// on a plural form, formatted at pluralFormatValues.
var pluralFormatOptions = []string{
	`{"notation":"compact","compactDisplay":"long"}`,
	`{"notation":"compact","compactDisplay":"long","maximumFractionDigits":2}`,
	`{"notation":"compact"}`,
	`{"notation":"compact","style":"unit","unit":"meter","unitDisplay":"long"}`,
	`{"notation":"compact","style":"currency","currency":"EUR","currencyDisplay":"name"}`,
	`{"notation":"compact","compactDisplay":"long","style":"currency","currency":"USD","currencyDisplay":"name"}`,
	`{"notation":"compact","compactDisplay":"long","style":"currency","currency":"USD"}`,
	`{"notation":"compact","compactDisplay":"long","style":"unit","unit":"meter"}`,
	`{"style":"unit","unit":"day","unitDisplay":"long"}`,
	`{"style":"unit","unit":"kilogram","unitDisplay":"long","minimumFractionDigits":1}`,
	`{"style":"currency","currency":"USD","currencyDisplay":"name"}`,
}

var pluralFormatValues = []string{"0", "1", "2", "3", "5", "11", "21", "22", "25", "101", "1.5", "0.5", "1000", "1500", "2000", "21000",
	"1e6", "1.5e6", "2e6", "2100001", "5e6", "1e9", "2e9", "1e12", "1e15", "-1", "-2e6"}

// pluralRangeEnds are the ends of the selectRange audit, each range from
// one to another (both ways), under the first two pluralOptions.
var pluralRangeEnds = []string{"0", "1", "2", "3", "5", "11", "21", "0.5", "1.5", "1e6", "Infinity"}

// pluralDifferences are the checks where airlock is known to answer
// otherwise than Node, by prefix, with the reason; each prefix must still
// cover a check that differs (the test says when none does). A check is
// "locale|type|options|value" for select, "locale|type|options|resolved"
// for resolvedOptions, "locale|nf|options|value" and "locale|rt|value"
// for the formatters. None is about the plural form: each is a pattern
// or symbol difference of the formatter the check goes through.
var pluralDifferences = map[string]string{
	`tr-TR|nf|{"notation":"compact","style":"currency","currency":"EUR","currencyDisplay":"name"}|`:                         "compact money by name: ICU 78 keeps the symbol of Turkey's currency-specific pattern in Turkish names; airlock uses CLDR's unit pattern around the compact number",
	`tr-TR|nf|{"notation":"compact","compactDisplay":"long","style":"currency","currency":"USD","currencyDisplay":"name"}|`: "same",
	`de-AT|nf|{"notation":"compact","compactDisplay":"long","style":"currency","currency":"USD"}|`:                          "compact money takes CLDR's short currency patterns in ICU (de-AT \"1 Mio. $\"); airlock puts the locale's currency pattern around the compact number (\"$ 1 Mio.\"), with compactDisplay short as well",
	`de-CH|nf|{"notation":"compact","compactDisplay":"long","style":"currency","currency":"USD"}|-`:                         "same, for the minus sign's place (de-CH \"-$ 2 Mio.\")",
	`nl|nf|{"notation":"compact","compactDisplay":"long","style":"currency","currency":"USD"}|-`:                            "same (nl \"-US$ 2 mln.\")",
	`nl-NL|nf|{"notation":"compact","compactDisplay":"long","style":"currency","currency":"USD"}|-`:                         "same",
	`ar|nf|{"notation":"compact","compactDisplay":"long","style":"currency","currency":"USD"}|-`:                            "same (the order of the minus sign's marks)",
}

const pluralNode = `
const [locales, linked, options, values, fmtOptions, fmtValues, rangeEnds] = JSON.parse(process.argv[1]);
const out = { values: values.map((v) => String(eval(v))), fmtValues: fmtValues.map((v) => String(eval(v))), locales: {} };
for (const l of locales) {
  const r = { pl: {}, nf: {}, rt: [] };
  for (const type of ["cardinal", "ordinal"]) {
    for (const o of options) {
      const pr = new Intl.PluralRules(l, { ...JSON.parse(o), type });
      r.pl[type + "|" + o] = [JSON.stringify(pr.resolvedOptions()), ...values.map((v) => pr.select(eval(v)))];
      if (o === options[0] || o === options[1]) {
        r.pl[type + "|" + o + "|range"] = rangeEnds.flatMap((a) => rangeEnds.map((b) => pr.selectRange(eval(a), eval(b))));
      }
    }
  }
  if (!linked.includes(l)) { out.locales[l] = r; continue; }
  for (const o of fmtOptions) {
    const nf = new Intl.NumberFormat(l, JSON.parse(o));
    r.nf[o] = fmtValues.map((v) => nf.format(eval(v)));
  }
  const rt = new Intl.RelativeTimeFormat(l);
  r.rt = fmtValues.map((v) => rt.format(eval(v), "day"));
  out.locales[l] = r;
}
console.log(JSON.stringify(out));
`

// jsNumberText is how JS prints the numbers of pluralRangeEnds.
func jsNumberText(s string) string {
	if s == "1e6" {
		return "1000000"
	}
	return s
}

// pluralAuditLocales are the linked locales and pluralExtraLocales.
func pluralAuditLocales() (all, linked []string) {
	for _, t := range supported().tags {
		linked = append(linked, t.String())
	}
	return append(slices.Clone(linked), pluralExtraLocales...), linked
}

func TestPluralRulesMatchNode(t *testing.T) {
	node := requireNode(t, "audit plural rules")
	locales, linked := pluralAuditLocales()
	arg, err := json.Marshal([]any{locales, linked, pluralOptions, pluralValues(), pluralFormatOptions, pluralFormatValues, pluralRangeEnds})
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", pluralNode, string(arg))
	cmd.Env = nodeEnv()
	b, err := cmd.Output()
	require.NoError(t, err)
	var want struct {
		Values    []string `json:"values"`
		FmtValues []string `json:"fmtValues"`
		Locales   map[string]struct {
			PL map[string][]string `json:"pl"`
			NF map[string][]string `json:"nf"`
			RT []string            `json:"rt"`
		} `json:"locales"`
	}
	require.NoError(t, json.Unmarshal(b, &want))
	require.Len(t, want.Locales, len(locales))

	h := New()
	ask := func(req string) json.RawMessage {
		out := h.Handle([]byte(req))
		require.NotContains(t, string(out), `"e":`, req)
		return out
	}
	seen := map[string]bool{}
	compared, bad, listedBad := 0, 0, 0
	badLocs := map[string]bool{}
	check := func(l, key, got, node string) {
		compared++
		id := l + "|" + key
		prefix, listed := "", false
		for p := range pluralDifferences {
			if strings.HasPrefix(id, p) {
				prefix, listed = p, true
			}
		}
		switch {
		case listed && got != node:
			seen[prefix] = true
			listedBad++
		case listed:
		case got != node:
			bad++
			badLocs[l] = true
			if bad <= 60 {
				t.Errorf("%s\n  airlock: %q\n  node:    %q", id, got, node)
			}
		}
	}
	for _, l := range locales {
		w := want.Locales[l]
		for _, typ := range []string{"cardinal", "ordinal"} {
			for _, o := range pluralOptions {
				key := typ + "|" + o
				nw := w.PL[key]
				require.Len(t, nw, len(want.Values)+1, key)
				opts := strings.TrimSuffix(o, "}")
				if opts != "{" {
					opts += ","
				}
				opts += `"type":"` + typ + `"}`
				var ans struct {
					R json.RawMessage `json:"r"`
				}
				require.NoError(t, json.Unmarshal(ask(`{"op":"pl","l":["`+l+`"],"o":`+opts+`}`), &ans))
				check(l, key+"|resolved", string(ans.R), nw[0])
				if rw, ok := w.PL[key+"|range"]; ok {
					require.Len(t, rw, len(pluralRangeEnds)*len(pluralRangeEnds), key)
					for ai, a := range pluralRangeEnds {
						for bi, b := range pluralRangeEnds {
							var sel struct {
								S string `json:"s"`
							}
							a, b := jsNumberText(a), jsNumberText(b)
							require.NoError(t, json.Unmarshal(ask(`{"op":"pl","l":["`+l+`"],"o":`+string(ans.R)+`,"v":"`+a+`","w":"`+b+`"}`), &sel))
							check(l, key+"|range|"+a+"|"+b, sel.S, rw[ai*len(pluralRangeEnds)+bi])
						}
					}
				}
				// select() sends the resolved options back, as the guest does.
				for vi, v := range want.Values {
					var sel struct {
						S string `json:"s"`
					}
					vj, _ := json.Marshal(v)
					require.NoError(t, json.Unmarshal(ask(`{"op":"pl","l":["`+l+`"],"o":`+string(ans.R)+`,"v":`+string(vj)+`}`), &sel))
					check(l, key+"|"+v, sel.S, nw[vi+1])
				}
			}
		}
		if !slices.Contains(linked, l) {
			continue
		}
		for _, o := range pluralFormatOptions {
			for vi, v := range want.FmtValues {
				var ans struct {
					S string `json:"s"`
				}
				require.NoError(t, json.Unmarshal(ask(`{"op":"nf","l":["`+l+`"],"o":`+o+`,"v":"`+v+`"}`), &ans))
				check(l, "nf|"+o+"|"+v, ans.S, w.NF[o][vi])
			}
		}
		for vi, v := range want.FmtValues {
			var ans struct {
				S string `json:"s"`
			}
			require.NoError(t, json.Unmarshal(ask(`{"op":"rt","l":["`+l+`"],"o":{},"v":"`+v+`","w":"day"}`), &ans))
			check(l, "rt|"+v, ans.S, w.RT[vi])
		}
	}
	for p, why := range pluralDifferences {
		if !seen[p] {
			t.Errorf("every check under %s now matches Node: remove it from pluralDifferences (it said: %s)", p, why)
		}
	}
	var names []string
	for l := range badLocs {
		names = append(names, l)
	}
	sort.Strings(names)
	t.Logf("%d locales, %d comparisons with Node; %d differ as listed, %d otherwise, in %d locales: %s", len(locales), compared, listedBad, bad, len(names), strings.Join(names, " "))
}
