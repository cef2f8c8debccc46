// Keys printed with console.log, and their properties listed.
const subtle = crypto.subtle;
const k = await subtle.importKey("raw", new Uint8Array(5), { name: "HMAC", hash: "SHA-256" }, true, ["sign"]);
console.log(k);
console.log({ k, n: 1 });
console.log("%s", String(k), Object.keys(k), Object.getOwnPropertyNames(CryptoKey.prototype));
const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
console.log(pair);
console.log([k, [k]], { deep: { deeper: { k } } });
const aes = await subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
console.info(aes.algorithm, aes.usages);
const methods = Object.keys(SubtleCrypto.prototype).map((m) => `${m}/${subtle[m].length}/${subtle[m].name}`);
return { methods, json: JSON.parse(JSON.stringify(k)), keys: Object.keys(pair), tag: `${Object.prototype.toString.call(subtle)}` };
