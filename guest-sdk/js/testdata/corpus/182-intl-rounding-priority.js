// roundingPriority (auto, morePrecision, lessPrecision) with both kinds of
// digits, trailingZeroDisplay, and what resolvedOptions reports.
const values = [0, 1, 1.5, 0.1234, 1.2345, 12.345, 123.456, 1234.5678, 99.96, 999.96, 0.00123456, 5e-7, 123456789, -4.05, 1e21];
const out = {};
const optsList = [
  { maximumSignificantDigits: 2, maximumFractionDigits: 1 },
  { maximumSignificantDigits: 3, maximumFractionDigits: 2, minimumFractionDigits: 2 },
  { minimumSignificantDigits: 2, maximumSignificantDigits: 4, minimumFractionDigits: 1, maximumFractionDigits: 3 },
  { maximumSignificantDigits: 1, maximumFractionDigits: 0 },
  { maximumSignificantDigits: 5 },
  { maximumFractionDigits: 1 },
  {},
];
for (const roundingPriority of ["auto", "morePrecision", "lessPrecision"]) {
  for (const [i, o] of optsList.entries()) {
    const nf = new Intl.NumberFormat("en", { ...o, roundingPriority });
    const r = nf.resolvedOptions();
    out[roundingPriority + i] = [values.map((v) => nf.format(v)).join(" "),
      [r.minimumSignificantDigits, r.maximumSignificantDigits, r.minimumFractionDigits, r.maximumFractionDigits, r.roundingPriority].join(",")];
  }
}
for (const trailingZeroDisplay of ["auto", "stripIfInteger"]) {
  for (const o of [{ minimumFractionDigits: 2 }, { style: "currency", currency: "USD" }, { minimumSignificantDigits: 4 },
    { style: "percent", minimumFractionDigits: 2 }, { notation: "compact", minimumFractionDigits: 1 },
    { roundingPriority: "morePrecision", minimumFractionDigits: 2, minimumSignificantDigits: 3 }]) {
    const nf = new Intl.NumberFormat("de-DE", { ...o, trailingZeroDisplay });
    out[trailingZeroDisplay + JSON.stringify(o)] = [1, 1.5, 1.999, 1.001, -2, 0, 1000, 0.005, 12345].map((v) => nf.format(v)).join(" ");
  }
}
out.compact = [1234, 15500, 999999, 0.5, -12.34].map((v) => new Intl.NumberFormat("en", { notation: "compact", roundingPriority: "lessPrecision", maximumFractionDigits: 1, maximumSignificantDigits: 3 }).format(v));
console.log(JSON.stringify(new Intl.NumberFormat("en", { roundingPriority: "lessPrecision" }).resolvedOptions()));
return out;
