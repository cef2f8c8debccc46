// Part of the prelude: URL and URLSearchParams, after the WHATWG URL
// Standard as Node 20 implements it (README.md lists the differences).
// nodeGlobal defines a global the way Node defines its enumerable ones
// (structuredClone, atob, btoa, crypto, performance): Object.keys(globalThis)
// lists them there, unlike the classes (web).
const nodeGlobal = (name, value) => Object.defineProperty(g, name,
  { value, writable: true, enumerable: true, configurable: true });

// ---- URL ----------------------------------------------------------------
const SPECIAL = { __proto__: null, "ftp": 21, "file": null, "http": 80, "https": 443, "ws": 80, "wss": 443 };
const isSpecial = (u) => u.scheme in SPECIAL;
// Percent-encode sets, as the ASCII printable characters each adds to the
// C0 control set (code points below U+0020 and above U+007E).
const FRAG_SET = ' "<>`', QUERY_SET = ' "#<>', SQUERY_SET = QUERY_SET + "'", PATH_SET = QUERY_SET + "?`{}",
  USERINFO_SET = PATH_SET + "/:;=@[\\]^|", COMPONENT_SET = USERINFO_SET + "$%&+,", FORM_SET = COMPONENT_SET + "!'()~";
const setRe = new Map();
const hex2 = (b) => (b < 16 ? "%0" : "%") + b.toString(16).toUpperCase();
const encodeRun = (m) => (m.length > 1 || m < " " || m > "~" ? encodeURIComponent(m) : hex2(m.charCodeAt(0)));
const encodeRunPlus = (m) => (m === " " ? "+" : encodeRun(m));

// pct percent-encodes the characters of s in set, and every control and
// non-ASCII one as UTF-8 (lone surrogates have become U+FFFD before); plus
// writes spaces as "+" (application/x-www-form-urlencoded). The engine's
// replace and encodeURIComponent do the work, in time linear in s.
function pct(s, set, plus) {
  let re = setRe.get(set);
  if (re === undefined) setRe.set(set, re = new RegExp(`[^\\x20-\\x7e]+${set ? `|[${set.replace(/[\]\\^-]/g, "\\$&")}]` : ""}`, "gu"));
  return s.replace(re, plus ? encodeRunPlus : encodeRun);
}

// usv replaces lone surrogates with U+FFFD (WebIDL USVString).
const usv = (s) => String(s).toWellFormed();

// pctDecode percent-decodes s and reads the bytes as UTF-8.
function pctDecode(s) {
  if (s.indexOf("%") < 0) return s;
  try { return decodeURIComponent(s); } catch (_) { /* invalid escapes or UTF-8: the slow way */ }
  const b = utf8Encode(s), out = new Uint8Array(b.length);
  let n = 0;
  for (let i = 0; i < b.length; i++) {
    const h = b[i] === 37 && i + 2 < b.length ? hexVal(b[i + 1]) * 16 + hexVal(b[i + 2]) : -1;
    if (h >= 0) { out[n++] = h; i += 2; } else out[n++] = b[i];
  }
  return utf8Decode(out.subarray(0, n), false, true);
}
const hexVal = (c) => (c >= 48 && c <= 57 ? c - 48 : (c |= 32) >= 97 && c <= 102 ? c - 87 : -256);

// ---- host parsing
const FORBIDDEN_HOST = /[\0\t\n\r #/:<>?@[\\\]^|]/, FORBIDDEN_DOMAIN = /[\0-\x20#%/:<>?@[\\\]^|\x7f]/;

function parseHost(input, opaque) {
  if (input[0] === "[") {
    if (input[input.length - 1] !== "]") return null;
    const a = parseIPv6(input.slice(1, -1));
    return a === null ? null : "[" + ipv6String(a) + "]";
  }
  if (opaque) return FORBIDDEN_HOST.test(input) ? null : pct(input, "");
  const ascii = toASCII(pctDecode(input));
  if (ascii === null || ascii === "" || FORBIDDEN_DOMAIN.test(ascii)) return null;
  return endsInNumber(ascii) ? parseIPv4(ascii) : ascii;
}

function endsInNumber(s) {
  const parts = s.split(".");
  if (parts[parts.length - 1] === "") {
    if (parts.length === 1) return false;
    parts.pop();
  }
  const last = parts[parts.length - 1];
  return /^[0-9]+$/.test(last) || /^0[xX][0-9a-fA-F]*$/.test(last);
}

function ipv4Number(s) {
  if (s === "") return NaN;
  let r = 10;
  if (/^0[xX]/.test(s)) { s = s.slice(2); r = 16; } else if (s.length > 1 && s[0] === "0") { s = s.slice(1); r = 8; }
  if (s === "") return 0;
  if (!(r === 10 ? /^[0-9]+$/ : r === 16 ? /^[0-9a-fA-F]+$/ : /^[0-7]+$/).test(s)) return NaN;
  return parseInt(s, r);
}

function parseIPv4(s) {
  const parts = s.split(".");
  if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
  if (parts.length > 4) return null;
  const n = parts.map(ipv4Number);
  if (n.some((x) => x !== x)) return null;
  const last = n.length - 1;
  for (let i = 0; i < last; i++) if (n[i] > 255) return null;
  if (n[last] >= 256 ** (4 - last)) return null;
  let v = n[last];
  for (let i = 0; i < last; i++) v += n[i] * 256 ** (3 - i);
  return [v >>> 24, v >>> 16 & 255, v >>> 8 & 255, v & 255].join(".");
}

function parseIPv6(s) {
  const a = [0, 0, 0, 0, 0, 0, 0, 0], len = s.length;
  let pi = 0, compress = null, p = 0;
  const isHex = (c) => c !== undefined && /[0-9a-fA-F]/.test(c), isDigit = (c) => c !== undefined && c >= "0" && c <= "9";
  if (s[0] === ":") {
    if (s[1] !== ":") return null;
    p = 2;
    compress = ++pi;
  }
  while (p < len) {
    if (pi === 8) return null;
    if (s[p] === ":") {
      if (compress !== null) return null;
      p++;
      compress = ++pi;
      continue;
    }
    let v = 0, n = 0;
    while (n < 4 && isHex(s[p])) { v = v * 16 + parseInt(s[p], 16); p++; n++; }
    if (s[p] === ".") {
      if (n === 0) return null;
      p -= n;
      if (pi > 6) return null;
      let seen = 0;
      while (p < len) {
        let v4 = null;
        if (seen > 0) {
          if (s[p] === "." && seen < 4) p++;
          else return null;
        }
        if (!isDigit(s[p])) return null;
        while (isDigit(s[p])) {
          const d = s.charCodeAt(p) - 48;
          if (v4 === null) v4 = d;
          else if (v4 === 0) return null;
          else v4 = v4 * 10 + d;
          if (v4 > 255) return null;
          p++;
        }
        a[pi] = a[pi] * 256 + v4;
        seen++;
        if (seen === 2 || seen === 4) pi++;
      }
      if (seen !== 4) return null;
      break;
    } else if (s[p] === ":") {
      p++;
      if (p >= len) return null;
    } else if (p < len) return null;
    a[pi++] = v;
  }
  if (compress !== null) {
    let swaps = pi - compress;
    pi = 7;
    while (pi !== 0 && swaps > 0) {
      const t = a[compress + swaps - 1];
      a[compress + swaps - 1] = a[pi];
      a[pi] = t;
      pi--;
      swaps--;
    }
  } else if (pi !== 8) return null;
  return a;
}

function ipv6String(a) {
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && a[j] === 0) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j > i ? j : i + 1;
  }
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === best) {
      out += i === 0 ? "::" : ":";
      i += bestLen - 1;
      continue;
    }
    out += a[i].toString(16) + (i < 7 ? ":" : "");
  }
  return out;
}

// toASCII is UTS #46 ToASCII with the URL Standard's flags, approximated:
// the mapping is lower case after NFKC with the ideographic full stops as
// dots and the common ignored characters removed (README.md). Punycode
// walks a label once per distinct code point: a label of more than
// MAX_PUNY_LABEL code points fails (a DNS label has at most 63 bytes).
const MAX_PUNY_LABEL = 4096;
function toASCII(d) {
  if (/^[\x00-\x7f]*$/.test(d) && !/(^|\.)xn--/i.test(d)) return d.toLowerCase();
  d = d.replace(/[\u00ad\u034f\u180b-\u180f\u200b\u2060\u2064\ufe00-\ufe0f\ufeff]/g, "")
    .normalize("NFKC").toLowerCase().normalize("NFC").replace(/[\u3002\uff0e\uff61]/g, ".");
  const labels = d.split(".");
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i];
    if (l.startsWith("xn--")) {
      const u = /^[\x00-\x7f]+$/.test(l) ? punyDecode(l.slice(4)) : null;
      if (u === null || u === "" || /^[\x00-\x7f]*$/.test(u) || u.normalize("NFKC").toLowerCase() !== u || badLabel(u)) return null;
    } else if (/[^\x00-\x7f]/.test(l)) {
      if (badLabel(l)) return null;
      const e = punyEncode(l);
      if (e === null) return null;
      labels[i] = "xn--" + e;
    }
  }
  return labels.join(".");
}

// badLabel reports code points UTS #46 disallows that NFKC leaves: controls,
// unassigned and private-use code points, spaces, U+FFFD, a leading mark.
const badLabel = (l) => /^\p{M}/u.test(l) || /[\p{Cc}\p{Cn}\p{Co}\p{Cs}\p{Zs}\p{Zl}\p{Zp}\ufffd]/u.test(l);

// Punycode (RFC 3492).
function adapt(delta, n, first) {
  delta = first ? Math.floor(delta / 700) : delta >> 1;
  delta += Math.floor(delta / n);
  let k = 0;
  for (; delta > 455; k += 36) delta = Math.floor(delta / 35);
  return k + Math.floor(36 * delta / (delta + 38));
}
const digit = (d) => String.fromCharCode(d + 22 + 75 * (d < 26));

function punyEncode(s) {
  if (s.length > 2 * MAX_PUNY_LABEL) return null;
  const cps = Array.from(s, (c) => c.codePointAt(0));
  if (cps.length > MAX_PUNY_LABEL) return null;
  let out = cps.filter((c) => c < 128).map((c) => String.fromCharCode(c)).join("");
  const b = out.length;
  let h = b, n = 128, delta = 0, bias = 72;
  if (b > 0) out += "-";
  while (h < cps.length) {
    let m = Infinity;
    for (const c of cps) if (c >= n && c < m) m = c;
    delta += (m - n) * (h + 1);
    n = m;
    for (const c of cps) {
      if (c < n) delta++;
      if (c === n) {
        let q = delta;
        for (let k = 36; ; k += 36) {
          const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
          if (q < t) break;
          out += digit(t + (q - t) % (36 - t));
          q = Math.floor((q - t) / (36 - t));
        }
        out += digit(q);
        bias = adapt(delta, h + 1, h === b);
        delta = 0;
        h++;
      }
    }
    delta++;
    n++;
  }
  return out;
}

function punyDecode(s) {
  const out = [];
  let i = 0, n = 128, bias = 72, b = s.lastIndexOf("-");
  if (b < 0) b = 0;
  for (let j = 0; j < b; j++) out.push(s.charCodeAt(j));
  for (let p = b > 0 ? b + 1 : 0; p < s.length;) {
    const old = i;
    for (let w = 1, k = 36; ; k += 36) {
      if (p >= s.length) return null;
      const c = s.charCodeAt(p++);
      const d = c - 48 < 10 ? c - 22 : c - 65 < 26 ? c - 65 : c - 97 < 26 ? c - 97 : 36;
      if (d >= 36) return null;
      i += d * w;
      const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
      if (d < t) break;
      w *= 36 - t;
      if (i > 0x7fffffff || w > 0x7fffffff) return null;
    }
    bias = adapt(i - old, out.length + 1, old === 0);
    n += Math.floor(i / (out.length + 1));
    i %= out.length + 1;
    if (n > 0x10ffff || (n >= 0xd800 && n < 0xe000)) return null;
    out.splice(i++, 0, n);
  }
  return String.fromCodePoint(...out);
}

// ---- the basic URL parser
const S_SCHEME_START = 1, S_SCHEME = 2, S_NO_SCHEME = 3, S_SPECIAL_REL_OR_AUTH = 4, S_PATH_OR_AUTH = 5,
  S_RELATIVE = 6, S_RELATIVE_SLASH = 7, S_SPECIAL_AUTH_SLASHES = 8, S_SPECIAL_AUTH_IGNORE_SLASHES = 9,
  S_AUTHORITY = 10, S_HOST = 11, S_HOSTNAME = 12, S_PORT = 13, S_FILE = 14, S_FILE_SLASH = 15, S_FILE_HOST = 16,
  S_PATH_START = 17, S_PATH = 18, S_OPAQUE_PATH = 19, S_QUERY = 20, S_FRAGMENT = 21;
const isAlpha = (c) => c !== undefined && /[a-zA-Z]/.test(c);
const winDrive = (s) => s.length === 2 && isAlpha(s[0]) && (s[1] === ":" || s[1] === "|");
const startsWithDrive = (s, p) => s.length - p >= 2 && winDrive(s.slice(p, p + 2)) &&
  (s.length - p === 2 || "/\\?#".includes(s[p + 2]));
const isDot = (s) => s === "." || (s.length === 3 && s.toLowerCase() === "%2e");
const isDots = (s) => s === ".." || (s.length >= 4 && s.length <= 6 && /^(\.|%2e)(\.|%2e)$/i.test(s));

function shorten(u) {
  if (u.scheme === "file" && u.path.length === 1 && /^[a-zA-Z]:$/.test(u.path[0])) return;
  u.path.pop();
}

const newRecord = () => ({ scheme: "", user: "", pass: "", host: null, port: null, path: [], opaque: false, query: null, frag: null });
const copyRecord = (u) => ({ ...u, path: u.opaque ? u.path : u.path.slice() });

// scan returns the index of the first match of the global regex re in s at
// or after p, or s.length: states that collect a run of code points take it
// in one slice (string += per code point is quadratic in this engine).
const scan = (s, p, re) => {
  re.lastIndex = p;
  const m = re.exec(s);
  return m === null ? s.length : m.index;
};
const AUTH_END = /[@/?#\\]/g, AUTH_END_NS = /[@/?#]/g, HOST_END = /[:/?#\\[\]]/g, HOST_END_NS = /[:/?#[\]]/g,
  PATH_END = /[/\\?#]/g, PATH_END_NS = /[/?#]/g, PATH_END_O = /[/\\]/g, PATH_END_ONS = /\//g, NOT_DIGIT = /[^0-9]/g, NOT_SCHEME = /[^a-zA-Z0-9+\-.]/g;

// parse runs the basic URL parser; it returns the record, or null on
// failure. With override (a state), it changes url in place instead.
function parseURL(input, base, url, override) {
  if (!url) {
    url = newRecord();
    let a = 0, z = input.length;
    while (a < z && input.charCodeAt(a) <= 32) a++;
    while (z > a && input.charCodeAt(z - 1) <= 32) z--;
    input = input.slice(a, z);
  }
  input = input.replace(/[\t\n\r]/g, "");
  const len = input.length;
  let state = override || S_SCHEME_START, buf = "", atSeen = false, inBr = false, pwSeen = false;
  const user = [], pass = []; // userinfo, joined when the host starts
  for (let p = 0; ; p++) {
    const c = input[p], eof = p >= len;
    switch (state) {
      case S_SCHEME_START:
        if (isAlpha(c)) { buf += c.toLowerCase(); state = S_SCHEME; } else if (!override) { state = S_NO_SCHEME; p--; } else return null;
        break;
      case S_SCHEME:
        if (c !== undefined && /[a-zA-Z0-9+\-.]/.test(c)) {
          const e = scan(input, p, NOT_SCHEME);
          buf += input.slice(p, e).toLowerCase();
          p = e - 1;
        }
        else if (c === ":") {
          if (override) {
            if ((url.scheme in SPECIAL) !== (buf in SPECIAL)) return url;
            if ((url.user !== "" || url.pass !== "" || url.port !== null) && buf === "file") return url;
            if (url.scheme === "file" && url.host === "") return url;
          }
          url.scheme = buf;
          if (override) {
            if (url.port === SPECIAL[url.scheme]) url.port = null;
            return url;
          }
          buf = "";
          if (url.scheme === "file") state = S_FILE;
          else if (isSpecial(url) && base && base.scheme === url.scheme) state = S_SPECIAL_REL_OR_AUTH;
          else if (isSpecial(url)) state = S_SPECIAL_AUTH_SLASHES;
          else if (input[p + 1] === "/") { state = S_PATH_OR_AUTH; p++; } else { url.path = ""; url.opaque = true; state = S_OPAQUE_PATH; }
        } else if (!override) { buf = ""; state = S_NO_SCHEME; p = -1; } else return null;
        break;
      case S_NO_SCHEME:
        if (!base || (base.opaque && c !== "#")) return null;
        if (base.opaque) {
          url.scheme = base.scheme; url.path = base.path; url.opaque = true; url.query = base.query; url.frag = "";
          state = S_FRAGMENT;
        } else { state = base.scheme !== "file" ? S_RELATIVE : S_FILE; p--; }
        break;
      case S_SPECIAL_REL_OR_AUTH:
        if (c === "/" && input[p + 1] === "/") { state = S_SPECIAL_AUTH_IGNORE_SLASHES; p++; } else { state = S_RELATIVE; p--; }
        break;
      case S_PATH_OR_AUTH:
        if (c === "/") state = S_AUTHORITY; else { state = S_PATH; p--; }
        break;
      case S_RELATIVE:
        url.scheme = base.scheme;
        if (c === "/" || (isSpecial(url) && c === "\\")) state = S_RELATIVE_SLASH;
        else {
          url.user = base.user; url.pass = base.pass; url.host = base.host; url.port = base.port;
          url.path = base.path.slice(); url.query = base.query;
          if (c === "?") { url.query = ""; state = S_QUERY; } else if (c === "#") { url.frag = ""; state = S_FRAGMENT; } else if (!eof) {
            url.query = null; shorten(url); state = S_PATH; p--;
          }
        }
        break;
      case S_RELATIVE_SLASH:
        if (isSpecial(url) && (c === "/" || c === "\\")) state = S_SPECIAL_AUTH_IGNORE_SLASHES;
        else if (c === "/") state = S_AUTHORITY;
        else { url.user = base.user; url.pass = base.pass; url.host = base.host; url.port = base.port; state = S_PATH; p--; }
        break;
      case S_SPECIAL_AUTH_SLASHES:
        state = S_SPECIAL_AUTH_IGNORE_SLASHES;
        if (c === "/" && input[p + 1] === "/") p++; else p--;
        break;
      case S_SPECIAL_AUTH_IGNORE_SLASHES:
        if (c !== "/" && c !== "\\") { state = S_AUTHORITY; p--; }
        break;
      case S_AUTHORITY:
        if (c === "@") {
          if (atSeen) buf = "%40" + buf;
          atSeen = true;
          const i = pwSeen ? -1 : buf.indexOf(":");
          if (pwSeen) pass.push(pct(buf, USERINFO_SET));
          else if (i < 0) user.push(pct(buf, USERINFO_SET));
          else { user.push(pct(buf.slice(0, i), USERINFO_SET)); pass.push(pct(buf.slice(i + 1), USERINFO_SET)); pwSeen = true; }
          buf = "";
        } else if (eof || c === "/" || c === "?" || c === "#" || (isSpecial(url) && c === "\\")) {
          if (atSeen && buf === "") return null;
          url.user += user.join("");
          url.pass += pass.join("");
          p -= buf.length + 1;
          buf = "";
          state = S_HOST;
        } else {
          const e = scan(input, p, isSpecial(url) ? AUTH_END : AUTH_END_NS);
          buf += input.slice(p, e);
          p = e - 1;
        }
        break;
      case S_HOST:
      case S_HOSTNAME:
        if (override && url.scheme === "file") { p--; state = S_FILE_HOST; } else if (c === ":" && !inBr) {
          if (buf === "") return null;
          if (override === S_HOSTNAME) return url;
          const h = parseHost(buf, !isSpecial(url));
          if (h === null) return null;
          url.host = h; buf = ""; state = S_PORT;
        } else if (eof || c === "/" || c === "?" || c === "#" || (isSpecial(url) && c === "\\")) {
          p--;
          if (isSpecial(url) && buf === "") return null;
          if (override && buf === "" && (url.user !== "" || url.pass !== "" || url.port !== null)) return url;
          const h = parseHost(buf, !isSpecial(url));
          if (h === null) return null;
          url.host = h; buf = ""; state = S_PATH_START;
          if (override) return url;
        } else if (c === "[" || c === "]" || c === ":") {
          inBr = c === "[" || (c === ":" && inBr);
          buf += c;
        } else {
          const e = scan(input, p, isSpecial(url) ? HOST_END : HOST_END_NS);
          buf += input.slice(p, e);
          p = e - 1;
        }
        break;
      case S_PORT:
        if (c >= "0" && c <= "9") {
          const e = scan(input, p, NOT_DIGIT);
          buf += input.slice(p, e);
          p = e - 1;
        }
        else if (eof || c === "/" || c === "?" || c === "#" || (isSpecial(url) && c === "\\") || override) {
          if (buf !== "") {
            const port = parseInt(buf, 10);
            if (port > 65535) return null;
            url.port = port === SPECIAL[url.scheme] ? null : port;
            buf = "";
          }
          if (override) return url;
          state = S_PATH_START; p--;
        } else return null;
        break;
      case S_FILE:
        url.scheme = "file"; url.host = "";
        if (c === "/" || c === "\\") state = S_FILE_SLASH;
        else if (base && base.scheme === "file") {
          url.host = base.host; url.path = base.path.slice(); url.query = base.query;
          if (c === "?") { url.query = ""; state = S_QUERY; } else if (c === "#") { url.frag = ""; state = S_FRAGMENT; } else if (!eof) {
            url.query = null;
            if (!startsWithDrive(input, p)) shorten(url); else url.path = [];
            state = S_PATH; p--;
          }
        } else { state = S_PATH; p--; }
        break;
      case S_FILE_SLASH:
        if (c === "/" || c === "\\") state = S_FILE_HOST;
        else {
          if (base && base.scheme === "file") {
            url.host = base.host;
            if (!startsWithDrive(input, p) && /^[a-zA-Z]:$/.test(base.path[0])) url.path.push(base.path[0]);
          }
          state = S_PATH; p--;
        }
        break;
      case S_FILE_HOST:
        if (eof || "/\\?#".includes(c)) {
          p--;
          if (!override && winDrive(buf)) state = S_PATH;
          else if (buf === "") {
            url.host = "";
            if (override) return url;
            state = S_PATH_START;
          } else {
            let h = parseHost(buf, !isSpecial(url));
            if (h === null) return null;
            if (h === "localhost") h = "";
            url.host = h;
            if (override) return url;
            buf = ""; state = S_PATH_START;
          }
        } else {
          const e = scan(input, p, PATH_END);
          buf += input.slice(p, e);
          p = e - 1;
        }
        break;
      case S_PATH_START:
        if (isSpecial(url)) { state = S_PATH; if (c !== "/" && c !== "\\") p--; } else if (!override && c === "?") { url.query = ""; state = S_QUERY; } else if (!override && c === "#") { url.frag = ""; state = S_FRAGMENT; } else if (!eof) { state = S_PATH; if (c !== "/") p--; } else if (override && url.host === null) url.path.push("");
        break;
      case S_PATH: {
        const slash = c === "/" || (isSpecial(url) && c === "\\");
        if (eof || slash || (!override && (c === "?" || c === "#"))) {
          if (buf !== "") buf = pct(buf, PATH_SET);
          if (isDots(buf)) {
            shorten(url);
            if (!slash) url.path.push("");
          } else if (isDot(buf)) {
            if (!slash) url.path.push("");
          } else {
            if (url.scheme === "file" && url.path.length === 0 && winDrive(buf)) buf = buf[0] + ":";
            url.path.push(buf);
          }
          buf = "";
          if (c === "?") { url.query = ""; state = S_QUERY; }
          if (c === "#") { url.frag = ""; state = S_FRAGMENT; }
        } else {
          const e = scan(input, p, override ? (isSpecial(url) ? PATH_END_O : PATH_END_ONS) : isSpecial(url) ? PATH_END : PATH_END_NS);
          buf += input.slice(p, e);
          p = e - 1;
        }
        break;
      }
      case S_OPAQUE_PATH:
        if (c === "?") { url.query = ""; state = S_QUERY; } else if (c === "#") { url.frag = ""; state = S_FRAGMENT; } else if (!eof) {
          let e = p;
          while (e < len && input[e] !== "?" && input[e] !== "#") e++;
          url.path += pct(input.slice(p, e), "");
          p = e - 1;
        }
        break;
      case S_QUERY:
        if ((!override && c === "#") || eof) {
          url.query += pct(buf, isSpecial(url) ? SQUERY_SET : QUERY_SET);
          buf = "";
          if (c === "#") { url.frag = ""; state = S_FRAGMENT; }
        } else {
          let e = p;
          while (e < len && (override || input[e] !== "#")) e++;
          buf += input.slice(p, e);
          p = e - 1;
        }
        break;
      case S_FRAGMENT:
        if (!eof) { url.frag += pct(input.slice(p), FRAG_SET); p = len - 1; }
        break;
    }
    if (p >= len) return url;
  }
}

const pathString = (u) => (u.opaque ? u.path : u.path.map((s) => "/" + s).join(""));
function href(u, noFrag) {
  let s = u.scheme + ":";
  if (u.host !== null) {
    s += "//";
    if (u.user !== "" || u.pass !== "") s += u.user + (u.pass !== "" ? ":" + u.pass : "") + "@";
    s += u.host + (u.port !== null ? ":" + u.port : "");
  } else if (!u.opaque && u.path.length > 1 && u.path[0] === "") s += "/.";
  s += pathString(u);
  if (u.query !== null) s += "?" + u.query;
  if (!noFrag && u.frag !== null) s += "#" + u.frag;
  return s;
}

function invalidURL(input, base) {
  const e = new TypeError("Invalid URL");
  e.code = "ERR_INVALID_URL";
  e.input = input;
  if (base !== undefined) e.base = base;
  return e;
}
const coded = (E, msg, code) => Object.assign(new E(msg), { code });
const missingArg = (name) => coded(TypeError, `The "${name}" argument must be specified`, "ERR_MISSING_ARGS");
const missingArgs = () => coded(TypeError, 'The "name" and "value" arguments must be specified', "ERR_MISSING_ARGS");
const badTuple = () => coded(TypeError, "Each query pair must be an iterable [name, value] tuple", "ERR_INVALID_TUPLE");

// parseWithBase parses input against base (a string or undefined).
function parseWithBase(input, base) {
  input = usv(input);
  let b = null;
  if (base !== undefined) {
    base = usv(base);
    b = parseURL(base, null);
    if (b === null) return null;
  }
  return parseURL(input, b);
}

const stripTrailingSpaces = (u) => {
  if (u.opaque && u.frag === null && u.query === null) u.path = u.path.replace(/ +$/, "");
};

class URL {
  #u;
  #params = null;
  constructor(input, base) {
    if (arguments.length < 1) throw missingArg("url");
    input = usv(input);
    if (base !== undefined) base = usv(base);
    const u = parseWithBase(input, base);
    if (u === null) throw invalidURL(input, base);
    this.#u = u;
  }
  static canParse(input, base) {
    if (arguments.length < 1) throw missingArg("url");
    return parseWithBase(input, base) !== null;
  }
  static parse(input, base) {
    if (arguments.length < 1) throw missingArg("url");
    try { return new URL(input, base); } catch (_) { return null; }
  }
  #sync() {
    if (this.#params !== null) { paramsReset(this.#params, this.#u.query); paramsLink(this.#params, this.#u); }
  }
  toString() { return href(this.#u); }
  get href() { return href(this.#u); }
  set href(v) {
    v = usv(v);
    const u = parseURL(v, null);
    if (u === null) throw invalidURL(v);
    this.#u = u;
    this.#sync();
  }
  get origin() {
    const u = this.#u;
    if (u.scheme === "blob") {
      const inner = parseURL(pathString(u), null);
      return inner !== null && (inner.scheme === "http" || inner.scheme === "https") ? originOf(inner) : "null";
    }
    return isSpecial(u) && u.scheme !== "file" ? originOf(u) : "null";
  }
  get protocol() { return this.#u.scheme + ":"; }
  set protocol(v) { parseURL(usv(v) + ":", null, this.#u, S_SCHEME_START); }
  get username() { return this.#u.user; }
  set username(v) { if (canHaveCredentials(this.#u)) this.#u.user = pct(usv(v), USERINFO_SET); }
  get password() { return this.#u.pass; }
  set password(v) { if (canHaveCredentials(this.#u)) this.#u.pass = pct(usv(v), USERINFO_SET); }
  get host() { const u = this.#u; return u.host === null ? "" : u.port === null ? u.host : u.host + ":" + u.port; }
  set host(v) { setPart(this.#u, v, S_HOST); }
  get hostname() { return this.#u.host === null ? "" : this.#u.host; }
  set hostname(v) { setPart(this.#u, v, S_HOSTNAME); }
  get port() { return this.#u.port === null ? "" : String(this.#u.port); }
  set port(v) {
    const u = this.#u;
    if (!canHaveCredentials(u)) return;
    v = usv(v);
    if (v === "") u.port = null; else setPart(u, v, S_PORT);
  }
  get pathname() { return pathString(this.#u); }
  set pathname(v) {
    const u = this.#u;
    if (u.opaque) return;
    const t = copyRecord(u);
    t.path = [];
    if (parseURL(usv(v), null, t, S_PATH_START) !== null) u.path = t.path;
  }
  get search() { const q = this.#u.query; return q === null || q === "" ? "" : "?" + q; }
  set search(v) {
    const u = this.#u;
    v = usv(v);
    if (v === "") { u.query = null; stripTrailingSpaces(u); } else {
      const t = copyRecord(u);
      t.query = "";
      parseURL(v[0] === "?" ? v.slice(1) : v, null, t, S_QUERY);
      u.query = t.query;
    }
    this.#sync();
  }
  get searchParams() {
    if (this.#params === null) {
      this.#params = new URLSearchParams(this.#u.query === null ? "" : this.#u.query);
      paramsLink(this.#params, this.#u);
    }
    return this.#params;
  }
  get hash() { const f = this.#u.frag; return f === null || f === "" ? "" : "#" + f; }
  set hash(v) {
    const u = this.#u;
    v = usv(v);
    if (v === "") { u.frag = null; stripTrailingSpaces(u); return; }
    u.frag = "";
    parseURL(v[0] === "#" ? v.slice(1) : v, null, u, S_FRAGMENT);
  }
  toJSON() { return href(this.#u); }
  get [Symbol.toStringTag]() { return "URL"; }
}
const originOf = (u) => u.scheme + "://" + u.host + (u.port !== null ? ":" + u.port : "");
const canHaveCredentials = (u) => u.host !== null && u.host !== "" && u.scheme !== "file";
function setPart(u, v, state) {
  if (u.opaque) return;
  const t = copyRecord(u);
  if (parseURL(usv(v), null, t, state) !== null) Object.assign(u, t);
}
for (const k of ["toString", "href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname",
  "search", "searchParams", "hash", "toJSON"]) {
  Object.defineProperty(URL.prototype, k, { enumerable: true });
}

// ---- URLSearchParams
function formParse(s) {
  const list = [];
  for (const part of s.split("&")) {
    if (part === "") continue;
    const i = part.indexOf("=");
    const name = i < 0 ? part : part.slice(0, i), value = i < 0 ? "" : part.slice(i + 1);
    list.push([pctDecode(name.replace(/\+/g, " ")), pctDecode(value.replace(/\+/g, " "))]);
  }
  return list;
}
const formString = (list) => list.map(([k, v]) => pct(k, FORM_SET, true) + "=" + pct(v, FORM_SET, true)).join("&");
let paramsReset, paramsLink, paramsList;
// The iterators walk the live list, as Node's do.
const iterState = new WeakMap();
const PARAMS_ITER = Object.create(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())), {
  next: { value() {
    const s = iterState.get(this);
    if (s === undefined) throw new TypeError("Value of \"this\" must be of type URLSearchParamsIterator");
    const list = paramsList(s.p);
    return s.i < list.length ? { value: s.f(list[s.i++]), done: false } : { value: undefined, done: true };
  }, writable: true, configurable: true },
  [Symbol.toStringTag]: { value: "URLSearchParams Iterator", configurable: true },
});
function paramsIter(_, f, p) {
  const it = Object.create(PARAMS_ITER);
  iterState.set(it, { p, f, i: 0 });
  return it;
}

class URLSearchParams {
  #list = [];
  #url = null;
  static {
    paramsReset = (p, query) => { p.#list = query === null ? [] : formParse(query); };
    paramsLink = (p, u) => { p.#url = u; };
    paramsList = (p) => p.#list;
  }
  constructor(init = "") {
    if (init === null) return;
    if (typeof init === "object" || typeof init === "function") {
      if (typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          if (pair === null || (typeof pair !== "object" && typeof pair !== "function") || typeof pair[Symbol.iterator] !== "function") {
            throw badTuple();
          }
          const a = Array.from(pair);
          if (a.length !== 2) throw badTuple();
          this.#list.push([usv(a[0]), usv(a[1])]);
        }
      } else {
        for (const k of Reflect.ownKeys(init)) {
          if (typeof k !== "string" || !Object.prototype.propertyIsEnumerable.call(init, k)) continue;
          this.#list.push([usv(k), usv(init[k])]);
        }
      }
    } else {
      init = usv(init);
      this.#list = formParse(init[0] === "?" ? init.slice(1) : init);
    }
  }
  #update() {
    if (this.#url === null) return;
    const q = formString(this.#list);
    this.#url.query = q === "" ? null : q;
    if (q === "") stripTrailingSpaces(this.#url);
  }
  get size() { return this.#list.length; }
  append(name, value) {
    if (arguments.length < 2) throw missingArgs();
    this.#list.push([usv(name), usv(value)]);
    this.#update();
  }
  delete(name, value) {
    if (arguments.length < 1) throw missingArg("name");
    name = usv(name);
    if (value !== undefined) value = usv(value);
    this.#list = this.#list.filter(([k, v]) => k !== name || (value !== undefined && v !== value));
    this.#update();
  }
  get(name) {
    if (arguments.length < 1) throw missingArg("name");
    name = usv(name);
    const e = this.#list.find(([k]) => k === name);
    return e === undefined ? null : e[1];
  }
  getAll(name) {
    if (arguments.length < 1) throw missingArg("name");
    name = usv(name);
    return this.#list.filter(([k]) => k === name).map(([, v]) => v);
  }
  has(name, value) {
    if (arguments.length < 1) throw missingArg("name");
    name = usv(name);
    if (value !== undefined) value = usv(value);
    return this.#list.some(([k, v]) => k === name && (value === undefined || v === value));
  }
  set(name, value) {
    if (arguments.length < 2) throw missingArgs();
    name = usv(name);
    value = usv(value);
    const i = this.#list.findIndex(([k]) => k === name);
    if (i < 0) this.#list.push([name, value]);
    else {
      this.#list[i][1] = value;
      this.#list = this.#list.filter(([k], j) => j <= i || k !== name);
    }
    this.#update();
  }
  sort() {
    // Stable, by UTF-16 code units of the names.
    this.#list = this.#list.map((e, i) => [e, i]).sort(([a, i], [b, j]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : i - j)).map(([e]) => e);
    this.#update();
  }
  entries() { return paramsIter(this.#list, (e) => e.slice(), this); }
  keys() { return paramsIter(this.#list, (e) => e[0], this); }
  values() { return paramsIter(this.#list, (e) => e[1], this); }
  forEach(fn, thisArg) {
    if (typeof fn !== "function") throw new TypeError('The "callback" argument must be of type function');
    for (let i = 0; i < this.#list.length; i++) fn.call(thisArg, this.#list[i][1], this.#list[i][0], this);
  }
  toString() { return formString(this.#list); }
  get [Symbol.toStringTag]() { return "URLSearchParams"; }
}
URLSearchParams.prototype[Symbol.iterator] = URLSearchParams.prototype.entries;
Object.defineProperty(URLSearchParams.prototype, Symbol.iterator, { enumerable: false });

web("URL", URL);
web("URLSearchParams", URLSearchParams);
