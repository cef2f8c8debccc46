// Part of the prelude: errors as V8 writes them, pointing at the script.
//
// QuickJS-ng calls Error.prepareStackTrace(error, callSites) when it
// creates an error, after setting its message. The prelude installs its own
// hook there (the script sees Error.prepareStackTrace as undefined, and may
// set its own, which the hook then calls), and the hook:
//   - rewrites the engine's messages into V8's words, reading the callee
//     or the object from the script's text at the fault position
//     (`csv.trim is not a function`, `Cannot read properties of undefined
//     (reading 'x')`), and moves that position where V8 puts it;
//   - keeps only the frames in the script, maps them to the script as
//     submitted (the prelude's wrapper on line 1, TypeScript through the
//     host's source map) and names the script's file;
//   - gives the error a `stack` that starts with `Name: message`, formatted
//     when first read (as V8 does: a subclass that sets this.name after
//     super() shows its own name).
// errorSiteOf gives an error's position for the host's report (fail()).
const OP_WHERE = 13; // (line, col) → "line:col" in the TypeScript source; () → "js|ts\nfilename"
let scriptFile = "script.js";
let scriptTS = false;
let evalSrc = ""; // the text evaluated: the prelude's wrapper, then the script (its JS, for TypeScript)
let evalPrefix = 0; // length of the wrapper on line 1
let lineStarts = null;
let scriptLines = 0; // lines of evalSrc that hold the script
let tailLines = 0; // lines the wrapper adds after the script
const ErrorCtor = Error;
const setPrepare = Object.getOwnPropertyDescriptor(ErrorCtor, "prepareStackTrace").set;
const captureStack = ErrorCtor.captureStackTrace;
let userPrepare;
let capturing = false;
let lastSites = null; // the call sites hereSite captured

// beginErrors is called by start() with what it evaluates.
function beginErrors(file, ts, text, prefixLen, tail) {
  scriptFile = file;
  tailLines = tail;
  scriptTS = ts;
  evalSrc = text;
  evalPrefix = prefixLen;
  lineStarts = null;
  declCache = new Map();
  if (mayHoldVLiteral(text)) installV(); // 06-regexp.js
}

function lineStart(line) {
  if (lineStarts === null) {
    lineStarts = [0];
    for (let i = evalSrc.indexOf("\n"); i >= 0; i = evalSrc.indexOf("\n", i + 1)) lineStarts.push(i + 1);
    scriptLines = lineStarts.length - tailLines;
  }
  return line >= 1 && line <= lineStarts.length ? lineStarts[line - 1] : -1;
}

// offsetOf turns an engine position into an index into evalSrc, or -1.
// The engine counts columns in UTF-8 bytes, from 1 on every line but the
// first, where it counts from 0 (and says 1 for both 0 and 1).
function offsetOf(line, col) {
  const s = lineStart(line);
  if (s < 0) return -1;
  let bytes = line === 1 ? col : col - 1;
  let i = s;
  while (bytes > 0 && i < evalSrc.length) {
    const c = evalSrc.charCodeAt(i);
    if (c === 10) return -1;
    if (c < 0x80) bytes -= 1;
    else if (c < 0x800) bytes -= 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < evalSrc.length) { bytes -= 4; i++; }
    else bytes -= 3;
    i++;
  }
  return i < evalSrc.length ? i : -1;
}

// positionOf turns an index into evalSrc into a 1-based line and column
// (UTF-16 units, as V8 counts).
function positionOf(off) {
  lineStart(1);
  let lo = 0, hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid] <= off) lo = mid; else hi = mid - 1;
  }
  return [lo + 1, off - lineStarts[lo] + 1];
}

// mapOffset maps an index into evalSrc to the script as submitted: null
// when it falls in the prelude's wrapper.
function mapOffset(off) {
  if (off < 0) return null;
  let [line, col] = positionOf(off);
  if (line === 1) {
    col -= evalPrefix;
    if (col < 1) return null;
  }
  if (line > scriptLines) return null;
  if (!scriptTS) return { line, col };
  const r = host(OP_WHERE, line, col);
  const i = r.indexOf(":");
  return i < 0 ? null : { line: +r.slice(0, i), col: +r.slice(i + 1) };
}

// ---- reading the script's text ----------------------------------------
// isIdent tells a character that may be part of a name. A regular
// expression costs microseconds per test in this engine: ASCII is decided
// by its code.
const identChar = /[\p{ID_Continue}$\u200c\u200d]/u;
function isIdent(c) {
  if (c === undefined || c === "") return false;
  const k = c.charCodeAt(0);
  if (k < 128) return (k >= 97 && k <= 122) || (k >= 65 && k <= 90) || (k >= 48 && k <= 57) || k === 95 || k === 36;
  return identChar.test(c);
}
const isSpace = (c) => c === " " || c === "\t" || c === "\n" || c === "\r";

function skipBack(off) {
  while (off >= 0 && isSpace(evalSrc[off])) off--;
  return off;
}

// nameEnd returns the index after the identifier starting at off.
function nameEnd(off) {
  let e = off;
  while (e < evalSrc.length && e - off < 256 && isIdent(evalSrc[e])) e++;
  return e;
}

// matchBack finds the opening bracket of the closing one at off, or -1.
function matchBack(off, open, close) {
  let depth = 0;
  for (let i = off; i >= 0 && off - i < 512; i--) {
    const c = evalSrc[i];
    if (c === close) depth++;
    else if (c === open && --depth === 0) return i;
  }
  return -1;
}

// chainBack renders the member chain that ends with the name at [start,
// end): `obj.a.b`, `arr[0]`, `f(...).bar`, as V8 prints a callee. It
// returns null when the text there is not such a chain.
function chainBack(start, end) {
  let text = evalSrc.slice(start, end);
  let i = skipBack(start - 1);
  for (let steps = 0; steps < 32; steps++) {
    let dot = false;
    if (evalSrc[i] === "." && evalSrc[i - 1] === "?") { dot = true; text = "?." + text; i = skipBack(i - 2); }
    else if (evalSrc[i] === ".") { dot = true; text = "." + text; i = skipBack(i - 1); }
    if (!dot) return text;
    if (evalSrc[i] === '"' || evalSrc[i] === "'") {
      // a string literal: "abc".trim
      const q = evalSrc[i], o = evalSrc.lastIndexOf(q, i - 1);
      if (o < 0 || i - o > 200 || evalSrc.slice(o + 1, i).includes("\\") || evalSrc.slice(o + 1, i).includes("\n")) return null;
      return evalSrc.slice(o, i + 1) + text;
    }
    if (isIdent(evalSrc[i])) {
      let s = i;
      while (s > 0 && isIdent(evalSrc[s - 1])) s--;
      text = evalSrc.slice(s, i + 1) + text;
      i = skipBack(s - 1);
    } else if (evalSrc[i] === ")") {
      const o = matchBack(i, "(", ")");
      if (o < 0) return null;
      text = "(...)" + text;
      i = skipBack(o - 1);
      if (!isIdent(evalSrc[i])) return null;
      let s = i;
      while (s > 0 && isIdent(evalSrc[s - 1])) s--;
      text = evalSrc.slice(s, i + 1) + text;
      i = skipBack(s - 1);
    } else if (evalSrc[i] === "]") {
      const o = matchBack(i, "[", "]");
      if (o < 0) return null;
      text = evalSrc.slice(o, i + 1) + text;
      i = skipBack(o - 1);
      if (!isIdent(evalSrc[i])) return null;
      let s = i;
      while (s > 0 && isIdent(evalSrc[s - 1])) s--;
      text = evalSrc.slice(s, i + 1) + text;
      i = skipBack(s - 1);
    } else {
      return null;
    }
  }
  return null;
}

const notCallees = new Set(["if", "for", "while", "switch", "catch", "function", "return", "typeof",
  "await", "yield", "in", "of", "new", "delete", "void", "case", "do", "else", "instanceof", "throw"]);

const reservedWords = new Set(["break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
  "do", "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof",
  "new", "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with"]);

// identStart returns the index where the identifier ending at j starts.
function identStart(j) {
  let s = j;
  while (s > 0 && isIdent(evalSrc[s - 1])) s--;
  return s;
}

// calleeEndingAt renders the callee expression whose last character is at
// j, as V8 prints it (`obj.a.b`, `arr[0]`, `f(...)`), with the position V8
// gives the failed call: the callee's last name, or the call's parenthesis.
function calleeEndingAt(j) {
  const c = evalSrc[j];
  if (isIdent(c)) {
    const s = identStart(j);
    const name = evalSrc.slice(s, j + 1);
    if ((notCallees.has(name) && evalSrc[skipBack(s - 1)] !== ".") || /^\d/.test(name)) return null;
    const text = chainBack(s, j + 1);
    if (text === null) return null;
    // V8 places a call of a member named by a reserved word (`p.catch(…)`,
    // `a.with(…)`) at its parenthesis.
    if (reservedWords.has(name) && evalSrc[skipBack(s - 1)] === "." && evalSrc[skipForward(j + 1)] === "(") {
      return { text, at: skipForward(j + 1) };
    }
    return { text, at: s };
  }
  if (c === "]") {
    const o = matchBack(j, "[", "]");
    if (o < 0) return null;
    const head = calleeEndingAt(skipBack(o - 1));
    if (head === null) return null;
    const key = evalSrc.slice(o + 1, j).trim();
    const text = /^(["'])[^"'\\]*\1$/.test(key) ? head.text + "." + key.slice(1, -1) : head.text + "[" + key + "]";
    return { text, at: skipForward(j + 1) };
  }
  if (c === ")") {
    const o = matchBack(j, "(", ")");
    if (o < 0) return null;
    const head = calleeEndingAt(skipBack(o - 1));
    if (head === null) return { text: evalSrc.slice(o, j + 1), at: skipForward(j + 1) };
    return { text: head.text + "(...)", at: skipForward(j + 1) };
  }
  return null;
}

// callAt finds the failed call the engine means at off. The engine points
// at the callee's last name, or, when an argument records a position of
// its own, into the arguments: then the call is the innermost one whose
// parenthesis encloses off.
function callAt(off) {
  if (isIdent(evalSrc[off]) && !(off > 0 && isIdent(evalSrc[off - 1]))) {
    const e = nameEnd(off);
    const n = skipForward(e);
    if (evalSrc[n] === "(" || evalSrc.startsWith("?.(", n)) return calleeEndingAt(e - 1);
  }
  if (evalSrc[off] === "[" || evalSrc[off] === "(") {
    const r = calleeEndingAt(skipBack(off - 1));
    if (r !== null) return r;
  }
  let depth = 0;
  for (let i = off - 1; i >= 0 && off - i < 1024; i--) {
    const c = evalSrc[i];
    if (c === ")" || c === "]" || c === "}") depth++;
    else if (c === "[" || c === "{") { if (depth > 0) depth--; }
    else if (c === "(") {
      if (depth > 0) { depth--; continue; }
      const r = calleeEndingAt(skipBack(i - 1));
      if (r !== null) return r;
    }
  }
  return null;
}

// nativeCallAt places an error a built-in function raised at the call of
// it among the calls the engine's position off may belong to (the one
// whose callee's last name is the built-in's name), or at off.
function nativeCallAt(off, native, site) {
  if (site === undefined || !/^[\p{ID_Start}$_][\p{ID_Continue}$]*$/u.test(native)) return off;
  if (evalSrc.startsWith(native, off) && !isIdent(evalSrc[off - 1]) && !isIdent(evalSrc[off + native.length])) {
    const n = skipForward(off + native.length);
    if (evalSrc[n] === "(") return reservedWords.has(native) && evalSrc[skipBack(off - 1)] === "." ? n : off;
  }
  for (const c of callCandidates(off, functionStart(site, off))) {
    if (c.text === native || c.text.endsWith("." + native)) return c.at;
  }
  return off;
}

// ---- which call failed -------------------------------------------------
// The engine records a position only at some places (the first token of a
// call's arguments, a binary operator, `new`, a statement); a failed call
// reports the last one recorded before it. That is inside the failed call's
// parentheses, or at its callee's last name, but a call in its arguments
// that returned records one there too: `report.push(nf.format(x))` reports
// the same position whichever of the two failed. failedCall lists the calls
// the position may belong to, drops those it cannot (outside the faulting
// function; an outer call whose arguments record a position after the
// inner one), reads what it can of each callee's value (a global chain
// such as `Intl.DurationFormat`; a member of a `const` the script declares
// with an object, array or string literal or `new Map()`, …) and names the
// innermost callee that is not a function, or the innermost one it could
// not read. README.md ("Where airlock still differs") says what is left.
function failedCall(off, site) {
  const lo = functionStart(site, off);
  const list = callCandidates(off, lo);
  if (list.length === 0) return null;
  let pick = null;
  for (const c of list) {
    const v = calleeIsFunction(c);
    if (v === false) { pick = c; break; }
    if (v === undefined && pick === null) pick = c;
  }
  return pick === null ? list[0] : pick;
}

// functionStart returns the index in evalSrc where the function running at
// site starts (its text, as Function.prototype.toString gives it, around
// off), or evalPrefix when that is not found.
const fnToString = Function.prototype.toString;
function functionStart(site, off) {
  let text;
  try {
    const fn = site.getFunction();
    if (typeof fn !== "function") return evalPrefix;
    text = fnToString.call(fn);
  } catch (_) {
    return evalPrefix;
  }
  if (typeof text !== "string" || text.length < 2) return evalPrefix;
  const head = text.slice(0, 64);
  for (let i = evalSrc.lastIndexOf(head, off), n = 0; i >= 0 && n < 8; i = evalSrc.lastIndexOf(head, i - 1), n++) {
    if (i + text.length > off && evalSrc.startsWith(text, i)) return i;
    if (i === 0) break;
  }
  return evalPrefix;
}

// matchForward finds the closing bracket of the opening one at off, or -1.
function matchForward(off, open, close) {
  let depth = 0;
  for (let i = off; i < evalSrc.length && i - off < 8192; i++) {
    const c = evalSrc[i];
    if (c === open) depth++;
    else if (c === close && --depth === 0) return i;
  }
  return -1;
}

// chainStart returns where the callee expression ending at j starts
// (names, dots, `?.`, balanced brackets and parentheses).
function chainStart(j) {
  let i = j;
  for (let steps = 0; steps < 64 && i >= 0; steps++) {
    const c = evalSrc[i];
    let s;
    if (isIdent(c)) s = identStart(i);
    else if (c === "]") s = matchBack(i, "[", "]");
    else if (c === ")") s = matchBack(i, "(", ")");
    else return i + 1;
    if (s < 0) return i + 1;
    const b = skipBack(s - 1);
    if (evalSrc[b] === ".") {
      i = skipBack(evalSrc[b - 1] === "?" ? b - 2 : b - 1);
      continue;
    }
    if ((c === "]" || c === ")") && (isIdent(evalSrc[b]) || evalSrc[b] === ")" || evalSrc[b] === "]")) {
      if (notCallees.has(evalSrc.slice(identStart(b), b + 1))) return s;
      i = b;
      continue;
    }
    return s;
  }
  return i + 1;
}

// isNewAt tells whether the keyword `new` ends just before index s.
function isNewAt(s) {
  const b = skipBack(s - 1);
  return b >= 2 && evalSrc.slice(b - 2, b + 1) === "new" && !isIdent(evalSrc[b - 3]);
}

// callCandidates lists the calls the engine's position off may belong to,
// innermost first: the call whose callee's last name is at off, or the
// `new` whose callee starts there, then each call whose parentheses enclose
// off, within the function that starts at lo. Each is {text, at, isNew,
// open, close}: the callee as V8 prints it, the fault's index, whether it
// is a construction, and its parentheses (-1 when it has none).
function callCandidates(off, lo) {
  const list = [];
  const add = (calleeEnd, open) => {
    const c = calleeEndingAt(calleeEnd);
    if (c === null) return false;
    const s = chainStart(calleeEnd);
    const isNew = isNewAt(s) && !c.text.includes("(");
    // new A(…).b(…): V8 calls what `new` made "(intermediate value)".
    if (isNewAt(s) && !isNew && c.text.indexOf("(...)") > 0) c.text = "(intermediate value)" + c.text.slice(c.text.indexOf("(...)") + 5);
    const close = open < 0 ? -1 : matchForward(open, "(", ")");
    list.push({ text: c.text, at: isNew ? s : c.at, isNew, open, close });
    return true;
  };
  if (isIdent(evalSrc[off]) && !(off > 0 && isIdent(evalSrc[off - 1]))) {
    const e = nameEnd(off);
    const n = skipForward(e);
    if (evalSrc[n] === "(") add(e - 1, n);
    else if (evalSrc.startsWith("?.(", n)) add(e - 1, n + 2);
    else if (isNewAt(off)) {
      // new a.b.C or new C(…): the engine points at the callee's start.
      let end = e;
      while (evalSrc[end] === "." && isIdent(evalSrc[end + 1])) end = nameEnd(end + 1);
      const p = skipForward(end);
      add(end - 1, evalSrc[p] === "(" ? p : -1);
    }
  }
  if (list.length === 0 && (evalSrc[off] === "[" || evalSrc[off] === "(")) {
    add(skipBack(off - 1), evalSrc[off] === "(" ? off : -1);
  }
  let depth = 0;
  for (let i = off - 1; i >= lo && off - i < 4096 && list.length < 16; i--) {
    const c = evalSrc[i];
    if (c === ")" || c === "]" || c === "}") depth++;
    else if (c === "[" || c === "{") { if (depth > 0) depth--; }
    else if (c === "(") {
      if (depth > 0) { depth--; continue; }
      const j = skipBack(i - 1);
      if (j >= lo && (isIdent(evalSrc[j]) || evalSrc[j] === ")" || evalSrc[j] === "]")) {
        const w = evalSrc.slice(identStart(j), j + 1);
        if (!notCallees.has(w) || evalSrc[skipBack(identStart(j) - 1)] === ".") add(j, i);
      }
    }
  }
  // An outer call whose arguments record a position after the inner call
  // would have reported that one: it is not the failed call.
  for (let k = 0; k + 1 < list.length; k++) {
    const inner = list[k], outer = list[k + 1];
    const from = inner.close >= 0 ? inner.close + 1 : off;
    if (outer.close < 0 || recordsPosition(from, outer.close)) {
      list.length = k + 1;
      break;
    }
  }
  return list;
}

// recordsPosition tells whether the text in [from, to) may hold something
// the engine records a position for: a call, `new`, a binary operator, a
// template literal, a function. Strings are skipped; anything unsure counts.
function recordsPosition(from, to) {
  for (let i = from; i < to; i++) {
    const c = evalSrc[i];
    if (c === '"' || c === "'") {
      const q = c;
      for (i++; i < to && evalSrc[i] !== q; i++) if (evalSrc[i] === "\\") i++;
      continue;
    }
    if (isSpace(c) || c === "," || c === "." || c === "[" || c === "]" || c === "{" || c === "}" || c === ":") continue;
    if (isIdent(c)) {
      const e = nameEnd(i);
      const w = evalSrc.slice(i, e);
      if (w === "new" || w === "function" || w === "class" || w === "await" || w === "yield" || w === "typeof" ||
          w === "in" || w === "instanceof") return true;
      i = e - 1;
      continue;
    }
    return true;
  }
  return false;
}

// calleeIsFunction reads what it safely can of a candidate's callee: true
// or false when it could read it, undefined otherwise.
const chainRe = /^([\p{ID_Start}$_][\p{ID_Continue}$]*)((?:\.[\p{ID_Start}$_][\p{ID_Continue}$]*)*)$/u;
function calleeIsFunction(c) {
  let text = c.text;
  if (text.startsWith("(")) return undefined;
  const m = chainRe.exec(text);
  if (m === null) return undefined;
  const root = m[1], path = m[2] === "" ? [] : m[2].slice(1).split(".");
  const decl = declarationOf(root);
  if (decl === null) {
    if (!hasOwn(g, root)) return undefined;
    let v = g[root];
    for (const k of path) {
      const r = dataProperty(v, k);
      if (r === undefined) return undefined;
      v = r.value;
    }
    return typeof v === "function";
  }
  if (decl === false || path.length !== 1) return undefined;
  return literalMember(decl, root, path[0]);
}

// dataProperty finds k on v or its prototypes without running a getter or
// a proxy trap: {value} (undefined for a missing one), or undefined when it
// cannot tell.
function dataProperty(v, k) {
  if (v === null || (typeof v !== "object" && typeof v !== "function")) return undefined;
  for (let o = v, n = 0; o !== null && n < 32; n++) {
    let d;
    try {
      d = Object.getOwnPropertyDescriptor(o, k);
      if (d === undefined) { o = Object.getPrototypeOf(o); continue; }
    } catch (_) {
      return undefined;
    }
    return "value" in d ? { value: d.value } : undefined;
  }
  return { value: undefined };
}

// declarationOf finds how the script declares name: null when it does not
// appear bound (a global), false when it is bound in a way not read here,
// else {kind, at} for `const name = <literal>` declared once, with at the
// literal's index.
// The script's text does not change during a run: what declarationOf and
// literalMember find is kept (beginErrors clears it), so a script that
// fails the same call in a loop scans its text once.
let declCache = new Map();
function declarationOf(name) {
  let r = declCache.get(name);
  if (r === undefined && declCache.size < 256) declCache.set(name, r = findDeclaration(name));
  return r === undefined ? findDeclaration(name) : r;
}

function findDeclaration(name) {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return false;
  const text = evalSrc.slice(evalPrefix);
  name = name.replace(/\$/g, "\\$");
  const bound = new RegExp(`\\b(?:const|let|var|function|class)\\s+${name}(?![\\w$])\\s*=?|\\bcatch\\s*\\(\\s*${name}(?![\\w$])|(?<![\\w$.])${name}\\s*=>`, "g");
  let count = 0, first = null;
  for (let m = bound.exec(text); m !== null && count < 4; m = bound.exec(text)) {
    count++;
    if (first === null) first = m;
  }
  if (count === 0) return null;
  if (count > 1 || !/^const\s.*=$/.test(first[0])) return false;
  const at = skipForward(evalPrefix + first.index + first[0].length);
  return { at };
}

// literalMember tells whether name.key is a function when the script
// declares `const name = <literal>` (at decl.at) and assigns no member of
// it: undefined when unsure.
const literalProtos = { Map: Map.prototype, Set: Set.prototype, Date: Date.prototype, WeakMap: WeakMap.prototype, WeakSet: WeakSet.prototype };
function literalMember(decl, name, key) {
  const id = name + "." + key;
  if (declCache.has(id)) return declCache.get(id);
  const r = findLiteralMember(decl, name, key);
  if (declCache.size < 256) declCache.set(id, r);
  return r;
}

function findLiteralMember(decl, name, key) {
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return undefined;
  const text = evalSrc.slice(evalPrefix);
  name = name.replace(/\$/g, "\\$");
  const k = key.replace(/\$/g, "\\$");
  // name.key = …, name[…] = …, Object.assign(name, …), defineProperty(name, …)
  const assigned = new RegExp(`\\b${name}\\s*(?:\\.\\s*${k}(?![\\w$])|\\[[^\\]]*\\])\\s*(?:[-+*/%&|^]|\\?\\?|&&|\\|\\|)?=(?!=)|\\b(?:assign|defineProperty|defineProperties|setPrototypeOf)\\s*\\(\\s*${name}\\b`);
  if (assigned.test(text)) return undefined;
  const c = evalSrc[decl.at];
  let proto;
  if (c === "[") proto = Array.prototype;
  else if (c === '"' || c === "'" || c === "`") proto = String.prototype;
  else if (c >= "0" && c <= "9") proto = Number.prototype;
  else if (c === "{") {
    const close = matchForward(decl.at, "{", "}");
    if (close < 0) return undefined;
    const body = evalSrc.slice(decl.at + 1, close);
    if (body.includes("...") || new RegExp(`(?:^|[^\\w$])${k}(?![\\w$])|\\[`).test(body)) return undefined;
    proto = Object.prototype;
  } else {
    const m = /^new\s+(Map|Set|Date|WeakMap|WeakSet)\s*\(/.exec(evalSrc.slice(decl.at, decl.at + 16));
    if (m === null) return undefined;
    proto = literalProtos[m[1]];
  }
  const r = dataProperty(proto, key);
  return r === undefined ? undefined : typeof r.value === "function";
}

// propertyAfter finds the first `.prop` from off, where the engine places a
// failed property access (at the start of the statement, or at the last
// position it recorded before it), and returns where V8 places the fault:
// at the name, or at the dot when the object is a call's result; -1 when
// there is none.
function propertyAfter(off, prop) {
  if (!isIdent(prop[0])) return -1;
  const limit = Math.min(evalSrc.length, off + 4096);
  for (let i = evalSrc.indexOf("." + prop, off); i >= 0 && i < limit; i = evalSrc.indexOf("." + prop, i + 1)) {
    if (evalSrc[i - 1] === "?" || evalSrc[i - 1] === "." || isIdent(evalSrc[i + 1 + prop.length])) continue;
    return evalSrc[skipBack(i - 1)] === ")" ? i : i + 1;
  }
  return -1;
}

// engineMessage matches the engine messages v8Message rewords from the
// script's text.
const engineMessage = /^(?:not a (?:function|constructor)$|cannot (?:read|set) property '|value is not iterable$|Cannot convert undefined or null to object$|cannot (?:convert BigInt to number|mix BigInt and other types|convert symbol to string)$|'.*' is read-only$|.* is not (?:initialized|defined)$|invalid (?:number of digits|repeat count)$|class constructors must be invoked with 'new'$|private class field '.*' does not exist$|invalid brand on object$|invalid array index: -?\d+$)/s;

// maybeEngine is engineMessage's and plainMessages' cheap first test (a
// regular expression costs microseconds here, and most errors are the
// script's own): the first letters of the messages they match.
function maybeEngine(msg) {
  if (msg === "") return false;
  const c = msg[0];
  return c === "n" || c === "c" || c === "v" || c === "C" || c === "'" || c === "i" || c === "D" || c === "e" || c === "m" ||
    c === "p" || c === "B" ||
    msg.endsWith(" is not defined") || msg.endsWith(" is not initialized");
}

// plainMessages are engine messages V8 words differently without
// anything from the script's text.
const plainMessages = {
  "RangeError:invalid array length": "Invalid array length",
  "RangeError:Date value is NaN": "Invalid time value",
  "URIError:expecting hex digit": "URI malformed",
  "URIError:malformed UTF-8": "URI malformed",
  "URIError:malformed unicode char": "URI malformed",
  "TypeError:circular reference": "Converting circular structure to JSON",
  "TypeError:BigInt are forbidden in JSON.stringify": "Do not know how to serialize a BigInt",
  "RangeError:invalid typed array index": "Invalid typed array index",
};

// v8Message rewrites an engine error's message and position the way V8
// words and places it; off is the fault's index in evalSrc, native the
// name of the built-in function that threw (or "").
function v8Message(name, msg, off, native, site) {
  let m;
  const plain = plainMessages[name + ":" + msg];
  if (plain !== undefined) return { msg: plain, off: native === "" ? off : nativeCallAt(off, native, site) };
  if (native.startsWith("class ")) {
    const call = callAt(off);
    return { msg: `Class constructor ${native.slice(6)} cannot be invoked without 'new'`, off: call === null ? off : call.at };
  }
  if (native !== "") {
    if (name === "RangeError" && msg === "invalid number of digits") {
      const text = digitsMessages[native];
      return text === undefined ? null : { msg: text, off };
    }
    if (name === "RangeError" && native === "with" && (m = /^invalid array index: (-?\d+)$/.exec(msg)) !== null) {
      // V8 shows the index as given: known here when it is a literal.
      const lit = /^with\s*\(\s*(-?(?:\d+(?:\.\d+)?(?:e[-+]?\d+)?|Infinity))\s*,/.exec(evalSrc.slice(off, off + 64));
      if (lit !== null) return { msg: "Invalid index : " + String(Number(lit[1])), off: nativeCallAt(off, native, site) };
      return m[1][0] === "-" ? null : { msg: "Invalid index : " + m[1], off: nativeCallAt(off, native, site) };
    }
    if (name === "RangeError" && msg === "invalid repeat count" && evalSrc.startsWith("repeat", off)) {
      // V8 shows the count: known here when the argument is a literal.
      const m = /^repeat\s*\(\s*(-?(?:\d+(?:\.\d+)?|Infinity))\s*\)/.exec(evalSrc.slice(off, off + 64));
      return m === null ? null : { msg: "Invalid count value: " + String(Number(m[1])), off };
    }
    return null;
  }
  if (name === "TypeError") {
    if (msg === "not a function") {
      const call = failedCall(off, site);
      if (call === null || call.text.length > 200) return null;
      // `new x` of a value that is not an object: the engine says "not a
      // function", V8 "not a constructor".
      return { msg: call.text + (call.isNew ? " is not a constructor" : " is not a function"), off: call.at };
    }
    if (msg === "not a constructor") {
      // new o.A(): the engine points at `new` (or at the callee); V8 names
      // the callee and points at `new`.
      let s = off, start = off;
      if (evalSrc.startsWith("new", off) && !isIdent(evalSrc[off + 3])) s = skipForward(off + 3);
      else {
        const b = skipBack(off - 1);
        if (b >= 2 && evalSrc.slice(b - 2, b + 1) === "new" && !isIdent(evalSrc[b - 3])) start = b - 2;
      }
      if (!isIdent(evalSrc[s])) return { msg: "expression is not a constructor", off: start };
      let e = nameEnd(s);
      while (evalSrc[e] === "." && isIdent(evalSrc[e + 1])) e = nameEnd(e + 1);
      return { msg: evalSrc.slice(s, e) + " is not a constructor", off: start };
    }
    if ((m = /^cannot read property 'Symbol\.iterator' of (undefined|null)$/.exec(msg)) !== null) {
      const r = nullIterableMessage(off, m[1]);
      if (r !== null) return r;
    }
    if ((m = /^private class field '(.*)' does not exist$/s.exec(msg)) !== null) return privateMessage(off, m[1]);
    if (msg === "invalid brand on object") return brandMessage(off);
    if ((m = /^cannot (read|set) property '(.*)' of (undefined|null)$/s.exec(msg)) !== null) {
      const read = m[1] === "read";
      const text = `Cannot ${m[1]} properties of ${m[3]} (${read ? "reading" : "setting"} '${m[2]}')`;
      let at = propertyAfter(off, m[2]);
      if (at >= 0 && !read) {
        // o.a.b = 1: V8 points at the assignment.
        let e = skipForward(at + m[2].length);
        if (evalSrc[e] === "=" && evalSrc[e + 1] !== "=") at = e;
      }
      return { msg: text, off: at >= 0 ? at : off };
    }
    if (msg === "value is not iterable") return iterableMessage(off);
    if (msg === "Cannot convert undefined or null to object") return destructureMessage(off);
    if (msg === "cannot convert BigInt to number" || msg === "cannot mix BigInt and other types") {
      return { msg: "Cannot mix BigInt and other types, use explicit conversions", off: operatorBefore(off) };
    }
    if (msg === "cannot convert symbol to string") {
      return { msg: "Cannot convert a Symbol value to a string", off: operatorBefore(off) };
    }
    if ((m = /^'(.*)' is read-only$/s.exec(msg)) !== null) {
      return { msg: "Assignment to constant variable.", off: assignmentNear(off, m[1]) };
    }
  } else if (name === "ReferenceError") {
    if ((m = /^(.*) is not initialized$/s.exec(msg)) !== null) {
      return { msg: `Cannot access '${m[1]}' before initialization`, off: nameAfter(off, m[1]) };
    }
    if ((m = /^(.*) is not defined$/s.exec(msg)) !== null) return { msg, off: nameAfter(off, m[1]) };
  }
  return null;
}

// nameAfter finds the name (not a property) from off, where the engine
// places a reference to it (or before it, at the last position it
// recorded), or returns off.
function nameAfter(off, name) {
  if (!isIdent(name[0])) return off;
  const limit = Math.min(evalSrc.length, off + 4096);
  for (let i = evalSrc.indexOf(name, off); i >= 0 && i < limit; i = evalSrc.indexOf(name, i + 1)) {
    if (isIdent(evalSrc[i - 1]) || isIdent(evalSrc[i + name.length])) continue;
    const b = skipBack(i - 1);
    if (evalSrc[b] === "." && evalSrc[b - 1] !== ".") continue;
    return i;
  }
  return off;
}

// assignmentNear finds the assignment to name that failed: the last one at
// or before off (the engine may place it at the next statement), else the
// first after; V8 places it at the operator.
const assignOp = /^(?:\*\*|<<|>>>?|&&|\|\||\?\?|[-+*\/%&|^])?=(?!=)|^\+\+|^--/;
function assignmentNear(off, name) {
  let best = -1;
  const from = Math.max(0, off - 4096), limit = Math.min(evalSrc.length, off + 4096);
  for (let i = evalSrc.indexOf(name, from); i >= 0 && i < limit; i = evalSrc.indexOf(name, i + 1)) {
    if (isIdent(evalSrc[i - 1]) || isIdent(evalSrc[i + name.length])) continue;
    const e = skipForward(i + name.length);
    if (!assignOp.test(evalSrc.slice(e, e + 4))) continue;
    if (i <= off || best < 0) best = e;
    if (i > off) break;
  }
  return best < 0 ? off : best;
}

function skipForward(off) {
  while (off < evalSrc.length && isSpace(evalSrc[off])) off++;
  return off;
}

const digitsMessages = {
  toFixed: "toFixed() digits argument must be between 0 and 100",
  toPrecision: "toPrecision() argument must be between 1 and 100",
  toExponential: "toExponential() argument must be between 0 and 100",
};

// operatorBefore moves a fault from a binary operator's right operand,
// where the engine places it, to the operator, where V8 does.
function operatorBefore(off) {
  let i = skipBack(off - 1);
  let s = i;
  while (s >= 0 && i - s < 3 && "+-*/%<>=!&|^".includes(evalSrc[s])) s--;
  return s < i ? s + 1 : off;
}

// The engine records no position for a destructuring or a for-of: it
// reports the last one it recorded before (the start of the statement or
// of an earlier one, or of the function). The first such construct from
// there is the one that failed.
const forOf = /\bfor\s*(?:await\s*)?\([^;)]*?\sof\s+/g;
const arrayPattern = /\[[^\]\n]*\]\s*=(?!=)\s*/g;
const objectPattern = /\b(?:const|let|var)\s*\{\s*([\p{ID_Start}$_][\p{ID_Continue}$]*)[^}\n]*\}\s*=(?!=)\s*/gu;

function findAfter(re, off) {
  re.lastIndex = off;
  const m = re.exec(evalSrc);
  if (m === null || m.index > off + 4096) return null;
  return { at: m.index, end: re.lastIndex, m };
}

// operandText reads the expression at off up to the end of a simple
// operand: a name chain, a number, `{}`.
function operandText(off) {
  if (evalSrc.startsWith("{}", off)) return "{}";
  const m = /(?:[\p{ID_Start}$_][\p{ID_Continue}$]*(?:\??\.[\p{ID_Start}$_][\p{ID_Continue}$]*)*|-?\d[\d.]*)/uy;
  m.lastIndex = off;
  const r = m.exec(evalSrc);
  return r === null ? null : r[0];
}

function iterableMessage(off) {
  let best = null;
  for (const re of [forOf, arrayPattern]) {
    const f = findAfter(re, off);
    if (f !== null && (best === null || f.at < best.at)) best = f;
  }
  if (best === null) return { msg: "object is not iterable", off };
  const text = operandText(best.end);
  return { msg: (text === null ? "object" : text) + " is not iterable", off: best.end };
}

// nullIterableMessage words an array destructuring or for…of of null or
// undefined as V8 does: `x is not iterable` at the value, for a declaration
// or a for…of of a name or literal, and V8's longer form at the `=` of an
// assignment pattern; null when no such construct follows off.
function nullIterableMessage(off, what) {
  let best = null;
  for (const re of [forOf, arrayPattern]) {
    const f = findAfter(re, off);
    if (f !== null && (best === null || f.at < best.at)) best = f;
  }
  if (best === null) return null;
  const long = (what === "null" ? "object null" : "undefined") + " is not iterable (cannot read property Symbol(Symbol.iterator))";
  const isForOf = best.m[0].startsWith("for");
  if (!isForOf) {
    const b = skipBack(best.at - 1);
    const decl = /(?:const|let|var)$/.test(evalSrc.slice(Math.max(0, b - 4), b + 1));
    if (!decl) return { msg: long, off: evalSrc.indexOf("=", best.at + best.m[0].indexOf("]")) };
  }
  const text = operandText(best.end);
  if (text === null) return { msg: long, off: best.end };
  const after = skipForward(best.end + text.length);
  if (evalSrc[after] === "(") return { msg: `${text} is not a function or its return value is not iterable`, off: best.end };
  return { msg: text + " is not iterable", off: best.end };
}

// privateMessage words a private field access on an object without it:
// V8 reads the access from the text (a read, or a write at its `=`).
function privateMessage(off, name) {
  const limit = Math.min(evalSrc.length, off + 4096);
  for (let i = evalSrc.indexOf("." + name, off); i >= 0 && i < limit; i = evalSrc.indexOf("." + name, i + 1)) {
    if (isIdent(evalSrc[i + 1 + name.length])) continue;
    const e = skipForward(i + 1 + name.length);
    const op = evalSrc.slice(e, e + 4);
    // A compound assignment (`o.#x += 1`) reads first; V8 points at its dot.
    const compound = /^(?:\+\+|--|[-+*\/%&|^]=|\*\*=|<<=|>>>?=|&&=|\|\|=|\?\?=)/.test(op);
    if (!compound && assignOp.test(op)) {
      return { msg: `Cannot write private member ${name} to an object whose class did not declare it`, off: e };
    }
    return { msg: `Cannot read private member ${name} from an object whose class did not declare it`, off: compound ? i : i + 1 };
  }
  return null;
}

// brandMessage words a private method or accessor used on an object of
// another class: V8 names the class that encloses the use.
function brandMessage(off) {
  const limit = Math.min(evalSrc.length, off + 4096);
  let at = -1;
  for (let i = evalSrc.indexOf(".#", off); i >= 0 && i < limit; i = evalSrc.indexOf(".#", i + 1)) {
    if (evalSrc[i - 1] !== ".") { at = i + 1; break; }
  }
  if (at < 0) return null;
  const re = /\bclass\s+([\p{ID_Start}$_][\p{ID_Continue}$]*)[^{]*\{/gu;
  let name = null;
  for (let m = re.exec(evalSrc); m !== null && m.index < at; m = re.exec(evalSrc)) {
    const close = matchForward(re.lastIndex - 1, "{", "}");
    if (close > at) name = m[1];
  }
  return name === null ? null : { msg: `Receiver must be an instance of class ${name}`, off: at };
}

// destructureMessage words `const {a} = null` as V8 does when the value is
// the literal null or undefined; otherwise the engine cannot tell which it
// was, and its message stays.
function destructureMessage(off) {
  const f = findAfter(objectPattern, off);
  if (f === null) return null;
  const prop = f.m[1], text = operandText(f.end);
  const at = evalSrc.indexOf(prop, f.at);
  if (text === "null" || text === "undefined") {
    return { msg: `Cannot destructure property '${prop}' of '${text}' as it is ${text}.`, off: at };
  }
  return { msg: "Cannot convert undefined or null to object", off: at };
}

// ---- the stack ----------------------------------------------------------
function header(err) {
  let name, msg;
  try {
    name = err.name === undefined ? "Error" : String(err.name);
    msg = err.message === undefined ? "" : String(err.message);
  } catch (_) {
    return "Error";
  }
  return name === "" ? msg : msg === "" ? name : name + ": " + msg;
}

function formatFrames(frames) {
  let s = "";
  for (const f of frames) {
    s += f.fn ? `\n    at ${f.fn} (${scriptFile}:${f.line}:${f.col})` : `\n    at ${scriptFile}:${f.line}:${f.col}`;
  }
  return s;
}

// newBefore moves a position at a constructor's name to its `new`, where
// V8 places a construction.
function newBefore(off) {
  if (off < 0 || !isIdent(evalSrc[off])) return off;
  const b = skipBack(off - 1);
  return b >= 2 && evalSrc.slice(b - 2, b + 1) === "new" && !isIdent(evalSrc[b - 3]) ? b - 2 : off;
}

// isScriptSite tells a frame of the script's code, or the position of a
// syntax error in it, from the prelude's frames, native functions and the
// position in the text JSON.parse failed on (which the engine reports
// under the same file name).
function isScriptSite(sites, i) {
  const c = sites[i];
  if (c.getFileName() !== "<input>") return false;
  if (c.getFunction() != null) return true;
  const next = sites[i + 1];
  return next === undefined || !(next.isNative() && next.getFunctionName() === "parse");
}

// callPosition places a frame that is making a call where V8 does: at the
// callee's last name (the engine may point into the arguments), or at
// `new`.
function callPosition(off) {
  if (off < 0) return off;
  const call = callAt(off);
  return newBefore(call === null || call.at > off + 256 ? off : call.at);
}

// isCodeSite tells a frame running the script's code.
const isCodeSite = (c) => c.getFileName() === "<input>" && c.getFunction() != null;

function errMessage(err) {
  try {
    const d = Object.getOwnPropertyDescriptor(err, "message");
    return d !== undefined && typeof d.value === "string" ? d.value : "";
  } catch (_) {
    return "";
  }
}

// scriptFrames keeps the call sites from first on that are in the script,
// mapped; the one at first placed at faultOff (an index into evalSrc) when
// that is not -1.
function scriptFrames(sites, first, faultOff) {
  const frames = [];
  for (let i = first; i < sites.length; i++) {
    if (!isScriptSite(sites, i)) continue;
    const c = sites[i];
    const off = i === first && faultOff >= 0 ? faultOff : callPosition(offsetOf(c.getLineNumber(), c.getColumnNumber()));
    const p = mapOffset(off);
    if (p === null) continue;
    let fn = c.getFunctionName();
    if (typeof fn !== "string" || fn === "<eval>") fn = "";
    frames.push({ fn, line: p.line, col: p.col });
  }
  return frames;
}

// rewrite applies v8Message to an engine error whose first call site is in
// the script; it returns the fault's index in evalSrc, moved where V8 puts
// it, or -1 to keep the engine's position.
function rewrite(err, site, native) {
  let name, msg;
  try {
    if (Object.getPrototypeOf(err) === null) return -1;
    name = err.name;
    msg = Object.getOwnPropertyDescriptor(err, "message");
  } catch (_) {
    return -1;
  }
  if (msg === undefined || typeof msg.value !== "string" ||
      !(engineMessage.test(msg.value) || plainMessages[name + ":" + msg.value] !== undefined)) {
    return -1;
  }
  const line = site.getLineNumber();
  let off = offsetOf(line, site.getColumnNumber());
  if (off < 0) return -1;
  // No position recorded in the script yet: search from its start.
  if (off < evalPrefix && line === 1) off = evalPrefix;
  const r = v8Message(name, msg.value, off, native, site);
  if (r === null) return -1;
  if (r.msg !== msg.value) {
    Object.defineProperty(err, "message", { value: r.msg, writable: true, enumerable: false, configurable: true });
  }
  return newBefore(r.off);
}

const isPrelude = (file) => file === PRELUDE_FILE || file === LOOP_FILE;
const PRELUDE_FILE = "airlock-prelude.js", LOOP_FILE = "airlock-loop.js";

// A Trace is what the hook keeps of an error: its call sites, turned into
// frames only when they are needed (the stack is read, or the error is
// uncaught), as most errors a script catches are never printed.
class Trace {
  constructor(err, sites, fault) {
    this.err = err;
    this.sites = sites;
    this.fault = fault;
    this.list = null;
  }
  frames() {
    if (this.list === null) {
      const sites = this.sites;
      // The fault's frame: the first of the script's code, below a
      // built-in function or class constructor that raised the error.
      let first = 0;
      if (sites.length > 1 && !isCodeSite(sites[0]) && sites[0].isNative() && isCodeSite(sites[1])) first = 1;
      if (sites.length > 1 && isCodeSite(sites[0]) && isCodeSite(sites[1]) &&
          errMessage(this.err).startsWith("Class constructor ")) first = 1;
      let fault = this.fault;
      // As V8 does, a stack starts below the constructor the error was
      // made with (the frames of `class E extends Error`'s constructor are
      // not in it).
      let ctor;
      try { ctor = Object.getPrototypeOf(this.err).constructor; } catch (_) { ctor = undefined; }
      if (typeof ctor === "function" && !nativeErrors.has(ctor)) {
        for (let i = 0; i < sites.length && i < 16; i++) {
          if (sites[i].getFunction() === ctor) { first = i + 1; fault = -1; }
        }
      }
      this.list = scriptFrames(sites, first, fault);
      if (first === 0 && fault === -1) {
        const top = overflowEntry(this.err, sites);
        if (top !== null) {
          this.list.unshift(top);
          if (this.list.length > sites.length) this.list.length = sites.length;
        }
      }
      this.sites = null;
      this.err = null;
    }
    return this.list;
  }
}
// ---- the stack overflow's first frame -------------------------------------
// V8 checks the stack as a function starts: a recursion too deep throws in
// the frame of the function being called, placed at its first statement
// (a declaration's initialiser, or the name it declares). QuickJS checks
// before the call, in the caller's frame. overflowEntry gives the frame V8
// has on top when the overflow is QuickJS's, the sites repeat every p
// frames (p ≤ 4: a plain or mutual recursion) and the top one is a plain
// call of the function p-1 frames down, by its name (`f(…)`),
// whose body is a block that starts with a statement V8 places this way;
// otherwise null (README.md, "Where airlock still differs").
const OVERFLOW = "Maximum call stack size exceeded";
const fnLine = Object.getOwnPropertyDescriptor(Function.prototype, "lineNumber").get;
const fnColumn = Object.getOwnPropertyDescriptor(Function.prototype, "columnNumber").get;
const sameSite = (a, b) => a.getFunction() === b.getFunction() &&
  a.getLineNumber() === b.getLineNumber() && a.getColumnNumber() === b.getColumnNumber();

function overflowEntry(err, sites) {
  if (!(err instanceof RangeError) || errMessage(err) !== OVERFLOW || sites.length < 2) return null;
  let p = 0;
  for (let q = 1; q <= 4 && p === 0 && 2 * q <= sites.length; q++) {
    let same = true;
    for (let i = 0; i + q < sites.length && same; i++) same = isCodeSite(sites[i]) && sameSite(sites[i], sites[i + q]);
    if (same) p = q;
  }
  if (p === 0) return null;
  const callee = sites[p - 1], name = callee.getFunctionName();
  if (typeof name !== "string" || name === "" || name === "<eval>") return null;
  let s = callPosition(offsetOf(sites[0].getLineNumber(), sites[0].getColumnNumber()));
  if (s < 0) return null;
  // V8 checks the stack of a construction before the constructor starts,
  // in the caller's frame, as QuickJS does.
  if ((evalSrc.startsWith("new", s) && !isIdent(evalSrc[s + 3])) || (s > 0 && evalSrc[skipBack(s - 1)] === ".")) return null;
  const e = nameEnd(s);
  if (evalSrc.slice(s, e) !== name || evalSrc[skipForward(e)] !== "(") return null;
  let line, col;
  try { line = fnLine.call(callee.getFunction()); col = fnColumn.call(callee.getFunction()); } catch (_) { return null; }
  if (typeof line !== "number" || typeof col !== "number") return null;
  // The callee's own call in the recursion: V8 checks the stack of the
  // built-in functions and the literals before it too, which may be where
  // it runs out; only a body that makes none of them is placed.
  const next = p === 1 ? s : callPosition(offsetOf(callee.getLineNumber(), callee.getColumnNumber()));
  const first = firstStatement(offsetOf(line, col));
  if (first < 0 || next < first || needsStack(first, next)) return null;
  const pos = mapOffset(first);
  return pos === null ? null : { fn: name, line: pos.line, col: pos.col };
}

// needsStack tells whether the script's text in [from, to) may call a
// function (a call, `new`, a spread, a template) or make an object or
// array literal; it says true for what it cannot read.
const noCallBefore = new Set(["if", "while", "for", "switch", "catch", "return", "typeof", "void", "delete",
  "in", "of", "instanceof", "await", "yield", "case", "do", "else", "throw", "let", "const", "var"]);
const literalAfter = new Set(["return", "typeof", "void", "await", "yield", "case", "in", "of", "throw", "delete"]);
function needsStack(from, to) {
  if (to - from > 2048) return true;
  for (let i = from; i < to; i++) {
    const c = evalSrc[i];
    if (c === '"' || c === "'") {
      const e = evalSrc.indexOf(c, i + 1);
      if (e < 0 || e >= to || evalSrc.slice(i, e).includes("\\")) return true;
      i = e;
    } else if (c === "/" && evalSrc[i + 1] === "/") {
      const nl = evalSrc.indexOf("\n", i);
      if (nl < 0 || nl >= to) return true;
      i = nl;
    } else if (c === "`" || (c === "." && evalSrc.startsWith("...", i)) || (c === "/" && evalSrc[i + 1] === "*")) {
      return true;
    } else if (isIdent(c) && !isIdent(evalSrc[i - 1])) {
      const e = nameEnd(i);
      if (evalSrc.slice(i, e) === "new") return true;
      i = e - 1;
    } else if (c === "(" || c === "[" || c === "{") {
      const j = skipBack(i - 1), d = evalSrc[j];
      if (isIdent(d)) {
        const w = evalSrc.slice(identStart(j), j + 1);
        if (c === "(" ? !noCallBefore.has(w) : literalAfter.has(w)) return true;
      } else if (d === ")" || d === "]") {
        if (c === "(") return true;
      } else if (c !== "(" && !(c === "{" && (d === ";" || d === "{" || d === "}"))) {
        return true;
      }
    }
  }
  return false;
}

// firstStatement returns where V8 places the start of the function whose
// definition starts at off (its name, `function`, a method's name or an
// arrow's parameters): the first statement of its block body, the
// initialiser of a declaration (or the first name it declares), or -1.
function firstStatement(off) {
  if (off < 0) return -1;
  let i = off;
  const lim = Math.min(evalSrc.length, off + 512);
  while (i < lim && evalSrc[i] !== "(" && evalSrc[i] !== "{" && !evalSrc.startsWith("=>", i)) i++;
  if (evalSrc[i] === "(") {
    i = matchForward(i, "(", ")");
    if (i < 0) return -1;
    i = skipForward(i + 1);
  }
  if (evalSrc.startsWith("=>", i)) i = skipForward(i + 2);
  if (evalSrc[i] !== "{") return -1;
  i = skipForward(i + 1);
  for (let n = 0; n < 16 && evalSrc.startsWith("//", i); n++) {
    const nl = evalSrc.indexOf("\n", i);
    if (nl < 0) return -1;
    i = skipForward(nl + 1);
  }
  const e = nameEnd(i);
  const word = evalSrc.slice(i, e);
  if (word === "let" || word === "const" || word === "var") {
    const v = skipForward(e);
    if (!isIdent(evalSrc[v])) return -1;
    const after = skipForward(nameEnd(v));
    if (evalSrc[after] === "=" && evalSrc[after + 1] !== "=") return skipForward(after + 1);
    return evalSrc[after] === ";" || evalSrc[after] === "," ? v : -1;
  }
  if (e === i || word === "try" || word === "class" || /^\d/.test(word) || (notCallees.has(word) && word !== "return" && word !== "if" && word !== "new" &&
      word !== "typeof" && word !== "await" && word !== "void" && word !== "delete" && word !== "throw")) return -1;
  return i;
}

// An error's Trace is kept by its stack getter, which hands it over when
// probe is set (errorSiteOf) instead of formatting the stack.
let probe = false, probed = null;

// errorSiteOf returns the position of err's first frame in the script
// ({line, col}), or undefined.
function errorSiteOf(err) {
  let d;
  try { d = Object.getOwnPropertyDescriptor(err, "stack"); } catch (_) { return undefined; }
  if (d === undefined || typeof d.get !== "function" || d.get.name !== "stack") return undefined;
  probe = true;
  probed = null;
  try { d.get.call(err); } catch (_) { /* not ours */ } finally { probe = false; }
  const t = probed;
  probed = null;
  return t instanceof Trace ? t.frames()[0] : undefined;
}

const nativeErrors = new Set([Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError,
  typeof AggregateError === "function" ? AggregateError : Error]);

// giveStack gives err a stack formatted from trace when first read.
function giveStack(err, trace) {
  let text;
  Object.defineProperty(err, "stack", {
    get: function stack() {
      if (probe) { probed = trace; return undefined; }
      return text === undefined ? (text = header(err) + formatFrames(trace.frames())) : text;
    },
    set(v) { Object.defineProperty(err, "stack", { value: v, writable: true, enumerable: false, configurable: true }); },
    enumerable: false, configurable: true,
  });
}

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const SITES = 2; // capturing: hereSite wants the call sites only

function prepare(err, sites) {
  if (capturing === SITES) {
    lastSites = sites;
    return "";
  }
  // start()'s first try compiles the script as a plain script; a body with
  // top-level return or await fails it with a SyntaxError that start()
  // drops (it compiles the body next): no need to dress that error.
  if (firstTry && !began) return "";
  // The engine also asks for a backtrace as any value is thrown (which it
  // keeps only as its last backtrace), and again as an error that already
  // has its stack is thrown: neither needs one.
  if (!capturing && (!(err instanceof ErrorCtor) || hasOwn(err, "stack"))) return "";
  if (typeof userPrepare === "function") {
    return userPrepare(err, sites.filter((c) => !isPrelude(c.getFileName())));
  }
  // Only an error whose message the engine words differently is looked at
  // now (its message must be V8's from the start); the frames wait.
  let fault = -1;
  const msg = errMessage(err);
  if (maybeEngine(msg) && (engineMessage.test(msg) || plainMessages[err.name + ":" + msg] !== undefined)) fault = faultOf(err, sites);
  const trace = new Trace(err, sites, fault);
  if (capturing || !(err instanceof ErrorCtor) || !Object.isExtensible(err)) {
    return header(err) + formatFrames(trace.frames());
  }
  giveStack(err, trace);
  // The engine keeps the value as its last backtrace, and builds one again
  // as the error unwinds each frame for as long as that is undefined.
  return "";
}

// faultOf rewrites an engine error's message (rewrite) and returns the
// fault's index in evalSrc, or -1. An error the engine raised in the
// script's own code has a frame of the script first; one a built-in
// function raised, or a class constructor called without new, has it
// second.
function faultOf(err, sites) {
  let fi = -1, native = "";
  if (sites.length > 0 && isCodeSite(sites[0])) {
    fi = 0;
    if (sites.length > 1 && isCodeSite(sites[1]) && errMessage(err) === "class constructors must be invoked with 'new'") {
      fi = 1;
      native = "class " + sites[0].getFunctionName();
    }
  } else if (sites.length > 1 && sites[0].isNative() && isCodeSite(sites[1])) {
    fi = 1;
    const fn = sites[0].getFunctionName();
    native = typeof fn === "string" && fn !== "" ? fn : "?";
  }
  return fi >= 0 && err instanceof ErrorCtor ? rewrite(err, sites[fi], native) : -1;
}

setPrepare.call(ErrorCtor, prepare);
Object.defineProperty(ErrorCtor, "prepareStackTrace", {
  get() { return userPrepare; },
  set(v) { userPrepare = v; },
  enumerable: false, configurable: true,
});
Object.defineProperty(ErrorCtor, "captureStackTrace", {
  value: function captureStackTrace(obj, fn) {
    capturing = true;
    try { return captureStack.call(ErrorCtor, obj, fn); } finally { capturing = false; }
  },
  writable: true, enumerable: false, configurable: true,
});

// hereSite returns the call sites of the script code that called into the
// prelude (the tool call being made), for relocate. Capturing is most of the
// cost of a tool call's prelude code, and most of a capture is making call
// sites of the frames above the script's: this one (and the `call` that
// reaches it), callTool's promise executor, the Promise constructor,
// callTool and the tools.x stub fn, ABOVE_STUB frames that relocate's Trace
// drops. Given fn, the engine skips them without making call sites; but
// they counted against Error.stackTraceLimit, so the sites are cut to what
// the limit left for the script's frames then, which keeps every relocated
// stack as it was. Only up to FAST_LIMIT (the default limit; the engine
// caps a capture at 64 frames whatever the limit, which a skipping capture
// would not reproduce above it): past that, and for a limit that is not an
// integer, the capture takes every frame, as before.
function hereSite(fn) {
  const o = {};
  const limit = stackLimit.call(ErrorCtor);
  const skip = typeof limit === "number" && (limit | 0) === limit && limit >= ABOVE_STUB && limit <= FAST_LIMIT;
  capturing = SITES;
  lastSites = null;
  try { captureStack.call(ErrorCtor, o, skip ? fn : undefined); } finally { capturing = false; }
  if (skip && lastSites !== null && lastSites.length > limit - ABOVE_STUB) lastSites.length = limit - ABOVE_STUB;
  return lastSites;
}
const stackLimit = Object.getOwnPropertyDescriptor(ErrorCtor, "stackTraceLimit").get;
const ABOVE_STUB = 6, FAST_LIMIT = 10;

// limitFrames is how many frames below a tools.x stub hereSite(stub)
// would keep, for the host to read them from the stack instead
// (callTool), or -1 where only the engine's capture gives them. It follows
// Error.stackTraceLimit through the prelude's own accessor, which passes
// every read and write on to the engine's (reading it at every call would
// cost a twentieth of one).
const framesFor = (limit) =>
  typeof limit === "number" && (limit | 0) === limit && limit >= ABOVE_STUB && limit <= FAST_LIMIT ? limit - ABOVE_STUB : -1;
let limitFrames = framesFor(stackLimit.call(ErrorCtor));
{
  const d = Object.getOwnPropertyDescriptor(ErrorCtor, "stackTraceLimit");
  const acc = Object.getOwnPropertyDescriptor({
    get stackTraceLimit() { return d.get.call(this); },
    set stackTraceLimit(v) { d.set.call(this, v); limitFrames = framesFor(v); },
  }, "stackTraceLimit");
  Object.defineProperty(ErrorCtor, "stackTraceLimit", { get: acc.get, set: acc.set, enumerable: d.enumerable, configurable: d.configurable });
}

// hostSites turns the frames the host read ([native, input, name, line,
// column] each: sandbox/scriptrun.go) into what relocate takes.
const hostSites = (frames) => frames.map((f) => new HostSite(f));
class HostSite {
  constructor(f) { this.f = f; }
  isNative() { return this.f[0] === 1; }
  getFileName() { return this.f[0] === 1 ? null : this.f[1] === 1 ? "<input>" : ""; }
  getFunction() { return this.f[0] === 1 || this.f[1] === 1 ? true : null; }
  getFunctionName() { return this.f[2]; }
  getLineNumber() { return this.f[3]; }
  getColumnNumber() { return this.f[4]; }
}

// relocate makes err report the place where hereSite was called as its
// own.
function relocate(err, sites) {
  if (sites !== null) giveStack(err, new Trace(null, sites, -1));
}

// Globals a script written for Node, Deno, Bun or a browser may reach for,
// which chains do not have; the uncaught ReferenceError says what to use.
const absentHints = {
  fetch: "chains have no network: call tools.* instead",
  XMLHttpRequest: "chains have no network: call tools.* instead",
  require: "chains have no modules: call tools.* for I/O; JSON, URL, crypto and TextEncoder are built in",
  module: "a chain is not a CommonJS module: return its result instead",
  exports: "a chain is not a CommonJS module: return its result instead",
  process: "chains have no process: no env, argv or exit; get inputs from tools.* and return the result",
  Buffer: "use Uint8Array, TextEncoder/TextDecoder or atob/btoa instead",
  __dirname: "chains have no filesystem: call tools.* instead",
  __filename: "chains have no filesystem: call tools.* instead",
  Deno: "chains run in airlock, not Deno: call tools.* instead",
  Bun: "chains run in airlock, not Bun: call tools.* instead",
};

function absentHint(e) {
  if (!(e instanceof ReferenceError)) return "";
  const m = /^(\S+) is not defined$/.exec(String(e.message));
  return m !== null && Object.prototype.hasOwnProperty.call(absentHints, m[1]) ? ` (${absentHints[m[1]]})` : "";
}

// ---- Promise.any --------------------------------------------------------
// The engine rejects Promise.any with an AggregateError that has no message
// and no stack; V8's says "All promises were rejected". Promise.any is the
// engine's, run with a constructor that hands it the promise C makes and a
// reject function that words the error first: the same promises, `then`
// calls and ticks as the engine's alone.
const promiseAny = Promise.any;
const AggregateErrorCtor = g.AggregateError;
Object.defineProperty(Promise, "any", {
  value: {
    any(iterable) {
      const C = this;
      if (typeof C !== "function") return promiseAny.call(C, iterable);
      const Capability = function (executor) {
        return new C((resolve, reject) => executor(resolve, function (e) {
          if (e instanceof AggregateErrorCtor && !hasOwn(e, "message") && !hasOwn(e, "stack")) {
            const text = "All promises were rejected";
            Object.defineProperty(e, "message", { value: text, writable: true, enumerable: false, configurable: true });
            Object.defineProperty(e, "stack", { value: "AggregateError: " + text, writable: true, enumerable: false, configurable: true });
          }
          return reject(e);
        }));
      };
      // GetPromiseResolve reads Capability.resolve; it resolves as C's does.
      Capability.resolve = function (v) { return C.resolve(v); };
      return promiseAny.call(Capability, iterable);
    },
  }.any,
  writable: true, enumerable: false, configurable: true,
});

// ---- JSON.parse ---------------------------------------------------------
// The engine's JSON errors are worded differently from V8's. JSON.parse is
// the engine's, wrapped: when it throws a SyntaxError, jsonMessage reads the
// text again (only then, so parsing costs nothing more) and words the
// first error as V8 does.
const jsonParse = JSON.parse;
Object.defineProperty(JSON, "parse", {
  value: {
    parse(text, reviver) {
      try {
        return jsonParse(text, reviver);
      } catch (e) {
        if (e instanceof SyntaxError) {
          let m = null;
          try { m = jsonMessage(String(text)); } catch (_) { /* too deep to read again: keep the engine's words */ }
          if (m !== null) Object.defineProperty(e, "message", { value: m, writable: true, enumerable: false, configurable: true });
        }
        throw e;
      }
    },
  }.parse,
  writable: true, enumerable: false, configurable: true,
});

const jsonSpecial = new Set(["NaN", "Infinity", "undefined", "[object Object]"]);

// jsonMessage returns V8's message for the first error in src, or null when
// src is valid JSON.
function jsonMessage(src) {
  const n = src.length;
  let i = 0;
  const stop = {};
  let msg = null;
  const fail = (m) => { msg = m; throw stop; };
  const at = (m) => m + " in JSON at position " + i;
  const digit = (c) => c >= "0" && c <= "9";
  const ws = () => {
    for (; i < n; i++) {
      const c = src.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
    }
  };
  const unexpected = () => {
    if (i >= n) return "Unexpected end of JSON input";
    const c = src[i];
    if (c === '"') return at("Unexpected string");
    if (c === "-" || digit(c)) return at("Unexpected number");
    if (jsonSpecial.has(src)) return `"${src}" is not valid JSON`;
    if (n < 21) return `Unexpected token '${c}', "${src}" is not valid JSON`;
    if (i < 10) return `Unexpected token '${c}', "${src.slice(0, i + 10)}"... is not valid JSON`;
    if (i < n - 10) return `Unexpected token '${c}', ..."${src.slice(i - 10, i + 10)}"... is not valid JSON`;
    return `Unexpected token '${c}', ..."${src.slice(i - 10)}" is not valid JSON`;
  };
  const string = () => {
    i++;
    for (;;) {
      if (i >= n) fail(at("Unterminated string"));
      const c = src.charCodeAt(i);
      if (c === 34) { i++; return; }
      if (c < 0x20) fail(at("Bad control character in string literal"));
      if (c === 92) {
        i++;
        if (i >= n) fail(at("Unterminated string"));
        const e = src[i];
        if (e === "u") {
          for (let k = 1; k <= 4; k++) {
            if (!/[0-9a-fA-F]/.test(src[i + k] || "")) { i += k; fail(at("Bad Unicode escape")); }
          }
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(e)) fail(at("Bad escaped character"));
      }
      i++;
    }
  };
  const number = () => {
    if (src[i] === "-") {
      i++;
      if (!digit(src[i])) fail(at("No number after minus sign"));
    }
    if (src[i] === "0") {
      i++;
      if (digit(src[i])) fail(at("Unexpected number"));
    } else {
      while (digit(src[i])) i++;
    }
    if (src[i] === ".") {
      i++;
      if (!digit(src[i])) fail(at("Unterminated fractional number"));
      while (digit(src[i])) i++;
    }
    if (src[i] === "e" || src[i] === "E") {
      i++;
      if (src[i] === "+" || src[i] === "-") i++;
      if (!digit(src[i])) fail(at("Exponent part is missing a number"));
      while (digit(src[i])) i++;
    }
  };
  const literal = (word) => {
    for (let k = 0; k < word.length; k++) {
      if (i + k >= n) { i = n; fail("Unexpected end of JSON input"); }
      if (src[i + k] !== word[k]) { i += k; fail(unexpected()); }
    }
    i += word.length;
  };
  const value = () => {
    ws();
    const c = src[i];
    if (c === '"') string();
    else if (c === "-" || digit(c)) number();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else if (c === "[") {
      i++;
      ws();
      if (src[i] === "]") { i++; return; }
      for (;;) {
        value();
        ws();
        if (src[i] === ",") { i++; continue; }
        if (src[i] === "]") { i++; return; }
        fail(at("Expected ',' or ']' after array element"));
      }
    } else if (c === "{") {
      i++;
      ws();
      if (src[i] === "}") { i++; return; }
      if (src[i] !== '"') fail(at("Expected property name or '}'"));
      string();
      ws();
      if (src[i] !== ":") fail(at("Expected ':' after property name"));
      i++;
      value();
      for (;;) {
        ws();
        if (src[i] === "}") { i++; return; }
        if (src[i] !== ",") fail(at("Expected ',' or '}' after property value"));
        i++;
        ws();
        if (src[i] !== '"') fail(at("Expected double-quoted property name"));
        string();
        ws();
        if (src[i] !== ":") fail(unexpected());
        i++;
        value();
      }
    } else {
      fail(unexpected());
    }
  };
  try {
    value();
    ws();
    if (i < n) fail("Unexpected non-whitespace character after JSON at position " + i);
  } catch (e) {
    if (e !== stop) throw e;
    return msg;
  }
  return null;
}
