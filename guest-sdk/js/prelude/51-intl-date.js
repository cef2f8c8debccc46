// Part of the prelude: Intl.DateTimeFormat and Date's locale methods
// (50-intl.js has the request helpers).
const DTF_OPTS = ["calendar", "numberingSystem", "dateStyle", "timeStyle", "weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second",
  "timeZoneName", "hour12", "hourCycle", "timeZone"];
const dtfResolved = new WeakMap();
// dtfRequests holds each formatter's locales and options as read: its
// formats ask for them again, since V8's resolved options do not always
// name the pattern they came from (ja's month: "numeric" for a short month
// written M月, pt's day for the d of 'de', the era of a Japanese date).
const dtfRequests = new WeakMap();
const dateValue = Date.prototype.valueOf;
// dateOpts reads the options; required and defaults are ToDateTimeOptions'.
function dateOpts(options, required, defaults) {
  const o = readOpts(options, DTF_OPTS);
  o.required = required;
  o.defaults = defaults;
  return o;
}
const timeOf = (d) => {
  const x = d === undefined ? Date.now() : Number(d);
  if (!Number.isFinite(x)) throw new RangeError("Invalid time value");
  return x;
};
class DateTimeFormat {
  constructor(locales, options) {
    const req = { l: localeList(locales), o: dateOpts(options, "any", "date") };
    const r = intlCall({ op: "dtf", l: req.l, o: req.o }).r;
    dtfResolved.set(this, r);
    dtfRequests.set(this, req);
  }
  get format() {
    dtfOf(this);
    const req = dtfRequests.get(this);
    const p = compiledPrefix("D", req.l, req.o), h = intlFormat(p);
    const f = (0, (d) => {
      const t = timeOf(d), s = host(OP_INTL_FORMAT, h, t);
      return s !== void 0 ? s : intlCompiled(p + t);
    });
    Object.defineProperty(this, "format", { value: f, configurable: true });
    return f;
  }
  formatToParts(d) {
    dtfOf(this);
    const req = dtfRequests.get(this);
    return toParts(intlCall({ op: "dtf", l: req.l, o: req.o, v: timeOf(d), p: true }).p);
  }
  formatRange(a, b) { return dtfRange(this, a, b, "formatRange").s; }
  formatRangeToParts(a, b) {
    return dtfRange(this, a, b, "formatRangeToParts").p.map(([type, value, source]) => ({ type, value, source }));
  }
  resolvedOptions() { return { ...dtfOf(this) }; }
}
// dtfRange is formatRange's request, with V8's checks in its order: the
// receiver, undefined dates, ToNumber of both (a BigInt or Symbol throws),
// then TimeClip of both (the host's RangeError).
function dtfRange(f, a, b, name) {
  if (!dtfResolved.has(f)) {
    throw new TypeError(`Method Intl.DateTimeFormat.prototype.${name} called on incompatible receiver ${v8Show(f)}`);
  }
  if (a === undefined || b === undefined) throw new TypeError("Invalid time value");
  const req = dtfRequests.get(f), x = rangeTime(a), y = rangeTime(b);
  return intlCall({ op: "dtf", l: req.l, o: req.o, v: x, w: y });
}
// rangeTime is ToNumber; a value that is not finite goes as a string the
// host refuses with V8's RangeError.
function rangeTime(d) {
  if (typeof d === "bigint") throw new TypeError("Cannot convert a BigInt value to a number");
  if (typeof d === "symbol") throw new TypeError("Cannot convert a Symbol value to a number");
  const x = Number(d);
  return Number.isFinite(x) ? x : 9e15;
}
function dtfOf(f) {
  const r = dtfResolved.get(f);
  if (r === undefined) throw new TypeError("Method Intl.DateTimeFormat.prototype.format called on incompatible receiver " + show(f));
  return r;
}
intlClass("DateTimeFormat", DateTimeFormat);
// dateFormatters holds the formatters ({prefix, h}, as numberFormatter's)
// of toLocaleString, toLocaleDateString and toLocaleTimeString's
// arguments.
const dateFormatters = prefixCache();
const dateFormatter = (prefix) => ({ prefix, h: intlFormat(prefix) });
for (const [name, required, defaults] of [["toLocaleString", "any", "all"], ["toLocaleDateString", "date", "date"],
  ["toLocaleTimeString", "time", "time"]]) {
  // The formatter of the arguments: cached for a locale string alone or
  // for options of primitive values, made each time (with no handle) for
  // options whose values the script sees converted.
  const formatter = (locales, options) => {
    if (options === undefined && (locales === undefined || typeof locales === "string")) {
      return dateFormatters(name + (locales === undefined ? "" : "\0" + locales),
        () => dateFormatter(compiledPrefix("D", localeList(locales), dateOpts(undefined, required, defaults))));
    }
    const l = localeList(locales), raw = readRaw(options, DTF_OPTS);
    if (raw.key === null) return { prefix: compiledPrefix("D", l, dateOpts(raw.values, required, defaults)), h: -1 };
    return dateFormatters(name + ";" + localesKey(l) + raw.key, () => dateFormatter(compiledPrefix("D", l, dateOpts(raw.values, required, defaults))));
  };
  defineMethod(Date.prototype, name, {
    [name](locales = void 0, options = void 0) { // length 0, as V8's
      const x = dateValue.call(this);
      if (Number.isNaN(x)) return "Invalid Date";
      const f = formatter(locales, options), s = host(OP_INTL_FORMAT, f.h, x);
      return s !== void 0 ? s : intlCompiled(f.prefix + x);
    },
  }[name]);
}

web("Intl", Intl);
