package intl

import (
	"encoding/json"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The number range audit: formatRangeToParts of every supported locale,
// with each rangeStyles entry, for each rangePairs pair, as Node 20 does
// (ICU 78's NumberRangeFormatter, CLDR 48's approximately signs and range
// patterns).

// rangePairs are the ends: a text and its JavaScript type ("n" a Number,
// "b" a BigInt, "s" a string).
var rangePairs = [][2][2]string{
	{{"3", "n"}, {"5", "n"}}, {{"3", "n"}, {"3", "n"}}, {{"3", "n"}, {"2.999", "n"}}, {{"2.9999", "n"}, {"3.0001", "n"}},
	{{"5", "n"}, {"3", "n"}}, {{"-5", "n"}, {"3", "n"}}, {{"5", "n"}, {"-3", "n"}}, {{"-5", "n"}, {"-3", "n"}},
	{{"-3", "n"}, {"-3", "n"}}, {{"0", "n"}, {"0", "n"}}, {{"-0", "n"}, {"0", "n"}}, {{"0.0001", "n"}, {"0.0002", "n"}},
	{{"-0.0001", "n"}, {"0.0001", "n"}}, {{"1000", "n"}, {"5000", "n"}}, {{"999999", "n"}, {"1000000", "n"}},
	{{"1234.5", "n"}, {"1234567.891", "n"}}, {{"1e21", "n"}, {"2e21", "n"}}, {{"3", "n"}, {"Infinity", "n"}},
	{{"-Infinity", "n"}, {"Infinity", "n"}}, {{"Infinity", "n"}, {"Infinity", "n"}}, {{"1", "n"}, {"2", "n"}},
	{{"0", "n"}, {"1", "n"}}, {{"1", "n"}, {"1.5", "n"}}, {{"0.5", "n"}, {"0.5", "n"}}, {{"0.05", "n"}, {"0.1", "n"}},
	{{"0.1", "s"}, {"0.10000000000000000001", "s"}}, {{"3", "b"}, {"5", "b"}}, {{"7", "b"}, {"7", "n"}},
	{{"12345678901234567890123", "b"}, {"12345678901234567890124", "b"}}, {{"1e3", "s"}, {"2.5e3", "s"}},
	{{"-1", "n"}, {"-1", "n"}}, {{"2", "n"}, {"21", "n"}},
}

var rangeStyles = []string{
	`{}`, `{"maximumFractionDigits":0}`, `{"signDisplay":"always"}`, `{"signDisplay":"exceptZero"}`,
	`{"signDisplay":"never"}`, `{"signDisplay":"negative"}`, `{"minimumFractionDigits":2,"useGrouping":false}`,
	`{"style":"percent"}`, `{"style":"percent","signDisplay":"always","maximumFractionDigits":1}`,
	`{"style":"currency","currency":"USD"}`, `{"style":"currency","currency":"EUR"}`, `{"style":"currency","currency":"JPY"}`,
	`{"style":"currency","currency":"EUR","currencyDisplay":"narrowSymbol"}`, `{"style":"currency","currency":"USD","currencyDisplay":"code"}`,
	`{"style":"currency","currency":"EUR","currencyDisplay":"name"}`, `{"style":"currency","currency":"USD","currencySign":"accounting"}`,
	`{"style":"currency","currency":"CHF"}`, `{"style":"currency","currency":"USD","signDisplay":"always"}`,
	`{"style":"unit","unit":"kilometer"}`, `{"style":"unit","unit":"kilometer","unitDisplay":"long"}`,
	`{"style":"unit","unit":"kilometer","unitDisplay":"narrow"}`, `{"style":"unit","unit":"percent"}`,
	`{"style":"unit","unit":"percent","unitDisplay":"long"}`, `{"style":"unit","unit":"kilometer-per-hour","unitDisplay":"long"}`,
	`{"style":"unit","unit":"day","unitDisplay":"long"}`, `{"style":"unit","unit":"liter","unitDisplay":"narrow"}`,
	`{"notation":"compact"}`, `{"notation":"compact","compactDisplay":"long"}`, `{"style":"currency","currency":"USD","notation":"compact"}`,
	`{"style":"currency","currency":"EUR","currencyDisplay":"code","notation":"compact"}`, `{"style":"unit","unit":"byte","notation":"compact"}`,
	`{"notation":"scientific"}`, `{"notation":"engineering","maximumFractionDigits":1}`,
}

// rangeDifferences are the (locale, rangeStyles index) pairs where
// airlock's ranges differ from Node's (README.md lists them); each must
// still differ.
var rangeDifferences = map[string][]int{}

const rangeNode = `
const [locs, styles, pairs] = JSON.parse(process.argv[1]);
const val = ([t, k]) => k === "n" ? Number(t) : k === "b" ? BigInt(t) : t;
const out = {};
for (const l of locs) {
  out[l] = styles.map((s) => {
    const nf = new Intl.NumberFormat(l, JSON.parse(s));
    return pairs.map(([a, b]) => {
      const ends = [a, b].map((v) => JSON.stringify(nf.formatToParts(val(v)).map((p) => [p.type, p.value])));
      try {
        return [JSON.stringify(nf.formatRangeToParts(val(a), val(b)).map((p) => [p.type, p.value, p.source])), ...ends];
      } catch (e) {
        return [e.name + ": " + e.message, ...ends];
      }
    });
  });
}
console.log(JSON.stringify(out));
`

// rangeLocales are the audit's locales: each supported one, and the
// variants whose patterns differ in a way ranges show (a negative
// subpattern, another range pattern or approximately sign).
func rangeLocales() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range supported().tags {
		if s := t.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, l := range []string{"de-CH", "nl", "he", "sv", "fa", "ar-EG", "es-CL", "ja", "zh-Hant", "fr-CH", "en-IN", "hi", "ko"} {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

func TestNumberRangeMatchesNode(t *testing.T) {
	node := requireNode(t, "audit number ranges")
	locs := rangeLocales()
	arg, err := json.Marshal([]any{locs, rangeStyles, rangePairs})
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", rangeNode, string(arg))
	cmd.Env = nodeEnv()
	b, err := cmd.Output()
	require.NoError(t, err)
	var want map[string][][][3]string
	require.NoError(t, json.Unmarshal(b, &want))

	h := New()
	ends := map[string]string{}
	endOf := func(l, style string, e [2]string) string {
		key := l + "\x00" + style + "\x00" + e[0]
		if s, ok := ends[key]; ok {
			return s
		}
		s := endParts(t, h, l, style, e)
		ends[key] = s
		return s
	}
	skippedBy := map[string]int{}
	total, bad, skipped, textOnly := 0, 0, 0, 0
	badBy := map[string]int{}
	for _, l := range locs {
		for si, style := range rangeStyles {
			listed := false
			for _, i := range rangeDifferences[l] {
				listed = listed || i == si
			}
			differs := false
			for pi, p := range rangePairs {
				total++
				end := func(e [2]string) string {
					k := "d"
					if e[1] == "n" {
						k = "n"
					}
					j, _ := json.Marshal([2]string{e[0], k})
					return string(j)
				}
				req := `{"op":"nfr","l":["` + l + `"],"o":` + style + `,"v":` + end(p[0]) + `,"w":` + end(p[1]) + `,"p":true}`
				out := h.Handle([]byte(req))
				var ans struct {
					P [][3]string `json:"p"`
					E string      `json:"e"`
					M string      `json:"m"`
				}
				require.NoError(t, json.Unmarshal(out, &ans), string(out))
				got := ans.E + ": " + ans.M
				if ans.E == "" {
					gb, _ := json.Marshal(ans.P)
					got = string(gb)
				}
				w := want[l][si][pi]
				if endOf(l, style, p[0]) != w[1] || endOf(l, style, p[1]) != w[2] {
					// airlock formats an end's parts otherwise (README.md's
					// differences): the range's text must still be Node's
					// where the ends' texts are.
					if partsText(endOf(l, style, p[0])) != partsText(w[1]) || partsText(endOf(l, style, p[1])) != partsText(w[2]) {
						skipped++
						skippedBy[style]++
						continue
					}
					textOnly++
					got, w[0] = partsText(got), partsText(w[0])
				}
				if got != w[0] {
					differs = true
					if listed {
						continue
					}
					bad++
					badBy[l+" "+style]++
					if bad <= 40 {
						t.Errorf("%s %s %v\n  airlock: %s\n  node:    %s", l, style, p, got, w[0])
					}
				}
			}
			if listed && !differs {
				t.Errorf("%s %s now matches Node: remove it from rangeDifferences", l, style)
			}
		}
	}
	var keys []string
	for k, n := range badBy {
		keys = append(keys, k+" ×"+itoa(n))
	}
	sort.Strings(keys)
	t.Logf("%d locales × %d styles × %d pairs = %d ranges (%d compared by their text only: airlock names an end's parts otherwise); %d skipped (an end's text differs: %v); %d differ (unlisted): %s",
		len(locs), len(rangeStyles), len(rangePairs), total, textOnly, skipped, skippedBy, bad, strings.Join(keys, "; "))
}

// partsText is the text of parts as JSON arrays whose second member is
// the value (or an error's text as it is).
func partsText(j string) string {
	var ps [][]string
	if json.Unmarshal([]byte(j), &ps) != nil {
		return j
	}
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p[1])
	}
	return b.String()
}

// endParts is airlock's formatToParts of one end, as the Node side writes
// it.
func endParts(t *testing.T, h *Handler, l, style string, e [2]string) string {
	v, _ := json.Marshal(e[0])
	out := h.Handle([]byte(`{"op":"nf","l":["` + l + `"],"o":` + style + `,"v":` + string(v) + `,"p":true}`))
	var ans struct {
		P [][2]string `json:"p"`
	}
	require.NoError(t, json.Unmarshal(out, &ans), string(out))
	b, _ := json.Marshal(ans.P)
	return string(b)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
