// wrapKey and unwrapKey with AES keys (fixed IVs: deterministic).
const subtle = crypto.subtle;
const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const kek = await subtle.importKey("raw", new Uint8Array(32).fill(3), "AES-GCM", false, ["wrapKey", "unwrapKey"]);
const ctrKek = await subtle.importKey("raw", new Uint8Array(16).fill(5), "AES-CTR", false, ["wrapKey", "unwrapKey", "encrypt"]);
const cbcKek = await subtle.importKey("raw", new Uint8Array(16).fill(6), "AES-CBC", false, ["encrypt", "decrypt"]);
const mac = await subtle.importKey("raw", new TextEncoder().encode("webhook-secret"), { name: "HMAC", hash: "SHA-256" }, true, ["sign", "verify"]);
const iv = new Uint8Array(12).fill(1);
const out = {};
const raw = await subtle.wrapKey("raw", mac, kek, { name: "AES-GCM", iv });
out.raw = hex(raw);
const back = await subtle.unwrapKey("raw", raw, kek, { name: "AES-GCM", iv }, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
out.back = [back.algorithm, back.usages, back.extractable, hex(await subtle.sign("HMAC", back, new Uint8Array(1))) === hex(await subtle.sign("HMAC", mac, new Uint8Array(1)))];
const ctr = { name: "AES-CTR", counter: new Uint8Array(16), length: 64 };
const jwk = await subtle.wrapKey("jwk", mac, ctrKek, ctr);
out.jwk = hex(jwk);
const fromJwk = await subtle.unwrapKey("jwk", jwk, ctrKek, ctr, { name: "HMAC", hash: "SHA-256" }, true, ["verify"]);
out.fromJwk = [fromJwk.usages, await subtle.exportKey("jwk", fromJwk)];
const cases = {
  noWrapUsage: () => subtle.wrapKey("raw", mac, cbcKek, { name: "AES-CBC", iv: new Uint8Array(16) }),
  notExtractable: () => subtle.wrapKey("raw", back, kek, { name: "AES-GCM", iv }),
  badJwk: () => subtle.unwrapKey("jwk", new Uint8Array(40), ctrKek, ctr, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  tampered: () => subtle.unwrapKey("raw", new Uint8Array(raw).map((b, i) => (i === 0 ? b ^ 1 : b)), kek, { name: "AES-GCM", iv }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]),
  badImport: () => subtle.unwrapKey("raw", raw, kek, { name: "AES-GCM", iv }, { name: "HMAC" }, true, ["sign"]),
  badUsages: () => subtle.unwrapKey("raw", raw, kek, { name: "AES-GCM", iv }, { name: "HMAC", hash: "SHA-1" }, true, ["encrypt"]),
  missing: () => subtle.unwrapKey("raw", raw, kek, { name: "AES-GCM", iv }, "HMAC", true),
  kw: () => subtle.wrapKey("raw", mac, kek, "AES-KW"),
};
for (const [what, f] of Object.entries(cases)) {
  try { out[what] = await f(); } catch (e) { out[what] = `${e.name}: ${e.message}${e.code !== undefined && e.code !== 0 ? " " + e.code : ""}`; }
}
return out;
