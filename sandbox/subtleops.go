package sandbox

import (
	"context"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/big"
	"slices"
)

// The host half of crypto.subtle beyond digest (OpSubtle, guest-sdk/ABI.md;
// the guest half is guest-sdk/js/prelude/46-subtle.js, which validates
// arguments with Node 20's checks and messages first). Key material stays
// here (RATIONALE.md, "Why does crypto.subtle keep key material in the
// host?"), in a table of the run (scriptRun.keys): the guest holds a handle
// number inside a CryptoKey it cannot forge, and exported bytes leave only
// for a key created extractable. The table goes with the run; a parked run
// carries it in its state (which the durable store encrypts).
//
// Every request is bounded before any work: data per operation
// (MaxSubtleDataBytes), key data on import (maxSubtleKeyData, maxPKCS8),
// the number and bytes of keys per run (MaxSubtleKeys, MaxSubtleKeyBytes),
// RSA modulus sizes, PBKDF2 work (MaxPBKDF2Work); the long operations
// (PBKDF2, RSA key generation) stop at the run's deadline. docs/limits.md
// lists them.

const (
	// MaxSubtleDataBytes bounds the data of one crypto.subtle operation
	// (the message signed, verified, encrypted or decrypted, a signature,
	// imported key bytes, an IV, counter, salt, info or additional data):
	// 1 MiB. The prelude refuses more with a QuotaExceededError DOMException.
	MaxSubtleDataBytes = 1 << 20
	// MaxSubtleKeys bounds the CryptoKeys one run holds (a key pair counts
	// two); a key is freed only when the run ends.
	MaxSubtleKeys = 1024
	// MaxSubtleKeyBytes bounds the key material one run holds, 4 MiB.
	MaxSubtleKeyBytes = 4 << 20
	// MaxPBKDF2Work bounds one PBKDF2 derivation: iterations times output
	// blocks (of the hash's size) at most 10,000,000, about 2 to 5 seconds
	// on one core; the run's deadline stops it earlier.
	MaxPBKDF2Work = 10_000_000
	// RSA modulus sizes in bits: generateKey accepts 2048 to 4096, import
	// 1024 to 8192.
	minRSAGenBits, maxRSAGenBits       = 2048, 4096
	minRSAImportBits, maxRSAImportBits = 1024, 8192
	// maxSubtleKeyData bounds SPKI and JWK key data before it is parsed
	// (PKCS #8: maxPKCS8).
	maxSubtleKeyData = 16 << 10
	// maxSubtleRequest bounds the request JSON (algorithm parameters in hex
	// and a JWK).
	maxSubtleRequest = 4*MaxSubtleDataBytes + 64<<10
	// maxSubtleEscaped bounds escape()'d data: 3 bytes per byte.
	maxSubtleEscaped = 3 * MaxSubtleDataBytes
)

// Key usages, as bits.
var subtleUsages = map[string]uint16{
	"encrypt": 1, "decrypt": 2, "sign": 4, "verify": 8, "deriveKey": 16, "deriveBits": 32, "wrapKey": 64, "unwrapKey": 128,
}

// subtleKey is one key of the run's table.
type subtleKey struct {
	alg    string // the Web Crypto name: "HMAC", "AES-GCM", "ECDSA", …
	typ    string // "secret", "public" or "private"
	ext    bool
	usages uint16
	hash   string // HMAC, RSA
	curve  string // ECDSA, ECDH: "P-256", "P-384", "P-521"
	size   int    // bytes charged against MaxSubtleKeyBytes

	secret []byte
	priv   crypto.Signer // *rsa.PrivateKey, *ecdsa.PrivateKey, ed25519.PrivateKey
	pub    crypto.PublicKey
}

// subtleKeys is a run's key table.
type subtleKeys struct {
	keys  map[int32]*subtleKey
	next  int32
	bytes int
}

// subtleReq is one OpSubtle request.
type subtleReq struct {
	Op     string          `json:"op"`
	Alg    string          `json:"alg"`
	Format string          `json:"fmt"`
	Hash   string          `json:"hash"`
	Curve  string          `json:"curve"`
	Ext    bool            `json:"ext"`
	Use    []string        `json:"use"`
	PubUse []string        `json:"pubUse"`
	JWK    json.RawMessage `json:"jwk"`
	Key    int32           `json:"key"`
	Pub    int32           `json:"pub"`
	Length int             `json:"len"` // bits; -1: null
	Mod    int             `json:"mod"`
	Exp    string          `json:"exp"` // hex
	IV     string          `json:"iv"`  // hex, also AES-CTR's counter
	AAD    *string         `json:"aad"` // hex
	Tag    int             `json:"tag"` // bits
	Salt   string          `json:"salt"`
	Info   string          `json:"info"`
	Iter   int64           `json:"iter"`
	SaltN  int             `json:"saltLength"`
	Wrap   bool            `json:"wrap"` // encrypt or decrypt for wrapKey or unwrapKey
}

// subtleErr is a DOMException for the guest to throw.
type subtleErr struct{ name, msg string }

func (e *subtleErr) Error() string { return e.name + ": " + e.msg }

func domErr(name, msg string) error { return &subtleErr{name, msg} }

var (
	errInvalidKeyData = domErr("DataError", "Invalid keyData")
	errOperation      = domErr("OperationError", "The operation failed for an operation-specific reason")
)

// opSubtle implements OpSubtle (request JSON, data, data2): data and data2
// are escape()'d latin1 strings (data2: verify's signature). The answer is
// "E" + {"n","m"} (a DOMException), "J" + JSON or "B" + a byte string.
func (r *scriptRun) opSubtle(ctx context.Context, args []uint64) uint64 {
	reqRef := r.str(ctx, args, 1)
	if reqRef.Len() > maxSubtleRequest {
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (subtle request)"})
	}
	reqJSON := r.copyStr(ctx, reqRef, reqRef.Len())
	var data [2][]byte
	for i := range data {
		if len(args) <= 2+i {
			break
		}
		ref := r.str(ctx, args, 2+i)
		if ref.Len() > maxSubtleEscaped {
			r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (subtle data)"})
		}
		b, ok := unescapeLatin1(r.copyStr(ctx, ref, ref.Len()))
		if !ok {
			r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (subtle data)"})
		}
		data[i] = b
	}
	var req subtleReq
	if err := json.Unmarshal(reqJSON, &req); err != nil {
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (subtle request)"})
	}
	out, err := r.subtle(ctx, &req, data[0], data[1])
	if err != nil {
		var se *subtleErr
		if !errors.As(err, &se) {
			if ctx.Err() != nil {
				r.stop(ctxExit(ctx))
			}
			// The message names the operation, never key material.
			r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (subtle " + req.Op + ")", Err: err})
		}
		js, _ := json.Marshal(map[string]string{"n": se.name, "m": se.msg})
		return r.newString(ctx, append([]byte("E"), js...))
	}
	return r.newString(ctx, out)
}

// errProtocol marks a request the prelude would never send.
var errProtocol = errors.New("sandbox: malformed subtle request")

func jsonAnswer(v any) ([]byte, error) {
	js, err := json.Marshal(v)
	return append([]byte("J"), js...), err
}

func bytesAnswer(b []byte) []byte {
	return appendByteString(append(make([]byte, 0, 1+2*len(b)), 'B'), b)
}

func (r *scriptRun) subtle(ctx context.Context, req *subtleReq, data, data2 []byte) ([]byte, error) {
	if len(data) > MaxSubtleDataBytes || len(data2) > MaxSubtleDataBytes {
		return nil, errProtocol
	}
	switch req.Op {
	case "import":
		k, err := importSubtleKey(req, data)
		if err != nil {
			return nil, err
		}
		return r.addKeys(k)
	case "generate":
		return r.generateKeys(ctx, req)
	case "export":
		k, err := r.key(req.Key, 0)
		if err != nil {
			return nil, err
		}
		return exportSubtleKey(k, req.Format)
	case "sign", "verify":
		use := map[string]string{"sign": "sign", "verify": "verify"}[req.Op]
		k, err := r.key(req.Key, subtleUsages[use])
		if err != nil {
			return nil, err
		}
		if k.alg != req.Alg {
			return nil, domErr("InvalidAccessError", "Unable to use this key to "+use)
		}
		if req.Op == "sign" {
			sig, err := subtleSign(r.randReader(), k, req, data)
			if err != nil {
				return nil, err
			}
			return bytesAnswer(sig), nil
		}
		ok, err := subtleVerify(k, req, data, data2)
		if err != nil {
			return nil, err
		}
		return jsonAnswer(ok)
	case "encrypt", "decrypt":
		use := subtleUsages[req.Op]
		if req.Wrap {
			use = subtleUsages[map[string]string{"encrypt": "wrapKey", "decrypt": "unwrapKey"}[req.Op]]
		}
		k, err := r.key(req.Key, use)
		if err != nil {
			return nil, err
		}
		if k.alg != req.Alg {
			return nil, domErr("InvalidAccessError", "The requested operation is not valid for the provided key")
		}
		out, err := aesCipherOp(k, req, req.Op == "encrypt", data)
		if err != nil {
			return nil, err
		}
		return bytesAnswer(out), nil
	case "derive":
		k, err := r.key(req.Key, subtleUsages["deriveBits"]|subtleUsages["deriveKey"])
		if err != nil {
			return nil, err
		}
		if k.alg != req.Alg {
			return nil, domErr("InvalidAccessError", "Key algorithm mismatch")
		}
		out, err := r.deriveBits(ctx, k, req)
		if err != nil {
			return nil, err
		}
		return bytesAnswer(out), nil
	}
	return nil, errProtocol
}

// randReader is the run's random source for signatures.
func (r *scriptRun) randReader() io.Reader {
	if r.cryptoRand != nil {
		return r.cryptoRand
	}
	return rand.Reader
}

// key looks up handle h, which must have one of the usages in use (0: any).
// A handle the run never made is a broken protocol: the prelude only sends
// handles of CryptoKeys it made in this run.
func (r *scriptRun) key(h int32, use uint16) (*subtleKey, error) {
	k := r.keys.keys[h]
	if k == nil {
		return nil, fmt.Errorf("%w: unknown key handle", errProtocol)
	}
	if use != 0 && k.usages&use == 0 {
		return nil, domErr("InvalidAccessError", "The key does not allow this operation")
	}
	return k, nil
}

// addKeys adds keys to the table, within MaxSubtleKeys and
// MaxSubtleKeyBytes, and answers their handles and details.
func (r *scriptRun) addKeys(ks ...*subtleKey) ([]byte, error) {
	size := 0
	for _, k := range ks {
		size += k.size
	}
	if len(r.keys.keys)+len(ks) > MaxSubtleKeys {
		return nil, domErr("QuotaExceededError", fmt.Sprintf("a run holds at most %d CryptoKeys (docs/limits.md)", MaxSubtleKeys))
	}
	if r.keys.bytes+size > MaxSubtleKeyBytes {
		return nil, domErr("QuotaExceededError", fmt.Sprintf("a run holds at most %d bytes of CryptoKey material (docs/limits.md)", MaxSubtleKeyBytes))
	}
	if r.keys.keys == nil {
		r.keys.keys = map[int32]*subtleKey{}
	}
	out := make([]map[string]any, len(ks))
	for i, k := range ks {
		r.keys.next++
		r.keys.keys[r.keys.next] = k
		r.keys.bytes += k.size
		out[i] = keyDetail(r.keys.next, k)
	}
	return jsonAnswer(out)
}

// keyDetail is what the guest's CryptoKey shows of k.
func keyDetail(h int32, k *subtleKey) map[string]any {
	d := map[string]any{"h": h, "type": k.typ}
	switch {
	case k.secret != nil:
		d["len"] = len(k.secret) * 8
	case k.pub != nil:
		if pub, ok := k.pub.(*rsa.PublicKey); ok {
			d["mod"] = pub.N.BitLen()
			d["exp"] = hex.EncodeToString(big.NewInt(int64(pub.E)).Bytes())
		}
	}
	return d
}

func parseUsages(names []string) (uint16, error) {
	var u uint16
	for _, n := range names {
		b, ok := subtleUsages[n]
		if !ok {
			return 0, errProtocol
		}
		u |= b
	}
	return u, nil
}

func curveOf(name string) elliptic.Curve {
	switch name {
	case "P-256":
		return elliptic.P256()
	case "P-384":
		return elliptic.P384()
	case "P-521":
		return elliptic.P521()
	}
	return nil
}

var subtleHashes = map[string]crypto.Hash{"SHA-1": crypto.SHA1, "SHA-256": crypto.SHA256, "SHA-384": crypto.SHA384, "SHA-512": crypto.SHA512}

func isSecretAlg(alg string) bool {
	switch alg {
	case "HMAC", "AES-GCM", "AES-CBC", "AES-CTR", "PBKDF2", "HKDF":
		return true
	}
	return false
}

// newKey checks the request's common fields and starts a key.
func newKey(req *subtleReq) (*subtleKey, error) {
	u, err := parseUsages(req.Use)
	if err != nil {
		return nil, err
	}
	k := &subtleKey{alg: req.Alg, ext: req.Ext, usages: u}
	switch req.Alg {
	case "HMAC", "RSASSA-PKCS1-v1_5", "RSA-PSS":
		if _, ok := subtleHashes[req.Hash]; !ok {
			return nil, errProtocol
		}
		k.hash = req.Hash
	case "ECDSA", "ECDH":
		if curveOf(req.Curve) == nil {
			return nil, domErr("NotSupportedError", "Unrecognized namedCurve")
		}
		k.curve = req.Curve
	case "AES-GCM", "AES-CBC", "AES-CTR", "PBKDF2", "HKDF", "Ed25519":
	default:
		return nil, domErr("NotSupportedError", "Unrecognized algorithm name")
	}
	return k, nil
}

// importSubtleKey parses key data (raw, spki, pkcs8 or, in req.JWK, jwk).
func importSubtleKey(req *subtleReq, data []byte) (*subtleKey, error) {
	k, err := newKey(req)
	if err != nil {
		return nil, err
	}
	if req.Format != "raw" && len(data) > maxSubtleKeyData || len(req.JWK) > 2*maxSubtleKeyData {
		return nil, domErr("QuotaExceededError", fmt.Sprintf("key data is limited to %d bytes (docs/limits.md)", maxSubtleKeyData))
	}
	if isSecretAlg(req.Alg) {
		if req.Format == "jwk" {
			var j struct{ K string }
			if json.Unmarshal(req.JWK, &j) != nil {
				return nil, errInvalidKeyData
			}
			if data, err = b64url(j.K); err != nil {
				return nil, errInvalidKeyData
			}
		} else if req.Format != "raw" {
			return nil, errProtocol
		}
		return secretKey(k, data)
	}
	switch req.Format {
	case "spki":
		pub, err := x509.ParsePKIXPublicKey(data)
		if err != nil {
			return nil, errInvalidKeyData
		}
		return publicKey(k, pub)
	case "pkcs8":
		if req.Alg != "Ed25519" {
			if err := precheckRSA(data); err != nil {
				return nil, err
			}
		}
		priv, err := x509.ParsePKCS8PrivateKey(data)
		if err != nil {
			return nil, errInvalidKeyData
		}
		s, ok := priv.(crypto.Signer)
		if !ok {
			return nil, domErr("DataError", "Invalid key type")
		}
		return privateKey(k, s)
	case "raw":
		switch req.Alg {
		case "ECDSA", "ECDH":
			pub, err := ecdsa.ParseUncompressedPublicKey(curveOf(k.curve), data)
			if err != nil {
				return nil, errInvalidKeyData
			}
			return publicKey(k, pub)
		case "Ed25519":
			if len(data) != ed25519.PublicKeySize {
				return nil, domErr("DataError", "Ed25519 raw keys must be exactly 32-bytes")
			}
			return publicKey(k, ed25519.PublicKey(slices.Clone(data)))
		}
	case "jwk":
		return importJWK(k, req.JWK)
	}
	return nil, errProtocol
}

// maxPKCS8 bounds PKCS #8 data before it is parsed: parsing an RSA key
// validates it, at a cost that grows with the cube of its size. An
// 8192-bit key takes about 4.8 KiB.
const maxPKCS8 = 8 << 10

// precheckRSA refuses PKCS #8 data too large to hold an RSA key of at most
// maxRSAImportBits.
func precheckRSA(der []byte) error {
	if len(der) > maxPKCS8 {
		return domErr("NotSupportedError", fmt.Sprintf("PKCS #8 key data is limited to %d bytes: RSA keys of more than %d bits are not supported (docs/limits.md)", maxPKCS8, maxRSAImportBits))
	}
	return nil
}

func secretKey(k *subtleKey, b []byte) (*subtleKey, error) {
	k.typ = "secret"
	switch k.alg {
	case "AES-GCM", "AES-CBC", "AES-CTR":
		if n := len(b); n != 16 && n != 24 && n != 32 {
			return nil, domErr("DataError", "Invalid key length")
		}
	}
	// An empty HMAC key is refused in raw form only (by the prelude, as
	// Node does); a JWK may hold one.
	k.secret = slices.Clone(b)
	if k.secret == nil {
		k.secret = []byte{}
	}
	k.size = len(b) + 64
	return k, nil
}

func publicKey(k *subtleKey, pub crypto.PublicKey) (*subtleKey, error) {
	k.typ = "public"
	if err := checkKeyKind(k, pub); err != nil {
		return nil, err
	}
	k.pub = pub
	return k, nil
}

func privateKey(k *subtleKey, priv crypto.Signer) (*subtleKey, error) {
	k.typ = "private"
	if err := checkKeyKind(k, priv.Public()); err != nil {
		return nil, err
	}
	k.priv, k.pub = priv, priv.Public()
	if _, ok := priv.(*rsa.PrivateKey); ok {
		k.size *= 5
	}
	return k, nil
}

// checkKeyKind checks that pub is a key of k's algorithm, curve and size,
// and sets k.size.
func checkKeyKind(k *subtleKey, pub crypto.PublicKey) error {
	switch p := pub.(type) {
	case *rsa.PublicKey:
		if k.alg != "RSASSA-PKCS1-v1_5" && k.alg != "RSA-PSS" {
			return domErr("DataError", "Invalid key type")
		}
		if n := p.N.BitLen(); n < minRSAImportBits || n > maxRSAImportBits {
			return domErr("NotSupportedError", fmt.Sprintf("RSA keys of %d bits are not supported: the modulus must have %d to %d bits (docs/limits.md)", n, minRSAImportBits, maxRSAImportBits))
		}
		k.size = p.N.BitLen()/8 + 64
	case *ecdsa.PublicKey:
		if k.alg != "ECDSA" && k.alg != "ECDH" {
			return domErr("DataError", "Invalid key type")
		}
		if p.Curve != curveOf(k.curve) {
			return domErr("DataError", "Named curve mismatch")
		}
		k.size = 256
	case ed25519.PublicKey:
		if k.alg != "Ed25519" {
			return domErr("DataError", "Invalid key type")
		}
		k.size = 128
	default:
		return domErr("DataError", "Invalid key type")
	}
	return nil
}

func b64url(s string) ([]byte, error) {
	if len(s) > 2*maxSubtleKeyData {
		return nil, errInvalidKeyData
	}
	// Node decodes JWK members leniently: padding and the standard
	// alphabet are accepted too.
	s2 := []byte(s)
	for i, c := range s2 {
		switch c {
		case '+':
			s2[i] = '-'
		case '/':
			s2[i] = '_'
		}
	}
	for len(s2) > 0 && s2[len(s2)-1] == '=' {
		s2 = s2[:len(s2)-1]
	}
	return base64.RawURLEncoding.DecodeString(string(s2))
}

type jwkFields struct {
	N, E, D, P, Q, Dp, Dq, Qi, X, Y string
}

func importJWK(k *subtleKey, raw json.RawMessage) (*subtleKey, error) {
	var j jwkFields
	if json.Unmarshal(raw, &j) != nil {
		return nil, errInvalidKeyData
	}
	dec := func(s string) []byte {
		b, err := b64url(s)
		if err != nil || len(b) == 0 {
			return nil
		}
		return b
	}
	switch k.alg {
	case "RSASSA-PKCS1-v1_5", "RSA-PSS":
		n, e := dec(j.N), dec(j.E)
		if n == nil || e == nil || len(e) > 4 {
			return nil, errInvalidKeyData
		}
		if len(n)*8 > maxRSAImportBits+8 {
			return nil, domErr("NotSupportedError", fmt.Sprintf("RSA keys of more than %d bits are not supported (docs/limits.md)", maxRSAImportBits))
		}
		ev := 0
		for _, c := range e {
			ev = ev<<8 | int(c)
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: ev}
		if j.D == "" {
			return publicKey(k, pub)
		}
		parts := [][]byte{dec(j.D), dec(j.P), dec(j.Q), dec(j.Dp), dec(j.Dq), dec(j.Qi)}
		for _, p := range parts {
			if p == nil {
				return nil, errInvalidKeyData
			}
		}
		if err := checkKeyKind(k, pub); err != nil {
			return nil, err
		}
		priv := &rsa.PrivateKey{PublicKey: *pub, D: new(big.Int).SetBytes(parts[0]),
			Primes: []*big.Int{new(big.Int).SetBytes(parts[1]), new(big.Int).SetBytes(parts[2])}}
		priv.Precompute()
		if priv.Validate() != nil {
			return nil, errInvalidKeyData
		}
		return privateKey(k, priv)
	case "ECDSA", "ECDH":
		c := curveOf(k.curve)
		size := (c.Params().BitSize + 7) / 8
		x, y := dec(j.X), dec(j.Y)
		if len(x) != size || len(y) != size {
			return nil, errInvalidKeyData
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(c, append(append([]byte{4}, x...), y...))
		if err != nil {
			return nil, errInvalidKeyData
		}
		if j.D == "" {
			return publicKey(k, pub)
		}
		d := dec(j.D)
		if len(d) != size {
			return nil, errInvalidKeyData
		}
		priv, err := ecdsa.ParseRawPrivateKey(c, d)
		if err != nil || !priv.PublicKey.Equal(pub) {
			return nil, errInvalidKeyData
		}
		return privateKey(k, priv)
	case "Ed25519":
		x := dec(j.X)
		if len(x) != ed25519.PublicKeySize {
			return nil, errInvalidKeyData
		}
		if j.D == "" {
			return publicKey(k, ed25519.PublicKey(x))
		}
		d := dec(j.D)
		if len(d) != ed25519.SeedSize {
			return nil, errInvalidKeyData
		}
		priv := ed25519.NewKeyFromSeed(d)
		if !priv.Public().(ed25519.PublicKey).Equal(ed25519.PublicKey(x)) {
			return nil, errInvalidKeyData
		}
		return privateKey(k, priv)
	}
	return nil, errProtocol
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// exportSubtleKey answers k in format: bytes, or the JWK's key members
// (the prelude adds key_ops, ext and alg in Node's order).
func exportSubtleKey(k *subtleKey, format string) ([]byte, error) {
	if !k.ext {
		return nil, domErr("InvalidAccessException", "key is not extractable")
	}
	bad := func(f string) error {
		return domErr("InvalidAccessError", fmt.Sprintf("Unable to export a %s %s %s key", f, k.alg, k.typ))
	}
	switch format {
	case "raw":
		switch {
		case k.secret != nil && k.alg != "PBKDF2" && k.alg != "HKDF":
			return bytesAnswer(k.secret), nil
		case k.typ == "public":
			switch p := k.pub.(type) {
			case *ecdsa.PublicKey:
				b, err := p.Bytes()
				if err != nil {
					return nil, err
				}
				return bytesAnswer(b), nil
			case ed25519.PublicKey:
				return bytesAnswer(p), nil
			}
		}
		return nil, bad("raw")
	case "spki":
		if k.typ != "public" {
			return nil, bad("raw") // Node's message
		}
		b, err := x509.MarshalPKIXPublicKey(k.pub)
		if err != nil {
			return nil, err
		}
		return bytesAnswer(b), nil
	case "pkcs8":
		if k.typ != "private" {
			return nil, bad("pkcs8")
		}
		b, err := x509.MarshalPKCS8PrivateKey(k.priv)
		if err != nil {
			return nil, err
		}
		return bytesAnswer(b), nil
	case "jwk":
		type kv = [2]string
		var m []kv
		switch k.alg {
		case "PBKDF2", "HKDF":
			return nil, domErr("NotSupportedError", "Not yet supported")
		}
		switch p := k.pub.(type) {
		case nil:
			m = []kv{{"kty", "oct"}, {"k", b64(k.secret)}}
		case *rsa.PublicKey:
			m = []kv{{"kty", "RSA"}, {"n", b64(p.N.Bytes())}, {"e", b64(big.NewInt(int64(p.E)).Bytes())}}
			if priv, ok := k.priv.(*rsa.PrivateKey); ok {
				pc := priv.Precomputed
				m = append(m, kv{"d", b64(priv.D.Bytes())}, kv{"p", b64(priv.Primes[0].Bytes())}, kv{"q", b64(priv.Primes[1].Bytes())},
					kv{"dp", b64(pc.Dp.Bytes())}, kv{"dq", b64(pc.Dq.Bytes())}, kv{"qi", b64(pc.Qinv.Bytes())})
			}
		case *ecdsa.PublicKey:
			b, err := p.Bytes()
			if err != nil {
				return nil, err
			}
			size := (len(b) - 1) / 2
			m = []kv{{"kty", "EC"}, {"x", b64(b[1 : 1+size])}, {"y", b64(b[1+size:])}, {"crv", k.curve}}
			if priv, ok := k.priv.(*ecdsa.PrivateKey); ok {
				d, err := priv.Bytes()
				if err != nil {
					return nil, err
				}
				m = append(m, kv{"d", b64(d)})
			}
		case ed25519.PublicKey:
			m = []kv{{"crv", "Ed25519"}}
			if priv, ok := k.priv.(ed25519.PrivateKey); ok {
				m = append(m, kv{"d", b64(priv.Seed())})
			}
			m = append(m, kv{"x", b64(p)}, kv{"kty", "OKP"})
		}
		return jsonAnswer(m)
	}
	return nil, errProtocol
}

func hashOf(name string) (crypto.Hash, error) {
	h, ok := subtleHashes[name]
	if !ok {
		return 0, errProtocol
	}
	return h, nil
}

func digestOf(name string, data []byte) ([]byte, crypto.Hash, error) {
	h, err := hashOf(name)
	if err != nil {
		return nil, 0, err
	}
	w := h.New()
	w.Write(data)
	return w.Sum(nil), h, nil
}

func subtleSign(rnd io.Reader, k *subtleKey, req *subtleReq, data []byte) ([]byte, error) {
	switch k.alg {
	case "HMAC":
		h, _ := hashOf(k.hash)
		m := hmac.New(h.New, k.secret)
		m.Write(data)
		return m.Sum(nil), nil
	}
	if k.typ != "private" {
		return nil, domErr("InvalidAccessError", "Key must be a private key")
	}
	switch priv := k.priv.(type) {
	case *rsa.PrivateKey:
		d, h, err := digestOf(k.hash, data)
		if err != nil {
			return nil, err
		}
		if k.alg == "RSA-PSS" {
			// Go's PSSOptions read a salt length of 0 as "as long as
			// possible" and have no way to ask for none.
			if req.SaltN == 0 {
				return nil, domErr("NotSupportedError", "RSA-PSS signatures with a zero-length salt are not supported in airlock (they can be verified)")
			}
			return rsa.SignPSS(rnd, priv, h, d, &rsa.PSSOptions{SaltLength: req.SaltN})
		}
		return rsa.SignPKCS1v15(nil, priv, h, d)
	case *ecdsa.PrivateKey:
		d, _, err := digestOf(req.Hash, data)
		if err != nil {
			return nil, err
		}
		r, s, err := ecdsa.Sign(rnd, priv, d)
		if err != nil {
			return nil, err
		}
		size := (priv.Curve.Params().BitSize + 7) / 8
		sig := make([]byte, 2*size)
		r.FillBytes(sig[:size])
		s.FillBytes(sig[size:])
		return sig, nil
	case ed25519.PrivateKey:
		return ed25519.Sign(priv, data), nil
	}
	return nil, errProtocol
}

func subtleVerify(k *subtleKey, req *subtleReq, data, sig []byte) (bool, error) {
	switch k.alg {
	case "HMAC":
		h, _ := hashOf(k.hash)
		m := hmac.New(h.New, k.secret)
		m.Write(data)
		return subtle.ConstantTimeCompare(m.Sum(nil), sig) == 1, nil
	}
	if k.typ != "public" {
		return false, domErr("InvalidAccessError", "Key must be a public key")
	}
	switch pub := k.pub.(type) {
	case *rsa.PublicKey:
		d, h, err := digestOf(k.hash, data)
		if err != nil {
			return false, err
		}
		if k.alg == "RSA-PSS" {
			if req.SaltN == 0 {
				return verifyPSSNoSalt(pub, h, d, sig), nil
			}
			return rsa.VerifyPSS(pub, h, d, sig, &rsa.PSSOptions{SaltLength: req.SaltN}) == nil, nil
		}
		return rsa.VerifyPKCS1v15(pub, h, d, sig) == nil, nil
	case *ecdsa.PublicKey:
		d, _, err := digestOf(req.Hash, data)
		if err != nil {
			return false, err
		}
		size := (pub.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*size {
			return false, nil
		}
		return ecdsa.Verify(pub, d, new(big.Int).SetBytes(sig[:size]), new(big.Int).SetBytes(sig[size:])), nil
	case ed25519.PublicKey:
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(pub, data, sig), nil
	}
	return false, errProtocol
}

func unhexParam(s string) ([]byte, error) {
	if len(s) > 2*MaxSubtleDataBytes {
		return nil, errProtocol
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, errProtocol
	}
	return b, nil
}

func aesCipherOp(k *subtleKey, req *subtleReq, encrypt bool, data []byte) ([]byte, error) {
	block, err := aes.NewCipher(k.secret)
	if err != nil {
		return nil, errProtocol
	}
	iv, err := unhexParam(req.IV)
	if err != nil {
		return nil, err
	}
	switch k.alg {
	case "AES-GCM":
		// Go's GCM takes either a nonce size or a tag size other than the
		// default; Web Crypto allows both. The ciphertext is the same for
		// every tag length, so the full tag is computed and cut, and a
		// decryption computes the plaintext by CTR (sealing the ciphertext,
		// whose tag it ignores), then checks the tag that sealing that
		// plaintext gives.
		tag := req.Tag / 8
		// Node (OpenSSL) takes IVs of 12 to 128 bytes.
		if len(iv) < 12 || len(iv) > 128 || tag < 4 || tag > 16 {
			return nil, errOperation
		}
		aead, err := cipher.NewGCMWithNonceSize(block, len(iv))
		if err != nil {
			return nil, errOperation
		}
		var aad []byte
		if req.AAD != nil {
			if aad, err = unhexParam(*req.AAD); err != nil {
				return nil, err
			}
		}
		if encrypt {
			out := aead.Seal(nil, iv, data, aad)
			return out[:len(data)+tag], nil
		}
		if len(data) < tag {
			return nil, errOperation
		}
		ct, want := data[:len(data)-tag], data[len(data)-tag:]
		pt := aead.Seal(nil, iv, ct, nil)[:len(ct)]
		full := aead.Seal(nil, iv, pt, aad)
		if subtle.ConstantTimeCompare(full[len(pt):len(pt)+tag], want) != 1 {
			return nil, errOperation
		}
		return pt, nil
	case "AES-CBC":
		if len(iv) != 16 {
			return nil, errProtocol
		}
		if encrypt {
			pad := 16 - len(data)%16
			buf := make([]byte, len(data)+pad)
			copy(buf, data)
			for i := len(data); i < len(buf); i++ {
				buf[i] = byte(pad)
			}
			cipher.NewCBCEncrypter(block, iv).CryptBlocks(buf, buf)
			return buf, nil
		}
		if len(data) == 0 || len(data)%16 != 0 {
			return nil, errOperation
		}
		buf := make([]byte, len(data))
		cipher.NewCBCDecrypter(block, iv).CryptBlocks(buf, data)
		pad := int(buf[len(buf)-1])
		if pad == 0 || pad > 16 {
			return nil, errOperation
		}
		for _, c := range buf[len(buf)-pad:] {
			if int(c) != pad {
				return nil, errOperation
			}
		}
		return buf[:len(buf)-pad], nil
	case "AES-CTR":
		if len(iv) != 16 || req.Length < 1 || req.Length > 128 {
			return nil, errProtocol
		}
		return aesCTR(block, iv, req.Length, data)
	}
	return nil, errProtocol
}

// aesCTR is AES-CTR as Web Crypto defines it: only the low length bits of
// the counter block count; the rest stays. Like Node, it refuses data that
// would reuse a counter value.
func aesCTR(block cipher.Block, counter []byte, length int, data []byte) ([]byte, error) {
	blocks := (len(data) + 15) / 16
	if length < 64 && uint64(blocks) > uint64(1)<<length {
		return nil, errOperation
	}
	ctr := slices.Clone(counter)
	out := make([]byte, len(data))
	var ks [16]byte
	for i := 0; i < len(data); i += 16 {
		block.Encrypt(ks[:], ctr)
		subtle.XORBytes(out[i:min(i+16, len(data))], data[i:min(i+16, len(data))], ks[:])
		// Increment the low length bits of ctr, modulo 2^length.
		for bit, j := 0, 15; bit < length && j >= 0; j-- {
			span := min(8, length-bit)
			mask := byte(1<<span - 1)
			low := ctr[j] & mask
			next := (low + 1) & mask
			ctr[j] = ctr[j]&^mask | next
			if next != 0 {
				break
			}
			bit += 8
		}
	}
	return out, nil
}

func (r *scriptRun) deriveBits(ctx context.Context, k *subtleKey, req *subtleReq) ([]byte, error) {
	switch k.alg {
	case "HKDF", "PBKDF2":
		if req.Length < 0 || req.Length%8 != 0 || req.Length > 8*MaxSubtleDataBytes {
			return nil, errProtocol
		}
		h, err := hashOf(req.Hash)
		if err != nil {
			return nil, err
		}
		salt, err := unhexParam(req.Salt)
		if err != nil {
			return nil, err
		}
		n := req.Length / 8
		if k.alg == "HKDF" {
			info, err := unhexParam(req.Info)
			if err != nil {
				return nil, err
			}
			if n > 255*h.Size() {
				return nil, errOperation
			}
			return hkdf.Key(h.New, k.secret, salt, string(info), n)
		}
		if req.Iter < 1 {
			return nil, errProtocol
		}
		blocks := int64((n + h.Size() - 1) / h.Size())
		if req.Iter > MaxPBKDF2Work || req.Iter*blocks > MaxPBKDF2Work {
			return nil, domErr("QuotaExceededError", fmt.Sprintf("PBKDF2 is limited to %d iterations times output blocks (docs/limits.md)", MaxPBKDF2Work))
		}
		return pbkdf2(ctx, h.New, k.secret, salt, int(req.Iter), n)
	case "ECDH":
		pk, err := r.key(req.Pub, 0)
		if err != nil {
			return nil, err
		}
		if pk.typ != "public" || pk.alg != "ECDH" || pk.curve != k.curve || k.typ != "private" {
			return nil, domErr("InvalidAccessError", "algorithm.public must be a public ECDH key of the same curve")
		}
		priv, err := k.priv.(*ecdsa.PrivateKey).ECDH()
		if err != nil {
			return nil, errOperation
		}
		pub, err := pk.pub.(*ecdsa.PublicKey).ECDH()
		if err != nil {
			return nil, errOperation
		}
		return priv.ECDH(pub)
	}
	return nil, errProtocol
}

// pbkdf2 is PBKDF2 (RFC 8018) that stops when ctx ends: the chain's
// deadline bounds it as it bounds the guest's own computation.
func pbkdf2(ctx context.Context, newHash func() hash.Hash, password, salt []byte, iter, n int) ([]byte, error) {
	prf := hmac.New(newHash, password)
	size := prf.Size()
	out := make([]byte, 0, n+size)
	u := make([]byte, size)
	t := make([]byte, size)
	var idx [4]byte
	for block := uint32(1); len(out) < n; block++ {
		prf.Reset()
		prf.Write(salt)
		binary.BigEndian.PutUint32(idx[:], block)
		prf.Write(idx[:])
		u = prf.Sum(u[:0])
		copy(t, u)
		for i := 1; i < iter; i++ {
			if i%4096 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			prf.Reset()
			prf.Write(u)
			u = prf.Sum(u[:0])
			subtle.XORBytes(t, t, u)
		}
		out = append(out, t...)
	}
	return out[:n], nil
}

// generateKeys answers generateKey: one secret key, or a key pair (the
// public key extractable, with req.PubUse).
func (r *scriptRun) generateKeys(ctx context.Context, req *subtleReq) ([]byte, error) {
	k, err := newKey(req)
	if err != nil {
		return nil, err
	}
	var priv crypto.Signer
	switch k.alg {
	case "HMAC", "AES-GCM", "AES-CBC", "AES-CTR":
		n := req.Length
		if n <= 0 || n%8 != 0 || n > 8*MaxSubtleDataBytes {
			return nil, errProtocol
		}
		b := make([]byte, n/8)
		if _, err := io.ReadFull(r.randReader(), b); err != nil {
			return nil, err
		}
		if k, err = secretKey(k, b); err != nil {
			return nil, err
		}
		return r.addKeys(k)
	}
	// A key pair: refused before the work if it would not fit.
	if len(r.keys.keys)+2 > MaxSubtleKeys {
		return nil, domErr("QuotaExceededError", fmt.Sprintf("a run holds at most %d CryptoKeys (docs/limits.md)", MaxSubtleKeys))
	}
	switch k.alg {
	case "ECDSA", "ECDH":
		if priv, err = ecdsa.GenerateKey(curveOf(k.curve), r.randReader()); err != nil {
			return nil, err
		}
	case "Ed25519":
		if _, priv, err = ed25519.GenerateKey(r.randReader()); err != nil {
			return nil, err
		}
	case "RSASSA-PKCS1-v1_5", "RSA-PSS":
		if req.Mod < minRSAGenBits || req.Mod > maxRSAGenBits {
			return nil, domErr("NotSupportedError", fmt.Sprintf("generateKey makes RSA keys of %d to %d bits (docs/limits.md)", minRSAGenBits, maxRSAGenBits))
		}
		if req.Exp != "010001" {
			return nil, domErr("NotSupportedError", "generateKey makes RSA keys with the public exponent 65537 only")
		}
		key, err := generateRSA(ctx, r.randReader(), req.Mod)
		if err != nil {
			return nil, err
		}
		priv = key
	default:
		return nil, errProtocol
	}
	if k, err = privateKey(k, priv); err != nil {
		return nil, err
	}
	pubUse, err := parseUsages(req.PubUse)
	if err != nil {
		return nil, err
	}
	pub := &subtleKey{alg: k.alg, typ: "public", ext: true, usages: pubUse, hash: k.hash, curve: k.curve, pub: k.pub, size: k.size / 5}
	if pub.size == 0 {
		pub.size = k.size
	}
	return r.addKeys(pub, k)
}

// unescapeLatin1 decodes what escape() writes of a latin1 string: "%XX"
// for a byte, ASCII as itself.
func unescapeLatin1(data []byte) ([]byte, bool) {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '%' {
			if i+2 >= len(data) || unhex(data[i+1]) < 0 || unhex(data[i+2]) < 0 {
				return nil, false
			}
			c = byte(unhex(data[i+1])<<4 | unhex(data[i+2]))
			i += 2
		} else if c >= 0x80 {
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}

// parkedKey is a key of a parked run's table (hostState.Keys): its
// material as raw bytes (a secret), PKCS #8 (a private key) or SPKI (a
// public key). The parked state is protected by whoever stores it (the
// durable store encrypts it), like the guest memory it travels with.
type parkedKey struct {
	Handle int32    `json:"h"`
	Alg    string   `json:"alg"`
	Type   string   `json:"type"`
	Ext    bool     `json:"ext"`
	Use    []string `json:"use"`
	Hash   string   `json:"hash,omitempty"`
	Curve  string   `json:"curve,omitempty"`
	Data   []byte   `json:"data"`
}

// parkKeys records the run's key table for its parked state.
func (t *subtleKeys) park() ([]parkedKey, error) {
	out := make([]parkedKey, 0, len(t.keys))
	for h, k := range t.keys {
		p := parkedKey{Handle: h, Alg: k.alg, Type: k.typ, Ext: k.ext, Hash: k.hash, Curve: k.curve}
		for name, bit := range subtleUsages {
			if k.usages&bit != 0 {
				p.Use = append(p.Use, name)
			}
		}
		var err error
		switch k.typ {
		case "secret":
			p.Data = k.secret
		case "private":
			p.Data, err = x509.MarshalPKCS8PrivateKey(k.priv)
		default:
			p.Data, err = x509.MarshalPKIXPublicKey(k.pub)
		}
		if err != nil {
			return nil, fmt.Errorf("sandbox: parking a CryptoKey: %w", err)
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b parkedKey) int { return int(a.Handle - b.Handle) })
	return out, nil
}

// restoreKeys rebuilds a key table from a parked state, with the limits of
// a running one: a state that breaks them is corrupt.
func restoreKeys(ps []parkedKey, next int32) (subtleKeys, error) {
	t := subtleKeys{keys: map[int32]*subtleKey{}, next: next}
	if len(ps) > MaxSubtleKeys {
		return t, fmt.Errorf("%w: too many CryptoKeys", ErrCorruptState)
	}
	for _, p := range ps {
		if p.Handle < 1 || p.Handle > next || t.keys[p.Handle] != nil {
			return t, fmt.Errorf("%w: a CryptoKey handle", ErrCorruptState)
		}
		req := &subtleReq{Alg: p.Alg, Ext: p.Ext, Use: p.Use, Hash: p.Hash, Curve: p.Curve,
			Format: map[string]string{"secret": "raw", "private": "pkcs8", "public": "spki"}[p.Type]}
		if req.Format == "" || len(p.Data) > maxSubtleKeyData && p.Type != "secret" {
			return t, fmt.Errorf("%w: a CryptoKey", ErrCorruptState)
		}
		k, err := importSubtleKey(req, p.Data)
		if err != nil {
			return t, fmt.Errorf("%w: a CryptoKey: %w", ErrCorruptState, err)
		}
		t.keys[p.Handle] = k
		t.bytes += k.size
	}
	if t.bytes > MaxSubtleKeyBytes {
		return t, fmt.Errorf("%w: too much CryptoKey material", ErrCorruptState)
	}
	return t, nil
}

// rsaE is the public exponent generateKey uses.
const rsaE = 65537

// generateRSA makes an RSA key of bits bits with the exponent 65537 from
// two random primes of half its size (the two top bits of each set, so the
// modulus has exactly bits bits), checking ctx between prime candidates:
// rsa.GenerateKey cannot be stopped, and a 4096-bit key takes seconds.
func generateRSA(ctx context.Context, rnd io.Reader, bits int) (*rsa.PrivateKey, error) {
	e := big.NewInt(rsaE)
	one := big.NewInt(1)
	for {
		p, err := randomPrime(ctx, rnd, bits/2)
		if err != nil {
			return nil, err
		}
		q, err := randomPrime(ctx, rnd, bits-bits/2)
		if err != nil {
			return nil, err
		}
		// FIPS 186-5 A.1.3: |p - q| > 2^(bits/2 - 100).
		if new(big.Int).Sub(p, q).BitLen() <= bits/2-100 {
			continue
		}
		n := new(big.Int).Mul(p, q)
		if n.BitLen() != bits {
			continue
		}
		pm1, qm1 := new(big.Int).Sub(p, one), new(big.Int).Sub(q, one)
		g := new(big.Int).GCD(nil, nil, pm1, qm1)
		lambda := new(big.Int).Div(new(big.Int).Mul(pm1, qm1), g)
		d := new(big.Int).ModInverse(e, lambda)
		if d == nil {
			continue
		}
		key := &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: n, E: rsaE}, D: d, Primes: []*big.Int{p, q}}
		key.Precompute()
		if err := key.Validate(); err != nil {
			return nil, fmt.Errorf("sandbox: a generated RSA key does not validate: %w", err)
		}
		return key, nil
	}
}

// sievePrimes are the odd primes below 4096, which randomPrime sieves
// candidates with before a primality test.
var sievePrimes = func() []uint64 {
	var ps []uint64
	for n := uint64(3); n < 4096; n += 2 {
		prime := true
		for _, p := range ps {
			if p*p > n {
				break
			}
			if n%p == 0 {
				prime = false
				break
			}
		}
		if prime {
			ps = append(ps, n)
		}
	}
	return ps
}()

// randomPrime returns a random prime of exactly bits bits whose two top bits
// are set and for which p - 1 is prime to 65537: from a random start, the
// first number that no small prime divides and that passes 20 Miller-Rabin
// rounds and Baillie-PSW (big.Int.ProbablyPrime).
func randomPrime(ctx context.Context, rnd io.Reader, bits int) (*big.Int, error) {
	b := make([]byte, (bits+7)/8)
	p, r, m := new(big.Int), new(big.Int), new(big.Int)
	mods := make([]uint64, len(sievePrimes))
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(rnd, b); err != nil {
			return nil, err
		}
		p.SetBytes(b)
		for i := bits; i < len(b)*8; i++ {
			p.SetBit(p, i, 0)
		}
		p.SetBit(p, bits-1, 1)
		p.SetBit(p, bits-2, 1)
		p.SetBit(p, 0, 1)
		for i, sp := range sievePrimes {
			mods[i] = m.Mod(p, r.SetUint64(sp)).Uint64()
		}
	next:
		for delta := uint64(0); delta < 1<<20; delta += 2 {
			for i, sp := range sievePrimes {
				if (mods[i]+delta)%sp == 0 {
					continue next
				}
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			c := new(big.Int).Add(p, r.SetUint64(delta))
			if c.BitLen() != bits {
				break
			}
			if m.Mod(c, r.SetUint64(rsaE)).Uint64() == 1 {
				continue
			}
			if c.ProbablyPrime(20) {
				return c, nil
			}
		}
	}
}

// verifyPSSNoSalt is EMSA-PSS-VERIFY (RFC 8017 8.1.2, 9.1.2) with an empty
// salt, which rsa.VerifyPSS cannot be asked for (a SaltLength of 0 accepts
// any). Only public values are involved, so math/big's timing is no leak.
func verifyPSSNoSalt(pub *rsa.PublicKey, h crypto.Hash, digest, sig []byte) bool {
	k := (pub.N.BitLen() + 7) / 8
	if len(sig) != k {
		return false
	}
	s := new(big.Int).SetBytes(sig)
	if s.Cmp(pub.N) >= 0 {
		return false
	}
	m := new(big.Int).Exp(s, big.NewInt(int64(pub.E)), pub.N)
	emBits := pub.N.BitLen() - 1
	emLen := (emBits + 7) / 8
	hLen := h.Size()
	if m.BitLen() > emBits || emLen < hLen+2 {
		return false
	}
	em := m.FillBytes(make([]byte, emLen))
	if em[emLen-1] != 0xbc {
		return false
	}
	db, hh := em[:emLen-hLen-1], em[emLen-hLen-1:emLen-1]
	topMask := byte(0xff >> (8*emLen - emBits))
	if db[0]&^topMask != 0 {
		return false
	}
	// DB = maskedDB xor MGF1(H).
	var counter [4]byte
	for done, i := 0, uint32(0); done < len(db); i++ {
		binary.BigEndian.PutUint32(counter[:], i)
		w := h.New()
		w.Write(hh)
		w.Write(counter[:])
		done += subtle.XORBytes(db[done:], db[done:], w.Sum(nil))
	}
	db[0] &= topMask
	for _, c := range db[:len(db)-1] {
		if c != 0 {
			return false
		}
	}
	if db[len(db)-1] != 1 {
		return false
	}
	w := h.New()
	w.Write(make([]byte, 8))
	w.Write(digest)
	return subtle.ConstantTimeCompare(w.Sum(nil), hh) == 1
}
