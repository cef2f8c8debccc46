// Part of the prelude: TextEncoder, TextDecoder (UTF-8, UTF-16LE and
// latin1), atob and btoa, with Node 20's errors.
// ---- encoding -----------------------------------------------------------
// utf8Encode returns the UTF-8 bytes of s (lone surrogates as U+FFFD).
function utf8Encode(s) {
  const n = s.length;
  let size = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c >= 0xd800 && c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { size += 2; i++; } else size += c < 0x800 ? 1 : 2;
  }
  const b = new Uint8Array(size);
  utf8Into(s, b);
  return b;
}

// utf8Into writes as much of s as fits whole into b; it returns
// [UTF-16 units read, bytes written].
function utf8Into(s, b) {
  const n = s.length, m = b.length;
  let i = 0, j = 0;
  for (; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      if (j >= m) break;
      b[j++] = c;
      continue;
    }
    let units = 1;
    if (c >= 0xd800 && c < 0xe000) {
      const d = s.charCodeAt(i + 1);
      if (c < 0xdc00 && d >= 0xdc00 && d < 0xe000) { c = ((c - 0xd800) << 10) + d - 0xdc00 + 0x10000; units = 2; } else c = 0xfffd;
    }
    if (c < 0x800) {
      if (j + 2 > m) break;
      b[j++] = 0xc0 | c >> 6;
    } else if (c < 0x10000) {
      if (j + 3 > m) break;
      b[j++] = 0xe0 | c >> 12;
      b[j++] = 0x80 | c >> 6 & 63;
    } else {
      if (j + 4 > m) break;
      b[j++] = 0xf0 | c >> 18;
      b[j++] = 0x80 | c >> 12 & 63;
      b[j++] = 0x80 | c >> 6 & 63;
    }
    b[j++] = 0x80 | c & 63;
    i += units - 1;
  }
  return [i, j];
}

// units turns an array of UTF-16 code units into a string, in slices small
// enough for Function.prototype.apply.
function units(a, n) {
  const parts = [];
  for (let i = 0; i < n; i += 8192) parts.push(String.fromCharCode.apply(null, a.slice(i, Math.min(n, i + 8192))));
  return parts.join("");
}

const invalidData = (enc) => coded(TypeError, `The encoded data was not valid for encoding ${enc}`, "ERR_ENCODING_INVALID_ENCODED_DATA");

// utf8Decode decodes bytes, carrying an incomplete sequence in st between
// calls (st.cp, st.need, st.seen, st.lo, st.hi: the WHATWG UTF-8 decoder's
// state); flush ends the stream. It throws on malformed input when fatal.
// A block of valid UTF-8 decodes natively (escape, then decodeURIComponent,
// which rejects what the decoder would replace); the rest byte by byte.
const UTF8_BLOCK = 1 << 16;
function utf8Decode(b, fatal, flush, st) {
  st = st || { cp: 0, need: 0, seen: 0, lo: 0x80, hi: 0xbf };
  const parts = [];
  for (let i = 0; i < b.length;) {
    let end = Math.min(b.length, i + UTF8_BLOCK);
    // Cut before a lead byte, so a valid sequence is not split.
    for (let k = 0; k < 3 && end < b.length && (b[end] & 0xc0) === 0x80; k++) end--;
    const block = b.subarray(i, end), last = end === b.length;
    let s = null;
    if (st.need === 0) {
      try { s = decodeURIComponent(escape(latin1(block))); } catch (_) { /* invalid or incomplete: byte by byte */ }
    }
    parts.push(s !== null ? s : utf8Slow(block, fatal, flush && last, st));
    i = end;
  }
  if (b.length === 0 && flush) parts.push(utf8Slow(b, fatal, true, st));
  return parts.join("");
}

function utf8Slow(b, fatal, flush, st) {
  const out = [];
  let { cp, need, seen, lo, hi } = st;
  const bad = () => {
    if (fatal) throw invalidData("utf-8");
    out.push(0xfffd);
  };
  for (let i = 0; i < b.length; i++) {
    const x = b[i];
    if (need === 0) {
      if (x < 0x80) out.push(x);
      else if (x >= 0xc2 && x <= 0xdf) { need = 1; cp = x & 0x1f; } else if (x >= 0xe0 && x <= 0xef) {
        if (x === 0xe0) lo = 0xa0;
        if (x === 0xed) hi = 0x9f;
        need = 2; cp = x & 0xf;
      } else if (x >= 0xf0 && x <= 0xf4) {
        if (x === 0xf0) lo = 0x90;
        if (x === 0xf4) hi = 0x8f;
        need = 3; cp = x & 7;
      } else bad();
      continue;
    }
    if (x < lo || x > hi) {
      cp = need = seen = 0; lo = 0x80; hi = 0xbf;
      bad();
      i--;
      continue;
    }
    lo = 0x80; hi = 0xbf;
    cp = cp << 6 | x & 0x3f;
    if (++seen === need) {
      if (cp < 0x10000) out.push(cp);
      else out.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + (cp & 0x3ff));
      cp = need = seen = 0;
    }
  }
  if (flush && need !== 0) {
    cp = need = seen = 0; lo = 0x80; hi = 0xbf;
    bad();
  }
  Object.assign(st, { cp, need, seen, lo, hi });
  return units(out, out.length);
}

const ENCODINGS = { __proto__: null };
for (const [name, labels] of [
  ["utf-8", "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8"],
  ["utf-16le", "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le"],
  ["windows-1252", "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252"],
]) for (const l of labels.split(" ")) ENCODINGS[l] = name;

const isBufferSource = (x) => x instanceof ArrayBuffer || x instanceof SharedArrayBuffer || ArrayBuffer.isView(x);
const bytesOf = (x) => (ArrayBuffer.isView(x) ? new Uint8Array(x.buffer, x.byteOffset, x.byteLength) : new Uint8Array(x));
const received = (x) => (x === null ? "null" : x === undefined ? "undefined" : typeof x === "object" || typeof x === "function"
  ? `an instance of ${x.constructor && x.constructor.name || "Object"}`
  : `type ${typeof x} (${typeof x === "string" ? `'${x.length > 28 ? x.slice(0, 25) + "..." : x}'` : String(x)})`);

class TextEncoder {
  get encoding() { return "utf-8"; }
  encode(input = "") { return utf8Encode(String(input)); }
  encodeInto(src, dest) {
    if (!(dest instanceof Uint8Array)) {
      throw coded(TypeError, `The "dest" argument must be an instance of Uint8Array. Received ${received(dest)}`, "ERR_INVALID_ARG_TYPE");
    }
    const [read, written] = utf8Into(String(src), dest);
    return { read, written };
  }
  get [Symbol.toStringTag]() { return "TextEncoder"; }
}

class TextDecoder {
  #enc;
  #fatal;
  #ignoreBOM;
  #st = null; // the streaming state
  #bomSeen = false;
  constructor(label = "utf-8", options = {}) {
    const enc = ENCODINGS[String(label).trim().toLowerCase()];
    if (enc === undefined) throw coded(RangeError, `The "${label}" encoding is not supported`, "ERR_ENCODING_NOT_SUPPORTED");
    if (options === null || (typeof options !== "object" && typeof options !== "function" && options !== undefined)) {
      throw coded(TypeError, `The "options" argument must be of type object. Received ${received(options)}`, "ERR_INVALID_ARG_TYPE");
    }
    this.#enc = enc;
    this.#fatal = !!(options && options.fatal);
    this.#ignoreBOM = !!(options && options.ignoreBOM);
  }
  get encoding() { return this.#enc; }
  get fatal() { return this.#fatal; }
  get ignoreBOM() { return this.#ignoreBOM; }
  decode(input = new Uint8Array(0), options = {}) {
    if (!isBufferSource(input)) {
      throw coded(TypeError, "The \"input\" argument must be an instance of ArrayBuffer or ArrayBufferView. Received " + received(input), "ERR_INVALID_ARG_TYPE");
    }
    const stream = !!(options && options.stream);
    const b = bytesOf(input);
    if (this.#st === null) { this.#st = { cp: 0, need: 0, seen: 0, lo: 0x80, hi: 0xbf, odd: -1, lead: 0 }; this.#bomSeen = false; }
    let s;
    try {
      s = this.#enc === "utf-8" ? utf8Decode(b, this.#fatal, !stream, this.#st)
        : this.#enc === "utf-16le" ? utf16Decode(b, this.#fatal, !stream, this.#st) : latin1(b);
    } catch (e) {
      this.#st = null;
      throw e;
    }
    if (!this.#ignoreBOM && !this.#bomSeen && s.length > 0) {
      this.#bomSeen = true;
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
    }
    if (!stream) this.#st = null;
    return s;
  }
  get [Symbol.toStringTag]() { return "TextDecoder"; }
}

function latin1(b) {
  const parts = [];
  for (let i = 0; i < b.length; i += 8192) parts.push(String.fromCharCode.apply(null, b.subarray(i, i + 8192)));
  return parts.join("");
}

// utf16Decode decodes UTF-16LE; st.odd holds a byte left over, st.lead a
// high surrogate waiting for its pair.
function utf16Decode(b, fatal, flush, st) {
  const out = [];
  const bad = () => {
    if (fatal) throw invalidData("utf-16le");
    out.push(0xfffd);
  };
  let i = 0;
  const unit = (u) => {
    if (st.lead) {
      const l = st.lead;
      st.lead = 0;
      if (u >= 0xdc00 && u < 0xe000) { out.push(l, u); return; }
      bad();
    }
    if (u >= 0xd800 && u < 0xdc00) st.lead = u;
    else if (u >= 0xdc00 && u < 0xe000) bad();
    else out.push(u);
  };
  if (st.odd >= 0 && b.length > 0) { unit(st.odd | b[0] << 8); st.odd = -1; i = 1; }
  for (; i + 1 < b.length; i += 2) unit(b[i] | b[i + 1] << 8);
  if (i < b.length) st.odd = b[i];
  if (flush) {
    if (st.lead || st.odd >= 0) { st.lead = 0; st.odd = -1; bad(); }
  }
  return units(out, out.length);
}

// ---- base64
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_INDEX = new Uint8Array(128), B64_CODE = new Uint8Array(64);
for (let i = 0; i < 64; i++) B64_INDEX[B64_CODE[i] = B64.charCodeAt(i)] = i;
const invalidChar = () => new DOMException("Invalid character", "InvalidCharacterError");

function btoa(data) {
  if (arguments.length < 1) throw missingArg("input");
  data = String(data);
  if (/[^\0-\xff]/.test(data)) throw invalidChar();
  const n = data.length, out = new Uint8Array(Math.ceil(n / 3) * 4);
  let j = 0;
  for (let i = 0; i < n; i += 3) {
    const a = data.charCodeAt(i), b = i + 1 < n ? data.charCodeAt(i + 1) : 0, c = i + 2 < n ? data.charCodeAt(i + 2) : 0;
    out[j++] = B64_CODE[a >> 2];
    out[j++] = B64_CODE[(a & 3) << 4 | b >> 4];
    out[j++] = i + 1 < n ? B64_CODE[(b & 15) << 2 | c >> 6] : 61;
    out[j++] = i + 2 < n ? B64_CODE[c & 63] : 61;
  }
  return latin1(out);
}

function atob(data) {
  if (arguments.length < 1) throw missingArg("input");
  data = String(data);
  // Node's checks, in its order: alphabet, "=" only at the end and at most
  // two, no "=" when the length is not a multiple of 4, then the length.
  if (/[^A-Za-z0-9+/=\t\n\f\r ]/.test(data)) throw invalidChar();
  const s = data.replace(/[\t\n\f\r ]+/g, "");
  const eq = s.length - s.replace(/=+$/, "").length;
  const first = s.indexOf("=");
  if (eq > 2 || (first >= 0 && first < s.length - eq)) throw invalidChar();
  let rem = s.length % 4;
  if (rem === 0) rem = (s.length - eq) % 4;
  else if (eq > 0) throw invalidChar();
  if (rem === 1) throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
  const n = s.length - eq, out = new Uint8Array(n * 3 >> 2);
  let j = 0, i = 0;
  for (; i + 4 <= n; i += 4) {
    const v = B64_INDEX[s.charCodeAt(i)] << 18 | B64_INDEX[s.charCodeAt(i + 1)] << 12 | B64_INDEX[s.charCodeAt(i + 2)] << 6 | B64_INDEX[s.charCodeAt(i + 3)];
    out[j++] = v >> 16;
    out[j++] = v >> 8 & 255;
    out[j++] = v & 255;
  }
  if (n - i >= 2) {
    const v = B64_INDEX[s.charCodeAt(i)] << 18 | B64_INDEX[s.charCodeAt(i + 1)] << 12 | (n - i > 2 ? B64_INDEX[s.charCodeAt(i + 2)] << 6 : 0);
    out[j++] = v >> 16;
    if (n - i > 2) out[j++] = v >> 8 & 255;
  }
  return latin1(out);
}

web("TextEncoder", TextEncoder);
web("TextDecoder", TextDecoder);
nodeGlobal("btoa", btoa);
nodeGlobal("atob", atob);
