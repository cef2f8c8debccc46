package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestIntlGuestFormatsAsHost: numbers formatted by a handle (OP_INTL_FORMAT;
// the host's plain decimal path for these options, intl.Format) print what
// a JSON request prints for the same options (formatToParts always sends
// one), for random values that round, carry and group.
func TestIntlGuestFormatsAsHost(t *testing.T) {
	res, err := engine(t).Run(context.Background(), Script{Source: `
let seed = 7;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const bad = [];
const formats = [];
for (const l of ["en-US", "de-DE", "fr-FR", "es-ES", "pl-PL", "en-IN", "sv-SE", "de-CH", "pt-PT", "it-IT"]) {
  for (const o of [undefined, { maximumFractionDigits: 0 }, { maximumFractionDigits: 2 }, { minimumFractionDigits: 3, maximumFractionDigits: 5 },
    { useGrouping: false }, { useGrouping: "always" }, { useGrouping: "min2" }, { maximumFractionDigits: 20 }]) {
    formats.push(new Intl.NumberFormat(l, o));
  }
}
let n = 0;
for (let i = 0; i < 3000; i++) {
  const scale = 10 ** Math.floor(rnd() * 24 - 8);
  let x = Math.round(rnd() * 1e6) / 1e3 * scale;
  if (i % 3 === 0) x = -x;
  if (i % 7 === 0) x = Math.round(x * 2) / 2;
  if (i % 11 === 0) x = Math.floor(x) + 0.5 - 1e-9 * (i % 2);
  const f = formats[i % formats.length];
  const got = f.format(x), want = f.formatToParts(x).map((p) => p.value).join("");
  n++;
  if (got !== want) bad.push([f.resolvedOptions().locale, JSON.stringify(f.resolvedOptions().maximumFractionDigits), x, got, want]);
  const s = x.toLocaleString("en-US");
  if (s !== formats[0].formatToParts(x).map((p) => p.value).join("")) bad.push(["toLocaleString", x, s]);
}
return { n, bad: bad.slice(0, 10) };`}, okBridge, Limits{Timeout: 2 * time.Minute})
	require.NoError(t, err)
	var got struct {
		N   int
		Bad []any
	}
	require.NoError(t, json.Unmarshal(res.Value, &got))
	require.Equal(t, 3000, got.N)
	require.Empty(t, got.Bad)
}

// TestIntlHostile: what a script can make the compiled Intl paths do
// (many keys, long and odd strings, many options, throwing getters) ends
// in a result or a typed limit, with a healthy chain finishing alongside.
func TestIntlHostile(t *testing.T) {
	e := engine(t)
	for _, tt := range []struct {
		name, src string
		lim       Limits
		want      string // the result's JSON; empty: the run hits lim's memory or time limit
	}{
		{name: "keys past the guest cache", want: `"done"`, lim: Limits{Timeout: time.Minute}, src: `
const c = new Intl.Collator().compare;
for (let r = 0; r < 3; r++) { const a = Array.from({length: 30000}, (_, i) => "k" + r + "_" + (i * 7919 % 30000)); a.sort(c); }
for (let i = 0; i < 60000; i++) ("s" + i).localeCompare("t" + i);
return "done";`},
		{name: "keys under a small memory limit", lim: Limits{MemoryBytes: 8 << 20, Timeout: time.Minute}, src: `
const c = new Intl.Collator().compare, a = [];
for (let i = 0; ; i++) { a.push("x".repeat(1000) + i); if (a.length % 1000 === 0) a.sort(c); }`},
		{name: "strings keys are not used for", want: `[-1,1,-1,0,"RangeError: Intl request too large"]`, src: `
const c = new Intl.Collator().compare, out = [];
out.push(c("a\u0000b", "a\u0000c"), c("b".repeat(2000), "a".repeat(2000)), ["b".repeat(1100), "a"].sort(c)[0] === "a" ? -1 : 1, c("x".repeat(5000), "x".repeat(5000)));
try { c("y".repeat(70000), "y"); } catch (e) { out.push(e.name + ": " + e.message); }
return out;`},
		{name: "strings whose keys expand", want: `true`, lim: Limits{Timeout: time.Minute}, src: `
const c = new Intl.Collator().compare;
const a = Array.from({ length: 60 }, (_, i) => "\ufdfa".repeat(1000) + ((i * 7) % 60));
const s = [...a].sort(c);
return s.every((x, i) => i === 0 || c(s[i - 1], x) <= 0) && s[0].endsWith("\ufdfa0") && s[59].endsWith("\ufdfa9");`},
		{name: "ranges of every kind", want: `[2000,"RangeError: Invalid time value","TypeError: Cannot convert a BigInt value to a number"]`,
			lim: Limits{Timeout: time.Minute}, src: `
let n = 0;
const styles = ["full", "long", "medium", "short"];
for (let i = 0; i < 2000; i++) {
  const f = new Intl.DateTimeFormat(["en", "de", "ja", "zh-Hant", "ar"][i % 5] + "-x-" + i.toString(36).padStart(3, "0"),
    { dateStyle: styles[i % 4], timeStyle: styles[(i >> 2) % 4], timeZone: "UTC" });
  const a = (i * 7919 % 1e6) * 1e9 - 4e14, b = a + (i % 9) * 10 ** (i % 11);
  if (f.formatRange(a, b).length > 0 && f.formatRangeToParts(b, a).length > 0) n++;
}
const out = [n];
for (const g of [() => new Intl.DateTimeFormat().formatRange(0, Infinity), () => new Intl.DateTimeFormat().formatRange(2n ** 80n, 0)]) {
  try { g(); } catch (e) { out.push(e.name + ": " + e.message); }
}
return out;`},
		{name: "many options", want: `500`, lim: Limits{Timeout: time.Minute}, src: `
let n = 0;
for (let i = 0; i < 500; i++) {
  const o = { maximumFractionDigits: i % 21, minimumIntegerDigits: 1 + i % 21 };
  if ((1234.5).toLocaleString("en-u-nu-latn-x-" + i.toString(36).padStart(3, "0"), o).length > 0) n++;
  "a".localeCompare("b", "de-x-" + i.toString(36).padStart(3, "0"), { sensitivity: ["base", "accent", "case", "variant"][i % 4] });
  new Date(i).toLocaleString("en-x-" + i.toString(36).padStart(3, "0"), { timeZone: "UTC" });
}
return n;`},
		// The run's table of formats holds MaxIntlFormats formats and
		// MaxIntlFormatBytes of prefixes: past either (many distinct
		// options; long locales), formats go by requests, with the same
		// results.
		{name: "formats past the run's table", want: `[1500,0]`, lim: Limits{Timeout: 2 * time.Minute}, src: `
let n = 0, bad = 0;
const parts = (nf, x) => nf.formatToParts(x).map((p) => p.value).join("");
for (let i = 0; i < 1000; i++) {
  const o = { maximumFractionDigits: i % 21, minimumIntegerDigits: 1 + (i >> 4) % 21, useGrouping: i % 3 === 0 };
  const nf = new Intl.NumberFormat("en-US", o), x = i * 1234.5678 - 99999;
  n++;
  if (nf.format(x) !== parts(nf, x) || x.toLocaleString("en-US", o) !== parts(nf, x)) bad++;
}
const long = "en-x-" + Array.from({ length: 100 }, (_, i) => "a" + i.toString(36).padStart(6, "0")).join("-");
for (let i = 0; i < 500; i++) {
  const nf = new Intl.NumberFormat(long + "-b" + i, { maximumFractionDigits: 1 }), x = -i / 3;
  n++;
  if (nf.format(x) !== parts(nf, x) || x.toLocaleString(long + "-b" + i) !== new Intl.NumberFormat(long + "-b" + i).format(x)) bad++;
  new Date(i * 1e9).toLocaleString(long + "-c" + i);
}
return [n, bad];`},
		{name: "a throwing getter in a sorted array", want: `["a","b","c"]`, src: `
const a = ["c", "a", "b"];
let reads = 0;
Object.defineProperty(a, 1, { get() { if (++reads > 1) throw new Error("read twice"); return "a"; }, configurable: true });
const b = [...a];
return b.sort((x, y) => x.localeCompare(y));`},
		{name: "a proxy sorted with a Collator", want: `["a","b","c"]`, src: `
const p = new Proxy(["c", "a", "b"], {});
Array.prototype.sort.call(p, new Intl.Collator().compare);
return [...p];`},
		{name: "a frozen array", want: `"TypeError"`, src: `
try { Object.freeze(["b", "a"]).sort(new Intl.Collator().compare); } catch (e) { return e.name; }`},
		{name: "a recognised localeCompare comparator past the host's sort", want: `[66000,true,true]`, lim: Limits{Timeout: 2 * time.Minute}, src: `
const a = [];
for (let i = 0; i < 66000; i++) a.push("k" + (i * 7919 % 66000));
const s = [...a].sort((x, y) => x.localeCompare(y)), d = [...a].sort((x, y) => y.localeCompare(x));
let ok = s.length === 66000 && d.length === 66000, rev = true;
for (let i = 1; i < 66000; i += 97) {
  ok = ok && s[i - 1].localeCompare(s[i]) <= 0 && d[i - 1].localeCompare(d[i]) >= 0;
  rev = rev && s[i] === d[65999 - i];
}
return [s.length, ok, rev];`},
		{name: "NUL and long strings with a recognised comparator", want: `[["a","a\u0000b","a\u0000z","b"],[5000,1]]`, src: `
const asc = (x, y) => x.localeCompare(y);
return [["b", "a\u0000z", "a", "a\u0000b"].sort(asc), ["a", "b".repeat(5000)].sort((x, y) => y.localeCompare(x)).map((s) => s.length)];`},
		{name: "property escapes with the i flag", want: `[1000,true,false]`, lim: Limits{Timeout: time.Minute}, src: `
const re = new RegExp("\\p{Lu}".repeat(1000), "iu");
return [re.exec("a".repeat(1000))[0].length, /\p{Lu}/iu.test("1".repeat(100000) + "a"), /\p{Lu}/iu.test("1".repeat(100000))];`},
		// Runs the Lao, Khmer and Burmese dictionary engines cut, as long as
		// a chunk: marks alone, one letter repeated, coeng before every
		// letter (Node's counts).
		{name: "dictionary scripts at the chunk bound", want: `[1,9999,2501,1,1667,4999]`, lim: Limits{Timeout: time.Minute}, src: `
const w = (l, s) => [...new Intl.Segmenter(l, { granularity: "word" }).segment(s)].length;
return [w("my", "\u1039".repeat(9999)), w("my", "က".repeat(9999)), w("km", "\u17d2ក".repeat(4999)), w("lo", "ໆ".repeat(9999)), w("my", "ကို".repeat(3333)), w("lo", "ກ\u0eb4".repeat(4999))];`},
		{name: "a comparator that throws mid-sort", want: `[["c","a","b"],"boom"]`, src: `
const a = ["c", "a", "b"];
let n = 0;
try { a.sort((x, y) => { if (++n === 2) throw new Error("boom"); return x.localeCompare(y); }); } catch (e) { return [a, e.message]; }`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wait := bystander(t, e)
			res, err := e.Run(context.Background(), Script{Source: tt.src}, okBridge, tt.lim)
			wait()
			if tt.want == "" {
				var xe *ExitError
				require.ErrorAs(t, err, &xe)
				require.Contains(t, []ExitKind{LimitExceeded, Timeout}, xe.Kind, "%v", err)
			} else {
				require.NoError(t, err)
				require.JSONEq(t, tt.want, string(res.Value))
			}
			res, err = e.Run(context.Background(), Script{Source: "return 'alive'"}, okBridge, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, `"alive"`, string(res.Value))
		})
	}
}

// TestIntlSortPaths: a Collator's compare sorts an array of strings in the
// host (up to 65536 strings) or by keys in the guest (more), both in
// order and stable, as comparing pairs is.
func TestIntlSortPaths(t *testing.T) {
	res, err := engine(t).Run(context.Background(), Script{Source: `
const c = new Intl.Collator("en", { sensitivity: "base" }).compare;
const variants = (w) => {
  let out = [""];
  for (const ch of w) out = out.flatMap((p) => [p + ch, p + ch.toUpperCase(), p + ch.normalize("NFD").replace(/./, (x) => x + "\u0301")]);
  return out;
};
const check = (n) => {
  const a = [];
  for (let i = 0; a.length < n; i++) for (const v of variants("resu")) a.push(v + (i * 7919 % 1000));
  a.length = n;
  for (let i = a.length - 1; i > 0; i--) { const j = (i * 2654435761) % (i + 1); [a[i], a[j]] = [a[j], a[i]]; }
  const at = new Map(a.map((s, i) => [s, i]));
  if (at.size !== n) return "duplicates";
  const s = [...a].sort(c);
  for (let i = 1; i < n; i++) {
    const r = c(s[i - 1], s[i]);
    if (r > 0 || (r === 0 && at.get(s[i - 1]) > at.get(s[i]))) return "out of order at " + i + ": " + s[i - 1] + " " + s[i];
  }
  return n;
};
return [check(1000), check(70000)];`}, okBridge, Limits{Timeout: 2 * time.Minute, MemoryBytes: 256 << 20})
	require.NoError(t, err)
	require.JSONEq(t, `[1000, 70000]`, string(res.Value))
}

// TestIntlFormatsAcrossPark: formats a run compiled before it parked (by
// handles of its table of formats, cached in the guest) format the same
// after it resumes in another engine, and new ones join them.
func TestIntlFormatsAcrossPark(t *testing.T) {
	const src = `
const nf = new Intl.NumberFormat("de-DE", { maximumFractionDigits: 2 });
const df = new Intl.DateTimeFormat("en-US", { dateStyle: "medium" });
const run = () => [nf.format(-1234.567), (9876.5).toLocaleString("en-US"), (1e6).toLocaleString(), df.format(1e12),
  new Date(2e12).toLocaleDateString("fr-FR"), (0.5).toLocaleString("pl-PL", { style: "percent" })].join("|");
const before = run();
await tools.risky({ n: 1 });
return [before, run(), (42.125).toLocaleString("es-ES"), new Intl.NumberFormat("en-IN").format(12345678.9)];`
	e := engine(t)
	want, err := e.Run(context.Background(), Script{Source: src}, okBridge, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `["-1.234,57|9,876.5|1,000,000|Sep 9, 2001|18/05/2033|50%",
		"-1.234,57|9,876.5|1,000,000|Sep 9, 2001|18/05/2033|50%", "42,125", "1,23,45,678.9"]`, string(want.Value))
	res, err := e.Run(context.Background(), Script{Source: src, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	h, _, err := decodeState(res.Parked.State)
	require.NoError(t, err)
	require.NotEmpty(t, h.IntlFormats)
	other, err := NewScriptEngine(context.Background(), ScriptOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer other.Close(context.Background())
	got, err := other.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge, Retry: approveAll})
	require.NoError(t, err)
	require.JSONEq(t, string(want.Value), string(got.Value))
}

// TestIntlFormatTableBounds: a run's table of formats stops at
// MaxIntlFormats formats and at MaxIntlFormatBytes of prefixes.
func TestIntlFormatTableBounds(t *testing.T) {
	var byCount intlFormats
	for i := range MaxIntlFormats {
		h, ok := byCount.add(fmt.Sprintf("N%d", i), nil)
		require.True(t, ok)
		require.Equal(t, int32(i), h)
	}
	_, ok := byCount.add("N-one-more", nil)
	require.False(t, ok)
	require.Len(t, byCount.prefixes, MaxIntlFormats)

	var byBytes intlFormats
	long := strings.Repeat("x", MaxIntlFormatBytes/4)
	for i := range 4 {
		_, ok := byBytes.add(fmt.Sprint(i)+long[1:], nil)
		require.True(t, ok, "prefix %d", i)
	}
	_, ok = byBytes.add("N", nil)
	require.False(t, ok)
	require.Equal(t, MaxIntlFormatBytes, byBytes.bytes)
}

// TestIntlFormatTableFills: a run that makes more formats than its table
// holds fills the table to one of its bounds (a parked state shows it) and
// formats the rest by requests, before and after it resumes, as the host's
// JSON requests do.
func TestIntlFormatTableFills(t *testing.T) {
	const src = `
const parts = (nf, x) => nf.formatToParts(x).map((p) => p.value).join("");
const check = () => {
  let bad = 0;
  for (let i = 0; i < 300; i++) {
    const nf = new Intl.NumberFormat("en-US", { maximumFractionDigits: i % 20, minimumIntegerDigits: 1 + (i >> 4) % 20 });
    const x = i * 1234.5678 - 9999;
    if (nf.format(x) !== parts(nf, x)) bad++;
  }
  return bad;
};
const before = check();
await tools.risky({ n: 1 });
return [before, check()];`
	e := engine(t)
	res, err := e.Run(context.Background(), Script{Source: src, Park: true}, parkBridge, Limits{Timeout: time.Minute})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	h, _, err := decodeState(res.Parked.State)
	require.NoError(t, err)
	// Full by one bound or the other (resolved options make prefixes of
	// about 330 bytes: the bytes bind first here).
	n, size := len(h.IntlFormats), 0
	for _, p := range h.IntlFormats {
		size += len(p)
	}
	require.LessOrEqual(t, n, MaxIntlFormats)
	require.LessOrEqual(t, size, MaxIntlFormatBytes)
	require.True(t, n == MaxIntlFormats || size > MaxIntlFormatBytes-400, "%d formats, %d bytes: the table is not full", n, size)
	got, err := e.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge, Retry: approveAll})
	require.NoError(t, err)
	require.JSONEq(t, `[0,0]`, string(got.Value))
}

// TestIntlFormatsOfAnyTextResume: a script that replaces JSON.stringify
// chooses the text of the prefixes its formats register, lone surrogates
// included (bytes that are not UTF-8 once the host reads them). The state
// the run parks with must resume: its table must come back as it was, not
// with prefixes a JSON round trip rewrote into duplicates of one another
// or past MaxIntlFormatBytes. A bystander chain runs alongside.
func TestIntlFormatsOfAnyTextResume(t *testing.T) {
	const src = `
const js = JSON.stringify;
const out = [];
for (const z of ["\ud800", "\udbff", "\udc00", "\udfff"]) {
  JSON.stringify = (v) => js(v).slice(0, -1) + ',"z":"' + z.repeat(2000) + '"}';
  out.push(new Intl.NumberFormat("de-DE").format(1234.5));
}
JSON.stringify = js;
await tools.risky({ n: 1 });
out.push(new Intl.NumberFormat("de-DE").format(-1234.5), (1234.5).toLocaleString("de-DE"));
return out;`
	e := engine(t)
	wait := bystander(t, e)
	defer wait()
	res, err := e.Run(context.Background(), Script{Source: src, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	got, err := e.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge, Retry: approveAll})
	require.NoError(t, err)
	require.JSONEq(t, `["1.234,5","1.234,5","1.234,5","1.234,5","-1.234,5","1.234,5"]`, string(got.Value))
}
