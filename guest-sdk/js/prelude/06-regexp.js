// Part of the prelude: regular expressions with the v flag.
//
// QuickJS-ng 0.15 parses the v flag but compiles the pattern without
// Unicode mode and without set notation: `[\w--\d]` keeps the digits,
// `[[a-z]--[aeiou]]` and `\p{L}` match nothing, `.` splits a surrogate
// pair, all silently. The prelude therefore runs every v-flag pattern as
// an equivalent u-flag pattern (vToU): the v flag's syntax outside
// character classes is the u flag's, and inside them
//   - a class of characters, ranges and escapes is the same u-flag class;
//   - a nested class is merged, or alternated, into the outer one;
//   - A--B is (?:(?!B)A), A&&B is (?:(?=B)A), both exact for sets of
//     single characters, which match one code point each;
//   - [^X] of a set expression is (?:(?!X)[\s\S]);
//   - \q{abc|d} strings are alternatives, the longest first, as V8 tries
//     them.
// What has no exact u-flag form is refused with a SyntaxError at
// construction (new RegExp) or at first use (a literal): set operations on
// strings, properties of strings (\p{RGI_Emoji}), and, with the i flag,
// set operations, negated classes, \P and \W (the v flag case-folds their
// complements differently).
//
// new RegExp(src, "…v…") makes a u-flag RegExp whose source, flags,
// unicode and unicodeSets read as the v flag's. A literal /…/v is compiled
// by the engine before the prelude sees it: RegExp.prototype.exec, which
// every match, replace, split, search and test goes through, runs its
// u-flag twin instead, sharing lastIndex. These methods are replaced only
// once a v-flag RegExp is made or the script's text may hold a v literal
// (a v literal in code given to eval or new Function, in a script without
// one, is the engine's).
//
// The same twins fix the engine's u-flag patterns with the i flag: a
// property escape outside a class (/\p{Lu}/iu) matches only characters
// whose case folding has the property, so it runs as the twin with the
// escape in a class (uiTwinSource), which the engine matches as
// ECMAScript says.
const NativeRegExp = RegExp;
const reProto = NativeRegExp.prototype;
const nativeExec = reProto.exec;
const reGetter = (k) => { const d = Object.getOwnPropertyDescriptor(reProto, k); return d === undefined ? undefined : d.get; };
const reSourceOf = reGetter("source"), reFlagsOf = reGetter("flags"), reUnicodeSetsOf = reGetter("unicodeSets");

// vTwins maps a v-flag RegExp to its u-flag twin (a plain RegExp).
const vTwins = new WeakMap();

// VSyntax is a v-flag pattern vToU cannot or will not run.
class VSyntax {
  constructor(why) { this.why = why; }
}

const stringProperties = new Set(["Basic_Emoji", "Emoji_Keycap_Sequence", "RGI_Emoji_Modifier_Sequence",
  "RGI_Emoji_Flag_Sequence", "RGI_Emoji_Tag_Sequence", "RGI_Emoji_ZWJ_Sequence", "RGI_Emoji"]);
const classSyntax = "()[]{}/-\\|";
const reservedPunct = "&!#%,:;<=>@`~";
const reservedDouble = "&&!!##$$%%**++,,..::;;<<==>>??@@^^``~~";
const syntaxChars = "^$\\.*+?()[]{}|/";

function vToU(src, ignoreCase) {
  const n = src.length;
  let i = 0;
  const fail = (why) => { throw new VSyntax(why); };
  const cpAt = (k) => src.codePointAt(k);
  const cpLen = (cp) => (cp > 0xffff ? 2 : 1);
  const hex = (s) => (/^[0-9a-fA-F]+$/.test(s) ? parseInt(s, 16) : -1);

  // property reads \p{…} or \P{…} at k (after the backslash's letter):
  // its text and end.
  const property = (k, neg) => {
    if (src[k] !== "{") fail("Invalid property name");
    const e = src.indexOf("}", k);
    if (e < 0) fail("Invalid property name");
    const name = src.slice(k + 1, e);
    if (stringProperties.has(name)) fail(neg ? "invalid property name" : `the property of strings \\p{${name}} is not supported`);
    if (neg && ignoreCase) fail("\\P with the i flag is not supported");
    return { text: (neg ? "\\P" : "\\p") + src.slice(k, e + 1), end: e + 1 };
  };

  // classEscape reads the escape at k (a backslash) inside a class: a
  // code point {cp, end} or a class escape {esc, end}.
  const classEscape = (k) => {
    const c = src[k + 1];
    if (c === undefined) fail("\\ at end of pattern");
    switch (c) {
      case "d": case "D": case "w": case "s": case "S":
        return { esc: "\\" + c, end: k + 2 };
      case "W":
        if (ignoreCase) fail("\\W with the i flag is not supported");
        return { esc: "\\W", end: k + 2 };
      case "p": case "P": {
        const p = property(k + 2, c === "P");
        return { esc: p.text, end: p.end };
      }
      case "n": return { cp: 10, end: k + 2 };
      case "r": return { cp: 13, end: k + 2 };
      case "t": return { cp: 9, end: k + 2 };
      case "v": return { cp: 11, end: k + 2 };
      case "f": return { cp: 12, end: k + 2 };
      case "b": return { cp: 8, end: k + 2 };
      case "0":
        if (/[0-9]/.test(src[k + 2] || "")) fail("invalid decimal escape");
        return { cp: 0, end: k + 2 };
      case "c": {
        const l = src[k + 2] || "";
        if (!/[A-Za-z]/.test(l)) fail("invalid unicode escape");
        return { cp: l.charCodeAt(0) % 32, end: k + 3 };
      }
      case "x": {
        const v = hex(src.slice(k + 2, k + 4));
        if (v < 0 || src.slice(k + 2, k + 4).length < 2) fail("invalid escape");
        return { cp: v, end: k + 4 };
      }
      case "u": {
        if (src[k + 2] === "{") {
          const e = src.indexOf("}", k);
          const v = e < 0 ? -1 : hex(src.slice(k + 3, e));
          if (v < 0 || v > 0x10ffff) fail("invalid Unicode escape");
          return { cp: v, end: e + 1 };
        }
        const v = hex(src.slice(k + 2, k + 6));
        if (v < 0 || src.slice(k + 2, k + 6).length < 4) fail("invalid Unicode escape");
        if (v >= 0xd800 && v < 0xdc00 && src[k + 6] === "\\" && src[k + 7] === "u") {
          const lo = hex(src.slice(k + 8, k + 12));
          if (lo >= 0xdc00 && lo < 0xe000 && src.slice(k + 8, k + 12).length === 4) {
            return { cp: (v - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000, end: k + 12 };
          }
        }
        return { cp: v, end: k + 6 };
      }
      default:
        if (syntaxChars.includes(c) || c === "-" || reservedPunct.includes(c)) return { cp: c.charCodeAt(0), end: k + 2 };
        fail("invalid escape");
    }
    return null;
  };

  // A set: chars (u-flag class body items), strings (of two or more code
  // points, as code point arrays), atoms (u-flag expressions matching one
  // code point).
  const classChar = (cp) => ("\\]^-[".includes(String.fromCodePoint(cp)) ? "\\" : "") +
    (cp < 0x20 || (cp >= 0xd800 && cp < 0xe000) ? `\\u{${cp.toString(16)}}` : String.fromCodePoint(cp));
  const plainChar = (cp) => (cp < 0x128 && syntaxChars.includes(String.fromCodePoint(cp)) ? "\\" : "") +
    (cp < 0x20 || (cp >= 0xd800 && cp < 0xe000) ? `\\u{${cp.toString(16)}}` : String.fromCodePoint(cp));
  const emptySet = () => ({ chars: [], strings: [], atoms: [] });
  const union = (a, b) => {
    for (const c of b.chars) a.chars.push(c);
    for (const c of b.strings) a.strings.push(c);
    for (const c of b.atoms) a.atoms.push(c);
    return a;
  };
  const hasMore = (s) => s.strings.length > 0 || s.atoms.length > 0;
  const atomOf = (s) => {
    const cls = "[" + s.chars.join("") + "]";
    if (!hasMore(s)) return cls;
    const strs = s.strings.slice().sort((x, y) => y.length - x.length).map((cps) => cps.map(plainChar).join(""));
    const alts = [...strs, ...s.atoms];
    if (s.chars.length > 0) alts.push(cls);
    return "(?:" + alts.join("|") + ")";
  };
  const single = (atom) => ({ chars: [], strings: [], atoms: [atom] });

  // operand reads one operand at i: a nested class, \q{…}, an escape or a
  // character; a character is {cp} so that a range can follow.
  const operand = () => {
    const c = src[i];
    if (c === "[") return { set: classAt() };
    if (c === "\\" && src[i + 1] === "q") {
      if (src[i + 2] !== "{") fail("invalid escape");
      i += 3;
      const set = emptySet();
      let cur = [];
      for (;;) {
        if (i >= n) fail("unterminated \\q");
        if (src[i] === "}") { i++; break; }
        if (src[i] === "|") { i++; (cur.length === 1 ? set.chars.push(classChar(cur[0])) : set.strings.push(cur)); cur = []; continue; }
        if (src[i] === "\\") {
          const e = classEscape(i);
          if (e.cp === undefined) fail("invalid escape in \\q");
          cur.push(e.cp);
          i = e.end;
        } else {
          const cp = cpAt(i);
          cur.push(cp);
          i += cpLen(cp);
        }
      }
      if (cur.length === 1) set.chars.push(classChar(cur[0]));
      else set.strings.push(cur);
      return { set };
    }
    if (c === "\\") {
      const e = classEscape(i);
      i = e.end;
      return e.cp !== undefined ? { cp: e.cp } : { set: { chars: [e.esc], strings: [], atoms: [] } };
    }
    if (classSyntax.includes(c)) fail("Invalid character in character class");
    if (reservedDouble.includes(c + c) && src[i + 1] === c) fail("Invalid set operation in character class");
    const cp = cpAt(i);
    i += cpLen(cp);
    return { cp };
  };

  // classAt reads the class at i (its `[`) and returns its set.
  const classAt = () => {
    i++;
    let negate = false;
    if (src[i] === "^") { negate = true; i++; }
    const operands = [];
    let op = null; // "--" or "&&" once one is seen
    let expectOperand = true;
    for (;;) {
      if (i >= n) fail("Unterminated character class");
      if (src[i] === "]") { i++; break; }
      const two = src.slice(i, i + 2);
      if (two === "--" || two === "&&") {
        if (op === null && (operands.length !== 1 || operands[0].range)) fail("Invalid set operation in character class");
        if (expectOperand || (op !== null && op !== two)) fail("Invalid set operation in character class");
        op = two;
        expectOperand = true;
        i += 2;
        continue;
      }
      if (op !== null && !expectOperand) fail("Invalid set operation in character class");
      const o = operand();
      let set;
      if (o.cp !== undefined) {
        if (src[i] === "-" && src[i + 1] !== "-" && src[i + 1] !== "]" && op === null) {
          i++;
          const hi = operand();
          if (hi.cp === undefined) fail("Invalid character class");
          if (hi.cp < o.cp) fail("Range out of order in character class");
          set = { chars: [classChar(o.cp) + "-" + classChar(hi.cp)], strings: [], atoms: [], range: true };
        } else {
          set = { chars: [classChar(o.cp)], strings: [], atoms: [] };
        }
      } else {
        set = o.set;
      }
      if (op !== null && set.range) fail("Invalid set operation in character class");
      operands.push(set);
      expectOperand = false;
    }
    if (op !== null && expectOperand) fail("Invalid set operation in character class");
    let set;
    if (op === null) {
      set = operands.reduce(union, emptySet());
    } else {
      if (ignoreCase) fail("set operations with the i flag are not supported");
      if (operands.some((s) => s.strings.length > 0)) fail("set operations on strings are not supported");
      const [first, ...rest] = operands.map(atomOf);
      set = single("(?:" + rest.map((a) => (op === "--" ? "(?!" : "(?=") + a + ")").join("") + first + ")");
    }
    if (!negate) return set;
    if (set.strings.length > 0) fail("Negated character class may contain strings");
    if (ignoreCase) fail("negated classes with the i flag are not supported");
    if (!hasMore(set)) return single("[^" + set.chars.join("") + "]");
    return single("(?:(?!" + atomOf(set) + ")[\\s\\S])");
  };

  let out = "";
  while (i < n) {
    const c = src[i];
    if (c === "\\") {
      const d = src[i + 1];
      if (d === "p" || d === "P") {
        // In a class: the engine misses \p{Lu} outside one with the i flag.
        const p = property(i + 2, d === "P");
        out += "[" + p.text + "]";
        i = p.end;
      } else {
        if (d === "W" && ignoreCase) fail("\\W with the i flag is not supported");
        if (d === undefined) fail("\\ at end of pattern");
        const cp = cpAt(i + 1);
        out += "\\" + String.fromCodePoint(cp);
        i += 1 + cpLen(cp);
      }
    } else if (c === "[") {
      out += atomOf(classAt());
    } else {
      const cp = cpAt(i);
      out += String.fromCodePoint(cp);
      i += cpLen(cp);
    }
  }
  return out;
}

// vRegExp compiles src, a v-flag pattern, with flags (which hold v) as
// the u-flag RegExp that matches as it would, made as new.target nt; or
// throws V8's SyntaxError.
function vRegExp(src, flags, nt) {
  installV();
  const bad = (why) => new SyntaxError(`Invalid regular expression: /${src}/${flags}: ${why}`);
  let u;
  try {
    u = vToU(src, flags.includes("i"));
  } catch (e) {
    if (e instanceof VSyntax) throw bad(e.why);
    throw e;
  }
  let re;
  try {
    re = Reflect.construct(NativeRegExp, [u, flags.replace("v", "u")], nt);
  } catch (e) {
    if (e instanceof SyntaxError) throw bad(String(e.message).replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, ""));
    throw e;
  }
  const canonical = reFlagsOf.call(re).replace("u", "v");
  const own = (k, v) => Object.defineProperty(re, k, { value: v, writable: false, enumerable: false, configurable: true });
  own("source", src === "" ? "(?:)" : escapeSource(src));
  own("flags", canonical);
  own("unicode", false);
  own("unicodeSets", true);
  vTwins.set(re, Reflect.construct(NativeRegExp, [u, flags.replace("v", "u")], NativeRegExp));
  return re;
}

// escapeSource writes a pattern as RegExp.prototype.source does: a `/`
// outside a class, and line terminators, escaped.
function escapeSource(src) {
  let out = "", inClass = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") { out += c + (src[i + 1] === undefined ? "" : src[++i]); continue; }
    if (c === "[") inClass++;
    else if (c === "]" && inClass > 0) inClass--;
    if (c === "/" && inClass === 0) out += "\\/";
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (c === "\u2028") out += "\\u2028";
    else if (c === "\u2029") out += "\\u2029";
    else out += c;
  }
  return out;
}

const isNativeRegExp = (v) => {
  if (v === null || typeof v !== "object") return false;
  try { reSourceOf.call(v); return true; } catch (_) { return false; }
};

// RegExp is the engine's constructor, but a v-flag pattern is compiled by
// vRegExp.
const RegExpCtor = function RegExp(pattern, flags) {
  const nt = new.target;
  const isRe = isNativeRegExp(pattern);
  if (nt === undefined && isRe && flags === undefined && pattern.constructor === RegExpCtor) return pattern;
  let src = pattern, fl = flags;
  if (isRe) {
    src = pattern.source;
    if (fl === undefined) fl = pattern.flags;
  }
  const target = nt === undefined ? RegExpCtor : nt;
  const fs = fl === undefined ? "" : String(fl);
  try {
    if (!fs.includes("v") || fs.includes("u")) {
      // A u-flag pattern with the i flag and a property escape runs as its
      // twin (uiTwinSource), made at its first use.
      if (!vInstalled && fs.includes("u") && fs.includes("i")) installV();
      return Reflect.construct(NativeRegExp, [isRe ? src : pattern, isRe ? fs : fl], target);
    }
    Reflect.construct(NativeRegExp, ["", fs], NativeRegExp); // the flags alone
  } catch (e) {
    if (e instanceof SyntaxError && e.message === "invalid regular expression flags") {
      Object.defineProperty(e, "message", { value: `Invalid flags supplied to RegExp constructor '${fs}'`, writable: true, enumerable: false, configurable: true });
    }
    throw e;
  }
  return vRegExp(src === undefined ? "" : String(src), fs, target);
};
for (const k of Reflect.ownKeys(NativeRegExp)) {
  if (k === "prototype" || k === "name" || k === "length") continue;
  Object.defineProperty(RegExpCtor, k, Object.getOwnPropertyDescriptor(NativeRegExp, k));
}
Object.defineProperty(RegExpCtor, "prototype", { value: reProto, writable: false, enumerable: false, configurable: false });
Object.defineProperty(reProto, "constructor", { value: RegExpCtor, writable: true, enumerable: false, configurable: true });
Object.defineProperty(g, "RegExp", { value: RegExpCtor, writable: true, enumerable: false, configurable: true });

let protoExec = null;

// twinOf returns the u-flag twin of a v-flag RegExp, or of a u-flag one
// with the i flag and a property escape outside a class (uiTwinSource;
// either made at its first use), or undefined for any other value
// (remembered as null).
const reIgnoreCaseOf = reGetter("ignoreCase"), reUnicodeOf = reGetter("unicode");
function twinOf(re) {
  if (re === null || typeof re !== "object") return undefined;
  let twin = vTwins.get(re);
  if (twin !== undefined) return twin === null ? undefined : twin;
  let v = false, ui = false;
  try {
    v = reUnicodeSetsOf !== undefined && reUnicodeSetsOf.call(re);
    ui = !v && reUnicodeOf.call(re) && reIgnoreCaseOf.call(re);
  } catch (_) {
    return undefined; // not a RegExp: the engine's exec throws
  }
  twin = null;
  if (v) {
    twin = vTwins.get(vRegExp(reSourceOf.call(re), reFlagsOf.call(re), NativeRegExp));
  } else if (ui) {
    const src = uiTwinSource(reSourceOf.call(re));
    if (src !== null) twin = Reflect.construct(NativeRegExp, [src, reFlagsOf.call(re)], NativeRegExp);
  }
  vTwins.set(re, twin);
  return twin === null ? undefined : twin;
}

// uiTwinSource returns src, a u-flag pattern, with each property escape
// outside a class put in one (\p{Lu} as [\p{Lu}]), or null when it has
// none. With the i flag the engine matches a property escape outside a
// class against the case-folded character only (/\p{Lu}/iu matches no
// letter, /\p{Lt}/iu not ǅ), where ECMAScript (and the engine inside a
// class) matches any character whose folding is in the property's.
function uiTwinSource(src) {
  let out = "", inClass = false, changed = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") {
      const d = src[i + 1];
      if (!inClass && (d === "p" || d === "P") && src[i + 2] === "{") {
        const e = src.indexOf("}", i + 3);
        if (e > 0) {
          out += "[" + src.slice(i, e + 1) + "]";
          i = e;
          changed = true;
          continue;
        }
      }
      out += c + (d === undefined ? "" : d);
      i++;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    out += c;
  }
  return changed ? out : null;
}

// installV puts the v flag's exec and Symbol methods (below) on
// RegExp.prototype, at the first v-flag RegExp made or when the script's
// text may hold a v-flag literal (beginErrors): a script without one keeps
// the engine's own, and their speed.
let vInstalled = false;
function installV() {
  if (vInstalled) return;
  vInstalled = true;
  // exec of a literal /…/v runs its twin, sharing lastIndex.
  Object.defineProperty(reProto, "exec", {
    value: {
      exec(string) {
        const twin = twinOf(this);
        if (twin === undefined) return nativeExec.call(this, string);
        twin.lastIndex = this.lastIndex;
        const r = nativeExec.call(twin, string);
        if (twin.global || twin.sticky) this.lastIndex = twin.lastIndex;
        return r;
      },
    }.exec,
    writable: true, enumerable: false, configurable: true,
  });
  protoExec = reProto.exec;

  // The engine's match, replace, split and matchAll step past an empty match
  // by one UTF-16 unit unless the flags hold u; a v-flag RegExp whose exec is
  // the built-in one runs them on its twin, sharing lastIndex.
  for (const sym of [Symbol.match, Symbol.matchAll, Symbol.replace, Symbol.search, Symbol.split]) {
    const native = reProto[sym];
    const name = "[" + sym.description + "]";
    Object.defineProperty(reProto, sym, {
      value: {
        [name](string, arg) {
          const twin = twinOf(this);
          if (twin === undefined || this.exec !== protoExec) return native.call(this, string, arg);
          twin.lastIndex = this.lastIndex;
          try {
            return native.call(twin, string, arg);
          } finally {
            this.lastIndex = twin.lastIndex;
          }
        },
      }[name],
      writable: true, enumerable: false, configurable: true,
    });
  }
}

// mayHoldVLiteral tells whether text may hold a regular expression literal
// with the v flag (a slash, then flags with a v, then no name character)
// or a property escape (\p{ or \P{, for u-flag literals with the i flag).
function mayHoldVLiteral(text) {
  if (text.indexOf("\\p{") >= 0 || text.indexOf("\\P{") >= 0) return true;
  for (let i = text.indexOf("/"); i >= 0; i = text.indexOf("/", i + 1)) {
    let j = i + 1, v = false;
    for (; j < text.length && j - i < 9; j++) {
      const c = text[j];
      if (c === "v") v = true;
      else if (!"dgimsuy".includes(c)) break;
    }
    if (v && !isIdent(text[j])) return true;
  }
  return false;
}

