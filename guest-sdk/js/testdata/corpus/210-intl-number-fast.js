// Numbers with plain decimal options (once formatted by the guest) and
// with any other, across locales, values that round, carry, group and
// fall back (NaN aside: ar-EG names it, a fidelity gap of its own);
// toLocaleString's cache must not mix options or locales.
const locales = ["en-US", "de-DE", "fr-FR", "es-ES", "pl-PL", "en-IN", "ar-EG", "sv-SE", "de-CH", "hi-IN", undefined];
const values = [0, -0, 0.5, 1.5, 2.5, -2.5, 0.0005, 0.0004, 0.9995, 999.9995, -999.9995, 1e21, 1e-7, 1e-6, 123456789.123,
  1234.5, 12345, -1234567.891, 9007199254740991, 0.1 + 0.2, 1.005, 1e15 + 0.3, 99999.99951, 1000, 10000, 100000,
  Infinity, -Infinity, 4.35, 0.125, 123456789012345680000, 7.000001, -0.0001];
const options = [undefined, { maximumFractionDigits: 0 }, { maximumFractionDigits: 2 }, { minimumFractionDigits: 2 },
  { minimumFractionDigits: 1, maximumFractionDigits: 4 }, { useGrouping: false }, { useGrouping: "always" },
  { useGrouping: "min2" }, { minimumIntegerDigits: 3 }, { style: "percent" }];
const out = [];
for (const l of locales) {
  for (const o of options) {
    const nf = new Intl.NumberFormat(l, o);
    out.push(l + " " + JSON.stringify(o) + ": " + values.map((v) => nf.format(v)).join(" | "));
    out.push(values.map((v) => v.toLocaleString(l, o)).join(" | "));
    if (o === undefined) out.push(values.map((v) => nf.formatToParts(v).map((p) => p.value).join("") === nf.format(v)).join(""));
  }
}
// The same locale string, with and without options, alternating.
const mixed = [];
for (let i = 0; i < 50; i++) {
  const v = i * 1234.5678;
  mixed.push(v.toLocaleString("de-DE"), v.toLocaleString("de-DE", { maximumFractionDigits: 1 }), v.toLocaleString(),
    v.toLocaleString("en-IN"), v.toLocaleString(["fr-FR"]), 12345678901234567890n.toLocaleString("de-DE"));
}
out.push(mixed.join(","));
// Options that print alike in a cache key must not share a formatter.
const odd = [];
for (const [l, o] of [["de", { style: "decimal" }], ["de", { style: "decimal\u0001currency\u0002sEUR" }],
  ["de", { maximumFractionDigits: 1 }], ["de", { maximumFractionDigits: "1" }], ["de", { maximumFractionDigits: { valueOf: () => 1 } }],
  [["de", "fr"], undefined], ["de\u0000fr", undefined], [["de"], { style: "percent" }]]) {
  try { odd.push((1234.56).toLocaleString(l, o)); } catch (e) { odd.push(e.name); }
}
out.push(odd.join(" | "));
console.log(out[0]);
return out;
