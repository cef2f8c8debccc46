package blobstore

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"strings"
)

// Ref format (documented in doc.go):
//
//	"blob_" + base32(16 random bytes ‖ 4-byte tenant check)
//
// lower-case RFC 4648 base32 without padding, 32 characters, so RefLen = 37.

const (
	refPrefix    = "blob_"
	refRandBytes = 16
	refCheckLen  = 4
	refBodyLen   = (refRandBytes + refCheckLen) * 8 / 5 // 32

	// RefLen is the length in bytes of every ref a Store returns.
	RefLen = len(refPrefix) + refBodyLen

	// MaxTenantLen is the longest tenant id, in bytes, ValidTenant accepts.
	MaxTenantLen = 64

	// MaxOwnerLen is the longest pin owner, in bytes, Pin and Unpin accept.
	MaxOwnerLen = 256

	refCheckDomain = "airlock blobstore ref v1\x00"
)

var refEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// DefaultTenant is the tenant of whatever names none: a session or chain
// without Options.Tenant, a server without API keys, `airlock run`. Every
// package that needs a default tenant uses this one.
const DefaultTenant = "default"

// ValidTenant reports whether tenant is a well-formed tenant id: 1 to 64
// bytes matching ^[a-z0-9][a-z0-9_-]*$. Tenant ids become part of storage
// keys, so nothing else is accepted.
func ValidTenant(tenant string) bool {
	if len(tenant) == 0 || len(tenant) > MaxTenantLen {
		return false
	}
	for i := 0; i < len(tenant); i++ {
		c := tenant[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// ValidRef reports whether ref is well formed and was minted for tenant. It
// does no I/O: a valid ref may still name a blob that is gone. The Store
// methods check this themselves and answer ErrNotFound for a ref that fails.
func ValidRef(tenant, ref string) bool {
	_, ok := parseRef(tenant, ref)
	return ok
}

// newRef mints a ref for tenant and returns it with its body (the part used
// in storage keys).
func newRef(tenant string) (ref, body string) {
	var raw [refRandBytes + refCheckLen]byte
	_, _ = rand.Read(raw[:refRandBytes]) // crypto/rand.Read never fails
	sum := refCheck(tenant, raw[:refRandBytes])
	copy(raw[refRandBytes:], sum[:])
	body = refEncoding.EncodeToString(raw[:])
	return refPrefix + body, body
}

// parseRef validates ref for tenant and returns its body. It checks the
// length, prefix and alphabet before decoding, and compares the tenant check
// in constant time.
func parseRef(tenant, ref string) (body string, ok bool) {
	if !ValidTenant(tenant) || len(ref) != RefLen || ref[:len(refPrefix)] != refPrefix {
		return "", false
	}
	body = ref[len(refPrefix):]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return "", false
		}
	}
	raw, err := refEncoding.DecodeString(body)
	if err != nil || len(raw) != refRandBytes+refCheckLen {
		return "", false
	}
	// 32 base32 characters carry exactly 160 bits, so every body in the
	// alphabet decodes; re-encoding guards against a lax decoder.
	if refEncoding.EncodeToString(raw) != body {
		return "", false
	}
	sum := refCheck(tenant, raw[:refRandBytes])
	if subtle.ConstantTimeCompare(sum[:], raw[refRandBytes:]) != 1 {
		return "", false
	}
	return body, true
}

func refCheck(tenant string, random []byte) [refCheckLen]byte {
	h := sha256.New()
	h.Write([]byte(refCheckDomain))
	h.Write([]byte(tenant))
	h.Write([]byte{0})
	h.Write(random)
	var out [refCheckLen]byte
	copy(out[:], h.Sum(nil))
	return out
}

// blobKeys is the storage layout of one blob. Every key lives under
// "b/<tenant>/<body>/", so a ref resolved for one tenant can never reach
// another tenant's objects, and one List of the group prefix shows all of a
// blob's state:
//
//	b/<tenant>/<body>/data          the bytes
//	b/<tenant>/<body>/meta          JSON metadata; the blob exists iff this does
//	b/<tenant>/<body>/unpinned      time of the latest Unpin (TTL restarts here)
//	b/<tenant>/<body>/pin/<hash>    one empty marker per owner (hex SHA-256 of the owner)
//	b/<tenant>/<body>/claim/<id>    a sweep or delete in progress
type blobKeys struct {
	tenant, ref, group string
}

const (
	keyRoot     = "b/"
	keyData     = "data"
	keyMeta     = "meta"
	keyUnpinned = "unpinned"
	keyPinDir   = "pin/"
	keyClaimDir = "claim/"
)

func newBlobKeys(tenant, ref, body string) blobKeys {
	return blobKeys{tenant: tenant, ref: ref, group: keyRoot + tenant + "/" + body + "/"}
}

func (k blobKeys) data() string        { return k.group + keyData }
func (k blobKeys) meta() string        { return k.group + keyMeta }
func (k blobKeys) unpinned() string    { return k.group + keyUnpinned }
func (k blobKeys) pinPrefix() string   { return k.group + keyPinDir }
func (k blobKeys) claimPrefix() string { return k.group + keyClaimDir }

func (k blobKeys) pin(owner string) string { return k.pinPrefix() + pinHash(owner) }

// pinHash is the name of owner's pin marker: the hex SHA-256 of owner.
func pinHash(owner string) string {
	sum := sha256.Sum256([]byte(owner))
	return hex.EncodeToString(sum[:])
}

func (k blobKeys) newClaim() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return k.claimPrefix() + hex.EncodeToString(b[:])
}

// groupOf splits a listed key into its blob group: "b/<tenant>/<body>/" and
// the rest. ok is false for keys that are not laid out by a Store.
func groupOf(key string) (group, tenant, body, rest string, ok bool) {
	if len(key) < len(keyRoot) || key[:len(keyRoot)] != keyRoot {
		return "", "", "", "", false
	}
	s := key[len(keyRoot):]
	i := strings.IndexByte(s, '/')
	if i <= 0 {
		return "", "", "", "", false
	}
	tenant, s = s[:i], s[i+1:]
	j := strings.IndexByte(s, '/')
	if j <= 0 {
		return "", "", "", "", false
	}
	body, rest = s[:j], s[j+1:]
	if !ValidTenant(tenant) || len(body) != refBodyLen || rest == "" {
		return "", "", "", "", false
	}
	return keyRoot + tenant + "/" + body + "/", tenant, body, rest, true
}
