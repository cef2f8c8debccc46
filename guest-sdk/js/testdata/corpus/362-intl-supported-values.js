// A settings form validates a user's choices against
// Intl.supportedValuesOf: the currencies, units, numbering systems and
// time zones the runtime knows, each list sorted; an unknown key is a
// RangeError. Intl's functions are plain built-in methods (no prototype,
// not constructors), as the form's "is this callable" checks see them.
const users = await tools.users({ n: 5 });
const currencies = Intl.supportedValuesOf("currency");
const units = Intl.supportedValuesOf("unit");
const systems = Intl.supportedValuesOf("numberingSystem");
const zones = Intl.supportedValuesOf("timeZone");
const wanted = ["EUR", "USD", "JPY", "XYZ", "usd", "BTC", "CHF"];
const form = users.map((u, i) => {
  const cur = wanted[i % wanted.length];
  const zone = ["Europe/Oslo", "America/Lima", "Mars/Olympus", "Asia/Calcutta", "UTC"][i];
  return { name: u.name, currency: cur, currencyOk: currencies.includes(cur), zone, zoneOk: zones.includes(zone) };
});
const sorted = (a) => a.every((x, i) => i === 0 || a[i - 1] < x);
const summary = {
  counts: [currencies.length, units.length, systems.length, zones.length],
  sorted: [currencies, units, systems, zones].map(sorted),
  firstLast: [currencies, units, systems, zones].map((a) => `${a[0]}…${a[a.length - 1]}`),
  units: units.join(","),
  digits: ["arab", "deva", "thai", "hanidec", "latn", "roman"].map((s) => systems.includes(s)),
  zones: zones.filter((z) => z.startsWith("Europe/B")).join(","),
  gregory: Intl.supportedValuesOf("calendar").includes("gregory"),
  again: Intl.supportedValuesOf("unit") !== units,
};
const errors = [];
for (const k of ["region", "", "Currency", { toString: () => "unit" }, Symbol("k")]) {
  try {
    errors.push(Intl.supportedValuesOf(k).length);
  } catch (e) {
    errors.push(`${e.name}: ${e.message}`);
  }
}
const shape = (f) => {
  let ctor = "not a constructor";
  try { Reflect.construct(Object, [], f); ctor = "constructor"; } catch (_) {}
  return `${f.name}/${f.length}/${Object.getOwnPropertyNames(f).join("+")}/${ctor}`;
};
const fns = [Intl.getCanonicalLocales, Intl.supportedValuesOf, Intl.NumberFormat.supportedLocalesOf, Intl.DateTimeFormat.supportedLocalesOf,
  Intl.NumberFormat.prototype.formatRange, Intl.NumberFormat.prototype.formatRangeToParts, Intl.NumberFormat.prototype.formatToParts,
  Intl.PluralRules.prototype.select, new Intl.NumberFormat().format, new Intl.Collator().compare, new Intl.DateTimeFormat().format,
  Number.prototype.toLocaleString, BigInt.prototype.toLocaleString, String.prototype.localeCompare, Date.prototype.toLocaleDateString,
  String.prototype.toLocaleUpperCase];
let newed;
try { newed = new Intl.getCanonicalLocales("en"); } catch (e) { newed = `${e.name}: ${e.message}`; }
console.log(form.map((f) => `${f.name}: ${f.currency} ${f.currencyOk ? "ok" : "unknown"}, ${f.zone} ${f.zoneOk ? "ok" : "unknown"}`).join("\n"));
return { form, summary, errors, shapes: fns.map(shape), newed };
