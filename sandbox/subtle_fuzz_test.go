package sandbox

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"
)

// FuzzSubtleImport feeds arbitrary key data to importSubtleKey, as a
// hostile script can: it never panics, and refuses with a DOMException or a
// protocol error.
func FuzzSubtleImport(f *testing.F) {
	spki, _ := base64.StdEncoding.DecodeString("MCowBQYDK2VwAyEA5XNCM0iIXJlv6D/bKaH3JuNJmIT926gPNTbdFqfladI=")
	f.Add("spki", "Ed25519", spki, []byte(nil))
	f.Add("raw", "ECDSA", []byte{4, 1, 2, 3}, []byte(nil))
	f.Add("pkcs8", "RSA-PSS", []byte{0x30, 0x82, 0x01, 0x00, 0x02, 0x01, 0x00}, []byte(nil))
	f.Add("jwk", "RSASSA-PKCS1-v1_5", []byte(nil), []byte(`{"n":"AQAB","e":"AQAB","d":"AQAB","p":"Aw","q":"BQ","dp":"AQ","dq":"AQ","qi":"AQ"}`))
	f.Add("jwk", "ECDH", []byte(nil), []byte(`{"x":"AAAA","y":"AAAA","d":"AAAA"}`))
	f.Add("jwk", "HMAC", []byte(nil), []byte(`{"k":"a2V5"}`))
	f.Fuzz(func(t *testing.T, format, alg string, data, jwk []byte) {
		req := &subtleReq{Op: "import", Alg: alg, Format: format, Hash: "SHA-256", Curve: "P-256", Use: []string{"sign"}, JWK: jwk}
		r := &scriptRun{}
		out, err := r.subtle(context.Background(), req, data, nil)
		var se *subtleErr
		if err != nil && !errors.As(err, &se) && !errors.Is(err, errProtocol) {
			t.Fatalf("import %s %s: %v", format, alg, err)
		}
		if err == nil && len(r.keys.keys) != 1 {
			t.Fatalf("import answered %q with %d keys", out, len(r.keys.keys))
		}
	})
}
