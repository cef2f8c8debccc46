// Part of the prelude: Intl.Collator and String.prototype.localeCompare.
//
// Comparing asks the host for each string's collation key once (compiled
// "K" requests, many strings at a time) and compares keys in the guest, as
// plain strings: a keyer holds the keys of one set of options. Sorting an
// array of strings with a Collator's compare asks the host for their order
// (one "S" request), or, for more strings than a request holds, for every
// key at once and sorts the keys natively. Strings that are long or hold a
// NUL are compared by the host, one request per comparison, as before.
const COL_OPTS = ["usage", "collation", "numeric", "caseFirst", "sensitivity", "ignorePunctuation"];
const colResolved = new WeakMap();
// Bounds of a keyer's cache (its keys and strings, in UTF-16 units) and of
// a request (strings, and their units).
const KEYER_MAX_STRINGS = 50000, KEYER_MAX_UNITS = 4000000, KEY_MAX_UNITS = 1024;
const KEY_BATCH_STRINGS = 4096, KEY_BATCH_UNITS = 16384;
function newKeyer(l, o) {
  return { l, o, prefix: compiledPrefix("K", l, o), keys: Object.create(null), n: 0, units: 0 };
}
const keyable = (s) => s.length <= KEY_MAX_UNITS && s.indexOf("\0") < 0;
// fetchKeys asks for the keys of list (keyable strings), stores them and
// returns them in order.
function fetchKeys(k, list) {
  const out = [];
  for (let i = 0; i < list.length;) {
    let j = i, units = 0;
    while (j < list.length && j - i < KEY_BATCH_STRINGS && (j === i || units + list[j].length <= KEY_BATCH_UNITS)) units += list[j++].length;
    const got = intlCompiled(k.prefix + list.slice(i, j).join("\0")).split("\u0001");
    for (let m = 0; m < got.length; m++) {
      const s = list[i + m], key = got[m];
      if (++k.n > KEYER_MAX_STRINGS || (k.units += s.length + key.length) > KEYER_MAX_UNITS) {
        k.keys = Object.create(null);
        k.n = 1;
        k.units = s.length + key.length;
      }
      k.keys[s] = key;
      out.push(key);
    }
    i += got.length; // the host may answer fewer than asked for
  }
  return out;
}
// sorting is the array a sort with a comparator is sorting (the innermost),
// and prefetched the keyers that already asked for its strings' keys.
let sorting = null, prefetched = null;
// prefetch asks for the keys of the strings in the array being sorted, at
// once, when a comparison in the sort first misses: a comparator that calls
// localeCompare then makes one request instead of one per string. The
// engine's sort has read every element before it compares, and reads them
// again here (a getter on an element runs once more; one that throws
// leaves the comparisons to ask one string at a time).
function prefetch(k) {
  if (prefetched === null) prefetched = [];
  else if (prefetched.includes(k)) return;
  prefetched.push(k);
  const keys = k.keys, list = [];
  try {
    const a = sorting, n = Math.min(a.length, MAX_KEYED_SORT);
    for (let i = 0; i < n; i++) {
      const s = a[i];
      if (typeof s === "string" && keys[s] === undefined && keyable(s)) list.push(s);
    }
  } catch {
    return; // a getter or a proxy that throws: no prefetch
  }
  if (list.length > 2) fetchKeys(k, list);
}
// keyedMiss compares a and b when k lacks the key of either (the callers
// compare keys they have inline: this is the hot path of every sort).
function keyedMiss(k, a, b) {
  let x = k.keys[a], y = k.keys[b];
  if (sorting !== null) {
    prefetch(k);
    x = k.keys[a];
    y = k.keys[b];
  }
  if (x === undefined || y === undefined) {
    if (!keyable(a) || !keyable(b)) {
      return intlCall({ op: "col", l: k.l, o: k.o, v: a, w: b }).c;
    }
    if (x === undefined && y === undefined) [x, y] = a === b ? fetchKeys(k, [a, a]) : fetchKeys(k, [a, b]);
    else if (x === undefined) x = fetchKeys(k, [a])[0];
    else y = fetchKeys(k, [b])[0];
  }
  return x < y ? -1 : x > y ? 1 : 0;
}
// optKey is an option value in a keyer's key: its type, then its text.
const optKey = (v) => textKey((typeof v)[0] + v);
// keyers holds a keyer per options text, for instances and localeCompare;
// emptied when it holds 64.
const keyerOf = prefixCache();
const defaultKeyer = newKeyer([], {});

// sortByKeys sorts a (an array of keyable strings) by k's keys and says
// whether it did; stable, as sort is: equal keys keep their order. Up to
// SORT_MAX_STRINGS strings that fit in one request are sorted by the host
// (an "S" request answers their order); more, by keys in the guest.
const MAX_KEYED_SORT = 1 << 20, SORT_MAX_STRINGS = 1 << 16, SORT_MAX_BYTES = 1 << 20;
function sortByKeys(a, k, desc) {
  if (!Array.isArray(a) || !Object.isExtensible(a)) return false;
  const n = a.length;
  if (!(n >= 2 && n <= MAX_KEYED_SORT)) return false;
  const vals = new Array(n);
  for (let i = 0; i < n; i++) {
    const s = a[i];
    if (typeof s !== "string" || s.length > KEY_MAX_UNITS) return false;
    vals[i] = s;
  }
  // The host answers the strings in order, NUL separated (a string that
  // holds a NUL makes more pieces than n, and "null" fewer: then the keys).
  const joined = vals.join("\0");
  if (!desc && n <= SORT_MAX_STRINGS && 3 * (joined.length + k.prefix.length) < SORT_MAX_BYTES) {
    const sorted = intlCompiled("S" + k.prefix.slice(1) + joined).split("\0");
    if (sorted.length === n) {
      for (let j = 0; j < n; j++) a[j] = sorted[j];
      return true;
    }
  }
  for (let i = 0; i < n; i++) if (vals[i].indexOf("\0") >= 0) return false;
  const d = new Array(n), keys = k.keys, miss = [], missAt = [];
  for (let i = 0; i < n; i++) {
    const key = keys[vals[i]];
    if (key === undefined) {
      miss.push(vals[i]);
      missAt.push(i);
    } else {
      d[i] = key;
    }
  }
  if (miss.length > 0) {
    const got = fetchKeys(k, miss);
    for (let m = 0; m < got.length; m++) d[missAt[m]] = got[m];
  }
  // Each key, then U+0001 (below every key unit), then the index in three
  // units base 224 from U+0020, which keeps equal keys in order and the
  // string one byte a character. Descending: the index counts down, and
  // the sorted list is read from its end (equal keys keep their order).
  for (let i = 0; i < n; i++) {
    const j = desc ? n - 1 - i : i;
    d[i] = d[i] + "\u0001" + String.fromCharCode(32 + ((j / 50176) | 0), 32 + (((j / 224) | 0) % 224), 32 + (j % 224));
  }
  arraySort.call(d);
  if (desc) d.reverse();
  for (let j = 0; j < n; j++) {
    const t = d[j], e = t.length, at = (t.charCodeAt(e - 3) - 32) * 50176 + (t.charCodeAt(e - 2) - 32) * 224 + (t.charCodeAt(e - 1) - 32);
    a[j] = vals[desc ? n - 1 - at : at];
  }
  return true;
}
// A comparator that only calls localeCompare on its two arguments, in the
// forms scripts write it — `(a, b) => a.localeCompare(b)`, `b.localeCompare(a)`
// (descending), with a locale string literal, as an arrow with a block or a
// function expression with one return — is recognised from its source text:
// for an array of keyable strings (whose localeCompare is the prelude's, and
// reads nothing else) the stable sort it asks for is the keys' order, so
// the array is sorted by keys (sortByKeys) without calling it, which no
// script can tell apart but by time. Anything else (another shape, a
// comment, a locale that is not a plain literal, options) is called as
// written.
const LC_ID = "([A-Za-z_$][\\w$]*)";
const LC_COMPARATOR = new RegExp("^(?:\\(\\s*" + LC_ID + "\\s*,\\s*" + LC_ID + "\\s*\\)\\s*=>\\s*(\\{\\s*return\\s+)?" +
  "|function\\s*(?:[A-Za-z_$][\\w$]*)?\\s*\\(\\s*" + LC_ID + "\\s*,\\s*" + LC_ID + "\\s*\\)\\s*(\\{\\s*return\\s+))" +
  LC_ID + "\\.localeCompare\\(\\s*" + LC_ID + "\\s*(?:,\\s*(\"[A-Za-z0-9-]+\"|'[A-Za-z0-9-]+')\\s*)?\\)(\\s*;?\\s*\\})?$");
const LC_MAX_SOURCE = 200;
const lcComparators = new WeakMap(); // a comparator → {k, desc}, or null
function lcComparator(fn) {
  let c = lcComparators.get(fn);
  if (c !== undefined) return c;
  c = null;
  let src = "";
  try { src = fnToString.call(fn); } catch (_) { /* a revoked proxy */ }
  const m = src.length <= LC_MAX_SOURCE ? LC_COMPARATOR.exec(src) : null;
  if (m !== null) {
    const p = m[1] !== undefined ? m[1] : m[4], q = m[1] !== undefined ? m[2] : m[5];
    const block = m[1] !== undefined ? m[3] !== undefined : true, x = m[7], y = m[8], loc = m[9];
    if (p !== q && block === (m[10] !== undefined) && ((x === p && y === q) || (x === q && y === p))) {
      const l = loc === undefined ? undefined : loc.slice(1, -1);
      c = { l, desc: x === q };
    }
  }
  lcComparators.set(fn, c);
  return c;
}
const compareKeyers = new WeakMap(); // a Collator's compare → its keyer
const arraySort = Array.prototype.sort;
defineMethod(Array.prototype, "sort", {
  sort(comparefn) {
    if (typeof comparefn !== "function") return arraySort.call(this, comparefn);
    const k = compareKeyers.get(comparefn);
    if (k !== undefined && sortByKeys(this, k, false)) return this;
    if (k === undefined && String.prototype.localeCompare === localeCompare) {
      const c = lcComparator(comparefn);
      if (c !== null && sortByKeys(this, c.l === undefined ? defaultKeyer : localeKeyer(c.l), c.desc)) return this;
    }
    const outer = sorting, outerPrefetched = prefetched;
    sorting = this;
    prefetched = null;
    try {
      return arraySort.call(this, comparefn);
    } finally {
      sorting = outer;
      prefetched = outerPrefetched;
    }
  },
}.sort);

class Collator {
  constructor(locales, options) {
    colResolved.set(this, intlCall({ op: "col", l: localeList(locales), o: readOpts(options, COL_OPTS) }).r);
  }
  get compare() {
    const r = colResolved.get(this);
    if (r === undefined) throw new TypeError("Method Intl.Collator.prototype.compare called on incompatible receiver " + show(this));
    const k = keyerOf(compiledPrefix("K", [r.locale], r), () => newKeyer([r.locale], r));
    const f = (0, (a, b) => {
      if (typeof a !== "string") a = String(a);
      if (typeof b !== "string") b = String(b);
      const keys = k.keys, x = keys[a], y = keys[b];
      if (x === void 0 || y === void 0) return keyedMiss(k, a, b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    compareKeyers.set(f, k);
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
// The hot paths below write `void 0`, a constant, for undefined, which is a
// global variable (a lookup) to the engine.
const localeKeyer = (locale) => keyerOf("L" + locale, () => newKeyer([locale], {}));
// A method (no prototype, as V8's built-in) of length 1: the defaults
// leave locales and options out of it.
const localeCompare = { localeCompare(that, locales = void 0, options = void 0) {
  if (locales === void 0 && options === void 0 && typeof this === "string" && typeof that === "string") {
    const keys = defaultKeyer.keys, x = keys[this], y = keys[that];
    if (x !== void 0 && y !== void 0) return x < y ? -1 : x > y ? 1 : 0;
  }
  if (this === undefined || this === null) throw new TypeError("String.prototype.localeCompare called on null or undefined");
  let k = defaultKeyer;
  if (locales !== undefined || options !== undefined) {
    if (options === undefined && typeof locales === "string") {
      k = localeKeyer(locales);
    } else {
      // Options are read on every call, as a new Collator would; the
      // keyer is found by their values, without JSON.
      const l = localeList(locales), o = readOpts(options, COL_OPTS);
      const key = "O" + localesKey(l) + optKey(o.usage) + optKey(o.sensitivity) + optKey(o.ignorePunctuation) +
        optKey(o.numeric) + optKey(o.caseFirst);
      k = keyerOf(key, () => newKeyer(l, o));
    }
  }
  const a = typeof this === "string" ? this : String(this), b = typeof that === "string" ? that : String(that);
  const keys = k.keys, x = keys[a], y = keys[b];
  if (x === undefined || y === undefined) return keyedMiss(k, a, b);
  return x < y ? -1 : x > y ? 1 : 0;
} }.localeCompare;
defineMethod(String.prototype, "localeCompare", localeCompare);
