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

// The collation audit (issue 23): a Collator resolves its locale to the
// one ICU 78 has collation data for, as Node 20 does (or to en-US), and
// sorts the scripts in that locale's order (Cyrillic first in Russian,
// Han first in Chinese, Hangul and Han first in Korean, Latin, Kana and
// Han in Japanese, …), by its keys and by compare alike.

// collationWords are letters of many scripts, two each, with digits,
// punctuation and Han characters that the Chinese and Japanese
// tailorings list and that they do not.
var collationWords = strings.Fields(`_ - 1 9 10 2 a b z y é ñ å ö ä æ ø č ch h ł ß α β ω а б я ж ა ბ ա բ א ב ت ا ب ی ک ܐ ܒ ހ ށ ሀ በ क ख ॐ অ খ ਕ ਖ ક ખ ଅ କ அ க అ క ಅ ಕ അ ക අ ක ก ข ກ ຂ ཀ ཁ က ခ ក ខ ᠠ ᠪ Ꭰ Ꭱ ᐁ ᐃ 가 나 한 힣 あ か ア カ ㄅ ㄆ ꀀ ꀁ 一 中 文 王 黄 李 刘 吴 陈 龍 丂 😀 ∞ © $`)

// collationTags are tags whose resolved Collator locale is compared: the
// CLDR locales, with scripts and regions, extensions and odd cases.
func collationTags() []string {
	tags := []string{"en-US", "en-GB", "zh-CN", "zh-TW", "zh-HK", "zh-SG", "zh-MO", "sr-Latn", "sr-Latn-RS", "sr-ME",
		"az-Latn", "pa-Guru", "es-419", "de-AT", "en-US-u-kn", "zh-Hans-CN", "zh-Hant-TW", "es-ES", "bs-Cyrl",
		"sr-Cyrl-BA", "uz-Arab", "eu", "und", "cs-CZ", "de-u-co-phonebk", "de-DE-u-co-phonebk", "zh-u-co-stroke",
		"zh-TW-u-co-stroke", "ja-JP-u-kn-true", "en-u-kf-upper", "ar-SA", "fa-AF", "yue", "yue-Hant", "ff-Adlm-BF",
		"kk-Arab", "sv-FI", "nb-NO", "no", "fil", "tl", "iw", "in", "ji", "sh", "mo", "en-US-x-priv"}
	for l := range strings.FieldsSeq("en fr de es it pt nl sv da nb fi pl cs sk hu ro hr sl bs sr bg ru uk be el tr az kk uz ar fa he ur hi bn ta te kn ml mr gu pa th lo km my ja ko zh vi id ms ka hy am si ne mn ky tk ug ps eu ca gl et lv lt is ga cy") {
		tags = append(tags, l)
		for r := range strings.FieldsSeq("US GB DE FR ES CN TW HK IN RU BA ME RS AT CH BE CA MX BR PT SA AE IR AF PK IL JP KR SG MY ID") {
			tags = append(tags, l+"-"+r)
		}
	}
	return tags
}

// collationDifferences are the locales whose sorts of collationWords
// differ from Node's for x/text's data (CLDR 32), not for the order of
// scripts; each must still differ, so a fix fails the test until its row
// goes.
var collationDifferences = map[string]string{
	"bs":              "x/text sorts č and ć with c; CLDR 48's Bosnian after c, as Croatian",
	"sr-Latn":         "as bs",
	"sr-Latn-BA":      "as bs",
	"sr-Latn-RS":      "as bs",
	"nb":              "x/text's Norwegian Bokmål is the root's; CLDR 48 sorts æ ø å after z",
	"lv":              "x/text sorts y with i and ā with a otherwise than CLDR 48",
	"de-u-co-phonebk": "x/text puts æ before ä (ae); ICU ä first",
}

const collationNode = `
const [tags, words, locales, options] = JSON.parse(process.argv[1]);
const resolved = tags.map((t) => { try { return new Intl.Collator(t).resolvedOptions().locale; } catch (e) { return String(e); } });
const sorted = {};
for (const l of locales) for (const o of options) sorted[l + " " + o] = [...words].sort(new Intl.Collator(l, JSON.parse(o)).compare);
console.log(JSON.stringify({ resolved, sorted }));
`

func TestCollationMatchesNode(t *testing.T) {
	node := requireNode(t, "audit collation")
	tags := collationTags()
	locales := []string{"en", "en-US", "de", "sv", "es", "fr", "pl", "cs", "sk", "da", "nb", "fi", "hu", "lt", "lv", "et", "is",
		"hr", "sl", "ro", "tr", "az", "ca", "cy", "vi", "de-u-co-phonebk", "es-u-co-trad", "zh-Hant-TW", "zh-u-co-stroke", "sr-Latn", "sr-Latn-BA"}
	for l := range collationReorders {
		locales = append(locales, l)
	}
	sort.Strings(locales)
	options := []string{`{}`, `{"sensitivity":"base"}`, `{"numeric":true,"caseFirst":"upper"}`, `{"sensitivity":"case"}`}
	arg, err := json.Marshal([]any{tags, collationWords, locales, options})
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", collationNode, string(arg))
	cmd.Env = nodeEnv()
	b, err := cmd.Output()
	require.NoError(t, err)
	var want struct {
		Resolved []string            `json:"resolved"`
		Sorted   map[string][]string `json:"sorted"`
	}
	require.NoError(t, json.Unmarshal(b, &want))
	require.Len(t, want.Resolved, len(tags))

	h := New()
	bad := 0
	for i, tag := range tags {
		req, err := json.Marshal(map[string]any{"op": "col", "l": []string{tag}})
		require.NoError(t, err)
		var ans struct {
			R struct{ Locale string }
		}
		require.NoError(t, json.Unmarshal(h.Handle(req), &ans), tag)
		if ans.R.Locale != want.Resolved[i] {
			if bad++; bad <= 40 {
				t.Errorf("Collator(%q).resolvedOptions().locale: airlock %q, node %q", tag, ans.R.Locale, want.Resolved[i])
			}
		}
	}
	t.Logf("%d tags resolved, %d differ", len(tags), bad)

	sorts, badSorts := 0, 0
	var differing []string
	stillDiffer := map[string]bool{}
	for _, l := range locales {
		for _, o := range options {
			sorts++
			// By keys, as the guest sorts (compiled.go).
			keys := keysOf(t, h, fmt.Sprintf("%q", l), o, collationWords)
			idx := make([]int, len(collationWords))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(a, b int) int { return cmpUnits(keys[a], keys[b]) })
			byKey := make([]string, len(idx))
			for i, j := range idx {
				byKey[i] = collationWords[j]
			}
			// By compare, as localeCompare without keys does.
			byCompare := slices.Clone(collationWords)
			slices.SortStableFunc(byCompare, func(a, b string) int {
				req, err := json.Marshal(map[string]any{"op": "col", "l": []string{l}, "o": json.RawMessage(o), "v": a, "w": b})
				require.NoError(t, err)
				var ans struct{ C int }
				require.NoError(t, json.Unmarshal(h.Handle(req), &ans))
				return ans.C
			})
			node := want.Sorted[l+" "+o]
			for _, got := range [][]string{byKey, byCompare} {
				if _, listed := collationDifferences[l]; listed {
					if !slices.Equal(got, node) {
						stillDiffer[l] = true
					}
					continue
				}
				if !slices.Equal(got, node) {
					differing = append(differing, l+" "+o)
					if badSorts++; badSorts <= 20 {
						t.Errorf("sort in %s %s:\n  airlock: %s\n  node:    %s", l, o, strings.Join(got, " "), strings.Join(node, " "))
					}
				}
			}
		}
	}
	t.Logf("%d sorts by keys and by compare, %d differ: %v", 2*sorts, badSorts, differing)
	for l := range collationDifferences {
		require.True(t, stillDiffer[l], "%s sorts as in Node now: remove it from collationDifferences", l)
	}
}
