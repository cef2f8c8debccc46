package intl

import (
	"encoding/json"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The number symbols audit (issue 23): every locale airlock supports (every
// region and script variant of the linked languages that Node's ICU has
// data for) formats a set of numbers, in each style, as Node 20 does.
//
// Reference: Node 20.20 ships ICU 78.2 with CLDR 48.0, the version of the
// generated data (cldr_gen.go) and bojanz/currency's (48.1), so there is no
// version skew to arbitrate; where CLDR and Node's ICU ever disagree, Node
// is the reference (issue 23).

// auditValues are formatted in every locale, with every auditStyles entry.
var auditValues = []string{"-1234567.891", "0", "-0", "0.5", "1234.5", "1e21", "-0.000123", "NaN", "Infinity", "12"}

var auditStyles = []string{
	`{}`,
	`{"style":"percent","maximumFractionDigits":2}`,
	`{"style":"currency","currency":"EUR"}`,
	`{"style":"currency","currency":"USD","currencySign":"accounting"}`,
	`{"signDisplay":"always"}`,
	`{"notation":"scientific"}`,
	`{"notation":"compact"}`,
	`{"useGrouping":"always","minimumIntegerDigits":5}`,
}

// symbolDifferences are the (locale, auditStyles index) pairs where Node's
// ICU 78 does not format as CLDR 48's JSON says, and airlock follows CLDR:
// en-IN writes an accounting negative with a minus sign where CLDR has
// parentheses. Each must still differ (the test says when one starts to
// match). (English in European regions, pt-CV and tr-TR format money with
// their region's currency-specific pattern, as ICU does: specialMoney.)
var symbolDifferences = map[string][]int{
	"en-IN": {3},
}

// auditLanguages lists the linked languages; the Node side tries each
// with every region and script and keeps the tags its ICU has data for.
func auditLanguages() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range supported().tags {
		b, _ := t.Base()
		if !seen[b.String()] {
			seen[b.String()] = true
			out = append(out, b.String())
		}
	}
	sort.Strings(out)
	return out
}

const auditNode = `
const [langs, values, styles] = JSON.parse(process.argv[1]);
const regions = [];
const dn = new Intl.DisplayNames("en", { type: "region", fallback: "none" });
for (let a = 65; a <= 90; a++) for (let b = 65; b <= 90; b++) {
  const r = String.fromCharCode(a, b);
  if (dn.of(r) !== undefined && r !== "ZZ") regions.push(r);
}
for (const r of ["001", "150", "419"]) regions.push(r);
const cands = [];
for (const l of langs) {
  cands.push(l);
  for (const r of regions) cands.push(l + "-" + r);
  for (const s of ["Hans", "Hant", "Latn", "Cyrl", "Arab", "Deva"]) {
    cands.push(l + "-" + s);
    for (const r of regions) cands.push(l + "-" + s + "-" + r);
  }
}
const out = {};
for (const c of cands) {
  if (new Intl.NumberFormat(c).resolvedOptions().locale !== c) continue;
  out[c] = styles.map((s) => {
    const nf = new Intl.NumberFormat(c, JSON.parse(s));
    return [nf.resolvedOptions().numberingSystem, ...values.map((v) => JSON.stringify(nf.formatToParts(v)))];
  });
}
console.log(JSON.stringify(out));
`

func TestNumberSymbolsMatchNode(t *testing.T) {
	node := requireNode(t, "audit number symbols")
	arg, err := json.Marshal([]any{auditLanguages(), auditValues, auditStyles})
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", auditNode, string(arg))
	cmd.Env = nodeEnv()
	b, err := cmd.Output()
	require.NoError(t, err)
	var want map[string][][]string
	require.NoError(t, json.Unmarshal(b, &want))
	locs := make([]string, 0, len(want))
	for l := range want {
		locs = append(locs, l)
	}
	sort.Strings(locs)
	require.Greater(t, len(locs), 300, "Node's ICU should know hundreds of variants of the linked languages")

	h := New()
	bad, badLocs := 0, map[string]bool{}
	unsupported := 0
	for _, l := range locs {
		if lc, err := resolve([]string{l}); err != nil || lc.tag != l {
			unsupported++ // airlock resolves it to another locale
			continue
		}
		for si, style := range auditStyles {
			w := want[l][si]
			listed := slices.Contains(symbolDifferences[l], si)
			differs := false
			for vi, v := range auditValues {
				req := `{"op":"nf","l":["` + l + `"],"o":` + style + `,"v":"` + v + `","p":true}`
				var ans struct {
					R struct {
						NumberingSystem string `json:"numberingSystem"`
					} `json:"r"`
					P [][2]string
				}
				out := h.Handle([]byte(req))
				require.NoError(t, json.Unmarshal(out, &ans), string(out))
				got := make([]map[string]string, len(ans.P))
				for i, p := range ans.P {
					got[i] = map[string]string{"type": p[0], "value": p[1]}
				}
				gb, _ := json.Marshal(got)
				if vi == 0 && ans.R.NumberingSystem != w[0] {
					bad++
					t.Errorf("%s %s numberingSystem: airlock %s, node %s", l, style, ans.R.NumberingSystem, w[0])
				}
				if string(gb) != w[vi+1] && listed {
					differs = true
				} else if string(gb) != w[vi+1] {
					bad++
					badLocs[l] = true
					if bad < 60 {
						t.Errorf("%s %s %s\n  airlock: %s\n  node:    %s", l, style, v, gb, w[vi+1])
					}
				}
			}
			if listed && !differs {
				t.Errorf("%s %s now matches Node: remove it from symbolDifferences", l, style)
			}
		}
	}
	var names []string
	for l := range badLocs {
		names = append(names, l)
	}
	sort.Strings(names)
	t.Logf("%d locales (%d not supported) × %d styles × %d values; %d differ, in %d locales: %s", len(locs)-unsupported, unsupported, len(auditStyles), len(auditValues), bad, len(names), strings.Join(names, " "))
}
