// NumberFormat's roundingIncrement with every allowed increment, modes and
// fraction digits, and formatToParts of the results.
const incs = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000];
const values = [0, 1, 1.1, 1.125, 1.13, 1.375, 2.5, 3, 5, -5, 7.77, 12.345, -12.345, 99.99, 1234.5678, 0.00049, 250.125, 4999, 5001];
const out = [];
for (const roundingIncrement of incs) {
  for (const digits of roundingIncrement < 100 ? [0, 2] : [1, 3]) {
    for (const roundingMode of ["halfExpand", "halfEven", "ceil"]) {
      const nf = new Intl.NumberFormat("en", { roundingIncrement, minimumFractionDigits: digits, maximumFractionDigits: digits, roundingMode });
      out.push(`${roundingIncrement}/${digits}/${roundingMode}: ` + values.map((v) => nf.format(v)).join(" "));
    }
  }
}
const cur = new Intl.NumberFormat("de-CH", { style: "currency", currency: "CHF", roundingIncrement: 5 });
out.push(JSON.stringify(cur.resolvedOptions()));
out.push([1.02, 1.03, 1.075, -2.024, 0.025].map((v) => cur.format(v)).join(" "));
out.push(JSON.stringify(cur.formatToParts(1234.567)));
const jpy = new Intl.NumberFormat("ja", { style: "currency", currency: "JPY", roundingIncrement: 50 });
out.push([1024, 1025, 1074, 1075, -1075].map((v) => jpy.format(v)).join(" "));
out.push(new Intl.NumberFormat("en", { roundingIncrement: 25, maximumFractionDigits: 2, minimumFractionDigits: 2, trailingZeroDisplay: "stripIfInteger" }).format(0.995));
console.log(out.length);
return out;
