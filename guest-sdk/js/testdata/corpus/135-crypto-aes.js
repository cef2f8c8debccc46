// AES-GCM, AES-CBC and AES-CTR with fixed keys and IVs (NIST SP 800-38A/D vectors).
const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)));
const subtle = crypto.subtle;
const out = {};
// GCM test case 3 (AES-128, 96-bit IV) and with additional data (test case 4).
const gk = await subtle.importKey("raw", unhex("feffe9928665731c6d6a8f9467308308"), "AES-GCM", true, ["encrypt", "decrypt"]);
const pt = unhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255");
const iv = unhex("cafebabefacedbaddecaf888");
out.gcm = hex(await subtle.encrypt({ name: "AES-GCM", iv }, gk, pt));
const aad = unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
const ct4 = await subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad, tagLength: 128 }, gk, pt.subarray(0, 60));
out.gcm4 = hex(ct4);
const iv16 = unhex("00112233445566778899aabbccddeeff");
const c16 = await subtle.encrypt({ name: "AES-GCM", iv: iv16, tagLength: 104 }, gk, pt.subarray(0, 20));
out.gcmIv16 = [hex(c16), hex(await subtle.decrypt({ name: "AES-GCM", iv: iv16, tagLength: 104 }, gk, c16))];
out.gcmIv1 = hex(await subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(64).fill(9), tagLength: 32, additionalData: aad }, gk, pt.subarray(0, 5)));
for (const n of [11, 129]) {
  try { await subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(n) }, gk, pt); } catch (e) { out["gcmIv" + n] = `${e.name}: ${e.message}`; }
}
out.gcm96 = hex(await subtle.encrypt({ name: "AES-GCM", iv, tagLength: 96 }, gk, pt.subarray(0, 16)));
out.gcmBack = hex(await subtle.decrypt({ name: "AES-GCM", iv, additionalData: aad }, gk, ct4)) === hex(pt.subarray(0, 60));
try {
  const t = new Uint8Array(ct4); t[0] ^= 1;
  await subtle.decrypt({ name: "AES-GCM", iv, additionalData: aad }, gk, t);
} catch (e) { out.gcmTampered = `${e.name}: ${e.message}`; }
// CBC (F.2.1) and CTR (F.5.1).
const k128 = unhex("2b7e151628aed2a6abf7158809cf4f3c");
const block = unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
const ck = await subtle.importKey("raw", k128, { name: "AES-CBC" }, false, ["encrypt", "decrypt"]);
const cbc = await subtle.encrypt({ name: "AES-CBC", iv: unhex("000102030405060708090a0b0c0d0e0f") }, ck, block);
out.cbc = hex(cbc);
out.cbcBack = hex(await subtle.decrypt({ name: "AES-CBC", iv: unhex("000102030405060708090a0b0c0d0e0f") }, ck, cbc));
out.cbcOdd = hex(await subtle.encrypt({ name: "AES-CBC", iv: new Uint8Array(16) }, ck, new TextEncoder().encode("hello")));
try {
  await subtle.decrypt({ name: "AES-CBC", iv: new Uint8Array(16) }, ck, new Uint8Array(16));
} catch (e) { out.cbcBad = `${e.name}: ${e.message}`; }
const tk = await subtle.importKey("raw", k128, "AES-CTR", true, ["encrypt", "decrypt"]);
const counter = unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
out.ctr = hex(await subtle.encrypt({ name: "AES-CTR", counter, length: 64 }, tk, block));
out.ctrWrap = hex(await subtle.encrypt({ name: "AES-CTR", counter, length: 8 }, tk, new Uint8Array(40)));
out.jwk = await subtle.exportKey("jwk", tk);
out.alg = gk.algorithm;
// AES-256 round trip of text.
const k256 = await subtle.importKey("raw", new Uint8Array(32).fill(7), "AES-GCM", false, ["encrypt", "decrypt"]);
const msg = await subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12) }, k256, new TextEncoder().encode("the quick brown fox"));
out.gcm256 = hex(msg);
out.text = new TextDecoder().decode(await subtle.decrypt({ name: "AES-GCM", iv: new Uint8Array(12) }, k256, msg));
return out;
