// Fixed test keys (generated once with Node 20's crypto.subtle).
const KEYS = {"rsaPkcs8": "MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDR7F140UeJFTO/KusZXkIqpTOlR205Z1IPSpf3OUZU4c0MofTsvHLuJ8CzULMVT+n3M3z0rjFIgDWP3LohyQ5yim5qPohsQD6Se4F1r6zeZ1aQcgpoHF4x5h3UtpkytrwA0LWtzqoPI7YiEoCM9OBaCjy/+DRtvQ3PB5Q6Vr6ljWAXINW6T0gEqWxorVTittcO+L7+IqStfEbwPyXEKlyNXLINjRp9KUPztP357a94upZX9Akmh1ZmMYJN+34aRDqWp5cOkD62X6dsWMQXgQLF83QDMcrqc3b5dYCfejc+g+fxKPVqP56hRLbqmRYaENzCY65U5Wm184cQwGYOR6wNAgMBAAECggEAB9eQ4VnOFpKmcXqIuFSjW6T6wi6iJ64SrHQQq8FlvXeG+bUWKX7bu0ZcZkZ6Pi5TUvMHNLvKJwd1GMf54xe39LLzr3/hCEw5Gi9HdY5HwrIxE2nTNjLzGOGcFS1yGSkm6k/hrZnGFBU1MV4oE7v1Ip/1x4Ud7kiM+sIxeSFy80u8ogfzP+SpyWx9+T8Nrbtmzymn7KdqwlokF8gl3qQf9s5W6R7GgLxN9IO8DZx1pejb5rM9Geh2ll/G4vdLF+h2sIYV0+TEousPiHFz50TXteY7q7Znkb5bFq3RDNVgH1+JlgJWhUXfEHNbYGUF09sYD1XIHhtzI8Z2ZaN2SjOo4QKBgQD4R4bLHmK8Uq+1dhs/72sHffQM+7+LwgFc8ZM3I3zBK2hXPWM77E2JBXUqb01i8RY9uWxxO8MTNF4GMcUN+00ZGu4stExJmCXWtRiflHBmD39/QtpPScqIS+CFl3SWrdvyWbuMO0jvsCUZDUdfU7rp8dMIOaZlMDhO20sfYwor7QKBgQDYc39z5U+uHS1apPsf7Qo+m3PJN2RIY97UxrsGnwF06P5y3f+3j+lHCjNS5Bsb5RiCzgojBla7Tc+xdwjDYrDn0Tqy5XupPK+PXNR1DkRLmP9wEI+axbWuPI7C3VCu1pfO8zeBOMBucbhMg2DM4G7Kl0e/B9D2v6Y8gvSDKyC8oQKBgHbynauWhStAWhoP2YJKC/bs6w2FVwF4EvsaabNS9yP8zeJt8Kr2zTbGPJn19Rdf9Y3g1glx3kXHIvzIv2WxbgCHHHCieKIRmJ9C5+ccULU025p2xuyRp8ygvZKDO0ItTWDQiL/ob0sWEs/rwrPzA2uthbM9G3EDJxbwjQ8effMJAoGARsz4yrMebiiTFkxS7G1/5Vy58f6RafBpChZ7RL4sHs67tF0TcTq8poUapqmAiI5WhyrYO/6tzhS0tCrojeixTxKsbaoM2h3Em1NVF3j0M/o2y7RPFORI+lZKqEj2REpjW8lIxZcHsti13Sk4N6vN8aysRjtLSfsEaFS5oFIyIiECgYASVVNO3HA5R7jeJ9BVDC4u798yrUHTpr83GfaTV6lMsawP3zWik7/pDWotx2C8KxCAoSbw/epjhpZzoSVjEAceX8br5keklPam9mfFzURQ5IdAJIsjfV7SUgruMvASKtD2wFCQoHgR/aWSYRxdJnifuLg++zQej/L/nzGjzcVUVg==", "rsaSpki": "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA0exdeNFHiRUzvyrrGV5CKqUzpUdtOWdSD0qX9zlGVOHNDKH07Lxy7ifAs1CzFU/p9zN89K4xSIA1j9y6IckOcopuaj6IbEA+knuBda+s3mdWkHIKaBxeMeYd1LaZMra8ANC1rc6qDyO2IhKAjPTgWgo8v/g0bb0NzweUOla+pY1gFyDVuk9IBKlsaK1U4rbXDvi+/iKkrXxG8D8lxCpcjVyyDY0afSlD87T9+e2veLqWV/QJJodWZjGCTft+GkQ6lqeXDpA+tl+nbFjEF4ECxfN0AzHK6nN2+XWAn3o3PoPn8Sj1aj+eoUS26pkWGhDcwmOuVOVptfOHEMBmDkesDQIDAQAB", "ecPkcs8": "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgOPmQ5IeHDfdYunkn5eKu9Ea4X56uK3R6/1V05suD9iihRANCAARRHvaMXcd0aJx8uYETO2SXJ0jfsXWkS8SJ1xtH15k0wvE+cSCKgkuy5SHwBX3hQI0TSpTpu6BOfqTjrWUyh08P", "ecSpki": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEUR72jF3HdGicfLmBEztklydI37F1pEvEidcbR9eZNMLxPnEgioJLsuUh8AV94UCNE0qU6bugTn6k461lModPDw==", "ec384Jwk": {"key_ops": ["sign"], "ext": true, "kty": "EC", "x": "oaaFU848aZVIi-THL61O6JnaNahrHmRSI_vIeaTxPFxtkiM7FDDII-lYI7kPTE8Q", "y": "sSVg17lMEl3ARBseZ_EIGGSkfcztMjVV5s1zjluoV4rnd0KykopEUZaWH4fBl-PO", "crv": "P-384", "d": "qWevDsuLZAH_dJgiJ1Zxu6kipw9662njeKxJ_FeXwZucEqffF4VRsc6_clYnC971"}, "edPkcs8": "MC4CAQAwBQYDK2VwBCIEIBiCcbkrhXACf9mylbYK4W2UMlurE7QDfQd89CTFf8BD", "edJwk": {"key_ops": ["sign"], "ext": true, "crv": "Ed25519", "d": "GIJxuSuFcAJ_2bKVtgrhbZQyW6sTtAN9B3z0JMV_wEM", "x": "5XNCM0iIXJlv6D_bKaH3JuNJmIT926gPNTbdFqfladI", "kty": "OKP", "alg": "Ed25519"}, "x1": {"key_ops": ["deriveBits"], "ext": true, "kty": "EC", "x": "S0rEFBX1QoVegmC2plNVOigFPos1YsOOj6MQy6zv0js", "y": "wdptkb1Flbe96kITUxVcsdFZ_NMuYZGRmEDHu140pu8", "crv": "P-256", "d": "iQBsdWczEC11qiayFkhCXDPA38Ckb4-DcelkyrYRb6c"}, "x2pub": "BLVt+lb9/QW1UUqzt27ediIUoWBHtGH95FXAxPVQUZrVz9Nos3yyRRF3Vq3zsE+E7ev0DrqTsEQv6QaA2NjWc9Y=", "x2": {"key_ops": ["deriveBits"], "ext": true, "kty": "EC", "x": "tW36Vv39BbVRSrO3bt52IhShYEe0Yf3kVcDE9VBRmtU", "y": "z9Nos3yyRRF3Vq3zsE-E7ev0DrqTsEQv6QaA2NjWc9Y", "crv": "P-256", "d": "kZJTmMSmF_xLjVzxvu2uoTTEMUcK6GUmxoVvRcYiaXk"}};
// ECDH key agreement with fixed keys, generateKey shapes, and the errors
// Node gives for wrong keys and usages.
const subtle = crypto.subtle;
const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const out = {};
const ecdh = { name: "ECDH", namedCurve: "P-256" };
const { key_ops, ...x1 } = KEYS.x1;
const a = await subtle.importKey("jwk", x1, ecdh, false, ["deriveBits", "deriveKey"]);
const bPub = await subtle.importKey("raw", bytes(KEYS.x2pub), ecdh, true, []);
const b = await subtle.importKey("jwk", KEYS.x2, ecdh, false, ["deriveBits"]);
const { d, ...x1pub } = x1;
const aPub = await subtle.importKey("jwk", x1pub, ecdh, true, []);
const s1 = await subtle.deriveBits({ name: "ECDH", public: bPub }, a, 256);
const s2 = await subtle.deriveBits({ name: "ECDH", public: aPub }, b, null);
out.agree = hex(s1) === hex(s2);
out.shared = hex(s1);
out.short = hex(await subtle.deriveBits({ name: "ECDH", public: bPub }, a, 12));
const wrapped = await subtle.deriveKey({ name: "ECDH", public: bPub }, a, { name: "AES-GCM", length: 128 }, true, ["encrypt"]);
out.derivedRaw = hex(await subtle.exportKey("raw", wrapped));
out.pubUsages = [bPub.usages, bPub.type, bPub.extractable];
// generateKey: shapes only (randomized).
const hm = await subtle.generateKey({ name: "HMAC", hash: "SHA-512" }, false, ["sign", "verify", "sign"]);
out.hmac = [hm.type, hm.extractable, hm.algorithm, hm.usages];
const ag = await subtle.generateKey({ name: "AES-CBC", length: 192 }, true, ["decrypt", "encrypt"]);
out.aes = [ag.algorithm, ag.usages, (await subtle.exportKey("raw", ag)).byteLength];
const ep = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-384" }, false, ["verify", "sign"]);
out.ec = [Object.keys(ep), ep.publicKey.usages, ep.privateKey.usages, ep.publicKey.extractable, ep.privateKey.extractable, ep.privateKey.algorithm];
const sig = await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, ep.privateKey, new Uint8Array(3));
out.ecSig = [sig.byteLength, await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, ep.publicKey, sig, new Uint8Array(3))];
const p521 = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-521" }, true, ["sign", "verify"]);
const s521 = await subtle.sign({ name: "ECDSA", hash: "SHA-512" }, p521.privateKey, new Uint8Array(3));
const j521 = await subtle.exportKey("jwk", p521.privateKey);
const back521 = await subtle.importKey("jwk", { ...j521, d: undefined, key_ops: undefined }, { name: "ECDSA", namedCurve: "P-521" }, false, ["verify"]);
out.p521 = [s521.byteLength, await subtle.verify({ name: "ECDSA", hash: "SHA-512" }, back521, s521, new Uint8Array(3)),
  j521.d.length, j521.x.length, (await subtle.exportKey("raw", p521.publicKey)).byteLength, (await subtle.exportKey("spki", p521.publicKey)).byteLength];
const edk = await subtle.generateKey("Ed25519", true, ["sign", "verify"]);
out.ed = [edk.publicKey.algorithm, (await subtle.exportKey("raw", edk.publicKey)).byteLength, Object.keys(await subtle.exportKey("jwk", edk.privateKey))];
const rk = await subtle.generateKey({ name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"]);
out.rsa = [rk.privateKey.algorithm.modulusLength, [...rk.publicKey.algorithm.publicExponent], rk.publicKey.algorithm.hash, rk.privateKey.usages];
const xk = await subtle.generateKey(ecdh, true, ["deriveBits"]);
out.ecdh = [xk.publicKey.usages, xk.privateKey.usages];
const hk = await subtle.importKey("raw", new Uint8Array(16), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
const ctrKey = await subtle.importKey("raw", new Uint8Array(16), "AES-CTR", false, ["encrypt"]);
const errors = {
  verifyWithSignKey: () => subtle.verify("HMAC", hk, new Uint8Array(32), new Uint8Array(1)),
  wrongAlg: () => subtle.sign({ name: "ECDSA", hash: "SHA-256" }, hk, new Uint8Array(1)),
  notKey: () => subtle.sign("HMAC", {}, new Uint8Array(1)),
  exportSecret: () => subtle.exportKey("raw", hk),
  exportSpkiPriv: () => subtle.exportKey("spki", ep.privateKey),
  badSpki: () => subtle.importKey("spki", new Uint8Array([48, 3, 2, 1, 0]), { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]),
  badPkcs8: () => subtle.importKey("pkcs8", new Uint8Array(40), { name: "RSA-PSS", hash: "SHA-256" }, true, ["sign"]),
  spkiAsPkcs8: () => subtle.importKey("pkcs8", bytes(KEYS.rsaSpki), { name: "RSA-PSS", hash: "SHA-256" }, true, ["sign"]),
  ecAsRsa: () => subtle.importKey("spki", bytes(KEYS.ecSpki), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["verify"]),
  wrongCurve: () => subtle.importKey("spki", bytes(KEYS.ecSpki), { name: "ECDSA", namedCurve: "P-384" }, true, ["verify"]),
  badJwk: () => subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: "AAAA", y: "AAAA" }, { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]),
  jwkKty: () => subtle.importKey("jwk", { kty: "RSA", k: "AAAA" }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  jwkAlg: () => subtle.importKey("jwk", { kty: "oct", k: "AAAA", alg: "HS512" }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  jwkOps: () => subtle.importKey("jwk", { kty: "oct", k: "AAAA", key_ops: ["verify"] }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  jwkExt: () => subtle.importKey("jwk", { kty: "oct", k: "AAAA", ext: false }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  badUsage: () => subtle.importKey("raw", new Uint8Array(16), "AES-GCM", true, ["sign"]),
  emptyUsages: () => subtle.generateKey({ name: "AES-GCM", length: 128 }, true, []),
  aesLength: () => subtle.importKey("raw", new Uint8Array(15), "AES-CBC", true, ["encrypt"]),
  hmacLength12: () => subtle.generateKey({ name: "HMAC", hash: "SHA-256", length: 12 }, true, ["sign"]),
  hmacLength0: () => subtle.generateKey({ name: "HMAC", hash: "SHA-256", length: 0 }, true, ["sign"]),
  gcmEmptyIv: () => subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(0) }, wrapped, new Uint8Array(1)),
  ctrTooLong: () => subtle.encrypt({ name: "AES-CTR", counter: new Uint8Array(16), length: 1 }, ctrKey, new Uint8Array(33)),
  genAesLength: () => subtle.generateKey({ name: "AES-GCM", length: 100 }, true, ["encrypt"]),
  unknown: () => subtle.generateKey({ name: "RSA-FOO" }, true, ["sign"]),
  noHash: () => subtle.importKey("raw", new Uint8Array(16), { name: "HMAC" }, true, ["sign"]),
  badHash: () => subtle.importKey("raw", new Uint8Array(16), { name: "HMAC", hash: "MD5" }, true, ["sign"]),
  badFormat: () => subtle.importKey("pem", new Uint8Array(16), { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  missingArgs: () => subtle.sign("HMAC", hk),
  ecdhPriv: () => subtle.deriveBits({ name: "ECDH", public: a }, a, 256),
  ecdhLong: () => subtle.deriveBits({ name: "ECDH", public: bPub }, a, 512),
  signWithPub: () => subtle.sign({ name: "ECDSA", hash: "SHA-256" }, ep.publicKey, new Uint8Array(1)),
  gcmTag: () => subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12), tagLength: 100 }, wrapped, new Uint8Array(1)),
  cbcIv: () => subtle.encrypt({ name: "AES-CBC", iv: new Uint8Array(8) }, ag, new Uint8Array(1)),
  decryptNoUsage: () => subtle.decrypt({ name: "AES-GCM", iv: new Uint8Array(12) }, wrapped, new Uint8Array(32)),
  edRawPriv: () => subtle.importKey("raw", new Uint8Array(32), "Ed25519", true, ["sign"]),
  edRawShort: () => subtle.importKey("raw", new Uint8Array(31), "Ed25519", true, ["verify"]),
};
for (const [what, f] of Object.entries(errors)) {
  try { await f(); out[what] = "no error"; } catch (e) { out[what] = `${e.name}: ${e.message}${e.code ? " " + e.code : ""}`; }
}
return out;
