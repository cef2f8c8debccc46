// Command gencollation writes ../../collation_gen.go: which locales ICU 78
// has collation data for, and how each reorders the scripts, read off Node
// 20 (ICU 78.2, CLDR 48), with where each script's letters start among
// x/text's primary weights:
//
//	go run ./internal/gencollation /tmp/cldr/core/package/availableLocales.json > collation_gen.go && gofmt -w collation_gen.go
//
// where availableLocales.json is cldr-core@48.0.0's (see gencldr). It
// refuses to run against another ICU than 78 (process.versions.icu).
//
//   - collationLocales: the tags V8 resolves a Collator's locale to. It
//     asks Node for the resolved locale of every CLDR locale, of each
//     with its script dropped, and of each language with each region;
//     a tag that resolves to itself is one.
//   - scriptStarts: the first primary weight of each script's letters in
//     x/text's root collation (the version in go.mod), found by weighing
//     every code point: from there to the next start the weights are that
//     script's, and tailorings (å after z in Swedish) fall inside them.
//   - collationReorders: for each collation locale whose order of scripts
//     differs from the root's, the scripts it puts first (CLDR's
//     [reorder …]), found by sorting a letter of each script with Node's
//     Collator for that locale; and for the locale with a collation other
//     than its default that collate.go has (-u-co-stroke, -u-co-phonebk).
//
// Nothing here is ICU's code or data file: each fact is an observed result.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// coScript reads {"tags": [...], "samples": [...], "collations": [[lang,
// co], ...]} on stdin and writes {tag-u-co-co: [...]} for each tag of the
// language whose collation co Node has. It runs in a process of its own:
// after a few thousand other Collators, V8 resolves zh-u-co-stroke's
// collation to "default".
const coScript = `
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const orders = {};
for (const t of input.tags) for (const [lang, co] of input.collations) {
  const c = new Intl.Collator(t + "-u-co-" + co);
  if (t.split("-")[0] === lang && c.resolvedOptions().collation === co) orders[t + "-u-co-" + co] = [...input.samples].sort(c.compare);
}
process.stdout.write(JSON.stringify(orders));
`

// nodeScript reads {"tags": [...], "samples": [...]} on stdin and writes
// {"available": [...], "root": [...], "orders": {tag: [...]}}.
const nodeScript = `
if (!process.versions.icu.startsWith("78.")) throw new Error("ICU " + process.versions.icu + ", want 78");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const resolved = (t) => { try { return new Intl.Collator(t).resolvedOptions().locale; } catch { return null; } };
const available = new Set();
for (const t of input.tags) if (resolved(t) === t) available.add(t);
const order = (t) => [...input.samples].sort(new Intl.Collator(t).compare);
const orders = {};
for (const t of available) orders[t] = order(t);
process.stdout.write(JSON.stringify({ available: [...available].sort(), root: order("und"), orders }));
`

// firstPrimary decodes the first primary weight of an x/text key
// (collate.appendPrimary's encoding: two bytes up to 0x7FFF, else three
// with the top bit set).
func firstPrimary(k []byte) (uint32, bool) {
	switch {
	case len(k) >= 3 && k[0]&0x80 != 0:
		return uint32(k[0]&0x7f)<<16 | uint32(k[1])<<8 | uint32(k[2]), true
	case len(k) >= 2 && k[0] != 0:
		return uint32(k[0])<<8 | uint32(k[1]), true
	}
	return 0, false
}

// group is the script a letter's weight belongs to: Hiragana and Katakana
// are one (ICU's Kana), Common and Inherited none.
func group(r rune) string {
	if unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) {
		return "Kana"
	}
	if unicode.Is(unicode.Common, r) || unicode.Is(unicode.Inherited, r) {
		return ""
	}
	for name, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return name
		}
	}
	return ""
}

type start struct {
	p      uint32
	script string
	sample rune
}

// starts weighs every letter with x/text's root collator and returns where
// each run of one script's letters begins, from Latin's 'a' on. A run of
// fewer than minRun letters (a letter sorted among another script's) does
// not start anything.
func starts() []start {
	const minRun = 3
	c := collate.New(language.Und)
	var buf collate.Buffer
	first := func(r rune) (uint32, bool) {
		buf.Reset()
		return firstPrimary(c.KeyFromString(&buf, string(r)))
	}
	letters, _ := first('a')
	type w struct {
		p uint32
		g string
		r rune
	}
	var ws []w
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.IsLetter(r) {
			continue
		}
		g := group(r)
		if g == "" {
			continue
		}
		if p, ok := first(r); ok && p >= letters {
			ws = append(ws, w{p, g, r})
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].p < ws[j].p || ws[i].p == ws[j].p && ws[i].r < ws[j].r })
	var out []start
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && ws[j].g == ws[i].g {
			j++
		}
		if j-i >= minRun && (len(out) == 0 || out[len(out)-1].script != ws[i].g) {
			out = append(out, start{ws[i].p, ws[i].g, ws[i+(j-i)/2].r})
		}
		i = j
	}
	return out
}

// candidates are the tags whose resolved locale Node is asked for.
func candidates(available []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	langs, regions, scripts := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, t := range available {
		add(t)
		tag := language.MustParse(t)
		b, _ := tag.Base()
		langs[b.String()] = true
		s, sc := tag.Script()
		r, rc := tag.Region()
		if rc == language.Exact {
			regions[r.String()] = true
			if sc == language.Exact {
				add(b.String() + "-" + r.String())
			}
		}
		if sc == language.Exact {
			add(b.String() + "-" + s.String())
			scripts[b.String()+"-"+s.String()] = true
		}
	}
	// Every region x/text knows, after each language and each script
	// form: ICU has data for some regions CLDR does not list (zh-TW).
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			if r, err := language.ParseRegion(string([]rune{a, b})); err == nil && r.IsCountry() {
				regions[r.String()] = true
			}
		}
	}
	for l := range langs {
		add(l)
		for r := range regions {
			add(l + "-" + r)
		}
	}
	for s := range scripts {
		for r := range regions {
			add(s + "-" + r)
		}
	}
	sort.Strings(out)
	return out
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gencollation availableLocales.json")
		os.Exit(2)
	}
	raw, err := os.ReadFile(os.Args[1])
	check(err)
	var al struct {
		AvailableLocales struct{ Full []string } `json:"availableLocales"`
	}
	check(json.Unmarshal(raw, &al))
	if len(al.AvailableLocales.Full) == 0 {
		check(fmt.Errorf("%s lists no locales", os.Args[1]))
	}
	ss := starts()
	samples := make([]string, len(ss))
	for i, s := range ss {
		samples[i] = string(s.sample)
	}
	collations := [][2]string{{"de", "phonebk"}, {"zh", "stroke"}}
	in, err := json.Marshal(map[string]any{"tags": candidates(al.AvailableLocales.Full), "samples": samples})
	check(err)
	cmd := exec.Command("node", "-e", nodeScript)
	cmd.Stdin, cmd.Stderr = strings.NewReader(string(in)), os.Stderr
	out, err := cmd.Output()
	check(err)
	var res struct {
		Available []string
		Root      []string
		Orders    map[string][]string
	}
	check(json.Unmarshal(out, &res))
	in, err = json.Marshal(map[string]any{"tags": res.Available, "samples": samples, "collations": collations})
	check(err)
	cmd = exec.Command("node", "-e", coScript)
	cmd.Stdin, cmd.Stderr = strings.NewReader(string(in)), os.Stderr
	out, err = cmd.Output()
	check(err)
	check(json.Unmarshal(out, &res.Orders))
	script := map[string]string{}
	for _, s := range ss {
		script[string(s.sample)] = s.script
	}
	names := func(o []string) []string {
		var n []string
		for _, s := range o {
			if !slices.Contains(n, script[s]) {
				n = append(n, script[s])
			}
		}
		return n
	}
	root := names(res.Root)
	reorders := map[string]string{}
	for t := range res.Orders {
		o := names(res.Orders[t])
		if slices.Equal(o, root) {
			continue
		}
		// The reordered scripts are the shortest head after which the
		// order is the root's without them.
		k := 1
		for ; k <= len(o); k++ {
			rest := slices.DeleteFunc(slices.Clone(root), func(s string) bool { return slices.Contains(o[:k], s) })
			if slices.Equal(o[k:], rest) {
				break
			}
		}
		if k > len(o) {
			check(fmt.Errorf("%s orders the scripts %v, which no reordering of the root's %v gives", t, o, root))
		}
		reorders[t] = strings.Join(o[:k], " ")
	}

	w := os.Stdout
	fmt.Fprintf(w, "// Code generated by internal/gencollation from Node %s and x/text's root collation; DO NOT EDIT.\n\n", nodeVersion())
	fmt.Fprintln(w, "package intl")
	fmt.Fprintln(w, "\n// collationLocales are the locales ICU 78 has collation data for, as V8\n// resolves a Collator's locale to them.")
	fmt.Fprintln(w, "var collationLocales = map[string]bool{")
	for _, t := range res.Available {
		fmt.Fprintf(w, "%q: true,\n", t)
	}
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, "\n// scriptStarts are where each script's letters start among x/text's\n// root primary weights, in order; the weights before the first are the\n// spaces, punctuation, symbols and digits, which no reordering moves.")
	fmt.Fprintln(w, "var scriptStarts = []scriptStart{")
	for _, s := range ss {
		fmt.Fprintf(w, "{%#x, %q}, // %q\n", s.p, s.script, s.sample)
	}
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, "\n// collationReorders are the scripts each collation locale sorts before\n// the others, in order (CLDR's [reorder …]).")
	fmt.Fprintln(w, "var collationReorders = map[string]string{")
	keys := make([]string, 0, len(reorders))
	for k := range reorders {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%q: %q,\n", k, reorders[k])
	}
	fmt.Fprintln(w, "}")
}

func nodeVersion() string {
	out, err := exec.Command("node", "-p", "process.version + ' (ICU ' + process.versions.icu + ')'").Output()
	check(err)
	return strings.TrimSpace(string(out))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencollation:", err)
		os.Exit(1)
	}
}
