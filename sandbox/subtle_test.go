package sandbox

import (
	"context"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	stdpbkdf2 "crypto/pbkdf2"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cryptoHelpers are the helpers every crypto test script starts with.
const cryptoHelpers = `
const subtle = crypto.subtle, enc = new TextEncoder();
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (s) => new Uint8Array((s.match(/../g) || []).map((h) => parseInt(h, 16)));
const fail = async (f) => { try { await f(); return "no error"; } catch (e) { return e.name + ": " + e.message; } };
`

// TestCryptoVectors checks crypto.subtle against the standards' test
// vectors.
func TestCryptoVectors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{name: "RFC 4231 HMAC test case 1, every hash", src: `
const key = unhex("0b".repeat(20)), data = enc.encode("Hi There"), out = [];
for (const hash of ["SHA-256", "SHA-384", "SHA-512"]) {
  const k = await subtle.importKey("raw", key, { name: "HMAC", hash }, false, ["sign", "verify"]);
  const sig = await subtle.sign("HMAC", k, data);
  out.push(hex(sig), await subtle.verify("HMAC", k, sig, data));
}
return out`, want: `["b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", true,
"afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6", true,
"87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854", true]`},
		{name: "RFC 4231 test case 6: a key longer than the block", src: `
const k = await subtle.importKey("raw", unhex("aa".repeat(131)), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
return hex(await subtle.sign("HMAC", k, enc.encode("Test Using Larger Than Block-Size Key - Hash Key First")))`,
			want: `"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"`},
		{name: "RFC 5869 HKDF test case 1", src: `
const k = await subtle.importKey("raw", unhex("0b".repeat(22)), "HKDF", false, ["deriveBits"]);
return hex(await subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: unhex("000102030405060708090a0b0c"), info: unhex("f0f1f2f3f4f5f6f7f8f9") }, k, 336))`,
			want: `"3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"`},
		{name: "RFC 5869 HKDF test case 4 (SHA-1)", src: `
const k = await subtle.importKey("raw", unhex("0b".repeat(11)), "HKDF", false, ["deriveBits"]);
return hex(await subtle.deriveBits({ name: "HKDF", hash: "SHA-1", salt: unhex("000102030405060708090a0b0c"), info: unhex("f0f1f2f3f4f5f6f7f8f9") }, k, 336))`,
			want: `"085a01ea1b10f36933068b56efa5ad81a4f14b822f5b091568a9cdd4f155fda2c22e422478d305f3f896"`},
		{name: "RFC 6070 PBKDF2-SHA1", src: `
const k = await subtle.importKey("raw", enc.encode("passwordPASSWORDpassword"), "PBKDF2", false, ["deriveBits"]);
const p = await subtle.importKey("raw", enc.encode("password"), "PBKDF2", false, ["deriveBits"]);
return [hex(await subtle.deriveBits({ name: "PBKDF2", hash: "SHA-1", salt: enc.encode("saltSALTsaltSALTsaltSALTsaltSALTsalt"), iterations: 4096 }, k, 200)),
  hex(await subtle.deriveBits({ name: "PBKDF2", hash: "SHA-1", salt: enc.encode("salt"), iterations: 2 }, p, 160))]`,
			want: `["3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038", "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"]`},
		{name: "RFC 7914 PBKDF2-SHA256", src: `
const p = await subtle.importKey("raw", enc.encode("passwd"), "PBKDF2", false, ["deriveBits"]);
return hex(await subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 1 }, p, 512))`,
			want: `"55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"`},
		{name: "NIST SP 800-38D GCM test case 2 and 16 (AES-256, AAD)", src: `
const k0 = await subtle.importKey("raw", new Uint8Array(16), "AES-GCM", false, ["encrypt"]);
const k = await subtle.importKey("raw", unhex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"), "AES-GCM", false, ["encrypt", "decrypt"]);
const pt = unhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39");
const ct = await subtle.encrypt({ name: "AES-GCM", iv: unhex("cafebabefacedbaddecaf888"), additionalData: unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2") }, k, pt);
return [hex(await subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12) }, k0, new Uint8Array(16))), hex(ct)]`,
			want: `["0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf",
"522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f66276fc6ece0f4e1768cddf8853bb2d551b"]`},
		{name: "NIST SP 800-38A CBC-AES256 and CTR-AES256", src: `
const key = unhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
const cbc = await subtle.importKey("raw", key, "AES-CBC", false, ["encrypt"]);
const ctr = await subtle.importKey("raw", key, "AES-CTR", false, ["encrypt"]);
const pt = unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
const c = await subtle.encrypt({ name: "AES-CBC", iv: unhex("000102030405060708090a0b0c0d0e0f") }, cbc, pt);
return [hex(c).slice(0, 64), hex(await subtle.encrypt({ name: "AES-CTR", counter: unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"), length: 128 }, ctr, pt))]`,
			want: `["f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d", "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"]`},
		{name: "RFC 8032 Ed25519 test 2", src: `
const k = await subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", d: "TM0Imyj_ltqdtsNG7BFOD1uKMZ81q6Yk2oz27U-4pvs", x: "PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw" }, "Ed25519", false, ["sign"]);
const p = await subtle.importKey("raw", unhex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"), "Ed25519", false, ["verify"]);
const sig = await subtle.sign("Ed25519", k, unhex("72"));
return [hex(sig), await subtle.verify("Ed25519", p, sig, unhex("72")), await subtle.verify("Ed25519", p, sig, unhex("73"))]`,
			want: `["92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00", true, false]`},
		{name: "ECDSA P-256 known signature (RFC 6979 A.2.5, SHA-256, 'sample')", src: `
const pub = await subtle.importKey("raw", unhex("04" + "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6" + "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"),
  { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
const sig = unhex("efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716" + "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8");
return [await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, pub, sig, enc.encode("sample")),
  await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, pub, sig, enc.encode("samplf"))]`,
			want: `[true, false]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, cryptoHelpers+tt.src, nil, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
		})
	}
}

// TestCryptoRSARoundTrip signs with a generated RSA key, verifies through
// its exported and imported SPKI, signs the same bytes again through its
// exported and imported PKCS #8, and rejects a changed signature. (Known
// signatures: corpus 137 compares RS256 with Node byte for byte and
// verifies an RSA-PSS signature Node made.)
func TestCryptoRSARoundTrip(t *testing.T) {
	res, err := run(t, cryptoHelpers+`
const alg = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
const g = await subtle.generateKey({ ...alg, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, ["sign", "verify"]);
const spki = await subtle.exportKey("spki", g.publicKey);
const pkcs8 = await subtle.exportKey("pkcs8", g.privateKey);
const sig = await subtle.sign(alg, g.privateKey, enc.encode("payload"));
const again = await subtle.importKey("spki", spki, alg, false, ["verify"]);
const priv = await subtle.importKey("pkcs8", pkcs8, alg, false, ["sign"]);
const bad = Uint8Array.from(new Uint8Array(sig)); bad[10] ^= 1;
return [await subtle.verify(alg, again, sig, enc.encode("payload")), await subtle.verify(alg, again, bad, enc.encode("payload")),
  hex(await subtle.sign(alg, priv, enc.encode("payload"))) === hex(sig), sig.byteLength]`, nil, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `[true, false, true, 256]`, string(res.Value))
}

// TestCryptoHostile runs hostile crypto.subtle scripts, each with a healthy
// chain alongside: every one ends in the DOMException or typed exit
// expected, and the engine serves the next run.
func TestCryptoHostile(t *testing.T) {
	tests := []struct {
		name, src, want string
		lim             Limits
		kind            ExitKind
	}{
		{name: "data over 1 MiB", src: `const k = await subtle.importKey("raw", new Uint8Array(32), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
return fail(() => subtle.sign("HMAC", k, new Uint8Array((1 << 20) + 1)))`,
			want: `"QuotaExceededError: The data is larger than 1048576 bytes, the limit of one crypto.subtle operation in airlock (docs/limits.md)"`},
		{name: "data of 1 MiB", src: `const k = await subtle.importKey("raw", new Uint8Array(16), "AES-CTR", false, ["encrypt"]);
return (await subtle.encrypt({ name: "AES-CTR", counter: new Uint8Array(16), length: 64 }, k, new Uint8Array(1 << 20).fill(255))).byteLength`,
			want: `1048576`},
		{name: "additional data over 1 MiB", src: `const k = await subtle.importKey("raw", new Uint8Array(16), "AES-GCM", false, ["encrypt"]);
return fail(() => subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12), additionalData: new Uint8Array(2 << 20) }, k, new Uint8Array(1)))`,
			want: `"QuotaExceededError: The additionalData is larger than 1048576 bytes, the limit of one crypto.subtle operation in airlock (docs/limits.md)"`},
		{name: "PBKDF2 with 2^32-1 iterations", src: `const k = await subtle.importKey("raw", enc.encode("pw"), "PBKDF2", false, ["deriveBits"]);
return fail(() => subtle.deriveBits({ name: "PBKDF2", hash: "SHA-512", salt: new Uint8Array(8), iterations: 4294967295 }, k, 512))`,
			want: `"QuotaExceededError: PBKDF2 is limited to 10000000 iterations times output blocks (docs/limits.md)"`},
		{name: "PBKDF2 work over the cap through a long output", src: `const k = await subtle.importKey("raw", enc.encode("pw"), "PBKDF2", false, ["deriveBits"]);
return fail(() => subtle.deriveBits({ name: "PBKDF2", hash: "SHA-1", salt: new Uint8Array(8), iterations: 100000 }, k, 8 * 20 * 101))`,
			want: `"QuotaExceededError: PBKDF2 is limited to 10000000 iterations times output blocks (docs/limits.md)"`},
		{name: "PBKDF2 within the cap stops at the deadline", src: `const k = await subtle.importKey("raw", enc.encode("pw"), "PBKDF2", false, ["deriveBits"]);
return subtle.deriveBits({ name: "PBKDF2", hash: "SHA-512", salt: new Uint8Array(8), iterations: 10000000 }, k, 512)`,
			lim: Limits{Timeout: 200 * time.Millisecond}, kind: Timeout},
		{name: "RSA key of 16384 bits", src: `return fail(() => subtle.generateKey({ name: "RSA-PSS", modulusLength: 16384, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign"]))`,
			want: `"NotSupportedError: generateKey makes RSA keys of 2048 to 4096 bits (docs/limits.md)"`},
		{name: "RSA key of 512 bits", src: `return fail(() => subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 512, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign"]))`,
			want: `"NotSupportedError: generateKey makes RSA keys of 2048 to 4096 bits (docs/limits.md)"`},
		{name: "RSA key with exponent 3", src: `return fail(() => subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([3]), hash: "SHA-256" }, true, ["sign"]))`,
			want: `"NotSupportedError: generateKey makes RSA keys with the public exponent 65537 only"`},
		{name: "SPKI of 64 KiB", src: `return fail(() => subtle.importKey("spki", new Uint8Array(64 << 10), { name: "RSA-PSS", hash: "SHA-256" }, true, ["verify"]))`,
			want: `"QuotaExceededError: key data is limited to 16384 bytes (docs/limits.md)"`},
		{name: "PKCS #8 of 12 KiB", src: `return fail(() => subtle.importKey("pkcs8", new Uint8Array(12 << 10), { name: "RSA-PSS", hash: "SHA-256" }, true, ["sign"]))`,
			want: `"NotSupportedError: PKCS #8 key data is limited to 8192 bytes: RSA keys of more than 8192 bits are not supported (docs/limits.md)"`},
		{name: "RSA generateKey stops at the deadline", src: `for (;;) await subtle.generateKey({ name: "RSA-PSS", modulusLength: 4096, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign"])`,
			lim: Limits{Timeout: 300 * time.Millisecond}, kind: Timeout},
		{name: "JWK with a 20000-bit modulus", src: `const n = btoa(String.fromCharCode(...new Uint8Array(2500).fill(255))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=/g, "");
return fail(() => subtle.importKey("jwk", { kty: "RSA", n, e: "AQAB" }, { name: "RSA-PSS", hash: "SHA-256" }, true, ["verify"]))`,
			want: `"NotSupportedError: RSA keys of more than 8192 bits are not supported (docs/limits.md)"`},
		{name: "1100 keys", src: `let n = 0;
const e = await fail(async () => { for (;;) { await subtle.importKey("raw", new Uint8Array(16), "AES-GCM", false, ["encrypt"]); n++; } });
return [n, e]`, want: `[1024, "QuotaExceededError: a run holds at most 1024 CryptoKeys (docs/limits.md)"]`},
		{name: "5 MiB of HMAC keys", src: `let n = 0;
const e = await fail(async () => { for (;;) { await subtle.importKey("raw", new Uint8Array(1 << 20), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]); n++; } });
return [n, e]`, want: `[3, "QuotaExceededError: a run holds at most 4194304 bytes of CryptoKey material (docs/limits.md)"]`},
		{name: "malformed SPKI, PKCS #8 and JWK", src: `
const rsa = { name: "RSA-PSS", hash: "SHA-256" }, ec = { name: "ECDSA", namedCurve: "P-256" };
const junk = new Uint8Array(300).map((_, i) => (i * 37) & 255);
return [await fail(() => subtle.importKey("spki", junk, rsa, true, ["verify"])),
  await fail(() => subtle.importKey("pkcs8", junk, ec, true, ["sign"])),
  await fail(() => subtle.importKey("pkcs8", new Uint8Array([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), ec, true, ["sign"])),
  await fail(() => subtle.importKey("jwk", { kty: "RSA", n: "!!!", e: "AQAB" }, rsa, true, ["verify"])),
  await fail(() => subtle.importKey("jwk", { kty: "RSA", n: 5, e: "AQAB" }, rsa, true, ["verify"])),
  await fail(() => subtle.importKey("jwk", { kty: "RSA", n: "AQAB", e: "AQAB", d: "AQAB" }, rsa, true, ["sign"])),
  await fail(() => subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: "A".repeat(43), y: "A".repeat(43), d: "A".repeat(43) }, ec, true, ["sign"])),
  await fail(() => subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: "AAAA" }, "Ed25519", true, ["verify"])),
  await fail(() => subtle.importKey("raw", new Uint8Array(65), ec, true, ["verify"]))]`,
			want: `["DataError: Invalid keyData", "DataError: Invalid keyData", "DataError: Invalid keyData", "DataError: Invalid keyData",
"DataError: Invalid keyData", "DataError: Invalid keyData", "DataError: Invalid keyData", "DataError: Invalid keyData", "DataError: Invalid keyData"]`},
		{name: "wrong usages and algorithms", src: `
const h = await subtle.importKey("raw", new Uint8Array(16), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
const a = await subtle.importKey("raw", new Uint8Array(16), "AES-GCM", false, ["decrypt"]);
const p = await subtle.importKey("raw", new Uint8Array(16), "PBKDF2", false, ["deriveKey"]);
return [await fail(() => subtle.sign("HMAC", h, new Uint8Array(1))),
  await fail(() => subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12) }, a, new Uint8Array(1))),
  await fail(() => subtle.encrypt({ name: "AES-CBC", iv: new Uint8Array(16) }, a, new Uint8Array(1))),
  await fail(() => subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: new Uint8Array(1), iterations: 1 }, p, 8)),
  await fail(() => subtle.exportKey("raw", h))]`,
			want: `["InvalidAccessError: Unable to use this key to sign", "InvalidAccessError: The requested operation is not valid for the provided key",
"InvalidAccessError: The requested operation is not valid for the provided key", "InvalidAccessError: baseKey does not have deriveBits usage",
"InvalidAccessException: key is not extractable"]`},
		{name: "forged CryptoKeys", src: `
const fake = Object.create(CryptoKey.prototype);
const real = await subtle.importKey("raw", new Uint8Array(16), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
const proxy = new Proxy(real, {});
const copy = structuredClone({ k: 1 });
let getter;
try { getter = Object.getOwnPropertyDescriptor(CryptoKey.prototype, "type").get.call(fake); } catch (e) { getter = e.name + ": " + e.message; }
return [await fail(() => subtle.sign("HMAC", fake, new Uint8Array(1))), await fail(() => subtle.sign("HMAC", proxy, new Uint8Array(1))),
  await fail(() => subtle.exportKey("raw", { type: "secret", extractable: true, algorithm: { name: "HMAC" }, usages: ["sign"] })), getter,
  await fail(() => new CryptoKey())]`,
			want: `["TypeError: Failed to execute 'sign' on 'SubtleCrypto': 2nd argument is not of type CryptoKey.",
"TypeError: Failed to execute 'sign' on 'SubtleCrypto': 2nd argument is not of type CryptoKey.",
"TypeError: Failed to execute 'exportKey' on 'SubtleCrypto': 2nd argument is not of type CryptoKey.",
"TypeError: Value of \"this\" must be of type CryptoKey", "TypeError: Illegal constructor"]`},
		{name: "a replaced escape or JSON does not break the protocol", src: `
const k = await subtle.importKey("raw", enc.encode("key"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
const [esc, str, slice] = [globalThis.escape, JSON.stringify, Uint8Array.prototype.slice];
globalThis.escape = () => "%ZZ"; JSON.stringify = () => "{}"; Uint8Array.prototype.slice = () => new Uint8Array(0);
const sig = await subtle.sign("HMAC", k, enc.encode("The quick brown fox jumps over the lazy dog"));
[globalThis.escape, JSON.stringify, Uint8Array.prototype.slice] = [esc, str, slice];
return hex(sig)`,
			want: `"f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"`},
	}
	e := engine(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wait := bystander(t, e)
			res, err := e.Run(context.Background(), Script{Source: cryptoHelpers + tt.src}, okBridge, tt.lim)
			wait()
			if tt.kind != 0 {
				var xe *ExitError
				require.ErrorAs(t, err, &xe)
				require.Equal(t, tt.kind, xe.Kind, "%v", err)
			} else {
				require.NoError(t, err)
				require.JSONEq(t, tt.want, string(res.Value))
			}
			res, err = e.Run(context.Background(), Script{Source: "return 'alive'"}, okBridge, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, `"alive"`, string(res.Value))
		})
	}
}

// TestCryptoKeyTables checks that a handle means nothing outside the run
// that made it: the host refuses one its run never made as a protocol
// error, whatever another run holds under that number.
func TestCryptoKeyTables(t *testing.T) {
	ctx := context.Background()
	a, b := &scriptRun{}, &scriptRun{}
	out, err := a.subtle(ctx, &subtleReq{Op: "import", Alg: "HMAC", Hash: "SHA-256", Format: "raw", Use: []string{"sign"}}, []byte("secret"), nil)
	require.NoError(t, err)
	require.Equal(t, `J[{"h":1,"len":48,"type":"secret"}]`, string(out))
	_, err = a.subtle(ctx, &subtleReq{Op: "sign", Alg: "HMAC", Key: 1}, []byte("x"), nil)
	require.NoError(t, err)
	for _, h := range []int32{1, 0, -1, 2, 1 << 30} {
		_, err = b.subtle(ctx, &subtleReq{Op: "sign", Alg: "HMAC", Key: h}, []byte("x"), nil)
		require.ErrorIs(t, err, errProtocol, "handle %d", h)
	}
	// The host checks usages and extractability itself, whatever the
	// prelude checked.
	_, err = a.subtle(ctx, &subtleReq{Op: "verify", Alg: "HMAC", Key: 1}, []byte("x"), nil)
	require.EqualError(t, err, "InvalidAccessError: The key does not allow this operation")
	_, err = a.subtle(ctx, &subtleReq{Op: "export", Key: 1, Format: "raw"}, nil, nil)
	require.EqualError(t, err, "InvalidAccessException: key is not extractable")
	_, err = a.subtle(ctx, &subtleReq{Op: "encrypt", Alg: "AES-GCM", Key: 1}, []byte("x"), nil)
	require.Error(t, err)
	_, err = a.subtle(ctx, &subtleReq{Op: "import", Alg: "AES-GCM", Format: "raw", Use: []string{"encrypt"}}, make([]byte, 16), nil)
	require.NoError(t, err)
	_, err = a.subtle(ctx, &subtleReq{Op: "encrypt", Alg: "AES-GCM", Key: 2, IV: strings.Repeat("00", 12), Tag: 128, Wrap: true}, []byte("x"), nil)
	require.EqualError(t, err, "InvalidAccessError: The key does not allow this operation", "wrapKey needs the wrapKey usage")
	_, err = a.subtle(ctx, &subtleReq{Op: "encrypt", Alg: "AES-GCM", Key: 2, IV: strings.Repeat("00", 12), Tag: 128}, []byte("x"), nil)
	require.NoError(t, err)
}

// TestCryptoSecretsStayOut checks that no key material reaches an error a
// script or an operator sees.
func TestCryptoSecretsStayOut(t *testing.T) {
	const marker = "c2VjcmV0LW1hcmtlci0xMjM0NTY3ODk" // base64url of "secret-marker-123456789"
	res, err := run(t, cryptoHelpers+`
const bad = await fail(() => subtle.importKey("jwk", { kty: "RSA", n: "`+marker+`", e: "AQAB", d: "`+marker+`" }, { name: "RSA-PSS", hash: "SHA-256" }, true, ["sign"]));
const k = await subtle.importKey("raw", enc.encode("secret-marker-12"), "AES-GCM", false, ["decrypt"]);
const dec = await fail(() => subtle.decrypt({ name: "AES-GCM", iv: new Uint8Array(12) }, k, new Uint8Array(40)));
const ex = await fail(() => subtle.exportKey("jwk", k));
throw new Error([bad, dec, ex].join(" | "))`, nil, Limits{})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.NotContains(t, xe.Error(), "secret-marker")
	require.NotContains(t, xe.Error(), marker)
	require.NotContains(t, xe.Error(), "secret-marker-12")
	require.Contains(t, xe.Message, "| OperationError: The operation failed for an operation-specific reason | InvalidAccessException")
	_ = res
}

// TestCryptoParkKeepsKeys parks a run holding keys (one not extractable,
// one generated) and resumes it in another engine: the keys still sign and
// verify, and give the same HMAC as before.
func TestCryptoParkKeepsKeys(t *testing.T) {
	src := cryptoHelpers + `
const h = await subtle.importKey("raw", enc.encode("k"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
const ec = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
const before = hex(await subtle.sign("HMAC", h, enc.encode("m")));
await tools.risky({ n: 1 });
const sig = await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, ec.privateKey, enc.encode("m"));
return [before === hex(await subtle.sign("HMAC", h, enc.encode("m"))), before,
  await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, ec.publicKey, sig, enc.encode("m")),
  await fail(() => subtle.exportKey("raw", h))]`
	e := engine(t)
	res, err := e.Run(context.Background(), Script{Source: src, Park: true}, parkBridge, Limits{})
	require.NoError(t, err)
	require.NotNil(t, res.Parked)
	// A state with keys is version 2, which an engine reading only version
	// 1 refuses rather than resume without them.
	require.Equal(t, "ALPS\x02", string(res.Parked.State[:5]))
	other, err := NewScriptEngine(context.Background(), ScriptOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	defer other.Close(context.Background())
	got, err := other.Resume(context.Background(), Resumption{State: res.Parked.State, Bridge: okBridge, Retry: approveAll})
	require.NoError(t, err)
	require.JSONEq(t, `[true, "b60090e3052297aeb5a080889ce2fc4bca957e756faeb4df7d31800ca1e771ec", true, "InvalidAccessException: key is not extractable"]`,
		string(got.Value))
}

// TestCryptoRestoreRefusesBadKeys: a parked state whose key table breaks
// the limits or holds bad material is corrupt.
func TestCryptoRestoreRefusesBadKeys(t *testing.T) {
	_, err := restoreKeys([]parkedKey{{Handle: 1, Alg: "HMAC", Type: "secret", Hash: "SHA-256", Use: []string{"sign"}, Data: []byte("k")}}, 1)
	require.NoError(t, err)
	for name, ps := range map[string][]parkedKey{
		"handle past next": {{Handle: 5, Alg: "HMAC", Type: "secret", Hash: "SHA-256", Data: []byte("k")}},
		"bad SPKI":         {{Handle: 1, Alg: "ECDSA", Curve: "P-256", Type: "public", Data: []byte("junk")}},
		"unknown type":     {{Handle: 1, Alg: "HMAC", Type: "weird", Hash: "SHA-256", Data: []byte("k")}},
		"duplicate": {{Handle: 1, Alg: "HMAC", Type: "secret", Hash: "SHA-256", Data: []byte("k")},
			{Handle: 1, Alg: "HMAC", Type: "secret", Hash: "SHA-256", Data: []byte("k")}},
		"too many": make([]parkedKey, MaxSubtleKeys+1),
	} {
		_, err := restoreKeys(ps, 1)
		require.ErrorIs(t, err, ErrCorruptState, name)
	}
}

// TestCryptoPBKDF2 compares the host's PBKDF2 (which stops at the
// deadline) with crypto/pbkdf2.
func TestCryptoPBKDF2(t *testing.T) {
	for _, n := range []int{1, 20, 32, 33, 100} {
		got, err := pbkdf2(context.Background(), sha256.New, []byte("pw"), []byte("salt"), 1000, n)
		require.NoError(t, err)
		want, err := stdpbkdf2.Key(sha256.New, "pw", []byte("salt"), 1000, n)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := pbkdf2(ctx, sha1.New, []byte("pw"), nil, MaxPBKDF2Work, 20)
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, time.Since(start), time.Second)
}

// TestCryptoCTR compares aesCTR with a full 128-bit counter to cipher.NewCTR,
// and checks that a short counter wraps within its bits.
func TestCryptoCTR(t *testing.T) {
	block, err := aes.NewCipher(make([]byte, 16))
	require.NoError(t, err)
	iv, _ := hex.DecodeString("00000000000000000000000000fffffe")
	data := []byte(strings.Repeat("attack at dawn! ", 5))
	got, err := aesCTR(block, iv, 128, data)
	require.NoError(t, err)
	want := make([]byte, len(data))
	cipher.NewCTR(block, iv).XORKeyStream(want, data)
	require.Equal(t, want, got)
	// With 8 counter bits, block 3 uses ...ffff00, not ...000000 with a carry.
	got8, err := aesCTR(block, iv, 8, data[:64])
	require.NoError(t, err)
	var ks [16]byte
	wrapped, _ := hex.DecodeString("00000000000000000000000000ffff00")
	block.Encrypt(ks[:], wrapped)
	for i := range 16 {
		require.Equal(t, data[32+i]^ks[i], got8[32+i])
	}
	_, err = aesCTR(block, iv, 1, data) // 5 blocks, 2 counter values
	require.Error(t, err)
}

// TestCryptoGCMTagsAndNonces checks every tag length with a 12-byte and a
// 16-byte IV against Go's GCM where it has the combination, and that a
// changed byte anywhere fails the decryption.
func TestCryptoGCMTagsAndNonces(t *testing.T) {
	key := make([]byte, 16)
	block, err := aes.NewCipher(key)
	require.NoError(t, err)
	k := &subtleKey{alg: "AES-GCM", secret: key}
	data, aad := []byte("some plaintext of 33 bytes length"), "0a0b"
	for _, ivLen := range []int{12, 16, 128} {
		for _, tag := range []int{32, 64, 96, 104, 112, 120, 128} {
			iv := strings.Repeat("07", ivLen)
			req := &subtleReq{IV: iv, Tag: tag, AAD: &aad}
			ct, err := aesCipherOp(k, req, true, data)
			require.NoError(t, err)
			require.Len(t, ct, len(data)+tag/8)
			ivb, _ := hex.DecodeString(iv)
			var ref cipher.AEAD
			switch {
			case ivLen == 12 && tag >= 96:
				ref, err = cipher.NewGCMWithTagSize(block, tag/8)
			case tag == 128:
				ref, err = cipher.NewGCMWithNonceSize(block, ivLen)
			}
			if ref != nil {
				require.NoError(t, err)
				require.Equal(t, ref.Seal(nil, ivb, data, []byte{10, 11}), ct, "iv %d tag %d", ivLen, tag)
			}
			pt, err := aesCipherOp(k, req, false, ct)
			require.NoError(t, err)
			require.Equal(t, data, pt)
			for i := range ct {
				bad := append([]byte(nil), ct...)
				bad[i] ^= 0x80
				_, err := aesCipherOp(k, req, false, bad)
				require.Equal(t, errOperation, err, "iv %d tag %d byte %d", ivLen, tag, i)
			}
		}
	}
	for _, ivLen := range []int{0, 1, 11, 129} {
		_, err := aesCipherOp(k, &subtleReq{IV: strings.Repeat("07", ivLen), Tag: 128}, true, data)
		require.Equal(t, errOperation, err, "iv %d", ivLen)
	}
}

// TestCryptoGenerateRSA checks the keys generateRSA makes (size, exponent,
// a signature round trip) and that it stops soon after its context ends.
func TestCryptoGenerateRSA(t *testing.T) {
	for _, bits := range []int{2048, 2056, 3072} {
		start := time.Now()
		k, err := generateRSA(context.Background(), rand.Reader, bits)
		require.NoError(t, err)
		t.Logf("%d bits in %v", bits, time.Since(start))
		require.Equal(t, bits, k.N.BitLen())
		require.Equal(t, 65537, k.E)
		require.NoError(t, k.Validate())
		d := sha256.Sum256([]byte("m"))
		sig, err := rsa.SignPKCS1v15(nil, k, crypto.SHA256, d[:])
		require.NoError(t, err)
		require.NoError(t, rsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, d[:], sig))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := generateRSA(ctx, rand.Reader, 4096)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 500*time.Millisecond)
}

// TestCryptoPSSZeroSalt: Go cannot make an RSA-PSS signature without a
// salt, so signing refuses it; verifying one (corpus 137 checks one made by
// Node) checks for exactly no salt, where Go's SaltLength 0 accepts any.
func TestCryptoPSSZeroSalt(t *testing.T) {
	res, err := run(t, cryptoHelpers+`
const alg = { name: "RSA-PSS", hash: "SHA-256" };
const k = await subtle.generateKey({ ...alg, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, false, ["sign", "verify"]);
const salted = await subtle.sign({ name: "RSA-PSS", saltLength: 32 }, k.privateKey, enc.encode("m"));
return [await fail(() => subtle.sign({ name: "RSA-PSS", saltLength: 0 }, k.privateKey, enc.encode("m"))),
  await subtle.verify({ name: "RSA-PSS", saltLength: 0 }, k.publicKey, salted, enc.encode("m")),
  await subtle.verify({ name: "RSA-PSS", saltLength: 32 }, k.publicKey, salted, enc.encode("m"))]`, nil, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `["NotSupportedError: RSA-PSS signatures with a zero-length salt are not supported in airlock (they can be verified)", false, true]`, string(res.Value))
}
