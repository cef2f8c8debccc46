// Sign and verify an HS256 JWT and a webhook with HMAC keys.
const enc = new TextEncoder();
const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const b64url = (b) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const key = await crypto.subtle.importKey("raw", enc.encode("webhook-secret"), { name: "HMAC", hash: "SHA-256" }, true, ["sign", "verify"]);
const header = b64url(enc.encode(JSON.stringify({ alg: "HS256", typ: "JWT" })));
const payload = b64url(enc.encode(JSON.stringify({ sub: "user-42", iat: 1700000000 })));
const sig = await crypto.subtle.sign("HMAC", key, enc.encode(`${header}.${payload}`));
const jwt = `${header}.${payload}.${b64url(sig)}`;
const ok = await crypto.subtle.verify({ name: "HMAC" }, key, sig, enc.encode(`${header}.${payload}`));
const bad = await crypto.subtle.verify("HMAC", key, sig, enc.encode(`${header}.x`));
// RFC 4231 test case 2, with every hash.
const out = {};
for (const hash of ["SHA-1", "SHA-256", "SHA-384", "SHA-512"]) {
  const k = await crypto.subtle.importKey("raw", enc.encode("Jefe"), { name: "HMAC", hash }, false, ["sign"]);
  out[hash] = hex(await crypto.subtle.sign("HMAC", k, enc.encode("what do ya want for nothing?")));
}
const jwk = await crypto.subtle.exportKey("jwk", key);
const raw = hex(await crypto.subtle.exportKey("raw", key));
const fromJwk = await crypto.subtle.importKey("jwk", jwk, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
return {
  jwt, ok, bad, out, jwk, raw,
  alg: key.algorithm, usages: key.usages, type: key.type, extractable: key.extractable,
  jwkAlg: fromJwk.algorithm, jwkUsages: fromJwk.usages,
  tag: Object.prototype.toString.call(key), isKey: key instanceof CryptoKey,
  viaJwk: await crypto.subtle.verify("HMAC", fromJwk, sig, enc.encode(`${header}.${payload}`)),
};
