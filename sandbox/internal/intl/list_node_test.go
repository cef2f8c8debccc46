package intl

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Spanish list audit: ICU writes "y" as "e" before an i sound and "o"
// as "u" before an o sound (listformatter.cpp's Spanish handler); every
// Spanish locale, type and style joins these lists as Node 20 does.

// listWords are the last items the audit puts after one, two and three
// others: the words ICU's test tells apart and their neighbours.
var listWords = []string{"iglesia", "Iglesia", "IGLESIA", "hijo", "Hijo", "HIJO", "hielo", "hiato", "Hierro", "HIA", "hi", "Hi", "h", "i", "I",
	"ímpetu", "índice", "híbrido", "hi-fi", "y", "e", "invierno", "idea", "hueso", "hola", "Holanda", "HOMBRE", "ho", "o", "O", "oso", "Oslo",
	"ópera", "8", "80", "8 euros", "800", "11", "11 años", "111", "110", "11.5", "1", "10", "ocho", "once", "u", "uno", "hu", "Ho", "hO", "hI",
	"agua", "Élite", "", " ", "ilusión", "iPhone", "item", "Ítaca", "hiena", "hierba", "hiedra", "hialino", "hioides", "1 1", "8x", "\u0130stanbul",
	"o'clock", "ohm", "horas", "Hotel", "huevo", "yate", "ya", "Ya"}

// listDifferences are the checks (by prefix of "locale|type|style|")
// where airlock is known to join otherwise than Node, with the reason;
// each must still differ.
var listDifferences = map[string]string{
	"es-US|unit|short|": "a regional variant without linked data joins with its language's patterns: es-US's short unit lists end in \" y \" in CLDR, es's in \", \"",
}

const listNode = `
const [locales, words] = JSON.parse(process.argv[1]);
const out = {};
for (const l of locales) for (const type of ["conjunction", "disjunction", "unit"]) for (const style of ["long", "short", "narrow"]) {
  const lf = new Intl.ListFormat(l, { type, style });
  for (const w of words) for (const head of [["pan"], ["pan", "vino"], ["pan", "vino", "queso"]]) {
    out[[l, type, style, head.length, w].join("|")] = JSON.stringify(lf.formatToParts([...head, w]));
  }
  out[[l, type, style, "first"].join("|")] = lf.format(["iglesia", "oso"]);
}
console.log(JSON.stringify(out));
`

func TestSpanishListsMatchNode(t *testing.T) {
	node := requireNode(t, "audit lists")
	locales := []string{"es", "es-ES", "es-MX", "es-419", "es-AR", "es-US", "es-CO", "es-CL", "en"}
	arg, err := json.Marshal([]any{locales, listWords})
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", listNode, string(arg))
	cmd.Env = nodeEnv()
	b, err := cmd.Output()
	require.NoError(t, err)
	var want map[string]string
	require.NoError(t, json.Unmarshal(b, &want))

	h := New()
	checks, bad := 0, 0
	differs := map[string]bool{}
	for _, l := range locales {
		for _, typ := range []string{"conjunction", "disjunction", "unit"} {
			for _, style := range []string{"long", "short", "narrow"} {
				for _, w := range listWords {
					for n, head := range [][]string{{"pan"}, {"pan", "vino"}, {"pan", "vino", "queso"}} {
						items, _ := json.Marshal(append(append([]string{}, head...), w))
						req := `{"op":"list","l":["` + l + `"],"o":{"type":"` + typ + `","style":"` + style + `"},"v":` + string(items) + `,"p":true}`
						var ans struct{ P [][2]string }
						out := h.Handle([]byte(req))
						require.NoError(t, json.Unmarshal(out, &ans), string(out))
						var got strings.Builder
						got.WriteString("[")
						for i, p := range ans.P {
							if i > 0 {
								got.WriteString(",")
							}
							pb, _ := json.Marshal(map[string]string{"type": p[0], "value": p[1]})
							got.Write(pb)
						}
						got.WriteString("]")
						key := strings.Join([]string{l, typ, style, string(rune('1' + n)), w}, "|")
						checks++
						listed := ""
						for p := range listDifferences {
							if strings.HasPrefix(key, p) {
								listed = p
							}
						}
						if g, w := jsonNormal(t, got.String()), jsonNormal(t, want[key]); g != w && listed != "" {
							differs[listed] = true
						} else if g != w {
							bad++
							if bad <= 40 {
								t.Errorf("%s\n  airlock: %s\n  node:    %s", key, g, w)
							}
						}
					}
				}
			}
		}
	}
	for p := range listDifferences {
		if !differs[p] {
			t.Errorf("%s now matches Node: remove it from listDifferences", p)
		}
	}
	t.Logf("%d lists, %d differ (unlisted)", checks, bad)
}

// jsonNormal re-encodes a JSON value (Go and JSON.stringify escape
// differently).
func jsonNormal(t *testing.T, s string) string {
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v), s)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return b.String()
}
