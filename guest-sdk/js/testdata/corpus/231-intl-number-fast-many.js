// Numbers with plain decimal options (once formatted in the guest) against Node's
// ICU on many inputs per class: integers of every length, two decimals,
// long fractions that round (carrying into the integer part), ties on the
// shortest decimal (1.005, 2.5), values near 1e-6 and 1e21, negatives and
// -0, in locales with different separators and grouping (lakh, a minimum
// of two digits), through toLocaleString and NumberFormat.format.
let seed = 231;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const xs = [0, -0, 1, -1, 0.5, 1.5, 2.5, -2.5, 1.005, 1.0005, 0.125, 0.0005, 1.45, 8.345, 9.995, 99.995, 999.9995,
  0.000001, 0.0000015, 0.00000049, 1e-7, 123456789.987654321, 1e15, 1e16 + 2, 123456789012345680000, 9.999999999999999e20,
  0.1 + 0.2, 1 / 3, 2 / 3, -1 / 7, 1234.5, 12345.678, 4294967295.5, Number.MAX_SAFE_INTEGER, NaN, Infinity, -Infinity];
for (let d = 1; d <= 21; d++) xs.push(Math.floor(10 ** (d - 1) + rnd(9) * 10 ** (d - 1) / 9));
for (let i = 0; i < 6; i++) xs.push(rnd(1e9) / 100, -rnd(1e7) / 7, rnd(1e6), rnd(2e9) / 1e6 - 1000, rnd(1e4) / 8 + 0.0625);
const locales = ["en-US", "de-DE", "hi-IN", "de-CH"];
const opts = [undefined, { maximumFractionDigits: 0 }, { maximumFractionDigits: 2 }, { minimumFractionDigits: 2 },
  { minimumFractionDigits: 1, maximumFractionDigits: 4 }, { maximumFractionDigits: 6 }, { maximumFractionDigits: 7 },
  { useGrouping: false, maximumFractionDigits: 1 }];
// A line per locale and options: a digest of every result and a sample.
const digest = (a) => {
  let h = 0;
  const s = a.join("|");
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
  return h.toString(16) + " " + a.filter((_, i) => i % 9 === 0).join(" ");
};
const out = [];
for (const l of locales) {
  for (const o of opts) {
    const nf = new Intl.NumberFormat(l, o);
    const viaFormat = xs.map((x) => nf.format(x));
    const viaMethod = xs.map((x) => x.toLocaleString(l, o));
    out.push(`${l} ${JSON.stringify(o)} ${digest(viaFormat)}`);
    if (viaMethod.join(" ") !== viaFormat.join(" ")) out.push("toLocaleString differs: " + digest(viaMethod));
  }
}
out.push(digest(xs.map((x) => x.toLocaleString())));
out.push(new Number(1234.5).toLocaleString("de-DE"));
try { Number.prototype.toLocaleString.call("1"); } catch (e) { out.push(e.name); }
return out;
