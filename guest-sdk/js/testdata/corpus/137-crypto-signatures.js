// Fixed test keys (generated once with Node 20's crypto.subtle).
const KEYS = {"rsaPkcs8": "MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDR7F140UeJFTO/KusZXkIqpTOlR205Z1IPSpf3OUZU4c0MofTsvHLuJ8CzULMVT+n3M3z0rjFIgDWP3LohyQ5yim5qPohsQD6Se4F1r6zeZ1aQcgpoHF4x5h3UtpkytrwA0LWtzqoPI7YiEoCM9OBaCjy/+DRtvQ3PB5Q6Vr6ljWAXINW6T0gEqWxorVTittcO+L7+IqStfEbwPyXEKlyNXLINjRp9KUPztP357a94upZX9Akmh1ZmMYJN+34aRDqWp5cOkD62X6dsWMQXgQLF83QDMcrqc3b5dYCfejc+g+fxKPVqP56hRLbqmRYaENzCY65U5Wm184cQwGYOR6wNAgMBAAECggEAB9eQ4VnOFpKmcXqIuFSjW6T6wi6iJ64SrHQQq8FlvXeG+bUWKX7bu0ZcZkZ6Pi5TUvMHNLvKJwd1GMf54xe39LLzr3/hCEw5Gi9HdY5HwrIxE2nTNjLzGOGcFS1yGSkm6k/hrZnGFBU1MV4oE7v1Ip/1x4Ud7kiM+sIxeSFy80u8ogfzP+SpyWx9+T8Nrbtmzymn7KdqwlokF8gl3qQf9s5W6R7GgLxN9IO8DZx1pejb5rM9Geh2ll/G4vdLF+h2sIYV0+TEousPiHFz50TXteY7q7Znkb5bFq3RDNVgH1+JlgJWhUXfEHNbYGUF09sYD1XIHhtzI8Z2ZaN2SjOo4QKBgQD4R4bLHmK8Uq+1dhs/72sHffQM+7+LwgFc8ZM3I3zBK2hXPWM77E2JBXUqb01i8RY9uWxxO8MTNF4GMcUN+00ZGu4stExJmCXWtRiflHBmD39/QtpPScqIS+CFl3SWrdvyWbuMO0jvsCUZDUdfU7rp8dMIOaZlMDhO20sfYwor7QKBgQDYc39z5U+uHS1apPsf7Qo+m3PJN2RIY97UxrsGnwF06P5y3f+3j+lHCjNS5Bsb5RiCzgojBla7Tc+xdwjDYrDn0Tqy5XupPK+PXNR1DkRLmP9wEI+axbWuPI7C3VCu1pfO8zeBOMBucbhMg2DM4G7Kl0e/B9D2v6Y8gvSDKyC8oQKBgHbynauWhStAWhoP2YJKC/bs6w2FVwF4EvsaabNS9yP8zeJt8Kr2zTbGPJn19Rdf9Y3g1glx3kXHIvzIv2WxbgCHHHCieKIRmJ9C5+ccULU025p2xuyRp8ygvZKDO0ItTWDQiL/ob0sWEs/rwrPzA2uthbM9G3EDJxbwjQ8effMJAoGARsz4yrMebiiTFkxS7G1/5Vy58f6RafBpChZ7RL4sHs67tF0TcTq8poUapqmAiI5WhyrYO/6tzhS0tCrojeixTxKsbaoM2h3Em1NVF3j0M/o2y7RPFORI+lZKqEj2REpjW8lIxZcHsti13Sk4N6vN8aysRjtLSfsEaFS5oFIyIiECgYASVVNO3HA5R7jeJ9BVDC4u798yrUHTpr83GfaTV6lMsawP3zWik7/pDWotx2C8KxCAoSbw/epjhpZzoSVjEAceX8br5keklPam9mfFzURQ5IdAJIsjfV7SUgruMvASKtD2wFCQoHgR/aWSYRxdJnifuLg++zQej/L/nzGjzcVUVg==", "rsaSpki": "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA0exdeNFHiRUzvyrrGV5CKqUzpUdtOWdSD0qX9zlGVOHNDKH07Lxy7ifAs1CzFU/p9zN89K4xSIA1j9y6IckOcopuaj6IbEA+knuBda+s3mdWkHIKaBxeMeYd1LaZMra8ANC1rc6qDyO2IhKAjPTgWgo8v/g0bb0NzweUOla+pY1gFyDVuk9IBKlsaK1U4rbXDvi+/iKkrXxG8D8lxCpcjVyyDY0afSlD87T9+e2veLqWV/QJJodWZjGCTft+GkQ6lqeXDpA+tl+nbFjEF4ECxfN0AzHK6nN2+XWAn3o3PoPn8Sj1aj+eoUS26pkWGhDcwmOuVOVptfOHEMBmDkesDQIDAQAB", "ecPkcs8": "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgOPmQ5IeHDfdYunkn5eKu9Ea4X56uK3R6/1V05suD9iihRANCAARRHvaMXcd0aJx8uYETO2SXJ0jfsXWkS8SJ1xtH15k0wvE+cSCKgkuy5SHwBX3hQI0TSpTpu6BOfqTjrWUyh08P", "ecSpki": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEUR72jF3HdGicfLmBEztklydI37F1pEvEidcbR9eZNMLxPnEgioJLsuUh8AV94UCNE0qU6bugTn6k461lModPDw==", "ec384Jwk": {"key_ops": ["sign"], "ext": true, "kty": "EC", "x": "oaaFU848aZVIi-THL61O6JnaNahrHmRSI_vIeaTxPFxtkiM7FDDII-lYI7kPTE8Q", "y": "sSVg17lMEl3ARBseZ_EIGGSkfcztMjVV5s1zjluoV4rnd0KykopEUZaWH4fBl-PO", "crv": "P-384", "d": "qWevDsuLZAH_dJgiJ1Zxu6kipw9662njeKxJ_FeXwZucEqffF4VRsc6_clYnC971"}, "edPkcs8": "MC4CAQAwBQYDK2VwBCIEIBiCcbkrhXACf9mylbYK4W2UMlurE7QDfQd89CTFf8BD", "edJwk": {"key_ops": ["sign"], "ext": true, "crv": "Ed25519", "d": "GIJxuSuFcAJ_2bKVtgrhbZQyW6sTtAN9B3z0JMV_wEM", "x": "5XNCM0iIXJlv6D_bKaH3JuNJmIT926gPNTbdFqfladI", "kty": "OKP", "alg": "Ed25519"}, "x1": {"key_ops": ["deriveBits"], "ext": true, "kty": "EC", "x": "S0rEFBX1QoVegmC2plNVOigFPos1YsOOj6MQy6zv0js", "y": "wdptkb1Flbe96kITUxVcsdFZ_NMuYZGRmEDHu140pu8", "crv": "P-256", "d": "iQBsdWczEC11qiayFkhCXDPA38Ckb4-DcelkyrYRb6c"}, "x2pub": "BLVt+lb9/QW1UUqzt27ediIUoWBHtGH95FXAxPVQUZrVz9Nos3yyRRF3Vq3zsE+E7ev0DrqTsEQv6QaA2NjWc9Y=", "x2": {"key_ops": ["deriveBits"], "ext": true, "kty": "EC", "x": "tW36Vv39BbVRSrO3bt52IhShYEe0Yf3kVcDE9VBRmtU", "y": "z9Nos3yyRRF3Vq3zsE-E7ev0DrqTsEQv6QaA2NjWc9Y", "crv": "P-256", "d": "kZJTmMSmF_xLjVzxvu2uoTTEMUcK6GUmxoVvRcYiaXk"}};
// RS256, ES256/ES384, Ed25519 and RSA-PSS with imported keys: deterministic
// signatures byte for byte, randomized ones by verify results and shape.
const subtle = crypto.subtle;
const enc = new TextEncoder();
const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const msg = enc.encode("the webhook body");
const out = {};
const rsaAlg = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
const rsaPriv = await subtle.importKey("pkcs8", bytes(KEYS.rsaPkcs8), rsaAlg, true, ["sign"]);
const rsaPub = await subtle.importKey("spki", bytes(KEYS.rsaSpki), rsaAlg, true, ["verify"]);
const rs = await subtle.sign("RSASSA-PKCS1-v1_5", rsaPriv, msg);
out.rs256 = hex(rs).slice(0, 64) + "…" + rs.byteLength;
out.rs256ok = await subtle.verify(rsaAlg, rsaPub, rs, msg);
out.rs256bad = await subtle.verify(rsaAlg, rsaPub, rs, enc.encode("other"));
out.rsaAlg = rsaPub.algorithm;
out.rsaJwk = await subtle.exportKey("jwk", rsaPub);
out.rsaSpki = btoa(String.fromCharCode(...new Uint8Array(await subtle.exportKey("spki", rsaPub)))) === KEYS.rsaSpki;
out.rsaPkcs8 = btoa(String.fromCharCode(...new Uint8Array(await subtle.exportKey("pkcs8", rsaPriv)))) === KEYS.rsaPkcs8;
const rsaPrivJwk = await subtle.exportKey("jwk", rsaPriv);
out.rsaPrivJwkKeys = Object.keys(rsaPrivJwk);
const fromJwk = await subtle.importKey("jwk", rsaPrivJwk, rsaAlg, false, ["sign"]);
out.rsaJwkSame = hex(await subtle.sign(rsaAlg, fromJwk, msg)) === hex(rs);
// RSA-PSS: randomized.
const pssPriv = await subtle.importKey("pkcs8", bytes(KEYS.rsaPkcs8), { name: "RSA-PSS", hash: "SHA-384" }, false, ["sign"]);
const pssPub = await subtle.importKey("spki", bytes(KEYS.rsaSpki), { name: "RSA-PSS", hash: "SHA-384" }, false, ["verify"]);
const ps = await subtle.sign({ name: "RSA-PSS", saltLength: 48 }, pssPriv, msg);
out.pss = [ps.byteLength, await subtle.verify({ name: "RSA-PSS", saltLength: 48 }, pssPub, ps, msg),
  await subtle.verify({ name: "RSA-PSS", saltLength: 32 }, pssPub, ps, msg)];
// A zero-length salt, made by Node: deterministic.
const pss0 = bytes("0Px+8ItI8VR7YQFU1hBH0o+E9JLklfvzMspOg3VuOLv7SuAMLh/gLGBPIxDyH3FO19yMPogl4KPXVVumpaQ+JvCFn1ZF/WgK6ZPcNF4KxEuU0bMem4p1VWJHt9m+B6hsnQw+Z/Gn1oAfTe6VBRUEW3BzFvSXWZvqrGg1W9nUP4TypnOgmd32+PSoMVghaUgnxp3IectC0ZLmqR+S5kBKiPdY5NRD/z9tBOq843CI7eTHEW4CFYcFeTn++EhNWnyKhuIoqEIyVyIOs593tF4lRtCWUdp8Nc/Lsmd+fE2GR50EHrXjmVJKAmaoBQgI2YnpTKImqwnUHlJUhraSoZUvQA==");
const pssPub256 = await subtle.importKey("spki", bytes(KEYS.rsaSpki), { name: "RSA-PSS", hash: "SHA-256" }, false, ["verify"]);
const pss0bad = pss0.slice(); pss0bad[100] ^= 4;
out.pss0 = [await subtle.verify({ name: "RSA-PSS", saltLength: 0 }, pssPub256, pss0, msg),
  await subtle.verify({ name: "RSA-PSS", saltLength: 0 }, pssPub256, pss0bad, msg),
  await subtle.verify({ name: "RSA-PSS", saltLength: 0 }, pssPub256, pss0, enc.encode("other")),
  await subtle.verify({ name: "RSA-PSS", saltLength: 32 }, pssPub256, pss0, msg),
  await subtle.verify({ name: "RSA-PSS", saltLength: 0 }, pssPub256, ps, msg)];
// ECDSA P-256 (P1363 r||s) and P-384 from a JWK.
const ecPriv = await subtle.importKey("pkcs8", bytes(KEYS.ecPkcs8), { name: "ECDSA", namedCurve: "P-256" }, true, ["sign"]);
const ecPub = await subtle.importKey("spki", bytes(KEYS.ecSpki), { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]);
const es = await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, ecPriv, msg);
out.es256 = [es.byteLength, await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, ecPub, es, msg),
  await subtle.verify({ name: "ECDSA", hash: "SHA-384" }, ecPub, es, msg),
  await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, ecPub, es.slice(1), msg)];
out.ecRaw = hex(await subtle.exportKey("raw", ecPub));
out.ecJwk = await subtle.exportKey("jwk", ecPriv);
out.ecPkcs8 = btoa(String.fromCharCode(...new Uint8Array(await subtle.exportKey("pkcs8", ecPriv)))) === KEYS.ecPkcs8;
const e384 = await subtle.importKey("jwk", KEYS.ec384Jwk, { name: "ECDSA", namedCurve: "P-384" }, false, ["sign"]);
const { d, ...pub384 } = KEYS.ec384Jwk;
const p384 = await subtle.importKey("jwk", { ...pub384, key_ops: ["verify"] }, { name: "ECDSA", namedCurve: "P-384" }, true, ["verify"]);
const es384 = await subtle.sign({ name: "ECDSA", hash: "SHA-384" }, e384, msg);
out.es384 = [es384.byteLength, await subtle.verify({ name: "ECDSA", hash: "SHA-384" }, p384, es384, msg)];
out.ecAlg = [e384.algorithm, e384.type, p384.type, p384.usages];
// Ed25519: deterministic (RFC 8032 test 1 first).
const rfc = await subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519",
  d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" }, { name: "Ed25519" }, false, ["sign"]);
out.rfc8032 = hex(await subtle.sign("Ed25519", rfc, new Uint8Array(0)));
const edPriv = await subtle.importKey("pkcs8", bytes(KEYS.edPkcs8), "Ed25519", true, ["sign"]);
const edPub = await subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: KEYS.edJwk.x }, "Ed25519", true, ["verify"]);
const ed = await subtle.sign({ name: "Ed25519" }, edPriv, msg);
out.ed = hex(ed);
out.edOk = [await subtle.verify("Ed25519", edPub, ed, msg), await subtle.verify("Ed25519", edPub, ed, enc.encode("x"))];
out.edJwk = await subtle.exportKey("jwk", edPriv);
out.edPkcs8 = btoa(String.fromCharCode(...new Uint8Array(await subtle.exportKey("pkcs8", edPriv)))) === KEYS.edPkcs8;
out.ecSpki = btoa(String.fromCharCode(...new Uint8Array(await subtle.exportKey("spki", ecPub)))) === KEYS.ecSpki;
out.edRaw = hex(await subtle.exportKey("raw", edPub));
out.edSpki = hex(await subtle.exportKey("spki", edPub));
return out;
