// Part of the prelude: Intl.DisplayNames (language, region, script and
// currency names from CLDR, on the host).
const dnResolved = new WeakMap();
class DisplayNames {
  constructor(locales, options) {
    if (options === undefined) throw new TypeError("invalid_argument");
    const o = readOpts(options, ["style", "type", "fallback", "languageDisplay"]);
    dnResolved.set(this, intlCall({ op: "dn", l: localeList(locales), o }).r);
  }
  of(code) {
    const r = resolvedOf(dnResolved, this, "DisplayNames.prototype.of");
    return intlCall({ op: "dn", l: [r.locale], o: r, v: String(code) }).s;
  }
  resolvedOptions() { return { ...resolvedOf(dnResolved, this, "DisplayNames.prototype.resolvedOptions") }; }
}
intlClass("DisplayNames", DisplayNames);
