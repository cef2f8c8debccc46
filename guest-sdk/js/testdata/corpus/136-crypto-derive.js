// PBKDF2 (RFC 6070), HKDF (RFC 5869) and deriveKey.
const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)));
const enc = new TextEncoder();
const subtle = crypto.subtle;
const pw = await subtle.importKey("raw", enc.encode("password"), "PBKDF2", false, ["deriveBits", "deriveKey"]);
const out = {};
out.pbkdf2_1 = hex(await subtle.deriveBits({ name: "PBKDF2", hash: "SHA-1", salt: enc.encode("salt"), iterations: 1 }, pw, 160));
out.pbkdf2_4096 = hex(await subtle.deriveBits({ name: "PBKDF2", hash: "SHA-1", salt: enc.encode("salt"), iterations: 4096 }, pw, 160));
out.pbkdf2_256 = hex(await subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 1000 }, pw, 512));
const ikm = await subtle.importKey("raw", unhex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), "HKDF", false, ["deriveBits"]);
out.hkdf = hex(await subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: unhex("000102030405060708090a0b0c"), info: unhex("f0f1f2f3f4f5f6f7f8f9") }, ikm, 42 * 8));
out.hkdfEmpty = hex(await subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new Uint8Array(0) }, ikm, 42 * 8));
const aes = await subtle.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("s"), iterations: 10 }, pw, { name: "AES-GCM", length: 256 }, true, ["encrypt"]);
out.aesAlg = aes.algorithm;
out.aesRaw = hex(await subtle.exportKey("raw", aes));
const mac = await subtle.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("s"), iterations: 10 }, pw, { name: "HMAC", hash: "SHA-384" }, true, ["sign"]);
out.macAlg = mac.algorithm;
out.macRaw = hex(await subtle.exportKey("raw", mac));
out.pwAlg = pw.algorithm;
out.pwExt = pw.extractable;
for (const [what, f] of Object.entries({
  zeroIter: () => subtle.deriveBits({ name: "PBKDF2", hash: "SHA-1", salt: new Uint8Array(1), iterations: 0 }, pw, 8),
  nullLen: () => subtle.deriveBits({ name: "PBKDF2", hash: "SHA-1", salt: new Uint8Array(1), iterations: 1 }, pw),
  oddLen: () => subtle.deriveBits({ name: "HKDF", hash: "SHA-1", salt: new Uint8Array(1), info: new Uint8Array(0) }, ikm, 12),
  noUsage: () => subtle.deriveKey({ name: "HKDF", hash: "SHA-1", salt: new Uint8Array(1), info: new Uint8Array(0) }, ikm, { name: "AES-GCM", length: 128 }, false, ["encrypt"]),
  mismatch: () => subtle.deriveBits({ name: "HKDF", hash: "SHA-1", salt: new Uint8Array(1), info: new Uint8Array(0) }, pw, 8),
  extractable: () => subtle.importKey("raw", enc.encode("x"), "PBKDF2", true, ["deriveBits"]),
  noSalt: () => subtle.deriveBits({ name: "PBKDF2", hash: "SHA-1", iterations: 1 }, pw, 8),
  export: () => subtle.exportKey("raw", pw),
})) {
  try { await f(); out[what] = "no error"; } catch (e) { out[what] = `${e.name}: ${e.message}${e.code ? " " + e.code : ""}`; }
}
return out;
