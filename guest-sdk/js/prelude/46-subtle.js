// Part of the prelude: crypto.subtle beyond digest (importKey, exportKey,
// generateKey, sign, verify, encrypt, decrypt, deriveBits, deriveKey) and
// CryptoKey, checking arguments as Node 20 does (lib/internal/crypto/*.js,
// with its messages), the keys' material kept by the host (OpSubtle in
// ../../ABI.md, sandbox/subtleops.go): a CryptoKey holds only a handle.
// ---- crypto.subtle ------------------------------------------------------
const OP_SUBTLE = 14, SUBTLE_MAX_DATA = 1 << 20;
const KEY_USAGES = ["encrypt", "decrypt", "sign", "verify", "deriveKey", "deriveBits", "wrapKey", "unwrapKey"];
const KEY_FORMATS = ["raw", "pkcs8", "spki", "jwk"];
const keySlots = new WeakMap(); // CryptoKey → {h, type, extractable, algorithm, usages}
// Captured now, as in 43-crypto.js: a script that replaces them gets wrong
// answers of its own making, never a broken protocol.
const jsonStringify = JSON.stringify; // jsonParse: 05-errors.js

function CryptoKey() { illegal(); }
const keyGetter = (name) => ({ get() {
  const s = keySlots.get(this);
  if (s === undefined) throw invalidThis("CryptoKey");
  return s[name];
}, enumerable: true, configurable: true });
Object.defineProperties(CryptoKey.prototype, {
  type: keyGetter("type"), extractable: keyGetter("extractable"),
  algorithm: keyGetter("algorithm"), usages: keyGetter("usages"),
  [Symbol.toStringTag]: { value: "CryptoKey", configurable: true },
  // console.log shows a key as Node's util.inspect does.
  [Symbol.for("nodejs.util.inspect.custom")]: { value(depth, options, inspect) {
    const s = keySlots.get(this);
    if (depth < 0 || s === undefined) return this;
    const { type, extractable, algorithm, usages } = s;
    return `CryptoKey ${inspect({ type, extractable, algorithm, usages }, { ...options, depth: options.depth == null ? null : options.depth - 1 })}`;
  }, writable: true, configurable: true },
});
const newKey = (h, type, extractable, algorithm, usages) => {
  const k = Object.create(CryptoKey.prototype);
  keySlots.set(k, { h, type, extractable, algorithm, usages });
  return k;
};

// ---- Web IDL conversions (Node's lib/internal/crypto/webidl.js) ---------
const idlError = (msg, opts, code) => {
  const context = opts.context === "" ? "" : (opts.context ?? "Value") + " ";
  return coded(TypeError, `${opts.prefix ? opts.prefix + ": " : ""}${context}${msg}`, code || opts.code || "ERR_INVALID_ARG_TYPE");
};
const idlType = (v) => (v === null ? "Null" : typeof v === "object" || typeof v === "function" ? "Object" : typeof v);
const requiredArgs = (n, required, prefix) => {
  if (n < required) {
    throw idlError(`${required} argument${required === 1 ? "" : "s"} required, but only ${n} present.`,
      { prefix, context: "" }, "ERR_MISSING_ARGS");
  }
};
const toDOMString = (v, opts) => {
  if (typeof v === "symbol") throw idlError("is a symbol, which cannot be converted to a string.", opts);
  return String(v);
};
const toBufferSource = (v, opts) => {
  if (ArrayBuffer.isView(v) ? v.buffer instanceof SharedArrayBuffer : !(v instanceof ArrayBuffer)) {
    throw idlError(ArrayBuffer.isView(v) ? "is a view on a SharedArrayBuffer, which is not allowed."
      : "is not instance of ArrayBuffer, Buffer, TypedArray, or DataView.", opts);
  }
  return v;
};
const idlNumber = (v, opts) => {
  if (typeof v === "bigint") throw idlError("is a BigInt and cannot be converted to a number.", opts);
  if (typeof v === "symbol") throw idlError("is a Symbol and cannot be converted to a number.", opts);
  return Number(v);
};
const integer = (bits, enforceRange) => (v, opts) => {
  let x = idlNumber(v, opts);
  const upper = 2 ** bits - 1;
  if (enforceRange) {
    if (!Number.isFinite(x)) throw idlError("is not a finite number.", opts);
    x = Math.trunc(x);
    if (x < 0 || x > upper) throw idlError(`is outside the expected range of 0 to ${upper}.`, opts, "ERR_OUT_OF_RANGE");
    return x;
  }
  if (!Number.isFinite(x) || x === 0) return 0;
  x = Math.trunc(x);
  return x >= 0 && x <= upper ? x : x % 2 ** bits;
};
const toObject = (v, opts) => {
  if (idlType(v) !== "Object") throw idlError("is not an object.", opts);
  return v;
};
const toAlgorithmIdentifier = (v, opts) => (idlType(v) === "Object" ? toObject(v, opts) : toDOMString(v, opts));
const toCryptoKey = (v, opts) => {
  if (!keySlots.has(v)) throw idlError("is not of type CryptoKey.", opts);
  return v;
};
const toUint8Array = (v, opts) => {
  if (!(v instanceof Uint8Array)) throw idlError("is not an Uint8Array object.", opts);
  return v;
};
const toEnum = (name, values) => (v, opts) => {
  const s = toDOMString(v, opts);
  if (!values.includes(s)) throw idlError(`value '${s}' is not a valid enum value of type ${name}.`, opts, "ERR_INVALID_ARG_VALUE");
  return s;
};
const toKeyFormat = toEnum("KeyFormat", KEY_FORMATS);
const toKeyUsage = toEnum("KeyUsage", KEY_USAGES);
const toSequence = (conv) => (v, opts) => {
  const iter = idlType(v) === "Object" ? v[Symbol.iterator]?.() : undefined;
  if (iter === undefined) throw idlError("can not be converted to sequence.", opts);
  const out = [];
  for (;;) {
    const res = iter?.next?.();
    if (res === undefined) throw idlError("can not be converted to sequence.", opts);
    if (res.done === true) break;
    out.push(conv(res.value, { ...opts, context: `${opts.context}, index ${out.length}` }));
  }
  return out;
};
const toUsages = toSequence(toKeyUsage);
const toStrings = toSequence(toDOMString);

// Dictionaries: [member, converter, required], sorted by member as Node
// checks them.
const U32 = integer(32, true), U16 = integer(16, true), U8 = integer(8, true);
const DICTS = {
  Algorithm: [["name", toDOMString, true]],
  RsaHashedKeyGenParams: [["hash", toAlgorithmIdentifier, true], ["modulusLength", U32, true], ["name", toDOMString, true], ["publicExponent", toUint8Array, true]],
  RsaHashedImportParams: [["hash", toAlgorithmIdentifier, true], ["name", toDOMString, true]],
  EcKeyImportParams: [["name", toDOMString, true], ["namedCurve", toDOMString, true]],
  EcKeyGenParams: [["name", toDOMString, true], ["namedCurve", toDOMString, true]],
  AesKeyGenParams: [["length", U16, true], ["name", toDOMString, true]],
  HmacKeyGenParams: [["hash", toAlgorithmIdentifier, true], ["length", U32, false], ["name", toDOMString, true]],
  RsaPssParams: [["name", toDOMString, true], ["saltLength", U32, true]],
  EcdsaParams: [["hash", toAlgorithmIdentifier, true], ["name", toDOMString, true]],
  HmacImportParams: [["hash", toAlgorithmIdentifier, true], ["length", U32, false], ["name", toDOMString, true]],
  HkdfParams: [["hash", toAlgorithmIdentifier, true], ["info", toBufferSource, true], ["name", toDOMString, true], ["salt", toBufferSource, true]],
  Pbkdf2Params: [["hash", toAlgorithmIdentifier, true], ["iterations", U32, true], ["name", toDOMString, true], ["salt", toBufferSource, true]],
  AesDerivedKeyParams: [["length", U16, true], ["name", toDOMString, true]],
  AesCbcParams: [["iv", toBufferSource, true], ["name", toDOMString, true]],
  AesGcmParams: [["additionalData", toBufferSource, false], ["iv", toBufferSource, true], ["name", toDOMString, true], ["tagLength", U8, false]],
  AesCtrParams: [["counter", toBufferSource, true], ["length", U8, true], ["name", toDOMString, true]],
  EcdhKeyDeriveParams: [["name", toDOMString, true], ["public", toCryptoKey, true]],
};
const toDictionary = (name, v, opts) => {
  const t = idlType(v);
  if (t !== "undefined" && t !== "Null" && t !== "Object") throw idlError("can not be converted to a dictionary", opts);
  const out = {};
  for (const [key, conv, required] of DICTS[name]) {
    const value = t === "Object" ? v[key] : undefined;
    if (value !== undefined) {
      out[key] = conv(value, { ...opts, context: `'${key}' of '${name}'${opts.context ? ` (${opts.context})` : ""}` });
    } else if (required) {
      throw idlError(`can not be converted to '${name}' because '${key}' is required in '${name}'.`, opts, "ERR_MISSING_OPTION");
    }
  }
  return out;
};
// What each operation accepts, and the dictionary of its parameters
// (lib/internal/crypto/util.js, kSupportedAlgorithms).
const SUPPORTED = {
  digest: { "SHA-1": null, "SHA-256": null, "SHA-384": null, "SHA-512": null },
  generateKey: { "RSASSA-PKCS1-v1_5": "RsaHashedKeyGenParams", "RSA-PSS": "RsaHashedKeyGenParams", "ECDSA": "EcKeyGenParams",
    "ECDH": "EcKeyGenParams", "AES-CTR": "AesKeyGenParams", "AES-CBC": "AesKeyGenParams", "AES-GCM": "AesKeyGenParams",
    "HMAC": "HmacKeyGenParams", "Ed25519": null },
  sign: { "RSASSA-PKCS1-v1_5": null, "RSA-PSS": "RsaPssParams", "ECDSA": "EcdsaParams", "HMAC": null, "Ed25519": null },
  importKey: { "RSASSA-PKCS1-v1_5": "RsaHashedImportParams", "RSA-PSS": "RsaHashedImportParams", "ECDSA": "EcKeyImportParams",
    "ECDH": "EcKeyImportParams", "HMAC": "HmacImportParams", "HKDF": null, "PBKDF2": null, "AES-CTR": null, "AES-CBC": null,
    "AES-GCM": null, "Ed25519": null },
  deriveBits: { "HKDF": "HkdfParams", "PBKDF2": "Pbkdf2Params", "ECDH": "EcdhKeyDeriveParams" },
  encrypt: { "AES-CBC": "AesCbcParams", "AES-GCM": "AesGcmParams", "AES-CTR": "AesCtrParams" },
  "get key length": { "AES-CBC": "AesDerivedKeyParams", "AES-CTR": "AesDerivedKeyParams", "AES-GCM": "AesDerivedKeyParams",
    "HMAC": "HmacImportParams", "HKDF": null, "PBKDF2": null },
};
SUPPORTED.wrapKey = { "AES-KW": null };
SUPPORTED.verify = SUPPORTED.sign;
SUPPORTED.decrypt = SUPPORTED.encrypt;
const NORMALIZE = { prefix: "Failed to normalize algorithm", context: "passed algorithm" };
const copyBytes = (v) => (ArrayBuffer.isView(v) && !(v instanceof DataView)
  ? new Uint8Array(new Uint8Array(taBuffer.call(v), taByteOffset.call(v), taByteLength.call(v)))
  : new Uint8Array(bytesOf(v)));
function normalizeAlgorithm(algorithm, op) {
  if (typeof algorithm === "string") return normalizeAlgorithm({ name: algorithm }, op);
  let name = toDictionary("Algorithm", algorithm, NORMALIZE).name;
  let dict;
  for (const key of Object.keys(SUPPORTED[op])) {
    if (key.toUpperCase() === name.toUpperCase()) {
      name = key;
      dict = SUPPORTED[op][key];
    }
  }
  if (dict === undefined) throw new DOMException("Unrecognized algorithm name", "NotSupportedError");
  if (dict === null) return { name };
  const out = toDictionary(dict, algorithm, NORMALIZE);
  out.name = name;
  for (const [key, conv] of DICTS[dict]) {
    if (conv === toBufferSource && out[key]) out[key] = copyBytes(out[key]);
    else if (key === "hash") out.hash = normalizeAlgorithm(out.hash, "digest");
  }
  return out;
}

// ---- the host -------------------------------------------------------------
const hexOf = (b) => {
  let s = "";
  for (let i = 0; i < b.length; i++) s += HEX[b[i]];
  return s;
};
const tooLarge = (what) => new DOMException(`${what} is larger than ${SUBTLE_MAX_DATA} bytes, the limit of one crypto.subtle operation in airlock (docs/limits.md)`, "QuotaExceededError");
const checkSize = (b, what) => {
  if (b !== undefined && b.length > SUBTLE_MAX_DATA) throw tooLarge(what);
  return b;
};
// callHost sends one request with up to two byte arguments and returns the
// answer: bytes (a Uint8Array), JSON, or the DOMException it names thrown.
function callHost(req, data, data2) {
  checkSize(data, "The data");
  checkSize(data2, "The signature");
  const r = jsonStringify(req);
  const a = data === undefined ? host(OP_SUBTLE, r)
    : data2 === undefined ? host(OP_SUBTLE, r, escapeBytes(latin1(data)))
      : host(OP_SUBTLE, r, escapeBytes(latin1(data)), escapeBytes(latin1(data2)));
  const body = a.substring(1);
  switch (a[0]) {
    case "B": return fromByteString(body, new Uint8Array(body.length));
    case "J": return jsonParse(body);
  }
  const e = jsonParse(body);
  throw new DOMException(e.m, e.n);
}
const hexParam = (b, what) => (b === undefined ? undefined : hexOf(checkSize(b, what)));

// ---- key usages and JWK checks (Node's helpers) ---------------------------
const hasAnyNotIn = (set, allowed) => [...set].some((u) => !allowed.includes(u));
const usagesUnion = (set, ...usages) => usages.filter((u) => set.has(u));
const KEY_OPS = new Set(KEY_USAGES);
function validateKeyOps(keyOps, usages) {
  if (keyOps === undefined) return;
  if (!Array.isArray(keyOps)) {
    throw coded(TypeError, `The "keyData.key_ops" property must be an instance of Array.${receivedSuffix(keyOps)}`, "ERR_INVALID_ARG_TYPE");
  }
  const seen = new Set();
  for (const op of keyOps) {
    if (!KEY_OPS.has(op)) continue;
    if (seen.has(op)) throw new DOMException("Duplicate key operation", "DataError");
    seen.add(op);
  }
  for (const u of usages) {
    if (!keyOps.includes(u)) throw new DOMException("Key operations and usage mismatch", "DataError");
  }
}
const receivedSuffix = (x) => ` Received ${received(x)}`;
function checkJwk(jwk, kty, usages, use, extractable) {
  if (!jwk.kty) throw new DOMException("Invalid keyData", "DataError");
  if (jwk.kty !== kty) throw new DOMException('Invalid JWK "kty" Parameter', "DataError");
}
function checkJwkRest(jwk, usages, use, extractable) {
  if (usages.size > 0 && jwk.use !== undefined && jwk.use !== use) {
    throw new DOMException('Invalid JWK "use" Parameter', "DataError");
  }
  validateKeyOps(jwk.key_ops, usages);
  if (jwk.ext !== undefined && jwk.ext === false && extractable === true) {
    throw new DOMException('JWK "ext" Parameter and extractable mismatch', "DataError");
  }
}
const algMismatch = () => new DOMException('JWK "alg" does not match the requested algorithm', "DataError");
const JWK_KEYS = ["kty", "use", "key_ops", "alg", "ext", "crv", "x", "y", "d", "n", "e", "p", "q", "dp", "dq", "qi", "k"];
// The JWK members the host reads, as strings (a member of another type
// makes the key invalid).
const jwkForHost = (jwk) => {
  const out = {};
  for (const m of ["k", "n", "e", "d", "p", "q", "dp", "dq", "qi", "x", "y"]) {
    if (jwk[m] === undefined) continue;
    if (typeof jwk[m] !== "string") throw new DOMException("Invalid keyData", "DataError");
    out[m] = jwk[m];
  }
  return out;
};
const HASH_BITS = { "SHA-1": 160, "SHA-256": 256, "SHA-384": 384, "SHA-512": 512 };
const BLOCK_BITS = { "SHA-1": 512, "SHA-256": 512, "SHA-384": 1024, "SHA-512": 1024 };
const JWK_RSA_ALGS = {
  "RSASSA-PKCS1-v1_5": { "SHA-1": "RS1", "SHA-256": "RS256", "SHA-384": "RS384", "SHA-512": "RS512" },
  "RSA-PSS": { "SHA-1": "PS1", "SHA-256": "PS256", "SHA-384": "PS384", "SHA-512": "PS512" },
};
const JWK_ALG_HASH = { RS1: "SHA-1", RS256: "SHA-256", RS384: "SHA-384", RS512: "SHA-512", PS1: "SHA-1", PS256: "SHA-256",
  PS384: "SHA-384", PS512: "SHA-512", HS1: "SHA-1", HS256: "SHA-256", HS384: "SHA-384", HS512: "SHA-512" };
const AES_JWK = { "AES-CBC": "CBC", "AES-CTR": "CTR", "AES-GCM": "GCM" };

// importKeyNow is importKey after its arguments were converted.
function importKeyNow(format, keyData, algorithm, extractable, keyUsages) {
  const { name } = algorithm;
  const usages = new Set(keyUsages);
  const req = { op: "import", alg: name, fmt: format, ext: extractable, use: [...usages] };
  const jwk = format === "jwk" ? keyData : undefined;
  let data = format === "jwk" ? undefined : copyBytes(keyData);
  let keyAlg;
  const unsupported = (kind) => new DOMException(`Unable to import ${kind} key with format ${format}`, "NotSupportedError");
  switch (name) {
    case "HMAC": {
      if (hasAnyNotIn(usages, ["sign", "verify"])) throw new DOMException("Unsupported key usage for an HMAC key", "SyntaxError");
      req.hash = algorithm.hash.name;
      if (format === "raw") {
        if (data.length === 0 || algorithm.length === 0) throw new DOMException("Zero-length key is not supported", "DataError");
        if (algorithm.length !== undefined && algorithm.length !== data.length * 8) throw new DOMException("Invalid key length", "DataError");
      } else if (format === "jwk") {
        checkJwk(jwk, "oct");
        checkJwkRest(jwk, usages, "sig", extractable);
        if (jwk.alg !== undefined && jwk.alg !== "HS" + algorithm.hash.name.slice(4)) throw algMismatch();
      } else {
        throw new DOMException(`Unable to import HMAC key with format ${format}`);
      }
      keyAlg = (d) => ({ name: "HMAC", hash: algorithm.hash, length: d.len });
      break;
    }
    case "AES-CTR": case "AES-CBC": case "AES-GCM": {
      if (hasAnyNotIn(usages, ["wrapKey", "unwrapKey", "encrypt", "decrypt"])) throw new DOMException("Unsupported key usage for an AES key", "SyntaxError");
      if (format === "raw") {
        if (![16, 24, 32].includes(data.length)) throw new DOMException("Invalid key length", "DataError");
      } else if (format === "jwk") {
        checkJwk(jwk, "oct");
        checkJwkRest(jwk, usages, "enc", extractable);
      } else {
        throw unsupported("AES");
      }
      keyAlg = (d) => ({ name, length: d.len });
      break;
    }
    case "PBKDF2": case "HKDF": {
      if (extractable) throw new DOMException(`${name} keys are not extractable`, "SyntaxError");
      if (hasAnyNotIn(usages, ["deriveKey", "deriveBits"])) throw new DOMException(`Unsupported key usage for a ${name} key`, "SyntaxError");
      if (format !== "raw") throw unsupported(name);
      keyAlg = () => ({ name });
      break;
    }
    case "RSASSA-PKCS1-v1_5": case "RSA-PSS": {
      const verifyUse = (isPublic) => {
        if (hasAnyNotIn(usages, isPublic ? ["verify"] : ["sign"])) throw new DOMException(`Unsupported key usage for an ${name} key`, "SyntaxError");
      };
      req.hash = algorithm.hash.name;
      if (format === "spki" || format === "pkcs8") {
        verifyUse(format === "spki");
      } else if (format === "jwk") {
        checkJwk(jwk, "RSA");
        verifyUse(jwk.d === undefined);
        checkJwkRest(jwk, usages, "sig", extractable);
        if (jwk.alg !== undefined && JWK_ALG_HASH[jwk.alg] !== algorithm.hash.name) throw algMismatch();
      } else {
        throw unsupported("RSA");
      }
      keyAlg = (d) => ({ name, modulusLength: d.mod, publicExponent: hexBytes(d.exp), hash: algorithm.hash });
      break;
    }
    case "ECDSA": case "ECDH": {
      const { namedCurve } = algorithm;
      if (!["P-256", "P-384", "P-521"].includes(namedCurve)) throw new DOMException("Unrecognized namedCurve", "NotSupportedError");
      const verifyUse = (isPublic) => {
        const allowed = name === "ECDH" ? (isPublic ? [] : ["deriveKey", "deriveBits"]) : isPublic ? ["verify"] : ["sign"];
        if (hasAnyNotIn(usages, allowed)) throw new DOMException(`Unsupported key usage for a ${name} key`, "SyntaxError");
      };
      req.curve = namedCurve;
      if (format === "jwk") {
        checkJwk(jwk, "EC");
        if (jwk.crv !== namedCurve) throw new DOMException('JWK "crv" does not match the requested algorithm', "DataError");
        verifyUse(jwk.d === undefined);
        checkJwkRest(jwk, usages, name === "ECDH" ? "enc" : "sig", extractable);
        if (name === "ECDSA" && jwk.alg !== undefined && { ES256: "P-256", ES384: "P-384", ES512: "P-521" }[jwk.alg] !== namedCurve) throw algMismatch();
      } else {
        verifyUse(format !== "pkcs8");
      }
      keyAlg = () => ({ name, namedCurve });
      break;
    }
    case "Ed25519": {
      const verifyUse = (isPublic) => {
        if (hasAnyNotIn(usages, isPublic ? ["verify"] : ["sign"])) throw new DOMException("Unsupported key usage for a Ed25519 key", "SyntaxError");
      };
      if (format === "jwk") {
        checkJwk(jwk, "OKP");
        if (jwk.crv !== name) throw new DOMException('JWK "crv" Parameter and algorithm name mismatch', "DataError");
        checkJwkRest(jwk, usages, "sig", extractable);
        if (jwk.alg !== undefined && jwk.alg !== name && jwk.alg !== "EdDSA") throw algMismatch();
        if (jwk.d !== undefined && typeof jwk.x !== "string") throw new DOMException("Invalid JWK", "DataError");
        verifyUse(jwk.d === undefined);
      } else {
        verifyUse(format !== "pkcs8");
      }
      keyAlg = () => ({ name });
      break;
    }
    default:
      throw new DOMException("Unrecognized algorithm name", "NotSupportedError");
  }
  if (jwk !== undefined) req.jwk = jwkForHost(jwk);
  const [d] = callHost(req, data);
  const key = newKey(d.h, d.type, extractable, keyAlg(d), keyUsages);
  if ((d.type === "secret" || d.type === "private") && keyUsages.length === 0) {
    throw new DOMException(`Usages cannot be empty when importing a ${d.type} key.`, "SyntaxError");
  }
  if (name.startsWith("AES-") && format === "jwk" && jwk.alg !== undefined && jwk.alg !== `A${d.len}${AES_JWK[name]}`) throw algMismatch();
  return key;
}
const hexBytes = (s) => {
  const b = new Uint8Array(s.length / 2);
  for (let i = 0; i < b.length; i++) b[i] = parseInt(s.substr(2 * i, 2), 16);
  return b;
};
const keyOf = (k) => keySlots.get(k);

function exportKeyNow(format, key) {
  const s = keyOf(key);
  if (!s.extractable) throw new DOMException("key is not extractable", "InvalidAccessException");
  const name = s.algorithm.name;
  if (format !== "jwk") {
    const ok = format === "raw" ? s.type === "secret" && name !== "PBKDF2" && name !== "HKDF" || s.type === "public" && name !== "RSASSA-PKCS1-v1_5" && name !== "RSA-PSS"
      : format === "spki" ? s.type === "public" : s.type === "private";
    if (!ok) throw new DOMException(`Unable to export a ${format === "pkcs8" ? "pkcs8" : "raw"} ${name} ${s.type} key`, "InvalidAccessError");
    return callHost({ op: "export", key: s.h, fmt: format }).buffer;
  }
  if (name === "PBKDF2" || name === "HKDF") throw new DOMException("Not yet supported", "NotSupportedError");
  const jwk = { key_ops: s.usages, ext: s.extractable };
  for (const [k, v] of callHost({ op: "export", key: s.h, fmt: "jwk" })) jwk[k] = v;
  switch (name) {
    case "RSASSA-PKCS1-v1_5": case "RSA-PSS": jwk.alg = JWK_RSA_ALGS[name][s.algorithm.hash.name]; break;
    case "Ed25519": jwk.alg = name; break;
    case "AES-CTR": case "AES-CBC": case "AES-GCM": jwk.alg = `A${s.algorithm.length}${AES_JWK[name]}`; break;
    case "HMAC": jwk.alg = "HS" + s.algorithm.hash.name.slice(4); break;
  }
  return jwk;
}

function generateKeyNow(algorithm, extractable, keyUsages) {
  const { name } = algorithm;
  const usages = new Set(keyUsages);
  const req = { op: "generate", alg: name, ext: extractable };
  let result;
  const pair = (pubUse, privUse, alg) => {
    req.use = privUse;
    req.pubUse = pubUse;
    const [pub, priv] = callHost(req);
    const a = alg(pub);
    return { __proto__: null, publicKey: newKey(pub.h, "public", true, a, pubUse), privateKey: newKey(priv.h, "private", extractable, a, privUse) };
  };
  switch (name) {
    case "HMAC": case "AES-CTR": case "AES-CBC": case "AES-GCM": {
      let { length } = algorithm;
      if (name === "HMAC") {
        if (length === undefined) length = BLOCK_BITS[algorithm.hash.name];
        if (typeof length !== "number") {
          throw coded(TypeError, `The "algorithm.length" property must be of type number.${receivedSuffix(length)}`, "ERR_INVALID_ARG_TYPE");
        }
        if (length < 0) throw coded(RangeError, `The value of "algorithm.length" is out of range. It must be > 0. Received ${length}`, "ERR_OUT_OF_RANGE");
        if (length % 8) throw coded(TypeError, `The property 'algorithm.length' must be a multiple of 8. Received ${length}`, "ERR_INVALID_ARG_VALUE");
        if (hasAnyNotIn(usages, ["sign", "verify"])) throw new DOMException("Unsupported key usage for an HMAC key", "SyntaxError");
        if (length === 0 || length > 8 * SUBTLE_MAX_DATA) throw new DOMException("The operation failed for an operation-specific reason", "OperationError");
        req.hash = algorithm.hash.name;
      } else {
        if (![128, 192, 256].includes(length)) throw new DOMException("AES key length must be 128, 192, or 256 bits", "OperationError");
        if (hasAnyNotIn(usages, ["wrapKey", "unwrapKey", "encrypt", "decrypt"])) throw new DOMException("Unsupported key usage for an AES key", "SyntaxError");
      }
      req.len = length;
      req.use = [...usages];
      const [d] = callHost(req);
      const alg = name === "HMAC" ? { name, length, hash: { name: algorithm.hash.name } } : { name, length };
      result = newKey(d.h, "secret", extractable, alg, [...usages]);
      if (result.usages.length === 0) throw new DOMException("Usages cannot be empty when creating a key.", "SyntaxError");
      return result;
    }
    case "ECDSA": case "ECDH": {
      const { namedCurve } = algorithm;
      if (!["P-256", "P-384", "P-521"].includes(namedCurve)) throw new DOMException("Unrecognized namedCurve", "NotSupportedError");
      const allowed = name === "ECDSA" ? ["sign", "verify"] : ["deriveKey", "deriveBits"];
      if (hasAnyNotIn(usages, allowed)) throw new DOMException(`Unsupported key usage for an ${name} key`, "SyntaxError");
      req.curve = namedCurve;
      result = name === "ECDSA" ? pair(usagesUnion(usages, "verify"), usagesUnion(usages, "sign"), () => ({ name, namedCurve }))
        : pair([], usagesUnion(usages, "deriveKey", "deriveBits"), () => ({ name, namedCurve }));
      break;
    }
    case "Ed25519":
      if (hasAnyNotIn(usages, ["sign", "verify"])) throw new DOMException(`Unsupported key usage for an ${name} key`, "SyntaxError");
      result = pair(usagesUnion(usages, "verify"), usagesUnion(usages, "sign"), () => ({ name }));
      break;
    case "RSASSA-PKCS1-v1_5": case "RSA-PSS": {
      const { modulusLength, publicExponent, hash } = algorithm;
      if (publicExponent.length > 4 && publicExponent.subarray(0, publicExponent.length - 4).some((b) => b !== 0)) {
        throw new DOMException("The publicExponent must be equivalent to an unsigned 32-bit value", "OperationError");
      }
      if (hasAnyNotIn(usages, ["sign", "verify"])) throw new DOMException("Unsupported key usage for a RSA key", "SyntaxError");
      let e = 0;
      for (const b of publicExponent) e = e * 256 + b;
      req.mod = modulusLength;
      req.exp = e === 65537 ? "010001" : e.toString(16);
      req.hash = hash.name;
      result = pair(usagesUnion(usages, "verify"), usagesUnion(usages, "sign"),
        () => ({ name, modulusLength, publicExponent, hash: { name: hash.name } }));
      break;
    }
    default:
      throw new DOMException("Unrecognized algorithm name", "NotSupportedError");
  }
  if (result.privateKey.usages.length === 0) throw new DOMException("Usages cannot be empty when creating a key.", "SyntaxError");
  return result;
}

function signVerifyNow(algorithm, key, data, signature) {
  const usage = signature === undefined ? "sign" : "verify";
  algorithm = normalizeAlgorithm(algorithm, usage);
  const s = keyOf(key);
  if (!s.usages.includes(usage) || algorithm.name !== s.algorithm.name) {
    throw new DOMException(`Unable to use this key to ${usage}`, "InvalidAccessError");
  }
  const want = usage === "sign" ? "private" : "public";
  if (algorithm.name !== "HMAC" && s.type !== want) throw new DOMException(`Key must be a ${want} key`, "InvalidAccessError");
  const req = { op: usage, alg: algorithm.name, key: s.h };
  if (algorithm.name === "ECDSA") req.hash = algorithm.hash.name;
  if (algorithm.name === "RSA-PSS") {
    const max = Math.ceil((s.algorithm.modulusLength - 1) / 8) - HASH_BITS[s.algorithm.hash.name] / 8 - 2;
    // Node checks it inside its job, which reports any error as this one.
    if (algorithm.saltLength > max) throw new DOMException("The operation failed for an operation-specific reason", "OperationError");
    req.saltLength = algorithm.saltLength;
  }
  const out = callHost(req, copyBytes(data), signature === undefined ? undefined : copyBytes(signature));
  return usage === "sign" ? out.buffer : out;
}

// cipherNow encrypts (op "encrypt") or decrypts with a normalized
// algorithm, for usage (op itself, or wrapKey, unwrapKey).
function cipherNow(op, algorithm, key, data, usage = op) {
  const s = keyOf(key);
  if (s.algorithm.name !== algorithm.name || !s.usages.includes(usage)) {
    throw new DOMException("The requested operation is not valid for the provided key", "InvalidAccessError");
  }
  const req = { op, alg: algorithm.name, key: s.h, wrap: usage !== op };
  data = copyBytes(data);
  switch (algorithm.name) {
    case "AES-CTR":
      if (algorithm.counter.length !== 16) {
        throw new DOMException("algorithm.counter must contain exactly 16 bytes", "OperationError");
      }
      if (algorithm.length === 0 || algorithm.length > 128) throw new DOMException("AES-CTR algorithm.length must be between 1 and 128", "OperationError");
      req.iv = hexOf(algorithm.counter);
      req.len = algorithm.length;
      break;
    case "AES-CBC":
      if (algorithm.iv.length !== 16) {
        throw new DOMException("algorithm.iv must contain exactly 16 bytes", "OperationError");
      }
      req.iv = hexOf(algorithm.iv);
      break;
    case "AES-GCM": {
      const tagLength = algorithm.tagLength ?? 128;
      if (![32, 64, 96, 104, 112, 120, 128].includes(tagLength)) {
        throw new DOMException(`${tagLength} is not a valid AES-GCM tag length`, "OperationError");
      }
      req.iv = hexParam(algorithm.iv, "The iv");
      req.aad = hexParam(algorithm.additionalData, "The additionalData");
      req.tag = tagLength;
      if (op === "decrypt" && data.length < tagLength / 8) throw new DOMException("The provided data is too small.", "OperationError");
      break;
    }
  }
  return callHost(req, data).buffer;
}

function deriveBitsNow(algorithm, baseKey, length) {
  const s = keyOf(baseKey);
  const name = algorithm.name;
  const req = { op: "derive", alg: name, key: s.h };
  if (name === "ECDH") {
    const pub = keyOf(algorithm.public);
    if (pub.type !== "public") throw new DOMException("algorithm.public must be a public key", "InvalidAccessError");
    if (s.type !== "private") throw new DOMException("baseKey must be a private key", "InvalidAccessError");
    if (pub.algorithm.name !== "ECDH" && pub.algorithm.name !== "X25519" && pub.algorithm.name !== "X448") {
      throw new DOMException("Keys must be ECDH, X25519, or X448 keys", "InvalidAccessError");
    }
    if (pub.algorithm.name !== s.algorithm.name) throw new DOMException("The public and private keys must be of the same type", "InvalidAccessError");
    if (pub.algorithm.namedCurve !== s.algorithm.namedCurve) throw new DOMException("Named curve mismatch", "InvalidAccessError");
    req.pub = pub.h;
    const bits = callHost(req);
    if (length === null) return bits.buffer;
    const n = Math.ceil(length / 8);
    if (bits.length < n) throw new DOMException("derived bit length is too small", "OperationError");
    const out = bits.slice(0, n);
    if (length % 8) out[n - 1] &= (0xff00 >> (length % 8)) & 0xff;
    return out.buffer;
  }
  if (name === "PBKDF2" && algorithm.iterations === 0) throw new DOMException("iterations cannot be zero", "OperationError");
  if (length === 0) return new ArrayBuffer(0);
  if (length === null) throw new DOMException("length cannot be null", "OperationError");
  if (length % 8) throw new DOMException("length must be a multiple of 8", "OperationError");
  if (length / 8 > SUBTLE_MAX_DATA) throw tooLarge("The derived length");
  req.len = length;
  req.hash = algorithm.hash.name;
  req.salt = hexParam(algorithm.salt, "The salt");
  if (name === "HKDF") {
    req.info = hexParam(algorithm.info, "The info");
    if (length / 8 > 255 * HASH_BITS[req.hash] / 8) throw new DOMException("The operation failed for an operation-specific reason", "OperationError");
  } else {
    req.iter = algorithm.iterations;
  }
  return callHost(req).buffer;
}

const ORDINAL = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th"];
const methodOpts = (prefix) => (i) => ({ prefix, context: `${ORDINAL[i]} argument` });
function importKeyArgs(a, prefix, opts) {
  requiredArgs(a.length, 4, prefix);
  const format = toKeyFormat(a[0], opts(0));
  const keyData = format === "jwk" ? toJsonWebKey(a[1], opts(1)) : toBufferSource(a[1], opts(1));
  const algorithm = toAlgorithmIdentifier(a[2], opts(2));
  const extractable = !!a[3];
  const usages = toUsages(a[4], opts(4));
  return importKeyNow(format, keyData, normalizeAlgorithm(algorithm, "importKey"), extractable, usages);
}
// wrapAlgorithm normalizes a key-wrapping algorithm as Node does: as a
// wrapping-only algorithm (AES-KW, for which no key can exist here), else
// for encrypt or decrypt.
const wrapAlgorithm = (algorithm, cipherOp) => {
  try {
    return normalizeAlgorithm(algorithm, "wrapKey");
  } catch (_) {
    return normalizeAlgorithm(algorithm, cipherOp);
  }
};
const jsonEncoder = new TextEncoder();
// method defines a SubtleCrypto method: its body runs inside a promise, as
// Node's async functions do, so every error rejects it.
const METHOD_LENGTHS = { importKey: 5, exportKey: 2, generateKey: 3, sign: 3, verify: 4, encrypt: 3, decrypt: 3, deriveBits: 2,
  deriveKey: 5, wrapKey: 4, unwrapKey: 7 };
const subtleMethod = (name, fn) => {
  const method = { [name](...args) {
    return new Promise((resolve) => {
      if (this !== subtle) throw invalidThis("SubtleCrypto");
      const prefix = `Failed to execute '${name}' on 'SubtleCrypto'`;
      resolve(fn(args, prefix, methodOpts(prefix)));
    });
  } }[name];
  Object.defineProperty(method, "length", { value: METHOD_LENGTHS[name], configurable: true });
  return { value: method, writable: true, enumerable: true, configurable: true };
};

// Node's order of the methods, digest (43-crypto.js) among them.
const digestMethod = Object.getOwnPropertyDescriptor(SubtleCrypto.prototype, "digest");
delete SubtleCrypto.prototype.digest;
const subtleMethods = {
  importKey: subtleMethod("importKey", importKeyArgs),
  exportKey: subtleMethod("exportKey", (a, prefix, opts) => {
    requiredArgs(a.length, 2, prefix);
    const format = toKeyFormat(a[0], opts(0));
    return exportKeyNow(format, toCryptoKey(a[1], opts(1)));
  }),
  generateKey: subtleMethod("generateKey", (a, prefix, opts) => {
    requiredArgs(a.length, 3, prefix);
    const algorithm = toAlgorithmIdentifier(a[0], opts(0));
    const extractable = !!a[1];
    const usages = toUsages(a[2], opts(2));
    return generateKeyNow(normalizeAlgorithm(algorithm, "generateKey"), extractable, usages);
  }),
  sign: subtleMethod("sign", (a, prefix, opts) => {
    requiredArgs(a.length, 3, prefix);
    const algorithm = toAlgorithmIdentifier(a[0], opts(0));
    const key = toCryptoKey(a[1], opts(1));
    return signVerifyNow(algorithm, key, toBufferSource(a[2], opts(2)));
  }),
  verify: subtleMethod("verify", (a, prefix, opts) => {
    requiredArgs(a.length, 4, prefix);
    const algorithm = toAlgorithmIdentifier(a[0], opts(0));
    const key = toCryptoKey(a[1], opts(1));
    const signature = toBufferSource(a[2], opts(2));
    return signVerifyNow(algorithm, key, toBufferSource(a[3], opts(3)), signature);
  }),
  encrypt: subtleMethod("encrypt", (a, prefix, opts) => {
    requiredArgs(a.length, 3, prefix);
    const algorithm = toAlgorithmIdentifier(a[0], opts(0));
    const key = toCryptoKey(a[1], opts(1));
    return cipherNow("encrypt", normalizeAlgorithm(algorithm, "encrypt"), key, toBufferSource(a[2], opts(2)));
  }),
  decrypt: subtleMethod("decrypt", (a, prefix, opts) => {
    requiredArgs(a.length, 3, prefix);
    const algorithm = toAlgorithmIdentifier(a[0], opts(0));
    const key = toCryptoKey(a[1], opts(1));
    return cipherNow("decrypt", normalizeAlgorithm(algorithm, "decrypt"), key, toBufferSource(a[2], opts(2)));
  }),
  deriveBits: subtleMethod("deriveBits", (a, prefix, opts) => {
    requiredArgs(a.length, 2, prefix);
    const algorithm = toAlgorithmIdentifier(a[0], opts(0));
    const baseKey = toCryptoKey(a[1], opts(1));
    let length = a.length > 2 && a[2] !== undefined ? a[2] : null;
    if (length !== null) length = integer(32, false)(length, opts(2));
    const alg = normalizeAlgorithm(algorithm, "deriveBits");
    const s = keyOf(baseKey);
    if (!s.usages.includes("deriveBits")) throw new DOMException("baseKey does not have deriveBits usage", "InvalidAccessError");
    if (s.algorithm.name !== alg.name) throw new DOMException("Key algorithm mismatch", "InvalidAccessError");
    return deriveBitsNow(alg, baseKey, length);
  }),
  deriveKey: subtleMethod("deriveKey", (a, prefix, opts) => {
    requiredArgs(a.length, 5, prefix);
    const algorithm = toAlgorithmIdentifier(a[0], opts(0));
    const baseKey = toCryptoKey(a[1], opts(1));
    const derived = toAlgorithmIdentifier(a[2], opts(2));
    const extractable = !!a[3];
    const usages = toUsages(a[4], opts(4));
    const alg = normalizeAlgorithm(algorithm, "deriveBits");
    const derivedAlg = normalizeAlgorithm(derived, "importKey");
    const s = keyOf(baseKey);
    if (!s.usages.includes("deriveKey")) throw new DOMException("baseKey does not have deriveKey usage", "InvalidAccessError");
    if (s.algorithm.name !== alg.name) throw new DOMException("Key algorithm mismatch", "InvalidAccessError");
    const length = keyLength(normalizeAlgorithm(derived, "get key length"));
    const bits = deriveBitsNow(alg, baseKey, length);
    return importKeyNow("raw", bits, derivedAlg, extractable, usages);
  }),
  wrapKey: subtleMethod("wrapKey", (a, prefix, opts) => {
    requiredArgs(a.length, 4, prefix);
    const format = toKeyFormat(a[0], opts(0));
    const key = toCryptoKey(a[1], opts(1));
    const wrappingKey = toCryptoKey(a[2], opts(2));
    const algorithm = wrapAlgorithm(toAlgorithmIdentifier(a[3], opts(3)), "encrypt");
    let keyData = exportKeyNow(format, key);
    keyData = format === "jwk" ? jsonEncoder.encode(jsonStringify(keyData)) : keyData;
    return cipherNow("encrypt", algorithm, wrappingKey, keyData, "wrapKey");
  }),
  unwrapKey: subtleMethod("unwrapKey", (a, prefix, opts) => {
    requiredArgs(a.length, 7, prefix);
    const format = toKeyFormat(a[0], opts(0));
    const wrapped = toBufferSource(a[1], opts(1));
    const unwrappingKey = toCryptoKey(a[2], opts(2));
    const algorithm = toAlgorithmIdentifier(a[3], opts(3));
    const keyAlgorithm = toAlgorithmIdentifier(a[4], opts(4));
    const extractable = !!a[5];
    const usages = toUsages(a[6], opts(6));
    let keyData = cipherNow("decrypt", wrapAlgorithm(algorithm, "decrypt"), unwrappingKey, wrapped, "unwrapKey");
    if (format === "jwk") {
      try {
        keyData = jsonParse(new TextDecoder("utf-8", { fatal: true }).decode(keyData));
      } catch (_) {
        throw new DOMException("Invalid wrapped JWK key", "DataError");
      }
    }
    const p = "Failed to execute 'importKey' on 'SubtleCrypto'";
    return importKeyArgs([format, keyData, keyAlgorithm, extractable, usages], p, methodOpts(p));
  }),
};
Object.defineProperties(SubtleCrypto.prototype, Object.fromEntries(["encrypt", "decrypt", "sign", "verify", "digest",
  "generateKey", "deriveKey", "deriveBits", "importKey", "exportKey", "wrapKey", "unwrapKey"].map((m) =>
  [m, m === "digest" ? digestMethod : subtleMethods[m]])));

function keyLength({ name, length, hash }) {
  switch (name) {
    case "AES-CTR": case "AES-CBC": case "AES-GCM":
      if (length !== 128 && length !== 192 && length !== 256) throw new DOMException("Invalid key length", "OperationError");
      return length;
    case "HMAC":
      if (length === undefined) return BLOCK_BITS[hash?.name];
      if (typeof length === "number" && length !== 0) return length;
      throw new DOMException("Invalid key length", "OperationError");
  }
  return null;
}

// toJsonWebKey converts a JWK dictionary: its known members (Node checks
// key_ops as strings and ext as a boolean), the rest dropped.
function toJsonWebKey(v, opts) {
  const t = idlType(v);
  if (t !== "undefined" && t !== "Null" && t !== "Object") throw idlError("can not be converted to a dictionary", opts);
  const out = {};
  if (t !== "Object") return out;
  for (const key of [...JWK_KEYS].sort()) {
    const value = v[key];
    if (value === undefined) continue;
    const o = { ...opts, context: `'${key}' of 'JsonWebKey'${opts.context ? ` (${opts.context})` : ""}` };
    out[key] = key === "key_ops" ? toStrings(value, o) : key === "ext" ? !!value : toDOMString(value, o);
  }
  return out;
}

web("CryptoKey", CryptoKey);
