// Part of the prelude: Intl and the locale-aware methods. The engine has no
// Intl; operations are OP_INTL requests to the host (sandbox/internal/intl),
// which formats from CLDR data: JSON ones, and compiled ones for the hot
// paths (options resolved once on the host; collation keys compared in the
// guest; numbers and dates formatted by a handle, OP_INTL_FORMAT). The
// default locale is en-US and the time zone UTC, whatever the host's.
const OP_INTL = 11, OP_INTL_FORMAT = 17;
const MAX_INTL_REQUEST = 65536;
function intlCall(req) {
  const json = JSON.stringify(req);
  if (json.length > MAX_INTL_REQUEST) throw new RangeError("Intl request too large");
  const r = JSON.parse(host(OP_INTL, noNul(json)));
  if (typeof r.e === "string") throw new (r.e === "TypeError" ? TypeError : RangeError)(r.m);
  return r;
}
// intlCompiled sends a compiled request (sandbox/internal/intl/compiled.go):
// an op letter, options the host resolves once and keeps, and a payload;
// the answer is "=" and the text, or a JSON error.
function intlCompiled(req) {
  const r = host(OP_INTL, req);
  if (r.charCodeAt(0) === 61) return r.slice(1);
  const e = JSON.parse(r);
  throw new (e.e === "TypeError" ? TypeError : RangeError)(e.m);
}
// compiledPrefix is a compiled request's op and options, the same text for
// the same options.
const compiledPrefix = (op, l, o) => op + JSON.stringify({ l, o }) + "\n";
// prefixCache returns a small cache of compiled prefixes by a key the
// caller makes, emptied when it holds 64.
function prefixCache() {
  let m = Object.create(null), n = 0;
  return (key, make) => {
    let p = m[key];
    if (p === undefined) {
      if (++n > 64) { m = Object.create(null); n = 1; }
      p = m[key] = make();
    }
    return p;
  };
}
const defineMethod = (obj, name, value) =>
  Object.defineProperty(obj, name, { value, writable: true, enumerable: false, configurable: true });

// CanonicalizeLocaleList, up to its validation (the host's).
function localeList(locales) {
  if (locales === undefined) return [];
  if (typeof locales === "string") return [locales];
  // An Intl.Locale is a list of itself (ECMA-402 CanonicalizeLocaleList).
  const own = localeTagOf(locales);
  if (own !== undefined) return [own];
  if (locales === null) throw new TypeError("Cannot convert undefined or null to object");
  const o = Object(locales), n = Math.min(Number(o.length) || 0, 65), out = [];
  for (let k = 0; k < n; k++) {
    if (!(k in o)) continue;
    const v = o[k];
    if (typeof v !== "string" && (typeof v !== "object" || v === null)) {
      throw new TypeError("Language ID should be string or object.");
    }
    const tag = localeTagOf(v);
    out.push(tag !== undefined ? tag : String(v));
  }
  return out;
}

// readOpts copies the named options: numbers as they are (-1 when not
// finite, which the host rejects as out of range; the host checks the
// range before it takes the floor, as ECMA-402 does), booleans kept for the
// options that take them, everything else as a string.
const NUMERIC_OPTS = new Set(["minimumIntegerDigits", "minimumFractionDigits", "maximumFractionDigits",
  "minimumSignificantDigits", "maximumSignificantDigits", "fractionalSecondDigits", "roundingIncrement"]);
const BOOL_OPTS = new Set(["hour12", "numeric", "ignorePunctuation", "useGrouping"]);
function readOpts(options, names) {
  if (options === undefined) return {};
  if (options === null) throw new TypeError("Cannot convert undefined or null to object");
  const o = Object(options), out = {};
  for (const name of names) {
    const v = o[name];
    if (v === undefined) continue;
    if (NUMERIC_OPTS.has(name)) {
      const x = Number(v);
      out[name] = Number.isFinite(x) ? x : -1;
    } else if (BOOL_OPTS.has(name) && (typeof v === "boolean" || name !== "useGrouping")) {
      out[name] = name === "useGrouping" || name === "numeric" && typeof v === "string" ? v : Boolean(v);
    } else {
      out[name] = String(v);
    }
  }
  return out;
}
const toParts = (p) => p.map(([type, value]) => ({ type, value }));

const Intl = {};
Object.defineProperty(Intl, Symbol.toStringTag, { value: "Intl", configurable: true });
// Intl's functions are methods, as V8's built-ins: no prototype, not
// constructors.
defineMethod(Intl, "getCanonicalLocales", {
  getCanonicalLocales(locales) { return intlCall({ op: "canon", l: localeList(locales) }); },
}.getCanonicalLocales);
defineMethod(Intl, "supportedValuesOf", { supportedValuesOf(key) { return intlSupportedValues(key); } }.supportedValuesOf);

// intlClass defines Intl[name]: ECMA-402's constructor (length 0) for a
// class whose instances keep the host's resolved options. NumberFormat,
// DateTimeFormat and Collator may be called without new (legacy: a new
// instance); the others throw V8's TypeError.
const LEGACY_CALLABLE = new Set(["NumberFormat", "DateTimeFormat", "Collator"]);
function intlClass(name, cls) {
  const C = {
    [name]: function () {
      if (new.target === undefined && !LEGACY_CALLABLE.has(name)) {
        throw new TypeError(`Constructor Intl.${name} requires 'new'`);
      }
      return Reflect.construct(cls, arguments, new.target ?? C);
    },
  }[name];
  Object.defineProperty(C, "prototype", { value: cls.prototype, writable: false });
  defineMethod(cls.prototype, "constructor", C);
  Object.defineProperty(cls.prototype, Symbol.toStringTag, { value: "Intl." + name, configurable: true });
  defineMethod(C, "supportedLocalesOf", {
    supportedLocalesOf(locales) { return intlCall({ op: "supported", l: localeList(locales) }); },
  }.supportedLocalesOf);
  defineMethod(Intl, name, C);
}

// ---- NumberFormat -------------------------------------------------------
const NF_OPTS = ["numberingSystem", "style", "currency", "currencyDisplay", "currencySign", "unit", "unitDisplay", "notation",
  "compactDisplay", "minimumIntegerDigits", "minimumFractionDigits", "maximumFractionDigits",
  "minimumSignificantDigits", "maximumSignificantDigits", "roundingIncrement", "roundingMode",
  "roundingPriority", "trailingZeroDisplay", "useGrouping", "signDisplay"];
const numText = (x) => {
  if (typeof x === "bigint" || typeof x === "string") return String(x);
  x = Number(x);
  return Object.is(x, -0) ? "-0" : String(x);
};
// intlFormat returns the run's handle of the format a compiled prefix
// names (OP_INTL_FORMAT, sandbox/intlops.go): a number or a date then
// crosses as it is, with no request to build, and its text comes back; -1
// when the run's table of formats is full (each value is then a request
// with the prefix, as before the table).
function intlFormat(prefix) {
  const h = host(OP_INTL_FORMAT, prefix);
  if (typeof h !== "string") return h;
  const e = JSON.parse(h);
  throw new (e.e === "TypeError" ? TypeError : RangeError)(e.m);
}
// numberFormatter returns the formatter of a compiled prefix: the prefix
// and its handle, cached.
const numberFormatters = prefixCache();
const numberFormatter = (prefix) => numberFormatters(prefix, () => ({ prefix, h: intlFormat(prefix) }));
// formatNumber formats x with the formatter f: by its handle, else by a
// request, which reports any error. The host answers undefined, running no
// JavaScript, for a handle of -1, for an x that is not a number (a string,
// a BigInt, an object to convert) and for a value its format fails on.
function formatNumber(f, x) {
  const s = host(OP_INTL_FORMAT, f.h, x);
  return s !== void 0 ? s : intlCompiled(f.prefix + numText(x));
}
const nfResolved = new WeakMap();
class NumberFormat {
  constructor(locales, options) {
    nfResolved.set(this, intlCall({ op: "nf", l: localeList(locales), o: readOpts(options, NF_OPTS) }).r);
  }
  get format() {
    const r = nfOf(this);
    const nf = numberFormatter(compiledPrefix("N", [r.locale], r)), h = nf.h, prefix = nf.prefix;
    // A comma keeps the function anonymous (name ""), as V8's bound format.
    const f = (0, (x) => {
      const s = host(OP_INTL_FORMAT, h, x);
      return s !== void 0 ? s : intlCompiled(prefix + numText(x));
    });
    Object.defineProperty(this, "format", { value: f, configurable: true });
    return f;
  }
  formatToParts(x) {
    const r = nfOf(this, "formatToParts");
    return toParts(intlCall({ op: "nf", l: [r.locale], o: r, v: numText(x), p: true }).p);
  }
  resolvedOptions() { return { ...nfOf(this, "resolvedOptions") }; }
}
function nfOf(nf, method = "format") {
  const r = nfResolved.get(nf);
  if (r === undefined) throw new TypeError(`Method Intl.NumberFormat.prototype.${method} called on incompatible receiver ` + v8Show(nf));
  return r;
}
intlClass("NumberFormat", NumberFormat);
const valueOfNumber = Number.prototype.valueOf, valueOfBigInt = BigInt.prototype.valueOf;
// numberFormatterOf returns the formatter of toLocaleString's arguments:
// found by the locale string alone (no locale's is numberDefault: a string
// key for it would be a locale string's too, as "undefined" is, and that
// string would skip the locale's validation), or by the options' compiled
// prefix. numberHandles holds the same formatters' handles by the same
// keys, for toLocaleString's first step.
let numberByLocale = Object.create(null), numberHandles = Object.create(null), numberLocales = 0, numberDefault;
const numberByOptions = prefixCache();
// textKey and localesKey write a text and locales into a cache key with
// their lengths, so that no two inputs make the same key.
const textKey = (s) => s.length + ":" + s;
function localesKey(l) {
  let key = l.length + ";";
  for (let i = 0; i < l.length; i++) key += textKey(l[i]);
  return key;
}
// readRaw reads the named options once each, as readOpts would, into
// values (for readOpts to convert) and a key naming them: each present
// option's name, type and value. The key is null when a value is an
// object, whose conversion the script can observe and must see each call.
function readRaw(options, names) {
  if (options === void 0) return { values: void 0, key: "" };
  if (options === null) throw new TypeError("Cannot convert undefined or null to object");
  const o = Object(options), values = {};
  let key = "";
  for (let i = 0; i < names.length; i++) {
    const name = names[i], v = o[name];
    if (v === void 0) continue;
    values[name] = v;
    const t = typeof v;
    if (key !== null) key = t === "object" || t === "function" || t === "symbol" ? null : key + textKey(name + t[0] + v);
  }
  return { values, key };
}
function numberFormatterOf(locales, options) {
  if (options === void 0 && (locales === void 0 || typeof locales === "string")) {
    if (locales === void 0) {
      if (numberDefault === void 0) numberDefault = numberFormatter(compiledPrefix("N", [], {}));
      return numberDefault;
    }
    const key = locales;
    let f = numberByLocale[key];
    if (f === void 0) {
      f = numberFormatter(compiledPrefix("N", localeList(locales), {}));
      if (++numberLocales > 64) {
        numberByLocale = Object.create(null);
        numberHandles = Object.create(null);
        numberLocales = 1;
      }
      numberByLocale[key] = f;
      numberHandles[key] = f.h;
    }
    return f;
  }
  const l = localeList(locales), raw = readRaw(options, NF_OPTS);
  if (raw.key === null) return numberFormatter(compiledPrefix("N", l, readOpts(raw.values, NF_OPTS)));
  return numberByOptions(localesKey(l) + raw.key, () => numberFormatter(compiledPrefix("N", l, readOpts(raw.values, NF_OPTS))));
}
// toLocaleString's first step, for a number and a locale string or none:
// the host formats this with the locale's handle, or answers undefined
// (no handle yet, this not a number, the value one the host's format
// leaves to a request) without running any JavaScript, so the script sees
// nothing of it; the second step does everything, in order.
let lastLocales = null, lastHandle = -1;
// Length 0, as V8's: the defaults leave the parameters out of it.
defineMethod(Number.prototype, "toLocaleString", { toLocaleString(locales = void 0, options = void 0) {
  if (options === void 0) {
    if (locales === lastLocales) {
      const s = host(OP_INTL_FORMAT, lastHandle, this);
      if (s !== void 0) return s;
    } else if (typeof locales === "string" || locales === void 0) {
      const h = locales === void 0 ? (numberDefault === void 0 ? -1 : numberDefault.h) : numberHandles[locales];
      const s = host(OP_INTL_FORMAT, h, this);
      if (s !== void 0) {
        lastLocales = locales;
        lastHandle = h;
        return s;
      }
    }
  }
  return numberToLocaleString(this, locales, options);
} }.toLocaleString);
function numberToLocaleString(self, locales, options) {
  const x = typeof self === "number" ? self : valueOfNumber.call(self);
  return formatNumber(numberFormatterOf(locales, options), x);
}
defineMethod(BigInt.prototype, "toLocaleString", { toLocaleString(locales = void 0, options = void 0) {
  const x = valueOfBigInt.call(this);
  return intlCompiled(numberFormatterOf(locales, options).prefix + String(x));
} }.toLocaleString);

// ---- Date.prototype.toString -------------------------------------------
// The guest's time zone is UTC; Node names it after the offset.
for (const name of ["toString", "toTimeString"]) {
  const orig = Date.prototype[name];
  defineMethod(Date.prototype, name, {
    [name]() {
      const s = orig.call(this);
      return s === "Invalid Date" ? s : s + " (Coordinated Universal Time)";
    },
  }[name]);
}

