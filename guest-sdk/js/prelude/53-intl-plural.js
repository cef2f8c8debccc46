// Part of the prelude: Intl.PluralRules.
const PL_OPTS = ["type", "minimumIntegerDigits", "minimumFractionDigits", "maximumFractionDigits",
  "minimumSignificantDigits", "maximumSignificantDigits"];
const plResolved = new WeakMap();
function plOf(p, method) {
  const r = plResolved.get(p);
  if (r === undefined) throw new TypeError("Method Intl.PluralRules.prototype." + method + " called on incompatible receiver " + show(p));
  return r;
}
// plNumber is ToNumber as V8 words its BigInt refusal.
function plNumber(x) {
  if (typeof x === "bigint") throw new TypeError("Cannot convert a BigInt value to a number");
  return Number(x);
}
class PluralRules {
  constructor(locales, options) {
    plResolved.set(this, intlCall({ op: "pl", l: localeList(locales), o: readOpts(options, PL_OPTS) }).r);
  }
  select(n) {
    const r = plOf(this, "select");
    return intlCall({ op: "pl", l: [r.locale], o: r, v: numText(plNumber(n)) }).s;
  }
  selectRange(start, end) {
    const r = plOf(this, "selectRange");
    if (start === undefined) throw new TypeError("Invalid startRange : undefined");
    if (end === undefined) throw new TypeError("Invalid endRange : undefined");
    const x = plNumber(start), y = plNumber(end);
    return intlCall({ op: "pl", l: [r.locale], o: r, v: numText(x), w: numText(y) }).s;
  }
  resolvedOptions() {
    const r = plOf(this, "resolvedOptions");
    return { ...r, pluralCategories: [...r.pluralCategories] };
  }
}
intlClass("PluralRules", PluralRules);
