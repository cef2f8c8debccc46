// Part of the prelude: Intl.NumberFormat.prototype.formatRange and
// formatRangeToParts (sandbox/internal/intl/numrange.go), and
// Intl.supportedValuesOf (sandbox/internal/intl/supported.go).

// v8Show is V8's NoSideEffectsToString, how it shows a value in an error
// message: a primitive as its string, a function as its source, an error
// as "Name: message"; an object whose toString is Object.prototype's as
// #<Constructor> (#<Map>, #<DateTimeFormat>, #<Object> for Math), any
// other as [object Tag] ([object Array], [object Intl.Locale]). Properties
// are read as V8's GetDataProperty reads them: no getter runs.
function v8Data(o, k) {
  for (let p = o, n = 0; p !== null && n < 10000; p = Object.getPrototypeOf(p), n++) {
    const d = Object.getOwnPropertyDescriptor(p, k);
    if (d !== undefined) return "value" in d ? d.value : undefined;
  }
  return undefined;
}
function v8Show(v) {
  if (v === null || (typeof v !== "object" && typeof v !== "function")) return typeof v === "symbol" ? v.toString() : String(v);
  if (typeof v === "function") {
    try { return Function.prototype.toString.call(v); } catch (_) { return "function"; }
  }
  const ts = v8Data(v, "toString");
  if (v instanceof Error || ts === Error.prototype.toString) {
    let name = v8Data(v, "name"), msg = v8Data(v, "message");
    name = typeof name === "string" ? name : "Error";
    msg = typeof msg === "string" ? msg : "";
    return name === "" ? msg : msg === "" ? name : `${name}: ${msg}`;
  }
  if (ts === Object.prototype.toString) {
    const c = v8Data(v, "constructor");
    if (typeof c === "function") {
      const n = v8Data(c, "name");
      if (typeof n === "string" && n !== "") return `#<${n}>`;
    }
  }
  const tag = v8Data(v, Symbol.toStringTag);
  return `[object ${typeof tag === "string" ? tag : builtinTag(v)}]`;
}
// builtinTag is V8's class_name, found by brand checks (no getter runs).
const V8_BRANDS = [["Date", Date.prototype.getTime], ["Number", Number.prototype.valueOf], ["String", String.prototype.valueOf],
  ["Boolean", Boolean.prototype.valueOf], ["RegExp", Object.getOwnPropertyDescriptor(RegExp.prototype, "source").get]];
function builtinTag(v) {
  if (Array.isArray(v)) return "Array";
  for (const [t, f] of V8_BRANDS) {
    try { f.call(v); return t; } catch (_) { /* not this brand */ }
  }
  return "Object";
}

// rangePrimitive is ToPrimitive(v, number).
function rangePrimitive(v) {
  if (v === null || (typeof v !== "object" && typeof v !== "function")) return v;
  const ex = v[Symbol.toPrimitive];
  if (ex !== undefined && ex !== null) {
    const r = ex.call(v, "number");
    if (r !== null && (typeof r === "object" || typeof r === "function")) throw new TypeError("Cannot convert object to primitive value");
    return r;
  }
  for (const m of ["valueOf", "toString"]) {
    const f = v[m];
    if (typeof f === "function") {
      const r = f.call(v);
      if (r === null || (typeof r !== "object" && typeof r !== "function")) return r;
    }
  }
  throw new TypeError("Cannot convert object to primitive value");
}
// A decimal string the host reads exactly, as V8 11.3 does.
const DECIMAL_TEXT = /^[\t\n\v\f\r \u00a0\u2028\u2029\ufeff]*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[\t\n\v\f\r \u00a0\u2028\u2029\ufeff]*$/;
// rangeEnd is ToIntlMathematicalValue: the end's text and its type for
// the host ("n" a Number, "d" a decimal: a string or a BigInt), or null
// for NaN.
function rangeEnd(v) {
  const p = rangePrimitive(v);
  if (typeof p === "bigint") return [String(p), "d"];
  if (typeof p === "symbol") throw new TypeError("Cannot convert a Symbol value to a number");
  if (typeof p === "string") {
    // The decimal as written, unless it is past a double's range
    // (ECMA-402's ToIntlMathematicalValue: an infinity; below it, a zero
    // as any fraction digits write it) or not decimal ("0x10"); the host
    // bounds its length.
    const x = Number(p);
    if (x !== x) return null;
    // A decimal below a double's range that is not zero ("1e-400") is
    // itself, as V8 keeps it ("1E-400" in scientific notation), where its
    // written exponent is one the host reads (at most 1,000).
    if (!DECIMAL_TEXT.test(p) || x === Infinity || x === -Infinity) return [numText(x), "d"];
    if (x !== 0) return [p.trim(), "d"];
    const m = /^[^eE]*[1-9][^eE]*(?:[eE][+-]?0*(\d{1,4}))?$/.exec(p.trim());
    return m !== null && (m[1] === undefined || +m[1] <= 1000) ? [p.trim(), "d"] : [numText(x), "d"];
  }
  const x = Number(p);
  return x !== x ? null : [numText(x), "n"];
}
function numberRange(nf, method, start, end, parts) {
  const r = nfOf(nf, method);
  if (start === undefined) throw new TypeError("Invalid start : undefined");
  if (end === undefined) throw new TypeError("Invalid end : undefined");
  const x = rangeEnd(start), y = rangeEnd(end);
  if (x === null) throw new RangeError("Invalid start : " + v8Show(start));
  if (y === null) throw new RangeError("Invalid end : " + v8Show(end));
  return intlCall({ op: "nfr", l: [r.locale], o: r, v: x, w: y, p: parts });
}
const nfProto = Intl.NumberFormat.prototype;
defineMethod(nfProto, "formatRange", {
  formatRange(start, end) { return numberRange(this, "formatRange", start, end, false).s; },
}.formatRange);
defineMethod(nfProto, "formatRangeToParts", {
  formatRangeToParts(start, end) {
    const p = numberRange(this, "formatRangeToParts", start, end, true).p;
    return p.map(([type, value, source]) => ({ type, value, source }));
  },
}.formatRangeToParts);

// intlSupportedValues lists the values of a key that airlock honours (the
// host's list: Node 20's, less what airlock does not do).
const VALUE_KEYS = new Set(["calendar", "collation", "currency", "numberingSystem", "timeZone", "unit"]);
function intlSupportedValues(key) {
  if (typeof key === "symbol") throw new TypeError("Cannot convert a Symbol value to a string");
  key = String(key);
  if (!VALUE_KEYS.has(key)) throw new RangeError("Invalid key : " + key);
  return intlCall({ op: "values", v: key }).r;
}
