package sandbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// intlCases are hostile uses of Intl's options and locale tags: each run
// finishes quickly with a bounded answer (or the error Node throws), while
// TestHostile's bystander chain runs alongside.
func intlCases() []hostileCase {
	quick := Limits{Timeout: 5 * time.Second}
	value := func(want string) func(t *testing.T, res *Result) {
		return func(t *testing.T, res *Result) { require.JSONEq(t, want, string(res.Value)) }
	}
	return []hostileCase{
		{name: "intl: rounding a 4000-digit BigInt by increments, every mode", lim: quick,
			src: `let n = 0;
for (const roundingMode of ["ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"]) {
  const nf = new Intl.NumberFormat("en", { roundingIncrement: 5000, minimumFractionDigits: 20, maximumFractionDigits: 20, roundingMode });
  for (let i = 0; i < 20; i++) n += nf.format(-(10n ** 3999n) - BigInt(i)).length;
}
return n;`, check: value(`963900`)},
		{name: "intl: absurd rounding option values", lim: quick,
			src: `const out = [];
for (const o of [{ roundingIncrement: 1e308 }, { roundingIncrement: -1e308 }, { roundingMode: "x".repeat(60000) },
  { roundingPriority: "y".repeat(5000) }, { trailingZeroDisplay: { toString() { return "z".repeat(1 << 20); } } }]) {
  try { new Intl.NumberFormat("en", o); out.push("ok"); } catch (e) { out.push(e.name + ": " + e.message.slice(0, 60)); }
}
return out;`, check: value(`["RangeError: roundingIncrement value is out of range.","RangeError: roundingIncrement value is out of range.",
  "RangeError: Value of 60000 bytes out of range for options property round","RangeError: Value of 5000 bytes out of range for options property roundi",
  "RangeError: Intl request too large"]`)},
		{name: "intl: long extension sequences and absurd keyword options", lim: quick,
			src: `const out = [];
for (const f of [
  () => new Intl.NumberFormat("en-u-" + "aa-bbb-".repeat(140) + "nu-arab").resolvedOptions().locale,
  () => new Intl.DateTimeFormat("en-u-ca-" + "gregory-".repeat(120) + "nu-arab").resolvedOptions().locale,
  () => new Intl.NumberFormat("en-u-" + "nu-arab-".repeat(200)).resolvedOptions().locale,
  () => new Intl.NumberFormat("en", { numberingSystem: "arab-".repeat(2000) + "x" }),
  () => new Intl.Collator("de", { collation: "phonebk-".repeat(1000) }),
  () => new Intl.DateTimeFormat("en", { calendar: "gregory-".repeat(100) + "y" }),
  () => new Intl.Collator("de-u-co-phonebk-kn-kf-upper").compare("Müller".repeat(2000), "Mueller".repeat(2000)),
  () => Array.from({ length: 200 }, (_, i) => new Intl.NumberFormat("en-u-nu-" + ["arab", "thai", "deva", "hanidec"][i % 4]).format(i)).join("").length,
]) { try { out.push(String(f())); } catch (e) { out.push(e.name + ": " + e.message.slice(0, 70)); } }
return out;`, check: value(`["en-u-nu-arab","en-u-nu-arab","RangeError: Incorrect locale information provided",
  "RangeError: Value of 10001 bytes out of range for options property numberingSystem",
  "RangeError: Value of 8000 bytes out of range for options property collation",
  "RangeError: Invalid calendar : gregory-gregory-gregory-gregory-gregory-gregory-gre",
  "1","490"]`)},
		// The dictionary engines' work grows with the run: the largest
		// runs the prelude passes (10,000 characters between line
		// breaks), of one character and of words, cut as Node cuts them.
		{name: "intl: word segmentation of the largest Chinese, Japanese and Thai runs", lim: quick,
			src: `const seg = new Intl.Segmenter("ja", { granularity: "word" });
const n = [];
for (const s of ["の".repeat(10000), "ア".repeat(10000), "ｶﾞ".repeat(5000), "ก".repeat(10000), "東京都".repeat(3333), "ภาษาไทย".repeat(1428)])
  n.push([...seg.segment(s)].length);
return n;`, check: value(`[10000,10000,5000,5000,6666,2856]`)},
		// The prelude keeps toLocaleString's default formatter (no
		// locale) and its handle under a key a locale string can name:
		// "undefined" must still be refused as a locale, not formatted
		// with the default one's handle.
		{name: "intl: a locale string naming the default formatter's key", lim: quick,
			src: `const out = [];
for (const f of [() => (1234.5).toLocaleString(), () => (1234.5).toLocaleString("undefined"), () => (1234.5).toLocaleString("undefined"),
  () => (1234.5).toLocaleString(), () => Number.prototype.toLocaleString.call(new Number(1), "undefined"), () => (5n).toLocaleString("undefined")]) {
  try { out.push(f()); } catch (e) { out.push(e.name); }
}
return out;`, check: value(`["1,234.5","RangeError","RangeError","1,234.5","RangeError","RangeError"]`)},
		// OP_INTL_FORMAT's table filled with prefixes a script chose (it
		// replaces JSON.stringify, which the prelude's prefixes go
		// through): long, malformed, of the other op, not UTF-8; then
		// every format fed the extreme numbers and times.
		// The limit is a guard, not a target: about 2 s alone, 10 s under
		// -race, and three times that beside the other parallel tests.
		{name: "intl: the table of formats filled with crafted prefixes", lim: Limits{Timeout: 2 * time.Minute},
			src: `const js = JSON.stringify, out = { ok: 0, err: 0, len: 0 };
const crafted = (i) => i % 5 === 0 ? "x".repeat(70000) : i % 5 === 1 ? "{" : i % 5 === 2 ? js({ l: ["en"], o: {}, z: "\ud800".repeat(i) }).replace(/\\ud800/g, "\ud800")
  : js({ l: ["de-DE-u-ca-japanese"], o: { maximumFractionDigits: i % 21, pad: "p".repeat(i * 40) } });
const xs = [0, -0, NaN, Infinity, -Infinity, 5e-324, -5e-324, 1.7976931348623157e308, -8.64e15, 8.64e15, 8.64e15 + 1, 1e21, 0.5, 2.5];
for (let i = 0; i < 400; i++) {
  const nf = new Intl.NumberFormat("en", { maximumFractionDigits: i % 21 }), df = new Intl.DateTimeFormat("en", { minute: "numeric" }), fs = [];
  JSON.stringify = () => crafted(i);
  try { fs.push(nf.format); } catch (e) { out.err++; }
  try { fs.push(df.format); } catch (e) { out.err++; }
  JSON.stringify = js;
  for (const f of fs) for (const x of xs) {
    try { out.len += f(x).length; out.ok++; } catch (e) { out.err++; }
  }
}
return [out.ok > 1000, out.err > 1000, out.len > 10000];`, check: value(`[true,true,true]`)},
		{name: "intl: display names of absurd codes", lim: quick,
			src: `const out = [];
const dn = new Intl.DisplayNames("en", { type: "language" });
for (const f of [
  () => dn.of("en" + "-abcde".repeat(170)).length,
  () => dn.of("a".repeat(60000)),
  () => new Intl.DisplayNames("en", { type: "region" }).of("x".repeat(5000)),
  () => Array.from({ length: 300 }, (_, i) => dn.of(["en-US", "zh-Hant-HK", "xx-YY", "de-1996"][i % 4])).join("").length,
  () => new Intl.DisplayNames("en", { type: "language", style: "s".repeat(3000) }),
]) { try { out.push(String(f())); } catch (e) { out.push(e.name + ": " + e.message.slice(0, 70)); } }
return out;`, check: value(`["1198","RangeError: invalid_argument","RangeError: invalid_argument","7500",
  "RangeError: Value of 3000 bytes out of range for options property style"]`)},
	}
}
