// Part of the prelude: Intl.Collator and String.prototype.localeCompare.
const COL_OPTS = ["usage", "collation", "numeric", "caseFirst", "sensitivity", "ignorePunctuation"];
const colResolved = new WeakMap();
class Collator {
  constructor(locales, options) {
    colResolved.set(this, intlCall({ op: "col", l: localeList(locales), o: readOpts(options, COL_OPTS) }).r);
  }
  get compare() {
    const r = colResolved.get(this);
    if (r === undefined) throw new TypeError("Method Intl.Collator.prototype.compare called on incompatible receiver " + show(this));
    const f = (a, b) => intlCall({ op: "col", l: [r.locale], o: r, v: String(a), w: String(b) }).c;
    Object.defineProperty(this, "compare", { value: f, configurable: true });
    return f;
  }
  resolvedOptions() {
    const r = colResolved.get(this);
    if (r === undefined) throw new TypeError("Method Intl.Collator.prototype.resolvedOptions called on incompatible receiver " + show(this));
    return { ...r };
  }
}
intlClass("Collator", Collator);
defineMethod(String.prototype, "localeCompare", function localeCompare(that, locales, options) {
  if (this === undefined || this === null) throw new TypeError("String.prototype.localeCompare called on null or undefined");
  return intlCall({ op: "col", l: localeList(locales), o: readOpts(options, COL_OPTS), v: String(this), w: String(that) }).c;
});
