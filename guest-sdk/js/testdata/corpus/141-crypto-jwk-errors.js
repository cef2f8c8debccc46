// Fixed test keys (generated once with Node 20's crypto.subtle).
const KEYS = {"rsaSpki": "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA0exdeNFHiRUzvyrrGV5CKqUzpUdtOWdSD0qX9zlGVOHNDKH07Lxy7ifAs1CzFU/p9zN89K4xSIA1j9y6IckOcopuaj6IbEA+knuBda+s3mdWkHIKaBxeMeYd1LaZMra8ANC1rc6qDyO2IhKAjPTgWgo8v/g0bb0NzweUOla+pY1gFyDVuk9IBKlsaK1U4rbXDvi+/iKkrXxG8D8lxCpcjVyyDY0afSlD87T9+e2veLqWV/QJJodWZjGCTft+GkQ6lqeXDpA+tl+nbFjEF4ECxfN0AzHK6nN2+XWAn3o3PoPn8Sj1aj+eoUS26pkWGhDcwmOuVOVptfOHEMBmDkesDQIDAQAB", "ecSpki": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEUR72jF3HdGicfLmBEztklydI37F1pEvEidcbR9eZNMLxPnEgioJLsuUh8AV94UCNE0qU6bugTn6k461lModPDw==", "ecPkcs8": "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgOPmQ5IeHDfdYunkn5eKu9Ea4X56uK3R6/1V05suD9iihRANCAARRHvaMXcd0aJx8uYETO2SXJ0jfsXWkS8SJ1xtH15k0wvE+cSCKgkuy5SHwBX3hQI0TSpTpu6BOfqTjrWUyh08P", "ec384Jwk": {"key_ops": ["sign"], "ext": true, "kty": "EC", "x": "oaaFU848aZVIi-THL61O6JnaNahrHmRSI_vIeaTxPFxtkiM7FDDII-lYI7kPTE8Q", "y": "sSVg17lMEl3ARBseZ_EIGGSkfcztMjVV5s1zjluoV4rnd0KykopEUZaWH4fBl-PO", "crv": "P-384", "d": "qWevDsuLZAH_dJgiJ1Zxu6kipw9662njeKxJ_FeXwZucEqffF4VRsc6_clYnC971"}, "edJwk": {"key_ops": ["sign"], "ext": true, "crv": "Ed25519", "d": "GIJxuSuFcAJ_2bKVtgrhbZQyW6sTtAN9B3z0JMV_wEM", "x": "5XNCM0iIXJlv6D_bKaH3JuNJmIT926gPNTbdFqfladI", "kty": "OKP", "alg": "Ed25519"}};
// JWK, export and derivation errors of crypto.subtle, as Node gives them.
const subtle = crypto.subtle;
const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const hk = await subtle.importKey("raw", new Uint8Array(16), { name: "HMAC", hash: "SHA-256" }, true, ["sign", "sign", "verify"]);
const rsaPub = await subtle.importKey("spki", bytes(KEYS.rsaSpki), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["verify"]);
const ecdh = await subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
const ecdh384 = await subtle.generateKey({ name: "ECDH", namedCurve: "P-384" }, true, ["deriveBits"]);
const ecdsaPub = await subtle.importKey("spki", bytes(KEYS.ecSpki), { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]);
const hkdf = await subtle.importKey("raw", new Uint8Array(8), "HKDF", false, ["deriveBits", "deriveKey"]);
const ak = await subtle.importKey("raw", new Uint8Array(16), "AES-GCM", false, ["decrypt"]);
const { d, ...ecPubJwk } = KEYS.ec384Jwk;
const out = { usages: hk.usages, jwk: await subtle.exportKey("jwk", hk) };
const cases = {
  rsaJwkAlg: () => subtle.importKey("jwk", { kty: "RSA", n: "AQAB", e: "AQAB", alg: "RS256" }, { name: "RSA-PSS", hash: "SHA-384" }, true, ["verify"]),
  ecJwkUse: () => subtle.importKey("jwk", { ...ecPubJwk, key_ops: undefined, use: "enc" }, { name: "ECDSA", namedCurve: "P-384" }, true, ["verify"]),
  ecJwkCrv: () => subtle.importKey("jwk", { ...ecPubJwk, key_ops: undefined }, { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]),
  ecJwkAlg: () => subtle.importKey("jwk", { ...ecPubJwk, key_ops: undefined, alg: "ES256" }, { name: "ECDSA", namedCurve: "P-384" }, true, ["verify"]),
  dupOps: () => subtle.importKey("jwk", { kty: "oct", k: "AAAA", key_ops: ["sign", "sign"] }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  opsString: () => subtle.importKey("jwk", { kty: "oct", k: "AAAA", key_ops: "sign" }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  noKty: () => subtle.importKey("jwk", { k: "AAAA" }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  octBadK: () => subtle.importKey("jwk", { kty: "oct", k: "" }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  edJwkEdDSA: () => subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: KEYS.edJwk.x, alg: "EdDSA" }, "Ed25519", true, ["verify"]).then((k) => k.type),
  edJwkCrv: () => subtle.importKey("jwk", { kty: "OKP", crv: "X25519", x: KEYS.edJwk.x }, "Ed25519", true, ["verify"]),
  edJwkUse: () => subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: KEYS.edJwk.x, use: "enc" }, "Ed25519", true, ["verify"]),
  rawRsa: () => subtle.exportKey("raw", rsaPub),
  pkcs8Pub: () => subtle.exportKey("pkcs8", rsaPub),
  spkiSecret: () => subtle.exportKey("spki", hk),
  ecdhSign: () => subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["sign"]),
  rsaEncrypt: () => subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["encrypt"]),
  curveUnknown: () => subtle.generateKey({ name: "ECDSA", namedCurve: "P-192" }, true, ["sign"]),
  deriveAes100: () => subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new Uint8Array(0) }, hkdf, { name: "AES-GCM", length: 100 }, true, ["encrypt"]),
  hkdfTooLong: () => subtle.deriveBits({ name: "HKDF", hash: "SHA-1", salt: new Uint8Array(0), info: new Uint8Array(0) }, hkdf, 8 * 20 * 256),
  hkdfMax: () => subtle.deriveBits({ name: "HKDF", hash: "SHA-1", salt: new Uint8Array(0), info: new Uint8Array(0) }, hkdf, 8 * 20 * 255).then((b) => b.byteLength),
  hkdfZero: () => subtle.deriveBits({ name: "HKDF", hash: "SHA-1", salt: new Uint8Array(0), info: new Uint8Array(0) }, hkdf, 0).then((b) => b.byteLength),
  ecdhWithEcdsa: () => subtle.deriveBits({ name: "ECDH", public: ecdsaPub }, ecdh.privateKey, 8),
  ecdhCurves: () => subtle.deriveBits({ name: "ECDH", public: ecdh384.publicKey }, ecdh.privateKey, 8),
  ecdhPublicBase: () => subtle.deriveBits({ name: "ECDH", public: ecdh.publicKey }, ecdh.publicKey, 8),
  gcmShort: () => subtle.decrypt({ name: "AES-GCM", iv: new Uint8Array(12) }, ak, new Uint8Array(15)),
  gcmShortTag: () => subtle.decrypt({ name: "AES-GCM", iv: new Uint8Array(12), tagLength: 32 }, ak, new Uint8Array(4)),
  ecAsEd: () => subtle.importKey("spki", bytes(KEYS.ecSpki), "Ed25519", true, ["verify"]),
  p256AsP384: () => subtle.importKey("pkcs8", bytes(KEYS.ecPkcs8), { name: "ECDH", namedCurve: "P-384" }, true, ["deriveBits"]),
  ecdsaAsEcdh: () => subtle.importKey("pkcs8", bytes(KEYS.ecPkcs8), { name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]).then((k) => [k.algorithm, k.usages]),
};
for (const [what, f] of Object.entries(cases)) {
  try { out[what] = await f(); } catch (e) { out[what] = `${e.name}: ${e.message}${e.code !== undefined && e.code !== 0 ? " " + e.code : ""}`; }
}
return out;
