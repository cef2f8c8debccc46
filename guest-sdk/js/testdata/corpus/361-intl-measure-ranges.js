// Ranges of measurements and rates in a logistics dashboard: delivery
// distances ("3–5 km", "1–2 kilometers", "0–1 kilomètre": the unit's
// plural form comes from CLDR's plural ranges), temperatures, discounts
// ("5% – 10%" in English, "5–10 %" in German and French), file sizes in
// compact notation, and the errors a script gets for a bad end (V8's
// messages: a missing end is a TypeError, NaN a RangeError, a string is
// read as an exact decimal).
const cities = ["Berlin", "Cairo", "Seoul", "Tokyo"];
const temps = [];
for (const city of cities) {
  const w = await tools.weather({ city });
  if (w && typeof w.tempC === "number") temps.push([city, w.tempC]);
}
const out = { distance: {}, temperature: {}, discount: {}, size: {} };
const legs = [[0, 1], [1, 1], [1, 2], [2, 5], [3, 3.0004], [0.5, 1.5], [21, 22], [5, 3], [-2, 4]];
for (const l of ["en", "fr", "de", "ru", "pl", "ar", "ja"]) {
  out.distance[l] = ["short", "long", "narrow"].map((unitDisplay) => {
    const nf = new Intl.NumberFormat(l, { style: "unit", unit: "kilometer", unitDisplay });
    return legs.map(([a, b]) => nf.formatRange(a, b)).join(" | ");
  });
  const t = new Intl.NumberFormat(l, { style: "unit", unit: "celsius", maximumFractionDigits: 0 });
  out.temperature[l] = temps.map(([c, x]) => `${c} ${t.formatRange(x - 3, x + 2)}`);
  const pct = new Intl.NumberFormat(l, { style: "percent", maximumFractionDigits: 1 });
  out.discount[l] = [[0.05, 0.1], [0.1, 0.1], [0.0999, 0.1], [-0.05, 0.05]].map(([a, b]) => pct.formatRange(a, b));
  const size = new Intl.NumberFormat(l, { style: "unit", unit: "megabyte", notation: "compact", unitDisplay: "long" });
  out.size[l] = [[1200, 3400], [1e6, 2e6], [999999, 1e6]].map(([a, b]) => size.formatRange(a, b));
}
const dec = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });
out.signs = [[3, 5], [-5, -3], [-3, -3], [0, 0], [-0, 0], [3, Infinity], [-Infinity, Infinity]].map(([a, b]) => dec.formatRange(a, b));
out.always = new Intl.NumberFormat("en", { signDisplay: "always" }).formatRange(3, 3);
out.sci = new Intl.NumberFormat("en", { notation: "scientific" }).formatRange(1500, 2500);
out.exact = new Intl.NumberFormat("en", { maximumFractionDigits: 20 }).formatRange("0.1", "0.10000000000000000001");
out.errors = [];
for (const f of [() => dec.formatRange(1), () => dec.formatRange(undefined, 2), () => dec.formatRange(NaN, 2), () => dec.formatRange(1, "abc"),
  () => dec.formatRange(1, {}), () => dec.formatRange(Symbol("x"), 1), () => dec.formatRangeToParts(2, NaN), () => dec.formatRange("0x1F", 40),
  () => Intl.NumberFormat.prototype.formatRange.call({}, 1, 2), () => dec.formatRange(null, true), () => dec.formatRange("1e400", 5)]) {
  try {
    out.errors.push(String(f()));
  } catch (e) {
    out.errors.push(`${e.name}: ${e.message}`);
  }
}
console.log(out.distance.en[1]);
return out;
