// Part of the prelude: Intl.Locale, as Node 20's V8 has it. The host
// parses, applies the options to and canonicalizes the tag (op "loc":
// CLDR 48's aliases, likely subtags for maximize and minimize) and answers
// the getters of locale data (op "locinfo": calendars, collations,
// hourCycles, numberingSystems, textInfo, timeZones, weekInfo); each is
// asked once per tag and kept.
const locRecords = new WeakMap();
// locCache keeps the host's records by tag and options; locInfos the
// getters' data by canonical tag.
const locCache = prefixCache(), locInfos = prefixCache();
const LOC_BAD = "Incorrect locale information provided";
// locReceiver names a receiver in V8's incompatible-receiver message.
function locReceiver(v) {
  if (typeof v === "symbol") return v.toString();
  if ((typeof v !== "object" || v === null) && typeof v !== "function") return String(v);
  // V8 names an object by its class unless its toString is its own.
  if (v.toString !== Object.prototype.toString) return Object.prototype.toString.call(v);
  const c = v.constructor;
  return `#<${typeof c === "function" && c.name || "Object"}>`;
}
function locOf(l, name) {
  const r = locRecords.get(l);
  if (r === undefined) throw new TypeError(`Method Intl.Locale.prototype.${name} called on incompatible receiver ${locReceiver(l)}`);
  return r;
}
// locString is ToString with V8's message for a Symbol.
function locString(v) {
  if (typeof v === "symbol") throw new TypeError("Cannot convert a Symbol value to a string");
  return String(v);
}
// The options in V8's order: language, script, region, hourCycle and
// caseFirst checked as they are read, calendar, collation and
// numberingSystem once all are read (V8's order of errors).
const LOC_SUBTAG = { __proto__: null, language: /^(?:[A-Za-z]{2,3}|[A-Za-z]{5,8})$/, script: /^[A-Za-z]{4}$/, region: /^(?:[A-Za-z]{2}|[0-9]{3})$/ };
const LOC_TYPE = /^[A-Za-z0-9]{3,8}(?:-[A-Za-z0-9]{3,8})*$/;
const LOC_ENUM = { __proto__: null, hourCycle: ["h11", "h12", "h23", "h24"], caseFirst: ["upper", "lower", "false"] };
function locOptions(options) {
  if (options === undefined) return {};
  if (options === null) throw new TypeError("Intl.Locale called on null or undefined");
  const o = Object(options), out = {}, types = [];
  for (const name of ["language", "script", "region", "calendar", "collation", "hourCycle", "caseFirst", "numeric", "numberingSystem"]) {
    const v = o[name];
    if (v === undefined) continue;
    if (name === "numeric") {
      out.numeric = v ? "true" : "false";
      continue;
    }
    const s = locString(v);
    if (s.length > 1024) throw new RangeError(LOC_BAD);
    const subtag = LOC_SUBTAG[name], values = LOC_ENUM[name];
    if (subtag !== undefined && !subtag.test(s)) throw new RangeError(LOC_BAD);
    if (subtag === undefined && values === undefined) types.push(s);
    if (values !== undefined && !values.includes(s)) throw new RangeError(`Value ${s} out of range for locale options property ${name}`);
    out[name] = s;
  }
  for (const s of types) if (!LOC_TYPE.test(s)) throw new RangeError(LOC_BAD);
  return out;
}
// The host's records have no prototype: a field the host leaves out (an
// absent script, calendar, timeZones…) reads undefined whatever the script
// put on Object.prototype.
const locMake = (tag, o) => {
  const key = textKey(tag) + JSON.stringify(o);
  return locCache(key, () => ({ __proto__: null, ...intlCall({ op: "loc", v: tag, o }).r }));
};
class Locale {
  constructor(tag, options) {
    if (new.target === undefined) throw new TypeError("Constructor Intl.Locale requires 'new'");
    if (typeof tag !== "string" && (typeof tag !== "object" || tag === null) && typeof tag !== "function") {
      throw new TypeError("First argument to Intl.Locale constructor can't be empty or missing");
    }
    const own = typeof tag === "object" ? locRecords.get(tag) : undefined;
    const t = own !== undefined ? own.locale : locString(tag);
    // V8 throws for a bad tag before it reads any option (a null options
    // throws first, in locOptions).
    if (options !== undefined && options !== null) locMake(t, {});
    locRecords.set(this, locMake(t, locOptions(options)));
  }
  toString() { return locOf(this, "toString").locale; }
  maximize() { return new Locale(locOf(this, "maximize").max); }
  minimize() { return new Locale(locOf(this, "minimize").min); }
  get language() { return locOf(this, "language").language; }
  get script() { return locOf(this, "script").script; }
  get region() { return locOf(this, "region").region; }
  get baseName() { return locOf(this, "baseName").baseName; }
  get calendar() { return locOf(this, "calendar").calendar; }
  get caseFirst() { return locOf(this, "caseFirst").caseFirst; }
  get collation() { return locOf(this, "collation").collation; }
  get hourCycle() { return locOf(this, "hourCycle").hourCycle; }
  get numeric() { return locOf(this, "numeric").numeric; }
  get numberingSystem() { return locOf(this, "numberingSystem").numberingSystem; }
}
// The getters of locale data return a fresh array or object each call,
// as V8's do.
function locInfo(l, name) {
  const tag = locOf(l, name).locale;
  return locInfos(textKey(tag), () => ({ __proto__: null, ...intlCall({ op: "locinfo", v: tag }).r }));
}
const LOC_INFO = {
  calendars: (i) => [...i.calendars],
  collations: (i) => [...i.collations],
  hourCycles: (i) => [...i.hourCycles],
  numberingSystems: (i) => [...i.numberingSystems],
  textInfo: (i) => ({ direction: i.textInfo.direction }),
  timeZones: (i) => (i.hasZones ? [...(i.timeZones || [])] : undefined),
  weekInfo: (i) => ({ firstDay: i.weekInfo.firstDay, weekend: [...i.weekInfo.weekend], minimalDays: i.weekInfo.minimalDays }),
};
for (const name of Object.keys(LOC_INFO)) {
  const get = { [name]() { return LOC_INFO[name](locInfo(this, name)); } }[name];
  Object.defineProperty(get, "name", { value: "get " + name });
  Object.defineProperty(Locale.prototype, name, { get, enumerable: false, configurable: true });
}
const LocaleClass = Locale;
Object.defineProperty(Locale.prototype, Symbol.toStringTag, { value: "Intl.Locale", configurable: true });
// The constructor Node has: Intl.Locale, length 1, no supportedLocalesOf.
{
  const C = function Locale(tag) {
    if (new.target === undefined) throw new TypeError("Constructor Intl.Locale requires 'new'");
    return Reflect.construct(LocaleClass, arguments, new.target);
  };
  Object.defineProperty(C, "prototype", { value: Locale.prototype, writable: false });
  defineMethod(Locale.prototype, "constructor", C);
  defineMethod(Intl, "Locale", C);
}
// localeTagOf is the [[Locale]] of an Intl.Locale (CanonicalizeLocaleList
// reads it, not its toString), or undefined for anything else.
const localeTagOf = (v) => {
  const r = typeof v === "object" && v !== null ? locRecords.get(v) : undefined;
  return r === undefined ? undefined : r.locale;
};
