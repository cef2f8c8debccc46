package intl

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Intl.Locale audit: every locale of CLDR 48's availableLocales, every
// alias of aliases.json in a tag, generated tags with scripts, regions,
// variants and extensions, and constructor options, made into an
// Intl.Locale by Node 20 and by the host (ops "loc" and "locinfo"): the
// tag, every getter, maximize() and minimize() must be the same, and so
// must Intl.getCanonicalLocales of each tag (op "canon").

// localeAuditNode prints, for each [tag, options] of its argument, the
// locale's fields as localeAuditHost writes them.
const localeAuditNode = `
const out = [];
for (const [tag, opts, lite] of JSON.parse(require("fs").readFileSync(0, "utf8"))) {
  let canon = "";
  if (opts === null) {
    try { canon = Intl.getCanonicalLocales(tag).join() + "\n"; } catch (e) { canon = e.name + ": " + e.message + "\n"; }
  }
  try {
    const l = new Intl.Locale(tag, opts ?? undefined);
    out.push(canon + JSON.stringify([String(l), l.baseName, l.language, l.script, l.region, l.calendar, l.caseFirst,
      l.collation, l.hourCycle, l.numeric, l.numberingSystem, l.maximize().toString(), l.minimize().toString(),
      l.calendars, l.collations, lite ? "-" : l.hourCycles, l.numberingSystems, l.textInfo, l.timeZones, l.weekInfo]));
  } catch (e) {
    out.push(canon + e.name + ": " + e.message);
  }
}
console.log(JSON.stringify(out));
`

// localeAuditHost is localeAuditNode's line for one input, from the host.
func localeAuditHost(h *Handler, tag string, opts map[string]any, lite bool) string {
	// The guest converts each option to a string, numeric to "true" or
	// "false" (57-intl-locale.js, locOptions).
	conv := map[string]string{}
	for k, v := range opts {
		if k == "numeric" {
			b, _ := v.(bool)
			conv[k] = map[bool]string{true: "true", false: "false"}[b]
			continue
		}
		conv[k], _ = v.(string)
	}
	o, _ := json.Marshal(conv)
	tj, _ := json.Marshal(tag)
	req, _ := json.Marshal(map[string]any{"op": "loc", "v": json.RawMessage(tj), "o": json.RawMessage(o)})
	var ans struct {
		R *localeRecord
		E string
		M string
	}
	if err := json.Unmarshal(h.Handle(req), &ans); err != nil {
		return "bad answer"
	}
	canon := ""
	if opts == nil {
		if v, err := canonicalLocales([]string{tag}); err != nil {
			canon = err.(*Error).Name + ": " + err.(*Error).Message + "\n"
		} else {
			canon = strings.Join(v.([]string), ",") + "\n"
		}
	}
	if ans.E != "" {
		return canon + ans.E + ": " + ans.M
	}
	r := ans.R
	lj, _ := json.Marshal(r.Locale)
	ireq, _ := json.Marshal(map[string]any{"op": "locinfo", "v": json.RawMessage(lj)})
	var inf struct{ R localeInfoRecord }
	if err := json.Unmarshal(h.Handle(ireq), &inf); err != nil {
		return "bad info answer"
	}
	var hours any = inf.R.HourCycles
	if lite {
		hours = "-"
	}
	var zones any
	if inf.R.HasZones {
		zones = inf.R.TimeZones
		if inf.R.TimeZones == nil {
			zones = []string{}
		}
	}
	b, _ := json.Marshal([]any{r.Locale, r.BaseName, r.Language, r.Script, r.Region, r.Calendar, r.CaseFirst,
		r.Collation, r.HourCycle, r.Numeric, r.NumSys, r.Max, r.Min,
		inf.R.Calendars, inf.R.Collations, hours, inf.R.NumberingSystems, inf.R.TextInfo, zones, inf.R.WeekInfo})
	return canon + strings.ReplaceAll(string(b), "null", "undefined")
}

// localeKnownDifferences are the inputs whose Intl.Locale differs from
// Node's, with the reason; each must still differ (the test says when one
// stops).
var localeKnownDifferences = map[string]string{
	"sgn-NO": "ICU 78's language alias data replaces sgn-NO by nsl; CLDR 48's aliases.json (this package's) by nsi",
	"ars":    "ICU 78 has a locale ars (an alias of ar_SA, Arabic digits, right to left) that CLDR 48's availableLocales lacks",
	// ICU 78's minimizeSubtags leaves these tags without a language as
	// they are; the likely subtags alone would minimize them (und-CW →
	// pap, und-Hant → zh-TW) and so do other regions and scripts
	// (und-AW → nl-AW, und-Hans → zh): why ICU's trie does not match
	// them is not found yet.
	"und-CW": "minimize", "und-530": "minimize", "und-531": "minimize", "und-532": "minimize", "und-AN": "minimize",
	"und-PW": "minimize", "und-585": "minimize", "und-PG": "minimize", "und-598": "minimize", "und-PH": "minimize",
	"und-608": "minimize", "und-TK": "minimize", "und-772": "minimize", "und-TV": "minimize", "und-798": "minimize",
	"und-Hant": "minimize", "und-Mong": "minimize", "und-Arab-MM": "minimize",
}

// localeInput is one input of the audit; lite leaves hourCycles out (ICU
// builds a DateTimePatternGenerator for it, some 4 ms in Node: the 7,800
// tags of likelySubtags.json are compared on everything else).
type localeInput struct {
	tag  string
	opts map[string]any
	lite bool
}

// localeAuditInputs are the audit's tags and options.
func localeAuditInputs(t *testing.T) []localeInput {
	var in []localeInput
	add := func(tag string) { in = append(in, localeInput{tag: tag}) }
	var av struct {
		AvailableLocales struct{ Full []string }
	}
	b, err := os.ReadFile("testdata/cldr-available-locales.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &av))
	for _, l := range av.AvailableLocales.Full {
		add(l)
	}
	d := locData()
	keys := func(m map[string]string) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	for _, k := range keys(d.langAlias) {
		add(k)
		if !strings.Contains(k, "-") {
			add(k + "-Latn-US")
			add(k + "-DE")
		}
	}
	for _, k := range keys(d.regionAlias) {
		for _, l := range []string{"und", "en", "hy", "ru", "sr", "nl", "pt", "zh-Hant"} {
			add(l + "-" + k)
		}
	}
	for _, k := range keys(d.scriptAlias) {
		add("en-" + k)
	}
	for _, k := range keys(d.variantAlias) {
		add("und-" + k)
		add("ja-Latn-hepburn-" + k)
	}
	for _, l := range []string{"en", "zh", "sr", "pa", "az", "uz", "ha", "und", "ar", "fa", "he", "ja", "ko", "ru", "hi", "mn", "ku", "ff", "ms", "yue", "bs", "xx"} {
		for _, s := range []string{"", "-Latn", "-Cyrl", "-Arab", "-Hans", "-Hant", "-Deva", "-Zzzz", "-Mong", "-Adlm"} {
			for _, r := range []string{"", "-US", "-CN", "-TW", "-RS", "-PK", "-IN", "-IR", "-EG", "-419", "-001", "-ZZ", "-MN", "-GB", "-150", "-AQ", "-CA"} {
				add(l + s + r)
			}
		}
	}
	for _, k := range keys(d.likely) {
		in = append(in, localeInput{tag: k, lite: true})
	}
	for _, k := range keys(d.zones) {
		add("und-" + k)
	}
	for _, k := range keys(d.hours) {
		add(strings.ReplaceAll(k, "_", "-"))
	}
	for _, e := range []string{"-u-ca-islamicc", "-u-kn-true", "-u-kn-false", "-u-kn", "-u-kf", "-u-kf-upper", "-u-co-phonebk",
		"-u-co", "-u-co-yes", "-u-hc-h11", "-u-nu-arab", "-u-nu-native", "-u-ca-iso8601", "-u-fw-mon", "-u-fw-sat", "-u-rg-gbzzzz",
		"-u-rg-dezzzz", "-u-ks-primary", "-u-ms-imperial", "-u-tz-aqams", "-u-tz-usnyc", "-u-ca-ethiopic-amete-alem",
		"-u-attr-bcd-ca-gregory", "-u-ca-gregory-ca-buddhist", "-t-en-us-h0-hybrid", "-t-iw-m0-names", "-a-bbb-u-ca-roc",
		"-x-private", "-u-nu-latn-x-a-b", "-b-ccc-a-bbb", "-u-kb-yes", "-u-hc-c12", "-posix", "-1994-alalc97", "-u-ca-islamic-civil",
		"-u-ca-hebrew-co-trad-hc-h23-kf-lower-kn-false-nu-thai", "-u-va-posix", "-u-dx-thai", "-u-em-emoji"} {
		for _, l := range []string{"en", "en-US", "ar-EG", "de", "ja-JP", "und", "zh-Hant-TW", "fa-IR", "iw"} {
			add(l + e)
		}
	}
	for _, bad := range []string{"", "en_US", "root", "x-foo", "en-u", "en-t", "en-a", "en-1", "a-en", "en-variant-variant",
		"en-a-b-a-c", "zh-min-nan", "i-klingon", "123", "en--US", "en-", "-en", "e", "toolonglang", "en-Latn-Latn",
		"en-US-US", "in", "ji", "jw", "no", "tl", "sh", "mo", "iw", "bh", "tw", "fil", "en--US", "EN", "In", "en-u-ca", "en-t-x", "en-x", "en-x-toolongpart", "en-u-attr-ca-gregory-ca", "en\u0000", "ÿn"} {
		add(bad)
	}
	// ICU's limits: 179 bytes of variants, 25 distinct -u- keys.
	for _, n := range []int{29, 30, 31} {
		var vs, ks []string
		for i := 0; i < n; i++ {
			vs = append(vs, fmt.Sprintf("v%04d", i))
			ks = append(ks, fmt.Sprintf("%c%c-abc", 'a'+i/26, 'a'+i%26))
		}
		add("en-" + strings.Join(vs, "-"))
		add("en-" + strings.Join(vs[:n-10], "-") + "-x-" + strings.Join(vs, "-"))
		add("en-u-" + strings.Join(ks[:n-5], "-"))
		add("en-u-aa-dup-" + strings.Join(ks[:n-5], "-"))
		add("en-u-ca-" + strings.Repeat("abcdefgh-", n) + "x")
	}
	// Options.
	opts := []map[string]any{
		{"language": "de"}, {"language": "iw"}, {"language": "x"}, {"language": "root"}, {"language": "toolonglang"},
		{"script": "Cyrl"}, {"script": "latn"}, {"script": "Qaai"}, {"script": "1234"},
		{"region": "SU"}, {"region": "419"}, {"region": "us"}, {"region": "1"}, {"region": "USA"},
		{"calendar": "japanese"}, {"calendar": "islamicc"}, {"calendar": "a"}, {"calendar": "ethiopic-amete-alem"}, {"calendar": "a-b"},
		{"collation": "phonebk"}, {"collation": "phonebook"}, {"collation": "x"},
		{"hourCycle": "h23"}, {"hourCycle": "h25"}, {"hourCycle": "H23"},
		{"caseFirst": "upper"}, {"caseFirst": "false"}, {"caseFirst": "true"},
		{"numeric": true}, {"numeric": false},
		{"numberingSystem": "arab"}, {"numberingSystem": "traditional"}, {"numberingSystem": "ab"},
		{"language": "sh", "region": "YU"}, {"language": "en", "script": "Arab", "region": "EG", "calendar": "coptic", "numeric": true},
		{"hourCycle": "h11", "caseFirst": "lower", "collation": "emoji", "numberingSystem": "thai", "calendar": "roc"},
	}
	for _, o := range opts {
		for _, l := range []string{"en", "en-US-u-ca-buddhist-hc-h12-kn-false", "zh-Hant-TW", "und", "iw-IL-u-nu-hebr", "sgn-DE"} {
			in = append(in, localeInput{tag: l, opts: o})
		}
	}
	return in
}

func TestLocaleMatchesNode(t *testing.T) {
	node := requireNode(t, "audit Intl.Locale")
	in := localeAuditInputs(t)
	arg := make([][3]any, len(in))
	for i, x := range in {
		arg[i] = [3]any{x.tag, x.opts, x.lite}
	}
	js, err := json.Marshal(arg)
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", localeAuditNode)
	cmd.Stdin = strings.NewReader(string(js))
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	require.NoError(t, err)
	var want []string
	require.NoError(t, json.Unmarshal(out, &want))
	require.Len(t, want, len(in))
	h := New()
	bad, known := 0, 0
	for i, x := range in {
		got := localeAuditHost(h, x.tag, x.opts, x.lite)
		w := strings.ReplaceAll(want[i], "null", "undefined")
		if _, ok := localeKnownDifferences[x.tag]; ok && x.opts == nil {
			known++
			if got == w {
				t.Errorf("%q now matches Node: remove it from localeKnownDifferences", x.tag)
			}
			continue
		}
		if got != w {
			bad++
			if bad <= 60 {
				o, _ := json.Marshal(x.opts)
				t.Errorf("%q %s\n  airlock: %s\n  node:    %s", x.tag, o, got, w)
			}
		}
	}
	t.Logf("%d inputs, %d differ (%d listed in localeKnownDifferences)", len(in), bad+known, known)
}
