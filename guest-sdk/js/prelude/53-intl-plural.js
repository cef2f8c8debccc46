// Part of the prelude: Intl.PluralRules.
const PL_OPTS = ["type", "minimumIntegerDigits", "minimumFractionDigits", "maximumFractionDigits",
  "minimumSignificantDigits", "maximumSignificantDigits"];
const plResolved = new WeakMap();
function plOf(p) {
  const r = plResolved.get(p);
  if (r === undefined) throw new TypeError("Method Intl.PluralRules.prototype.select called on incompatible receiver " + show(p));
  return r;
}
class PluralRules {
  constructor(locales, options) {
    plResolved.set(this, intlCall({ op: "pl", l: localeList(locales), o: readOpts(options, PL_OPTS) }).r);
  }
  select(n) {
    const r = plOf(this);
    return intlCall({ op: "pl", l: [r.locale], o: r, v: numText(Number(n)) }).s;
  }
  resolvedOptions() {
    const r = plOf(this);
    return { ...r, pluralCategories: [...r.pluralCategories] };
  }
}
intlClass("PluralRules", PluralRules);
