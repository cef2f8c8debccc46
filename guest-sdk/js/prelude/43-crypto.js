// Part of the prelude: crypto.getRandomValues, crypto.randomUUID and
// crypto.subtle.digest, from the host's random source and hashes (OpRandom,
// OpDigest in ../../ABI.md).
// ---- crypto -------------------------------------------------------------
const OP_RANDOM = 9, OP_DIGEST = 10, MAX_RANDOM = 65536, DIGEST_CHUNK = 1 << 20;
// Captured now: a script that replaces escape or a typed array's length
// getters must get a wrong answer of its own making, not break the protocol.
const escapeBytes = escape;
const typedArrayGetter = (name) => Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), name).get;
const taBuffer = typedArrayGetter("buffer"), taByteOffset = typedArrayGetter("byteOffset"), taByteLength = typedArrayGetter("byteLength");
// Bytes cross as a byte string: byte b is U+00bb, except 0, which is U+0100;
// digest data as escape() writes its latin1 string (ASCII, without NULs).
const fromByteString = (s, out) => {
  for (let i = 0; i < out.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
};
const illegal = () => { throw new TypeError("Illegal constructor"); };
const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  BigInt64Array, BigUint64Array];
let uuidPool = null, uuidAt = 0;
const HEX = Array.from({ length: 256 }, (_, i) => (i < 16 ? "0" : "") + i.toString(16));

function Crypto() { illegal(); }
function SubtleCrypto() { illegal(); }
const subtle = Object.create(SubtleCrypto.prototype);
const crypto = Object.create(Crypto.prototype);
const invalidThis = (type) => coded(TypeError, `Value of "this" must be of type ${type}`, "ERR_INVALID_THIS");

Object.defineProperties(Crypto.prototype, {
  subtle: { get() { if (this !== crypto) throw invalidThis("Crypto"); return subtle; }, enumerable: true, configurable: true },
  getRandomValues: { value: function getRandomValues(data) {
    if (this !== crypto) throw invalidThis("Crypto");
    if (arguments.length < 1) {
      throw coded(TypeError, "Failed to execute 'getRandomValues' on 'Crypto': 1 argument required, but only 0 present.", "ERR_MISSING_ARGS");
    }
    if (!INTEGER_ARRAYS.some((T) => data instanceof T)) {
      throw new DOMException("The data argument must be an integer-type TypedArray", "TypeMismatchError");
    }
    const n = taByteLength.call(data);
    if (n > MAX_RANDOM) throw new DOMException("The requested length exceeds 65,536 bytes", "QuotaExceededError");
    fromByteString(host(OP_RANDOM, n), new Uint8Array(taBuffer.call(data), taByteOffset.call(data), n));
    return data;
  }, writable: true, enumerable: true, configurable: true },
  randomUUID: { value: function randomUUID() {
    if (this !== crypto) throw invalidThis("Crypto");
    if (uuidPool === null || uuidAt === uuidPool.length) {
      uuidPool = fromByteString(host(OP_RANDOM, 256), new Uint8Array(256));
      uuidAt = 0;
    }
    const b = uuidPool.subarray(uuidAt, uuidAt += 16);
    b[6] = b[6] & 0x0f | 0x40;
    b[8] = b[8] & 0x3f | 0x80;
    let s = "";
    for (let i = 0; i < 16; i++) s += (i === 4 || i === 6 || i === 8 || i === 10 ? "-" : "") + HEX[b[i]];
    return s;
  }, writable: true, enumerable: true, configurable: true },
  [Symbol.toStringTag]: { value: "Crypto", configurable: true },
});

const DIGESTS = { __proto__: null, "sha-1": "SHA-1", "sha-256": "SHA-256", "sha-384": "SHA-384", "sha-512": "SHA-512" };
Object.defineProperties(SubtleCrypto.prototype, {
  digest: { value: function digest(algorithm, data) {
    return new Promise((resolve) => {
      if (this !== subtle) throw invalidThis("SubtleCrypto");
      if (arguments.length < 2) {
        throw coded(TypeError, `Failed to execute 'digest' on 'SubtleCrypto': 2 arguments required, but only ${arguments.length} present.`, "ERR_MISSING_ARGS");
      }
      const name = typeof algorithm === "object" && algorithm !== null ? algorithm.name : algorithm;
      if (name === undefined) {
        throw new TypeError("Failed to normalize algorithm: passed algorithm can not be converted to 'Algorithm' because 'name' is required in 'Algorithm'.");
      }
      const alg = DIGESTS[String(name).toLowerCase()];
      if (!isBufferSource(data)) {
        throw coded(TypeError, "Failed to execute 'digest' on 'SubtleCrypto': 2nd argument is not instance of ArrayBuffer, Buffer, TypedArray, or DataView.", "ERR_INVALID_ARG_TYPE");
      }
      if (alg === undefined) throw new DOMException("Unrecognized algorithm name", "NotSupportedError");
      // Copied first, as Web Crypto does; hashed a chunk per host call.
      const b = bytesOf(data).slice();
      let state = "";
      for (let i = 0; ; i += DIGEST_CHUNK) {
        const final = i + DIGEST_CHUNK >= b.length ? 1 : 0;
        state = host(OP_DIGEST, alg, escapeBytes(latin1(b.subarray(i, i + DIGEST_CHUNK))), state, final);
        if (final) break;
      }
      resolve(fromByteString(state, new Uint8Array(state.length)).buffer);
    });
  }, writable: true, enumerable: true, configurable: true },
  [Symbol.toStringTag]: { value: "SubtleCrypto", configurable: true },
});

web("Crypto", Crypto);
web("SubtleCrypto", SubtleCrypto);
nodeGlobal("crypto", crypto);
