// Argument conversion errors of crypto.subtle, as Node's Web IDL gives them.
const subtle = crypto.subtle;
const hk = await subtle.importKey("raw", new Uint8Array(16), { name: "hmac", hash: { name: "sha-256" } }, true, ["sign", "verify"]);
const ak = await subtle.importKey("raw", new Uint8Array(16), "aes-gcm", false, ["encrypt", "decrypt"]);
const ck = await subtle.importKey("raw", new Uint8Array(16), "AES-CTR", false, ["encrypt"]);
const pk = await subtle.importKey("raw", new Uint8Array(4), "PBKDF2", false, ["deriveBits"]);
const rk = await subtle.generateKey({ name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, false, ["sign"]);
const out = { hmacAlg: hk.algorithm, aesAlg: ak.algorithm };
const cases = {
  algNumber: () => subtle.sign(5, hk, new Uint8Array(1)),
  algNull: () => subtle.sign(null, hk, new Uint8Array(1)),
  algNoName: () => subtle.sign({}, hk, new Uint8Array(1)),
  usagesNotIterable: () => subtle.importKey("raw", new Uint8Array(16), "AES-GCM", false, 5),
  usagesString: () => subtle.importKey("raw", new Uint8Array(16), "AES-GCM", false, "encrypt"),
  dataString: () => subtle.sign("HMAC", hk, "text"),
  sigArray: () => subtle.verify("HMAC", hk, [1, 2], new Uint8Array(1)),
  ivString: () => subtle.encrypt({ name: "AES-GCM", iv: "abc" }, ak, new Uint8Array(1)),
  tagRange: () => subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12), tagLength: 300 }, ak, new Uint8Array(1)),
  tagNaN: () => subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12), tagLength: NaN }, ak, new Uint8Array(1)),
  jwkString: () => subtle.importKey("jwk", "x", { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  jwkNotBuffer: () => subtle.importKey("raw", { kty: "oct" }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  modulusNegative: () => subtle.generateKey({ name: "RSA-PSS", modulusLength: -1, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign"]),
  exponentArray: () => subtle.generateKey({ name: "RSA-PSS", modulusLength: 2048, publicExponent: [1, 0, 1], hash: "SHA-256" }, true, ["sign"]),
  hmacZero: () => subtle.importKey("raw", new Uint8Array(0), { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  iterNegative: () => subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: new Uint8Array(1), iterations: -1 }, pk, 8),
  badThis: () => subtle.sign.call({}, "HMAC", hk, new Uint8Array(1)),
  ctrZero: () => subtle.encrypt({ name: "AES-CTR", counter: new Uint8Array(16), length: 0 }, ck, new Uint8Array(1)),
  ctrCounter: () => subtle.encrypt({ name: "AES-CTR", counter: new Uint8Array(8), length: 64 }, ck, new Uint8Array(1)),
  pssSalt: () => subtle.sign({ name: "RSA-PSS", saltLength: 300 }, rk.privateKey, new Uint8Array(1)),
  pssNoSalt: () => subtle.sign({ name: "RSA-PSS" }, rk.privateKey, new Uint8Array(1)),
  deriveNoKey: () => subtle.deriveBits({ name: "HKDF" }, null),
  deriveKeyHmacLen0: () => subtle.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: new Uint8Array(1), iterations: 1 }, pk, { name: "HMAC", hash: "SHA-256", length: 0 }, true, ["sign"]),
  exportBadFormat: () => subtle.exportKey("pem", hk),
  exportNoKey: () => subtle.exportKey("raw"),
  verifyHmacShort: () => subtle.verify("HMAC", hk, new Uint8Array(3), new Uint8Array(1)),
  digestStill: () => subtle.digest("sha-1", new Uint8Array(0)).then((b) => b.byteLength),
};
for (const [what, f] of Object.entries(cases)) {
  try { out[what] = await f(); } catch (e) { out[what] = `${e.name}: ${e.message}${e.code !== undefined && e.code !== 0 ? " " + e.code : ""}`; }
}
return out;
