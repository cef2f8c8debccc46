// Part of the prelude: Intl.ListFormat and Intl.RelativeTimeFormat.
const resolvedOf = (map, obj, name) => {
  const r = map.get(obj);
  if (r === undefined) throw new TypeError(`Method Intl.${name} called on incompatible receiver ` + show(obj));
  return r;
};
const lfResolved = new WeakMap();
function listItems(list) {
  const out = [];
  if (list === undefined) return out;
  for (const x of list) {
    if (typeof x !== "string") throw new TypeError(`Iterable yielded ${show(x)} which is not a string`);
    out.push(x);
  }
  return out;
}
class ListFormat {
  constructor(locales, options) {
    lfResolved.set(this, intlCall({ op: "list", l: localeList(locales), o: readOpts(options, ["type", "style"]) }).r);
  }
  format(list) {
    const r = resolvedOf(lfResolved, this, "ListFormat.prototype.format");
    return intlCall({ op: "list", l: [r.locale], o: r, v: listItems(list) }).s;
  }
  formatToParts(list) {
    const r = resolvedOf(lfResolved, this, "ListFormat.prototype.formatToParts");
    return toParts(intlCall({ op: "list", l: [r.locale], o: r, v: listItems(list), p: true }).p || []);
  }
  resolvedOptions() { return { ...resolvedOf(lfResolved, this, "ListFormat.prototype.resolvedOptions") }; }
}
intlClass("ListFormat", ListFormat);

const rtfResolved = new WeakMap();
function rtfValue(v) {
  const x = Number(v);
  if (!Number.isFinite(x)) throw new RangeError("Value need to be finite number for Intl.RelativeTimeFormat.prototype.format()");
  return numText(x);
}
class RelativeTimeFormat {
  constructor(locales, options) {
    rtfResolved.set(this, intlCall({ op: "rt", l: localeList(locales), o: readOpts(options, ["numberingSystem", "style", "numeric"]) }).r);
  }
  format(value, unit) {
    const r = resolvedOf(rtfResolved, this, "RelativeTimeFormat.prototype.format");
    return intlCall({ op: "rt", l: [r.locale], o: r, v: rtfValue(value), w: String(unit) }).s;
  }
  formatToParts(value, unit) {
    const r = resolvedOf(rtfResolved, this, "RelativeTimeFormat.prototype.formatToParts");
    return intlCall({ op: "rt", l: [r.locale], o: r, v: rtfValue(value), w: String(unit), p: true }).p
      .map(([type, value, unit]) => (unit === undefined ? { type, value } : { type, value, unit }));
  }
  resolvedOptions() { return { ...resolvedOf(rtfResolved, this, "RelativeTimeFormat.prototype.resolvedOptions") }; }
}
intlClass("RelativeTimeFormat", RelativeTimeFormat);
