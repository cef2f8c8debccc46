// NumberFormat's roundingMode on ties, near-ties and signs, with fraction
// and significant digits, in several locales and notations.
const modes = ["ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"];
const values = [-0, 1.5, 2.5, -1.5, -2.5, 1.25, -1.25, 0.05, -0.004, 2.675, 1.005,
  -1234.5678, 999.995, -999.995, 9.5, 123456789.125, 1e21, -5e-7, 7, -0.5];
const out = {};
for (const roundingMode of modes) {
  const rows = [];
  for (const opts of [
    { maximumFractionDigits: 0 },
    { maximumFractionDigits: 2 },
    { maximumSignificantDigits: 2 },
    { maximumSignificantDigits: 3, minimumSignificantDigits: 3 },
  ]) {
    const nf = new Intl.NumberFormat("en-US", { ...opts, roundingMode });
    rows.push(values.map((v) => nf.format(v)).join(" | "));
  }
  for (const [loc, o] of [["de-DE", { style: "currency", currency: "EUR" }], ["en", { style: "percent", maximumFractionDigits: 1 }],
    ["fr-FR", { notation: "compact" }], ["en", { notation: "scientific", maximumFractionDigits: 1 }],
    ["ja-JP", { style: "currency", currency: "JPY" }]]) {
    const nf = new Intl.NumberFormat(loc, { ...o, roundingMode });
    rows.push(values.map((v) => nf.format(v)).join(" | "));
  }
  rows.push([12345n, -12345n, 10n ** 22n + 5n].map((v) => new Intl.NumberFormat("en", { maximumSignificantDigits: 2, roundingMode }).format(v)).join(" | "));
  rows.push(["1.5", "-2.5", "0.000000000000000000000000000015", "123456789012345678901234567890.5"].map((v) => new Intl.NumberFormat("en", { maximumFractionDigits: 0, roundingMode }).format(v)).join(" | "));
  rows.push(new Intl.NumberFormat("en", { roundingMode }).resolvedOptions().roundingMode);
  rows.push((2.5).toLocaleString("en", { maximumFractionDigits: 0, roundingMode }));
  out[roundingMode] = rows;
}
console.log(out.halfEven[0]);
return out;
