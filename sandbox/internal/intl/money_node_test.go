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

// The money audit: every currency CLDR 48 names, in every linked locale
// and a few regional variants whose currency data differ, written with
// each currencyDisplay at a few amounts (the plural forms of names, an
// accounting negative), and named by Intl.DisplayNames, as Node 20 does.
//
// Reference: Node 20.20's ICU 78.2 carries CLDR 48.0, the version of
// names_gen.go's currency records (internal/gennames).

// moneyExtraLocales are regional variants beside the linked locales: each
// has currency names, symbols or a currency-specific pattern of its own
// (en-DE and the other European Englishes format money with EUR's
// "¤#,##0.00", pt-CV with CVE's "$" decimal separator, tr-CY does not
// take TRY's pattern for other currencies).
var moneyExtraLocales = []string{"en-150", "en-DE", "en-AT", "en-NL", "en-SE", "en-CH", "en-NZ", "en-SG", "en-ZA", "es-419", "es-AR", "es-US",
	"fr-CH", "fr-BE", "de-LU", "de-LI", "it-CH", "pt-CV", "pt-AO", "pt-MO", "tr-CY", "zh-HK", "zh-SG", "ar-SA", "ar-MA", "nl-BE", "sv-FI", "ru-UA", "hi-Latn"}

// moneyFullLocales are audited with every currency: the languages and the
// linked regional locales whose currency data differ. The others (de-DE
// is de's data) are audited with moneyExtraCodes and every seventh
// currency, which keeps the audit to a few minutes.
var moneyFullLocales = []string{"ar", "de", "en", "es", "fr", "hi", "it", "ja", "ko", "nl", "pl", "pt", "ru", "sv", "tr", "zh",
	"en-GB", "en-AU", "en-CA", "en-IN", "de-AT", "de-CH", "fr-CA", "es-MX", "pt-PT", "zh-Hant-TW", "tr-TR", "ar-EG", "en-DE"}

// moneyExtraCodes are the currencies audited in every locale (with every
// seventh of the others): a region's own, those with currency-specific
// data.
var moneyExtraCodes = []string{"USD", "EUR", "GBP", "JPY", "CHF", "TRY", "CVE", "PTE", "ITL", "LUF", "XOF", "SGD", "NZD", "ZAR",
	"ARS", "MXN", "CNY", "HKD", "SAR", "MAD", "UAH", "RUB", "SEK", "INR", "BYN", "RON"}

// moneyFormats are the formats of the audit: options, then the amounts.
var moneyFormats = []struct {
	Opts   string   `json:"opts"`
	Values []string `json:"values"`
}{
	{`"currencyDisplay":"symbol"`, []string{"1", "0", "-1234.5"}},
	{`"currencyDisplay":"symbol","currencySign":"accounting"`, []string{"-5"}},
	{`"currencyDisplay":"narrowSymbol"`, []string{"1234.5"}},
	{`"currencyDisplay":"narrowSymbol","currencySign":"accounting"`, []string{"-5"}},
	{`"currencyDisplay":"code","currencySign":"accounting"`, []string{"1234.5", "-5"}},
	{`"currencyDisplay":"name"`, []string{"1", "2", "0", "1234.5", "-5", "22", "1.5"}},
}

// moneyDifferences are the checks (by prefix of "locale|code|options|value")
// where airlock is known to answer otherwise than Node, with the reason;
// each must still differ (the test says when one starts to match).
var moneyDifferences = map[string]string{
	"hi-Latn|": "a regional variant without linked data formats as its linked locale (hi): accounting negatives in parentheses (Node: a minus sign), hi's currency unit pattern and names",
	"zh-SG|":   "a regional variant without linked data formats as its linked locale (zh): \"1安道尔比塞塔\" (Node: zh-SG's \"1 安道尔比塞塔\")",
}

const moneyNode = `
const [locales, codesOf, formats] = JSON.parse(process.argv[1]);
const out = {};
for (const l of locales) {
  const r = {};
  for (const c of codesOf[l]) {
    for (const f of formats) {
      const nf = new Intl.NumberFormat(l, { style: "currency", currency: c, ...JSON.parse("{" + f.opts + "}") });
      for (const v of f.values) {
        // A fresh formatter for each name: ICU writes some names otherwise
        // from a formatter's third call (currencyNameParts).
        const g = f.opts.includes("name") ? new Intl.NumberFormat(l, { style: "currency", currency: c, ...JSON.parse("{" + f.opts + "}") }) : nf;
        r[c + "|" + f.opts + "|" + v] = JSON.stringify(g.formatToParts(Number(v)));
      }
    }
    r[c + "|dn"] = new Intl.DisplayNames(l, { type: "currency" }).of(c);
  }
  out[l] = r;
}
console.log(JSON.stringify(out));
`

// moneyCodes are the currencies of the audit: every code CLDR names in
// English, and two it does not.
func moneyCodes(t *testing.T) []string {
	seen := map[string]bool{"ZZZ": true, "QQQ": true}
	for _, line := range strings.Split(cldrNames["en"], "\n") {
		if k, _, ok := strings.Cut(line, "\t"); ok && strings.HasPrefix(k, "c:") {
			seen[k[2:]] = true
		}
	}
	var out []string
	for c := range seen {
		out = append(out, c)
	}
	sort.Strings(out)
	require.Greater(t, len(out), 300)
	return out
}

func TestMoneyMatchesNode(t *testing.T) {
	node := requireNode(t, "audit currencies")
	var locales []string
	for _, tag := range supported().tags {
		locales = append(locales, tag.String())
	}
	locales = append(locales, moneyExtraLocales...)
	codes := moneyCodes(t)
	if os.Getenv("MONEY_ONLY") != "" {
		locales = strings.Split(os.Getenv("MONEY_ONLY"), ",")
	}
	codesOf := map[string][]string{}
	for _, l := range locales {
		for ci, c := range codes {
			if slices.Contains(moneyFullLocales, l) || ci%7 == 0 || slices.Contains(moneyExtraCodes, c) {
				codesOf[l] = append(codesOf[l], c)
			}
		}
	}
	arg, err := json.Marshal([]any{locales, codesOf, moneyFormats})
	require.NoError(t, err)
	start := time.Now()
	cmd := exec.Command(node, "-e", moneyNode, string(arg))
	cmd.Env = nodeEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var want map[string]map[string]string
	require.NoError(t, json.Unmarshal(b, &want))
	t.Logf("node: %v", time.Since(start))

	start = time.Now()
	h := New()
	checks, bad := 0, 0
	differs := map[string]bool{}
	byLocale := map[string]int{}
	for _, l := range locales {
		for _, c := range codesOf[l] {
			for _, f := range moneyFormats {
				for _, v := range f.Values {
					key := c + "|" + f.Opts + "|" + v
					req := `{"op":"nf","l":["` + l + `"],"o":{"style":"currency","currency":"` + c + `",` + f.Opts + `},"v":"` + v + `","p":true}`
					var ans struct{ P [][2]string }
					out := h.Handle([]byte(req))
					require.NoError(t, json.Unmarshal(out, &ans), string(out))
					got := make([]map[string]string, len(ans.P))
					for i, p := range ans.P {
						got[i] = map[string]string{"type": p[0], "value": p[1]}
					}
					var gb strings.Builder
					enc := json.NewEncoder(&gb)
					enc.SetEscapeHTML(false) // JSON.stringify writes "&"
					require.NoError(t, enc.Encode(got))
					checks++
					if moneyCheck(t, l+"|"+key, strings.TrimSuffix(gb.String(), "\n"), want[l][key], differs) {
						bad++
						byLocale[l]++
					}
				}
			}
			var dn struct{ S *string }
			out := h.Handle([]byte(`{"op":"dn","l":["` + l + `"],"o":{"type":"currency"},"v":"` + c + `"}`))
			require.NoError(t, json.Unmarshal(out, &dn), string(out))
			got := ""
			if dn.S != nil {
				got = *dn.S
			}
			checks++
			if moneyCheck(t, l+"|"+c+"|dn", got, want[l][c+"|dn"], differs) {
				bad++
				byLocale[l]++
			}
		}
	}
	for p := range moneyDifferences {
		if !differs[p] {
			t.Errorf("%s now matches Node: remove it from moneyDifferences", p)
		}
	}
	t.Logf("airlock: %v", time.Since(start))
	t.Logf("%d locales × %d currencies: %d checks, %d differ (unlisted) %v", len(locales), len(codes), checks, bad, byLocale)
}

// moneyCheck compares one check, reports an unlisted difference (the first
// hundred of them) and returns whether it was one.
func moneyCheck(t *testing.T, key, got, want string, differs map[string]bool) bool {
	if got == want {
		return false
	}
	for p := range moneyDifferences {
		if strings.HasPrefix(key, p) {
			differs[p] = true
			return false
		}
	}
	t.Helper()
	moneyReported++
	if moneyReported <= 100 {
		t.Errorf("%s\n  airlock: %s\n  node:    %s", key, got, want)
	}
	if f := os.Getenv("MONEY_DIFFS"); f != "" {
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		require.NoError(t, err)
		fmt.Fprintf(fh, "%s\n  airlock: %s\n  node:    %s\n", key, got, want)
		fh.Close()
	}
	return true
}

var moneyReported int
