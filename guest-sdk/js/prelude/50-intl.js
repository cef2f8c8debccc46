// Part of the prelude: Intl and the locale-aware methods. The engine has no
// Intl; every operation is one OP_INTL request to the host
// (sandbox/internal/intl), which formats from CLDR data. The default locale
// is en-US and the time zone UTC, whatever the host's.
const OP_INTL = 11;
const MAX_INTL_REQUEST = 65536;
function intlCall(req) {
  const json = JSON.stringify(req);
  if (json.length > MAX_INTL_REQUEST) throw new RangeError("Intl request too large");
  const r = JSON.parse(host(OP_INTL, noNul(json)));
  if (typeof r.e === "string") throw new (r.e === "TypeError" ? TypeError : RangeError)(r.m);
  return r;
}
const defineMethod = (obj, name, value) =>
  Object.defineProperty(obj, name, { value, writable: true, enumerable: false, configurable: true });

// CanonicalizeLocaleList, up to its validation (the host's).
function localeList(locales) {
  if (locales === undefined) return [];
  if (typeof locales === "string") return [locales];
  if (locales === null) throw new TypeError("Cannot convert undefined or null to object");
  const o = Object(locales), n = Math.min(Number(o.length) || 0, 65), out = [];
  for (let k = 0; k < n; k++) {
    if (!(k in o)) continue;
    const v = o[k];
    if (typeof v !== "string" && (typeof v !== "object" || v === null)) {
      throw new TypeError("Language ID should be string or object.");
    }
    out.push(String(v));
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
defineMethod(Intl, "getCanonicalLocales", function getCanonicalLocales(locales) {
  return intlCall({ op: "canon", l: localeList(locales) });
});

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
  defineMethod(C, "supportedLocalesOf", function supportedLocalesOf(locales) {
    return intlCall({ op: "supported", l: localeList(locales) });
  });
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
const nfResolved = new WeakMap();
class NumberFormat {
  constructor(locales, options) {
    nfResolved.set(this, intlCall({ op: "nf", l: localeList(locales), o: readOpts(options, NF_OPTS) }).r);
  }
  get format() {
    const r = nfOf(this);
    const f = (x) => intlCall({ op: "nf", l: [r.locale], o: r, v: numText(x) }).s;
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
  if (r === undefined) throw new TypeError(`Method Intl.NumberFormat.prototype.${method} called on incompatible receiver ` + show(nf));
  return r;
}
intlClass("NumberFormat", NumberFormat);
const valueOfNumber = Number.prototype.valueOf, valueOfBigInt = BigInt.prototype.valueOf;
defineMethod(Number.prototype, "toLocaleString", function toLocaleString(locales, options) {
  const x = valueOfNumber.call(this);
  return intlCall({ op: "nf", l: localeList(locales), o: readOpts(options, NF_OPTS), v: numText(x) }).s;
});
defineMethod(BigInt.prototype, "toLocaleString", function toLocaleString(locales, options) {
  const x = valueOfBigInt.call(this);
  return intlCall({ op: "nf", l: localeList(locales), o: readOpts(options, NF_OPTS), v: String(x) }).s;
});

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

