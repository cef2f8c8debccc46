// Part of the prelude: console, rendering values the way Node 20's
// util.inspect and util.format do (default options: depth 2, no colours,
// compact 3, breakLength 80, maxArrayLength 100, maxStringLength 10000).
// The rules follow Node's lib/internal/util/inspect.js and
// lib/internal/console/constructor.js; the differences are listed in
// ../README.md ("console").
// ---- console ----------------------------------------------------------
const LOG_DEBUG = 0, LOG_INFO = 1, LOG_WARN = 2, LOG_ERROR = 3;
// OP_PROMISE (promise, 0) → -1 not a promise, PROMISE_* its state;
// (promise, 1) → the value it settled with (sandbox/internal/wire).
const OP_PROMISE = 15, PROMISE_PENDING = 0, PROMISE_FULFILLED = 1, PROMISE_REJECTED = 2;

// show renders an uncaught non-Error value (90-run.js): strings as they
// are, anything else as console.log would print it.
let show;
const console = (() => {
  // Recursion is costly here: the engine allows about 200 nested calls, and
  // each level of an inspected value takes four. A depth larger than
  // MAX_DEPTH (console.dir's depth: null or Infinity included) prints
  // [Object] past it, as Node does past its depth.
  const MAX_DEPTH = 12;
  // One inspection stops expanding objects once it has produced this many
  // characters, like Node's 2 ** 27 budget scaled to the guest's memory:
  // further objects print as [Object], further keys and entries are cut.
  // Anything that long is past the run's log limit anyway.
  const BUDGET = 1 << 22;
  const LONG_ARRAY = 1000;
  // formatSpecialArray probes at most this many holes one by one.
  const HOLE_PROBES = 1 << 16;

  const hasOwn = Object.prototype.hasOwnProperty;
  const isEnumerable = Object.prototype.propertyIsEnumerable;
  const objectToString = Object.prototype.toString;
  const errorToString = Error.prototype.toString;
  const fnToString = Function.prototype.toString;
  const getOwnDesc = Object.getOwnPropertyDescriptor;
  const getProto = Object.getPrototypeOf;
  const getter = (proto, name) => getOwnDesc(proto, name).get;
  const mapSize = getter(Map.prototype, "size");
  const setSize = getter(Set.prototype, "size");
  const typedTag = getter(getProto(Int8Array.prototype), Symbol.toStringTag);
  const typedLength = getter(getProto(Int8Array.prototype), "length");
  const abLength = getter(ArrayBuffer.prototype, "byteLength");
  const dvLength = getter(DataView.prototype, "byteLength");
  const reSource = getter(RegExp.prototype, "source");
  const dateTime = Date.prototype.getTime;
  const weakMapHas = WeakMap.prototype.has, weakSetHas = WeakSet.prototype.has;
  const AsyncFunctionProto = getProto(async function () {});
  const GeneratorFunctionProto = getProto(function* () {});
  const AsyncGeneratorFunctionProto = getProto(async function* () {});

  // brand reports whether fn accepts v as its receiver, without side effects.
  const brand = (fn, v, arg) => { try { fn.call(v, arg); return true; } catch (_) { return false; } };
  // The checks below are brand checks; as exceptions are slow in the
  // engine, formatRaw only runs them on objects whose Object.prototype.
  // toString is not "[object Object]": a plain object or class instance
  // never pays for them. (So a Map whose prototype was replaced is shown
  // as an object.)
  const isMap = (v) => brand(mapSize, v);
  const isSet = (v) => brand(setSize, v);
  const isDate = (v) => brand(dateTime, v);
  const isRegExp = (v) => v !== RegExp.prototype && brand(reSource, v);
  const isArrayBuffer = (v) => brand(abLength, v);
  const isDataView = (v) => brand(dvLength, v);
  const isWeakMap = (v) => brand(weakMapHas, v, {});
  const isWeakSet = (v) => brand(weakSetHas, v, {});
  const typedArrayName = (v) => { try { return typedTag.call(v); } catch (_) { return undefined; } };
  // classOf is Object.prototype.toString, which reads Symbol.toStringTag.
  const classOf = (v) => { try { return objectToString.call(v); } catch (_) { return ""; } };
  const isPromise = (v) => v instanceof Promise || classOf(v) === "[object Promise]";
  const isError = (v) => v instanceof Error || classOf(v) === "[object Error]";
  const boxed = (v) => {
    for (const [T, name] of [[Number, "Number"], [String, "String"], [Boolean, "Boolean"], [BigInt, "BigInt"], [Symbol, "Symbol"]]) {
      try { return [name, T.prototype.valueOf.call(v)]; } catch (_) { /* not this one */ }
    }
    return undefined;
  };
  // plainClasses are the classOf values of objects that need none of the
  // brand checks.
  const plainClasses = new Set(["[object Object]", "[object Array]", "[object Function]", "[object Error]", "[object Promise]", "[object Arguments]"]);
  // get reads a property that may be a throwing getter (or a Proxy trap).
  const get = (o, k) => { try { return o[k]; } catch (_) { return undefined; } };

  const customInspect = Symbol.for("nodejs.util.inspect.custom");
  const kObjectType = 0, kArrayType = 1, kArrayExtrasType = 2;
  const keyStrRegExp = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
  const numberRegExp = /^(0|[1-9][0-9]*)$/;
  const lone = "|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]";
  const escapeAll = new RegExp("[\\x00-\\x1f\\x27\\x5c\\x7f-\\x9f]" + lone, "g");
  const escapeNoQuote = new RegExp("[\\x00-\\x1f\\x5c\\x7f-\\x9f]" + lone, "g");
  const meta = (c) => {
    const n = c.charCodeAt(0);
    switch (n) {
      case 8: return "\\b";
      case 9: return "\\t";
      case 10: return "\\n";
      case 12: return "\\f";
      case 13: return "\\r";
      case 39: return "\\'";
      case 92: return "\\\\";
    }
    if (n >= 0xd800) return "\\u" + n.toString(16);
    return n < 0x10 ? "\\x0" + n.toString(16).toUpperCase() : "\\x" + n.toString(16).toUpperCase();
  };

  // strEscape quotes a string: single quotes unless it holds one, then
  // double quotes, then backticks; control characters escaped.
  const needsEscape = /[\x00-\x1f\x27\x5c\x7f-\x9f\ud800-\udfff]/;
  function strEscape(str) {
    if (!needsEscape.test(str)) return `'${str}'`;
    let re = escapeAll, quote = "'";
    if (str.includes("'")) {
      if (!str.includes('"')) quote = '"';
      else if (!str.includes("`") && !str.includes("${")) quote = "`";
      if (quote !== "'") re = escapeNoQuote;
    }
    re.lastIndex = 0;
    return quote + str.replace(re, meta) + quote;
  }

  const plural = (n, what) => `... ${n} more ${what}${n > 1 ? "s" : ""}`;
  const formatNumber = (v) => (Object.is(v, -0) ? "-0" : `${v}`);

  function formatPrimitive(v, ctx) {
    switch (typeof v) {
      case "string": {
        let trailer = "";
        if (v.length > ctx.maxStringLength) {
          const remaining = v.length - ctx.maxStringLength;
          v = v.slice(0, ctx.maxStringLength);
          trailer = plural(remaining, "character");
        }
        if (v.length > 16 && v.length > ctx.breakLength - ctx.indentationLvl - 4) {
          // Long strings break after each newline, one quoted piece a line.
          return v.split(/(?<=\n)/).map(strEscape).join(` +\n${" ".repeat(ctx.indentationLvl + 2)}`) + trailer;
        }
        return strEscape(v) + trailer;
      }
      case "number": return formatNumber(v);
      case "bigint": return `${v}n`;
      case "symbol": return symbolString(v);
      default: return `${v}`;
    }
  }
  const symbolString = (s) => Symbol.prototype.toString.call(s);

  const instanceOf = (v, C) => { try { return v instanceof C; } catch (_) { return false; } };
  // constructorName walks the prototype chain for an own, named
  // "constructor" that obj is an instance of; null for a null-prototype
  // object.
  function constructorName(obj) {
    const proto = getProto(obj);
    if (proto === Object.prototype && !hasOwn.call(obj, "constructor")) return "Object";
    if (proto === Array.prototype && !hasOwn.call(obj, "constructor")) return "Array";
    let first;
    for (let o = obj, n = 0; o !== null && n < 1000; n++) {
      let d;
      try { d = getOwnDesc(o, "constructor"); } catch (_) { d = undefined; }
      if (d !== undefined && typeof d.value === "function" && typeof d.value.name === "string" && d.value.name !== "" && instanceOf(obj, d.value)) {
        return d.value.name;
      }
      try { o = getProto(o); } catch (_) { return "Object"; }
      if (first === undefined) first = o;
    }
    return first === null ? null : "Object";
  }

  function getPrefix(constructor, tag, fallback, size = "") {
    if (constructor === null) {
      if (tag !== "" && fallback !== tag) return `[${fallback}${size}: null prototype] [${tag}] `;
      return `[${fallback}${size}: null prototype] `;
    }
    if (tag !== "" && constructor !== tag) return `${constructor}${size} [${tag}] `;
    return `${constructor}${size} `;
  }

  function getKeys(value, showHidden) {
    const symbols = Object.getOwnPropertySymbols(value);
    if (showHidden) {
      const keys = Object.getOwnPropertyNames(value);
      for (const s of symbols) keys.push(s);
      return keys;
    }
    const keys = Object.keys(value);
    for (const s of symbols) if (isEnumerable.call(value, s)) keys.push(s);
    return keys;
  }
  // nonIndexKeys lists the own keys of an array-like that are not indices.
  // Past LONG_ARRAY items it lists only symbols: JavaScript can only list
  // the others with all the indices, which takes seconds and tens of MB
  // for a million items in the engine.
  function nonIndexKeys(value, length, showHidden) {
    const keys = [];
    if (length <= LONG_ARRAY) {
      const names = showHidden ? Object.getOwnPropertyNames(value) : Object.keys(value);
      // A dense array's keys are its indices (and "length" when hidden).
      if (names.length !== length + (showHidden && Array.isArray(value) ? 1 : 0)) {
        for (const k of names) if (!numberRegExp.test(k) || +k > 2 ** 32 - 2) keys.push(k);
      } else if (showHidden && Array.isArray(value)) {
        keys.push("length");
      }
    }
    for (const s of Object.getOwnPropertySymbols(value)) if (showHidden || isEnumerable.call(value, s)) keys.push(s);
    return keys;
  }

  function formatValue(ctx, value, recurseTimes, typedArray) {
    if (typeof value !== "object" && typeof value !== "function") return formatPrimitive(value, ctx);
    if (value === null) return "null";
    if (ctx.seen.includes(value)) {
      let index = 1;
      if (ctx.circular === undefined) {
        ctx.circular = new Map([[value, index]]);
      } else {
        index = ctx.circular.get(value);
        if (index === undefined) {
          index = ctx.circular.size + 1;
          ctx.circular.set(value, index);
        }
      }
      return `[Circular *${index}]`;
    }
    // A throwing getter or Proxy trap, or a stack overflow if the engine
    // lets it be caught, ends only this value's rendering.
    const seen = ctx.seen.length, indentationLvl = ctx.indentationLvl;
    try {
      // Node's util.inspect.custom hook, called as
      // obj[custom](depth, options, inspect).
      // Values it returns may have hooks of their own: past MAX_DEPTH
      // of those, hooks are ignored.
      const custom = ctx.customInspect && ctx.customs < MAX_DEPTH ? value[customInspect] : undefined;
      if (typeof custom === "function" && !(value.constructor && value.constructor.prototype === value)) {
        const depth = ctx.depth - recurseTimes;
        // As Node's getUserOptions: options.depth is the whole depth, not
        // what is left of it.
        const ret = custom.call(value, depth, { ...defaults, depth: ctx.depth, stylize: (x) => x }, inspect);
        if (ret !== value) {
          if (typeof ret === "string") return ret.replace(/\n/g, `\n${" ".repeat(ctx.indentationLvl)}`);
          ctx.customs++;
          try {
            return formatValue(ctx, ret, recurseTimes);
          } finally {
            ctx.customs--;
          }
        }
      }
      return formatRaw(ctx, value, recurseTimes, typedArray);
    } catch (err) {
      // Out of memory is the run's to handle (catchable, or the memory
      // limit).
      if (err instanceof Error && err.name === "InternalError" && err.message === "out of memory") throw err;
      ctx.seen.length = seen;
      ctx.indentationLvl = indentationLvl;
      if (err instanceof RangeError && /call stack/.test(String(err.message))) {
        return "[Inspection interrupted prematurely. Maximum call stack size exceeded.]";
      }
      return `<Inspection threw (${errorMessage(err)})>`;
    }
  }
  const errorMessage = (e) => { try { return String(e && e.message); } catch (_) { return "?"; } };

  function formatRaw(ctx, value, recurseTimes, typedArray) {
    let keys;
    const constructor = constructorName(value);
    let tag = get(value, Symbol.toStringTag);
    if (typeof tag !== "string" || (tag !== "" && (ctx.showHidden ? hasOwn : isEnumerable).call(value, Symbol.toStringTag))) {
      tag = "";
    }
    let base = "";
    let formatter = () => [];
    let braces;
    let noIterator = true;
    let extrasType = kObjectType;
    let typed;
    // Plain objects skip the brand checks without asking classOf.
    const special = constructor === null || (constructor !== "Object" && !plainClasses.has(classOf(value)));

    if (Array.isArray(value)) {
      noIterator = false;
      const prefix = (constructor !== "Array" || tag !== "") ? getPrefix(constructor, tag, "Array", `(${value.length})`) : "";
      keys = nonIndexKeys(value, value.length, ctx.showHidden);
      braces = [`${prefix}[`, "]"];
      if (value.length === 0 && keys.length === 0) return `${braces[0]}]`;
      extrasType = kArrayExtrasType;
      formatter = formatArray;
    } else if (special && isSet(value)) {
      noIterator = false;
      const size = setSize.call(value);
      const prefix = getPrefix(constructor, tag, "Set", `(${size})`);
      keys = getKeys(value, ctx.showHidden);
      formatter = formatSet;
      if (size === 0 && keys.length === 0) return `${prefix}{}`;
      braces = [`${prefix}{`, "}"];
    } else if (special && isMap(value)) {
      noIterator = false;
      const size = mapSize.call(value);
      const prefix = getPrefix(constructor, tag, "Map", `(${size})`);
      keys = getKeys(value, ctx.showHidden);
      formatter = formatMap;
      if (size === 0 && keys.length === 0) return `${prefix}{}`;
      braces = [`${prefix}{`, "}"];
    } else if (special && (typed = typedArrayName(value)) !== undefined) {
      noIterator = false;
      const size = typedLength.call(value);
      keys = nonIndexKeys(value, size, ctx.showHidden);
      const prefix = getPrefix(constructor, tag, typed, `(${size})`);
      braces = [`${prefix}[`, "]"];
      if (size === 0 && keys.length === 0 && !ctx.showHidden) return `${braces[0]}]`;
      formatter = formatTypedArray;
      extrasType = kArrayExtrasType;
    }
    if (noIterator) {
      keys = getKeys(value, ctx.showHidden);
      braces = ["{", "}"];
      if (typeof value === "function") {
        base = functionBase(value, constructor, tag);
        if (keys.length === 0) return base;
      } else if (constructor === "Object") {
        if (classOf(value) === "[object Arguments]") {
          braces[0] = "[Arguments] {";
        } else if (tag !== "") {
          braces[0] = `${getPrefix(constructor, tag, "Object")}{`;
        }
        if (keys.length === 0) return `${braces[0]}}`;
      } else if (special && isRegExp(value)) {
        base = RegExp.prototype.toString.call(constructor !== null ? value : new RegExp(value));
        const prefix = getPrefix(constructor, tag, "RegExp");
        if (prefix !== "RegExp ") base = `${prefix}${base}`;
        if (keys.length === 0 || recurseTimes > ctx.depth) return base;
      } else if (special && isDate(value)) {
        base = Number.isNaN(dateTime.call(value)) ? Date.prototype.toString.call(value) : Date.prototype.toISOString.call(value);
        const prefix = getPrefix(constructor, tag, "Date");
        if (prefix !== "Date ") base = `${prefix}${base}`;
        if (keys.length === 0) return base;
      } else if (isError(value)) {
        base = formatError(value, constructor, tag, ctx, keys);
        if (keys.length === 0) return base;
      } else if (special && isArrayBuffer(value)) {
        const prefix = getPrefix(constructor, tag, "ArrayBuffer");
        if (typedArray === undefined) {
          formatter = formatArrayBuffer;
        } else if (keys.length === 0) {
          return prefix + `{ byteLength: ${formatNumber(abLength.call(value))} }`;
        }
        braces[0] = `${prefix}{`;
        keys.unshift("byteLength");
      } else if (special && isDataView(value)) {
        braces[0] = `${getPrefix(constructor, tag, "DataView")}{`;
        keys.unshift("byteLength", "byteOffset", "buffer");
      } else if (isPromise(value) && (keys.length > 0 || host(OP_PROMISE, value, 0) !== -1)) {
        // (An object that only inherits from Promise.prototype prints as
        // an object: `Promise {}`.)
        braces[0] = `${getPrefix(constructor, tag, "Promise")}{`;
        formatter = formatPromise;
      } else if (special && isWeakSet(value)) {
        braces[0] = `${getPrefix(constructor, tag, "WeakSet")}{`;
        formatter = () => ["<items unknown>"];
      } else if (special && isWeakMap(value)) {
        braces[0] = `${getPrefix(constructor, tag, "WeakMap")}{`;
        formatter = () => ["<items unknown>"];
      } else {
        const box = special ? boxed(value) : undefined;
        if (box !== undefined) {
          base = boxedBase(box, keys, value, constructor, tag, ctx);
          if (keys.length === 0) return base;
        } else {
          if (keys.length === 0) return `${ctxStyle(value, constructor, tag)}{}`;
          braces[0] = `${ctxStyle(value, constructor, tag)}{`;
        }
      }
    }

    if (recurseTimes > ctx.depth || ctx.chars > BUDGET) {
      let name = ctxStyle(value, constructor, tag).slice(0, -1);
      if (constructor !== null) name = `[${name}]`;
      return name;
    }
    recurseTimes += 1;
    ctx.seen.push(value);
    ctx.currentDepth = recurseTimes;
    const output = formatter(ctx, value, recurseTimes);
    for (let i = 0; i < keys.length; i++) {
      if (ctx.chars > BUDGET) { output.push(`... ${keys.length - i} more propert${keys.length - i > 1 ? "ies" : "y"}`); break; }
      output.push(formatProperty(ctx, value, recurseTimes, keys[i], extrasType));
    }
    if (ctx.circular !== undefined) {
      const index = ctx.circular.get(value);
      if (index !== undefined) {
        const reference = `<ref *${index}>`;
        base = base === "" ? reference : `${reference} ${base}`;
      }
    }
    ctx.seen.pop();
    const res = reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value);
    ctx.chars += res.length;
    return res;
  }

  function ctxStyle(value, constructor, tag) {
    let fallback = "";
    if (constructor === null) {
      fallback = "Object";
      if (Array.isArray(value)) fallback = "Array";
      else if (typeof value === "function") fallback = "Function";
      if (fallback === tag) fallback = "Object";
    }
    return getPrefix(constructor, tag, fallback);
  }

  function boxedBase([type, prim], keys, value, constructor, tag, ctx) {
    if (type === "String") keys.splice(0, prim.length);
    let base = `[${type}`;
    if (type !== constructor) base += constructor === null ? " (null prototype)" : ` (${constructor})`;
    base += `: ${formatPrimitive(prim, { maxStringLength: Infinity, breakLength: Infinity, indentationLvl: 0 })}]`;
    if (tag !== "" && tag !== constructor) base += ` [${tag}]`;
    return base;
  }

  function functionBase(value, constructor, tag) {
    let src = "";
    try { src = fnToString.call(value); } catch (_) { /* a revoked proxy */ }
    if (src.startsWith("class") && src.endsWith("}")) {
      const slice = src.slice(5, -1);
      const bracket = slice.indexOf("{");
      if (bracket !== -1 && !slice.slice(0, bracket).includes("(")) {
        const d = getOwnDesc(value, "name");
        const name = (d !== undefined && typeof d.value === "string" && d.value) || "(anonymous)";
        let b = `class ${name}`;
        if (constructor !== "Function" && constructor !== null) b += ` [${constructor}]`;
        if (tag !== "" && constructor !== tag) b += ` [${tag}]`;
        if (constructor !== null) {
          const superName = get(getProto(value), "name");
          if (superName) b += ` extends ${superName}`;
        } else {
          b += " extends [null prototype]";
        }
        return `[${b}]`;
      }
    }
    let type = "Function";
    let p = value;
    for (let n = 0; n < 1000 && p !== null; n++) {
      p = getProto(p);
      if (p === GeneratorFunctionProto) { type = "GeneratorFunction"; break; }
      if (p === AsyncFunctionProto) { type = "AsyncFunction"; break; }
      if (p === AsyncGeneratorFunctionProto) { type = "AsyncGeneratorFunction"; break; }
    }
    let base = `[${type}`;
    if (constructor === null) base += " (null prototype)";
    const name = get(value, "name");
    if (name === "" || typeof name !== "string") base += " (anonymous)";
    else base += `: ${name}`;
    base += "]";
    if (constructor !== type && constructor !== null) base += ` ${constructor}`;
    if (tag !== "" && constructor !== tag) base += ` [${tag}]`;
    return base;
  }

  function formatError(err, constructor, tag, ctx, keys) {
    const rawName = get(err, "name");
    const name = rawName != null ? String(rawName) : "Error";
    const message = get(err, "message");
    let header;
    try { header = errorToString.call(err); } catch (_) { header = name; }
    let stack = get(err, "stack");
    stack = stack ? String(stack) : header;
    // The engine's stacks hold only the frames; Node's start with the
    // "Name: message" line.
    if (stack.startsWith("    at ")) stack = `${header}\n${stack}`;
    stack = stack.replace(/\n+$/, "");
    if (!ctx.showHidden && keys.length !== 0) {
      for (const k of ["name", "message", "stack"]) {
        const i = keys.indexOf(k);
        if (i !== -1 && stack.includes(String(get(err, k)))) keys.splice(i, 1);
      }
    }
    let hasCause = false;
    try { hasCause = "cause" in err; } catch (_) { /* a proxy */ }
    if (hasCause && !keys.includes("cause")) keys.push("cause");
    if (Array.isArray(get(err, "errors")) && !keys.includes("errors")) keys.push("errors");
    // improveStack: name the constructor when the stack does not.
    const len = name.length;
    if (constructor === null || (name.endsWith("Error") && stack.startsWith(name) &&
        (stack.length === len || stack[len] === ":" || stack[len] === "\n"))) {
      let fallback = "Error";
      let flen = len;
      if (constructor === null) {
        const start = /^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n\s+at)/.exec(stack) || /^([a-z_A-Z0-9-]*Error)$/.exec(stack);
        fallback = (start && start[1]) || "";
        flen = fallback.length;
        fallback = fallback || "Error";
      }
      const prefix = getPrefix(constructor, tag, fallback).slice(0, -1);
      if (name !== prefix) {
        if (prefix.includes(name)) {
          stack = flen === 0 ? `${prefix}: ${stack}` : `${prefix}${stack.slice(flen)}`;
        } else {
          stack = `${prefix} [${name}]${stack.slice(flen)}`;
        }
      }
    }
    let pos = (message && typeof message === "string" && stack.indexOf(message)) || -1;
    if (pos !== -1) pos += message.length;
    const stackStart = stack.indexOf("\n    at", pos);
    if (stackStart === -1) stack = `[${stack}]`;
    if (ctx.indentationLvl !== 0) stack = stack.replace(/\n/g, `\n${" ".repeat(ctx.indentationLvl)}`);
    return stack;
  }

  function formatArray(ctx, value, recurseTimes) {
    const valLen = value.length;
    let len = Math.min(Math.max(0, ctx.maxArrayLength), valLen);
    const output = [];
    for (let i = 0; i < len; i++) {
      if (ctx.chars > BUDGET) { len = i; break; }
      if (!hasOwn.call(value, i)) return formatSpecialArray(ctx, value, recurseTimes, len, output, i);
      output.push(formatProperty(ctx, value, recurseTimes, i, kArrayType));
    }
    if (valLen > len) output.push(plural(valLen - len, "item"));
    return output;
  }

  // formatSpecialArray goes on from the first hole, i. Node walks
  // Object.keys(value); probing the indices finds the same runs of holes
  // without listing every key of a long array, and falls back to the keys
  // only after HOLE_PROBES holes.
  function formatSpecialArray(ctx, value, recurseTimes, maxLength, output, i) {
    const len = value.length;
    let index = i;
    let probes = 0;
    while (index < len && output.length < maxLength) {
      if (hasOwn.call(value, index)) {
        output.push(formatProperty(ctx, value, recurseTimes, index, kArrayType));
        index++;
        continue;
      }
      let next = index + 1;
      while (next < len && probes < HOLE_PROBES && !hasOwn.call(value, next)) { next++; probes++; }
      if (probes >= HOLE_PROBES) next = nextIndex(value, next, len);
      const empty = next - index;
      output.push(`<${empty} empty item${empty > 1 ? "s" : ""}>`);
      index = next;
    }
    const remaining = len - index;
    if (remaining > 0) output.push(plural(remaining, "item"));
    return output;
  }
  // nextIndex is the first own index of value from i on, or len.
  function nextIndex(value, i, len) {
    for (const k of Object.keys(value)) {
      if (!numberRegExp.test(k)) break;
      if (+k >= i) return Math.min(+k, len);
    }
    return len;
  }

  function formatTypedArray(ctx, value, recurseTimes) {
    const length = typedLength.call(value);
    const max = Math.min(Math.max(0, ctx.maxArrayLength), length);
    const output = new Array(max);
    for (let i = 0; i < max; i++) {
      const v = value[i];
      output[i] = typeof v === "bigint" ? `${v}n` : formatNumber(v);
    }
    if (length > max) output.push(plural(length - max, "item"));
    if (ctx.showHidden) {
      ctx.indentationLvl += 2;
      for (const key of ["BYTES_PER_ELEMENT", "length", "byteLength", "byteOffset", "buffer"]) {
        output.push(`[${key}]: ${formatValue(ctx, value[key], recurseTimes, true)}`);
      }
      ctx.indentationLvl -= 2;
    }
    return output;
  }

  function formatArrayBuffer(ctx, value) {
    const bytes = new Uint8Array(value);
    const n = Math.min(ctx.maxArrayLength, bytes.length);
    const hex = [];
    for (let i = 0; i < n; i++) hex.push((bytes[i] < 16 ? "0" : "") + bytes[i].toString(16));
    let str = hex.join(" ");
    const remaining = bytes.length - ctx.maxArrayLength;
    if (remaining > 0) str += ` ... ${remaining} more byte${remaining > 1 ? "s" : ""}`;
    return [`[Uint8Contents]: <${str}>`];
  }

  // formatPromise shows a promise's state and value as Node does, read by
  // the host from the engine (OP_PROMISE): JavaScript cannot read them
  // synchronously.
  function formatPromise(ctx, value, recurseTimes) {
    const state = host(OP_PROMISE, value, 0);
    if (state === PROMISE_PENDING) return ["<pending>"];
    if (state !== PROMISE_FULFILLED && state !== PROMISE_REJECTED) return [];
    ctx.indentationLvl += 2;
    const str = formatValue(ctx, host(OP_PROMISE, value, 1), recurseTimes);
    ctx.indentationLvl -= 2;
    ctx.chars += str.length;
    return [state === PROMISE_REJECTED ? `<rejected> ${str}` : str];
  }

  function formatSet(ctx, value, recurseTimes) {
    const output = [];
    const size = setSize.call(value);
    const max = Math.min(Math.max(0, ctx.maxArrayLength), size);
    ctx.indentationLvl += 2;
    for (const v of Set.prototype.values.call(value)) {
      if (output.length >= max || ctx.chars > BUDGET) break;
      const s = formatValue(ctx, v, recurseTimes);
      ctx.chars += s.length;
      output.push(s);
    }
    if (size > output.length) output.push(plural(size - output.length, "item"));
    ctx.indentationLvl -= 2;
    return output;
  }

  function formatMap(ctx, value, recurseTimes) {
    const output = [];
    const size = mapSize.call(value);
    const max = Math.min(Math.max(0, ctx.maxArrayLength), size);
    ctx.indentationLvl += 2;
    for (const [k, v] of Map.prototype.entries.call(value)) {
      if (output.length >= max || ctx.chars > BUDGET) break;
      const s = `${formatValue(ctx, k, recurseTimes)} => ${formatValue(ctx, v, recurseTimes)}`;
      ctx.chars += s.length;
      output.push(s);
    }
    if (size > output.length) output.push(plural(size - output.length, "item"));
    ctx.indentationLvl -= 2;
    return output;
  }

  function formatProperty(ctx, value, recurseTimes, key, type) {
    let str;
    let desc;
    try {
      desc = getOwnDesc(value, key) || { value: value[key], enumerable: true };
    } catch (e) {
      desc = { value: undefined, enumerable: true, threw: e };
    }
    if (desc.threw !== undefined) {
      str = `<Inspection threw (${errorMessage(desc.threw)})>`;
    } else if (desc.value !== undefined) {
      ctx.indentationLvl += 2;
      str = formatValue(ctx, desc.value, recurseTimes);
      ctx.indentationLvl -= 2;
    } else if (desc.get !== undefined) {
      str = desc.set !== undefined ? "[Getter/Setter]" : "[Getter]";
    } else if (desc.set !== undefined) {
      str = "[Setter]";
    } else {
      str = "undefined";
    }
    ctx.chars += str.length;
    if (type === kArrayType) return str;
    let name;
    if (typeof key === "symbol") {
      name = `[${symbolString(key).replace(escapeAll, meta)}]`;
    } else if (key === "__proto__") {
      name = "['__proto__']";
    } else if (desc.enumerable === false) {
      name = `[${key.replace(escapeAll, meta)}]`;
    } else if (keyStrRegExp.test(key)) {
      name = key;
    } else {
      name = strEscape(key);
    }
    return `${name}: ${str}`;
  }

  function groupArrayElements(ctx, output, value) {
    let totalLength = 0;
    let maxLength = 0;
    let outputLength = output.length;
    if (ctx.maxArrayLength < output.length) outputLength--;
    const separatorSpace = 2;
    const dataLen = new Array(outputLength);
    for (let i = 0; i < outputLength; i++) {
      const len = stringWidth(output[i]);
      dataLen[i] = len;
      totalLength += len + separatorSpace;
      if (maxLength < len) maxLength = len;
    }
    const actualMax = maxLength + separatorSpace;
    if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength &&
        (totalLength / actualMax > 5 || maxLength <= 6)) {
      const averageBias = Math.sqrt(actualMax - totalLength / output.length);
      const biasedMax = Math.max(actualMax - 3 - averageBias, 1);
      const columns = Math.min(
        Math.round(Math.sqrt(2.5 * biasedMax * outputLength) / biasedMax),
        Math.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
        ctx.compact * 4,
        15);
      if (columns <= 1) return output;
      const tmp = [];
      const maxLineLength = [];
      for (let i = 0; i < columns; i++) {
        let lineLength = 0;
        for (let j = i; j < output.length; j += columns) {
          if (dataLen[j] > lineLength) lineLength = dataLen[j];
        }
        maxLineLength.push(lineLength + separatorSpace);
      }
      let padStart = true;
      if (value !== undefined) {
        for (let i = 0; i < output.length; i++) {
          const t = typeof get(value, i);
          if (t !== "number" && t !== "bigint") { padStart = false; break; }
        }
      }
      for (let i = 0; i < outputLength; i += columns) {
        const max = Math.min(i + columns, outputLength);
        let str = "";
        let j = i;
        for (; j < max - 1; j++) {
          const padding = maxLineLength[j - i] + output[j].length - dataLen[j];
          str += padStart ? `${output[j]}, `.padStart(padding, " ") : `${output[j]}, `.padEnd(padding, " ");
        }
        if (padStart) {
          const padding = maxLineLength[j - i] + output[j].length - dataLen[j] - separatorSpace;
          str += output[j].padStart(padding, " ");
        } else {
          str += output[j];
        }
        tmp.push(str);
      }
      if (ctx.maxArrayLength < output.length) tmp.push(output[outputLength]);
      output = tmp;
    }
    return output;
  }

  function isBelowBreakLength(ctx, output, start, base) {
    let totalLength = output.length + start;
    if (totalLength + output.length > ctx.breakLength) return false;
    for (let i = 0; i < output.length; i++) {
      totalLength += output[i].length;
      if (totalLength > ctx.breakLength) return false;
    }
    return base === "" || !base.includes("\n");
  }

  function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
    const entries = output.length;
    if (extrasType === kArrayExtrasType && entries > 6) output = groupArrayElements(ctx, output, value);
    if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
      const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
      if (isBelowBreakLength(ctx, output, start, base)) {
        const joined = output.join(", ");
        if (!joined.includes("\n")) return `${base ? `${base} ` : ""}${braces[0]} ${joined} ${braces[1]}`;
      }
    }
    const indentation = `\n${" ".repeat(ctx.indentationLvl)}`;
    return `${base ? `${base} ` : ""}${braces[0]}${indentation}  ${output.join(`,${indentation}  `)}${indentation}${braces[1]}`;
  }

  // stringWidth is the number of terminal columns of s: East Asian wide
  // characters and emoji count 2, combining marks and controls 0.
  function stringWidth(s) {
    let w = 0;
    for (const ch of s) {
      const c = ch.codePointAt(0);
      if (c < 0x20 || (c >= 0x7f && c < 0xa0) || (c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) || (c >= 0xfe00 && c <= 0xfe0f)) continue;
      if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c !== 0x303f) || (c >= 0xac00 && c <= 0xd7a3) ||
          (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
          (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) || (c >= 0x1f900 && c <= 0x1f9ff) ||
          (c >= 0x20000 && c <= 0x3fffd)) {
        w += 2;
      } else {
        w += 1;
      }
    }
    return w;
  }

  const defaults = { depth: 2, showHidden: false, maxArrayLength: 100, maxStringLength: 10000, breakLength: 80, compact: 3, customInspect: true };

  // inspect renders value like Node's util.inspect(value, opts) for the
  // options above; sorted, getters, colors and showProxy are ignored, and
  // compact is a number of at least 1.
  function inspect(value, opts) {
    const ctx = { seen: [], circular: undefined, indentationLvl: 0, currentDepth: 0, chars: 0, customs: 0, ...defaults };
    if (opts !== null && typeof opts === "object") {
      for (const k of Object.keys(defaults)) {
        if (hasOwn.call(opts, k) && opts[k] !== undefined) ctx[k] = opts[k];
      }
    }
    if (ctx.depth === null || !(ctx.depth <= MAX_DEPTH)) ctx.depth = MAX_DEPTH;
    if (ctx.maxArrayLength === null) ctx.maxArrayLength = Infinity;
    if (ctx.maxStringLength === null) ctx.maxStringLength = Infinity;
    if (typeof ctx.compact !== "number" || !(ctx.compact >= 1)) ctx.compact = 3;
    if (typeof ctx.breakLength !== "number") ctx.breakLength = 80;
    return formatValue(ctx, value, 0);
  }

  // builtIns are the global constructors whose own toString %s ignores.
  let builtIns;
  function ownToString(arg) {
    if (typeof get(arg, "toString") !== "function") return false;
    if (hasOwn.call(arg, "toString")) return true;
    if (builtIns === undefined) builtIns = new Set(Object.getOwnPropertyNames(g).filter((n) => /^[A-Z][a-zA-Z0-9]+$/.test(n)));
    const constr = get(arg, "constructor");
    return !!constr && !builtIns.has(constr.name) && !!constr.prototype && hasOwn.call(constr.prototype, "toString");
  }

  // format is Node's util.format: printf-style substitutions in a first
  // string argument, the other arguments appended, separated by spaces.
  function format(args) {
    const first = args[0];
    let a = 0;
    let str = "";
    let join = "";
    if (typeof first === "string") {
      if (args.length === 1) return first;
      let lastPos = 0;
      let tempStr;
      for (let i = 0; i < first.length - 1; i++) {
        if (first.charCodeAt(i) !== 37) continue; // '%'
        const next = first.charCodeAt(++i);
        if (a + 1 !== args.length) {
          switch (next) {
            case 115: { // s
              const arg = args[++a];
              if (typeof arg === "number") tempStr = formatNumber(arg);
              else if (typeof arg === "bigint") tempStr = `${arg}n`;
              else if (typeof arg !== "object" || arg === null || ownToString(arg)) tempStr = String(arg);
              else tempStr = inspect(arg, { depth: 0 });
              break;
            }
            case 106: // j
              tempStr = stringifyJSON(args[++a]);
              break;
            case 100: { // d
              const n = args[++a];
              tempStr = typeof n === "bigint" ? `${n}n` : typeof n === "symbol" ? "NaN" : formatNumber(Number(n));
              break;
            }
            case 79: // O
              tempStr = inspect(args[++a]);
              break;
            case 111: // o
              tempStr = inspect(args[++a], { showHidden: true, depth: 4 });
              break;
            case 105: { // i
              const n = args[++a];
              tempStr = typeof n === "bigint" ? `${n}n` : typeof n === "symbol" ? "NaN" : formatNumber(parseInt(n));
              break;
            }
            case 102: { // f
              const n = args[++a];
              tempStr = typeof n === "symbol" ? "NaN" : formatNumber(parseFloat(n));
              break;
            }
            case 99: // c
              a++;
              tempStr = "";
              break;
            case 37: // %
              str += first.slice(lastPos, i);
              lastPos = i + 1;
              continue;
            default:
              continue;
          }
          if (lastPos !== i - 1) str += first.slice(lastPos, i - 1);
          str += tempStr;
          lastPos = i + 1;
        } else if (next === 37) {
          str += first.slice(lastPos, i);
          lastPos = i + 1;
        }
      }
      if (lastPos !== 0) {
        a++;
        join = " ";
        if (lastPos < first.length) str += first.slice(lastPos);
      }
    }
    while (a < args.length) {
      const v = args[a];
      str += join;
      str += typeof v !== "string" ? inspect(v) : v;
      join = " ";
      a++;
    }
    return str;
  }

  function stringifyJSON(v) {
    try {
      return `${JSON.stringify(v)}`;
    } catch (e) {
      if (e instanceof TypeError && /circular/i.test(String(e.message))) return "[Circular]";
      throw e;
    }
  }

  show = (v) => (typeof v === "string" ? v : inspect(v));

  // ---- the console object -----------------------------------------------
  let groupIndent = "";
  const counts = new Map();
  const timers = new Map();
  const now = () => {
    const p = g.performance;
    if (p && typeof p.now === "function") return p.now();
    return Date.now();
  };

  function write(level, text) {
    if (groupIndent.length !== 0) {
      if (text.includes("\n")) text = text.replace(/\n/g, `\n${groupIndent}`);
      text = groupIndent + text;
    }
    host(OP_LOG, level, noNul(text));
  }
  // Node prints these through process.emitWarning, to stderr, prefixed
  // with "(node:PID) ".
  const warning = (msg) => write(LOG_WARN, `Warning: ${msg}`);

  const logger = (level) => function (...args) { write(level, format(args)); };
  const log = logger(LOG_INFO), warn = logger(LOG_WARN), error = logger(LOG_ERROR);

  function formatTime(ms) {
    let hours = 0, minutes = 0, seconds = 0;
    if (ms >= 1000) {
      if (ms >= 60000) {
        if (ms >= 3600000) {
          hours = Math.floor(ms / 3600000);
          ms %= 3600000;
        }
        minutes = Math.floor(ms / 60000);
        ms %= 60000;
      }
      seconds = ms / 1000;
    }
    if (hours !== 0 || minutes !== 0) {
      const [s, frac] = seconds.toFixed(3).split(".");
      const pad = (x) => `${x}`.padStart(2, "0");
      const res = hours !== 0 ? `${hours}:${pad(minutes)}` : minutes;
      return `${res}:${pad(s)}.${frac} (${hours !== 0 ? "h:m" : ""}m:ss.mmm)`;
    }
    if (seconds !== 0) return `${seconds.toFixed(3)}s`;
    return `${Number(ms.toFixed(3))}ms`;
  }

  function timeLog(name, label, data) {
    const start = timers.get(label);
    if (start === undefined) {
      warning(`No such label '${label}' for console.${name}()`);
      return false;
    }
    log("%s: %s", label, formatTime(now() - start), ...data);
    return true;
  }

  function tableInspect(v) {
    const depth = v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 2 ? -1 : 0;
    return inspect(v, { depth, maxArrayLength: 3, breakLength: Infinity });
  }

  function renderTable(head, columns) {
    const widths = head.map(stringWidth);
    const longest = Math.max(0, ...columns.map((c) => c.length));
    const rows = [];
    for (let i = 0; i < head.length; i++) {
      const column = columns[i];
      for (let j = 0; j < longest; j++) {
        if (rows[j] === undefined) rows[j] = [];
        const value = rows[j][i] = hasOwn.call(column, j) ? column[j] : "";
        widths[i] = Math.max(widths[i] || 0, stringWidth(value));
      }
    }
    const divider = widths.map((w) => "─".repeat(w + 2));
    const row = (cells) => "│ " + cells.map((c, i) => c + " ".repeat(widths[i] - stringWidth(c))).join(" │ ") + " │";
    let out = `┌${divider.join("┬")}┐\n${row(head)}\n├${divider.join("┼")}┤\n`;
    for (const r of rows) out += `${row(r)}\n`;
    return out + `└${divider.join("┴")}┘`;
  }

  function table(data, properties) {
    if (properties !== undefined && !Array.isArray(properties)) {
      throw new TypeError(`The "properties" argument must be an instance of Array.`);
    }
    if (data === null || typeof data !== "object") return log(data);
    const final = (head, columns) => log(renderTable(head, columns));
    const indexes = (n) => Array.from({ length: n }, (_, i) => tableInspect(i));
    if (isMap(data)) {
      const keys = [], values = [];
      for (const [k, v] of Map.prototype.entries.call(data)) {
        keys.push(tableInspect(k));
        values.push(tableInspect(v));
      }
      return final(["(iteration index)", "Key", "Values"], [indexes(keys.length), keys, values]);
    }
    if (isSet(data)) {
      const values = [];
      for (const v of Set.prototype.values.call(data)) values.push(tableInspect(v));
      return final(["(iteration index)", "Values"], [indexes(values.length), values]);
    }
    const map = Object.create(null);
    let hasPrimitives = false;
    const valuesColumn = [];
    const indexColumn = Object.keys(data);
    for (let i = 0; i < indexColumn.length; i++) {
      const item = data[indexColumn[i]];
      const primitive = item === null || (typeof item !== "function" && typeof item !== "object");
      if (properties === undefined && primitive) {
        hasPrimitives = true;
        valuesColumn[i] = tableInspect(item);
      } else {
        const keys = properties || Object.keys(item);
        for (const key of keys) {
          if (map[key] === undefined) map[key] = [];
          map[key][i] = (primitive && properties) || !hasOwn.call(item, key) ? "" : tableInspect(item[key]);
        }
      }
    }
    const head = Object.keys(map);
    const columns = head.map((k) => map[k]);
    if (hasPrimitives) {
      head.push("Values");
      columns.push(valuesColumn);
    }
    head.unshift("(index)");
    columns.unshift(indexColumn);
    return final(head, columns);
  }

  const methods = {
    log, info: log, debug: logger(LOG_DEBUG), warn, error, dirxml: log,
    dir(object, options) {
      write(LOG_INFO, inspect(object, { customInspect: false, ...(options !== null && typeof options === "object" ? options : {}) }));
    },
    table,
    trace(...args) {
      // Node prints "Trace: message" and the stack through console.error.
      const msg = format(args);
      let frames = "";
      try {
        frames = String(new Error().stack || "").split("\n")
          .filter((l) => l.startsWith("    at ") && !l.includes("airlock-prelude.js")).join("\n");
      } catch (_) { /* no stack */ }
      error(`Trace${msg === "" ? "" : `: ${msg}`}${frames === "" ? "" : `\n${frames}`}`);
    },
    assert(expression, ...args) {
      if (!expression) {
        args[0] = `Assertion failed${args.length === 0 ? "" : `: ${args[0]}`}`;
        warn(...args);
      }
    },
    count(label = "default") {
      label = `${label}`;
      const n = (counts.get(label) || 0) + 1;
      counts.set(label, n);
      log(`${label}: ${n}`);
    },
    countReset(label = "default") {
      label = `${label}`;
      if (!counts.has(label)) {
        warning(`Count for '${label}' does not exist`);
        return;
      }
      counts.delete(label);
    },
    group(...data) {
      if (data.length > 0) log(...data);
      groupIndent += "  ";
    },
    groupCollapsed(...data) {
      if (data.length > 0) log(...data);
      groupIndent += "  ";
    },
    groupEnd() {
      groupIndent = groupIndent.slice(0, groupIndent.length - 2);
    },
    time(label = "default") {
      label = `${label}`;
      if (timers.has(label)) {
        warning(`Label '${label}' already exists for console.time()`);
        return;
      }
      timers.set(label, now());
    },
    timeEnd(label = "default") {
      label = `${label}`;
      if (timeLog("timeEnd", label, [])) timers.delete(label);
    },
    timeLog(label = "default", ...data) {
      timeLog("timeLog", `${label}`, data);
    },
    clear() {},
  };
  return Object.freeze(methods);
})();

fixed("console", console);
