// Part of the prelude: structuredClone, as V8's serializer does it for
// Node 20, without recursion (a deep value cannot exhaust the stack).
// ---- structuredClone ----------------------------------------------------
const cloneError = (v) => new DOMException(`${describe(v)} could not be cloned.`, "DataCloneError");
function describe(v) {
  if (typeof v === "function") {
    try { return Function.prototype.toString.call(v); } catch (_) { return "function"; }
  }
  if (typeof v === "symbol") return v.toString();
  const tag = Object.prototype.toString.call(v).slice(8, -1);
  return `#<${tag === "Object" && v.constructor && v.constructor.name || tag}>`;
}
const ERROR_TYPES = [EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, Error];
const TYPED = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array, DataView];
const typedCtor = (v) => TYPED.find((T) => v instanceof T) || Object.getPrototypeOf(v).constructor;
const toStr = (v) => Object.prototype.toString.call(v);

function structuredClone(value, options) {
  if (arguments.length < 1) throw missingArg("value");
  if (options !== undefined && options !== null && options.transfer !== undefined &&
    (options.transfer === null || typeof options.transfer[Symbol.iterator] !== "function")) {
    throw coded(TypeError, "Optional transferList argument must be an iterable", "ERR_INVALID_ARG_TYPE");
  }
  const memo = new Map();
  const work = []; // [source, clone] whose members are still to copy
  const copy = (v) => {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) {
      if (typeof v === "symbol") throw cloneError(v);
      return v;
    }
    let c = memo.get(v);
    if (c !== undefined) return c;
    if (typeof v === "function") throw cloneError(v);
    const tag = toStr(v);
    if (Array.isArray(v)) { c = new Array(v.length); work.push([v, c, "own"]); } else if (tag === "[object Date]") c = new Date(v.getTime());
    else if (tag === "[object RegExp]") c = new RegExp(v.source, v.flags);
    else if (tag === "[object Boolean]") c = Object(Boolean.prototype.valueOf.call(v));
    else if (tag === "[object Number]") c = Object(Number.prototype.valueOf.call(v));
    else if (tag === "[object String]") c = Object(String.prototype.valueOf.call(v));
    else if (tag === "[object BigInt]") c = Object(BigInt.prototype.valueOf.call(v));
    else if (v instanceof ArrayBuffer) c = v.slice(0);
    else if (ArrayBuffer.isView(v)) {
      const T = typedCtor(v), buf = copy(v.buffer);
      c = T === DataView ? new DataView(buf, v.byteOffset, v.byteLength) : new T(buf, v.byteOffset, v.length);
    } else if (v instanceof Map) { c = new Map(); work.push([v, c, "map"]); } else if (v instanceof Set) { c = new Set(); work.push([v, c, "set"]); } else if (v instanceof Error) {
      const name = v.name;
      c = Object.create((ERROR_TYPES.find((E) => E.name === name) || Error).prototype);
      work.push([v, c, "error"]);
    } else if (tag === "[object Object]" && !(v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet || v instanceof WeakRef)) {
      c = {};
      work.push([v, c, "own"]);
    } else throw cloneError(v);
    memo.set(v, c);
    return c;
  };
  const root = copy(value);
  while (work.length > 0) {
    const [v, c, kind] = work.pop();
    if (kind === "own") {
      for (const k of Object.keys(v)) c[k] = copy(v[k]);
    } else if (kind === "map") {
      for (const [k, x] of v) c.set(copy(k), copy(x));
    } else if (kind === "set") {
      for (const k of v) c.add(copy(k));
    } else {
      const d = (k, x) => Object.defineProperty(c, k, { value: x, writable: true, configurable: true, enumerable: false });
      d("stack", String(v.stack));
      if (Object.prototype.hasOwnProperty.call(v, "message")) d("message", String(v.message));
      if (Object.prototype.hasOwnProperty.call(v, "cause")) d("cause", copy(v.cause));
    }
  }
  return root;
}

nodeGlobal("structuredClone", structuredClone);
