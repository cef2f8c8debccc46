package sandbox

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding"
	"fmt"
	"hash"
	"io"

	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
)

// The host operations behind the prelude's Web APIs (guest-sdk/ABI.md):
// crypto.getRandomValues and crypto.randomUUID read the host's random
// source through OpRandom, crypto.subtle.digest hashes through OpDigest.
//
// Bytes cross as a "byte string": byte b is the character U+00bb, except
// 0, which is U+0100 (strings cross as C strings, which end at a NUL);
// digest data, which can be large, crosses as escape() writes it.

// maxRandomBytes bounds one OpRandom: Web Crypto's quota for
// getRandomValues, which the prelude enforces with Node's error first.
const maxRandomBytes = 65536

// random reads n bytes from the run's random source: cryptoRand, or
// crypto/rand when it is nil.
func (r *scriptRun) random(n int) ([]byte, error) {
	src := r.cryptoRand
	if src == nil {
		src = rand.Reader
	}
	b := make([]byte, n)
	_, err := io.ReadFull(src, b)
	return b, err
}

// opRandom implements OpRandom (n) → byte string of n random bytes.
func (r *scriptRun) opRandom(ctx context.Context, args []uint64) uint64 {
	n := int32(-1)
	if len(args) > 1 {
		n, _ = quickjs.DecodeInt(args[1])
	}
	if n < 0 || n > maxRandomBytes {
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (random byte count)"})
	}
	b, err := r.random(int(n))
	if err != nil {
		r.stop(&ExitError{Kind: HostError, Message: "the host's random source failed", Err: fmt.Errorf("sandbox: reading random bytes: %w", err)})
	}
	return r.newString(ctx, appendByteString(make([]byte, 0, 2*len(b)), b))
}

// digests are the hashes OpDigest knows, by Web Crypto name.
var digests = map[string]func() hash.Hash{
	"SHA-1": sha1.New, "SHA-256": sha256.New, "SHA-384": sha512.New384, "SHA-512": sha512.New,
}

// maxDigestChunk bounds the data of one OpDigest: the prelude hashes
// larger inputs in chunks of 1 MiB, which escape() writes in at most 3 MiB.
const maxDigestChunk = 3 << 20

// opDigest implements OpDigest (algorithm, data, state, final): it hashes
// data (the chunk's bytes as escape() writes a latin1 string: "%XX" for a
// byte, ASCII as itself) after the hash state state (a byte string; empty to
// start), and returns the digest when final is 1, else the new state, both
// as byte strings. The host keeps nothing between calls, and copies at most
// maxDigestChunk bytes of data per call.
func (r *scriptRun) opDigest(ctx context.Context, args []uint64) uint64 {
	newHash := digests[string(r.copyStr(ctx, r.str(ctx, args, 1), 16))]
	ref := r.str(ctx, args, 2)
	if newHash == nil || ref.Len() > maxDigestChunk {
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (digest)"})
	}
	data := r.copyStr(ctx, ref, ref.Len())
	stateRef := r.str(ctx, args, 3)
	if stateRef.Len() > 1024 { // a marshaled SHA-512 state is about 200 bytes
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (digest state)"})
	}
	state, ok := decodeByteString(r.copyStr(ctx, stateRef, stateRef.Len()))
	final := len(args) > 4 && args[4] == quickjs.Int(1)
	h := newHash()
	if ok && len(state) > 0 {
		ok = h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state) == nil
	}
	if !ok {
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (digest state)"})
	}
	var buf [4096]byte
	n := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '%' {
			if i+2 >= len(data) || unhex(data[i+1]) < 0 || unhex(data[i+2]) < 0 {
				r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (digest data)"})
			}
			c = byte(unhex(data[i+1])<<4 | unhex(data[i+2]))
			i += 2
		} else if c >= 0x80 {
			r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (digest data)"})
		}
		buf[n] = c
		if n++; n == len(buf) {
			h.Write(buf[:])
			n = 0
		}
	}
	h.Write(buf[:n])
	var out []byte
	if final {
		out = h.Sum(nil)
	} else {
		var err error
		if out, err = h.(encoding.BinaryMarshaler).MarshalBinary(); err != nil {
			r.stop(&ExitError{Kind: HostError, Message: "sandbox internal error; the chain was stopped", Err: fmt.Errorf("sandbox: saving a hash state: %w", err)})
		}
	}
	return r.newString(ctx, appendByteString(nil, out))
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'F':
		return int(c - 'A' + 10)
	case c >= 'a' && c <= 'f':
		return int(c - 'a' + 10)
	}
	return -1
}

// decodeByteString decodes a UTF-8 byte string; ok is false when b is not
// one.
func decodeByteString(b []byte) (out []byte, ok bool) {
	out = make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c < 0x80:
		case (c == 0xC2 || c == 0xC3) && i+1 < len(b) && b[i+1]&0xC0 == 0x80:
			i++
			c = c<<6 | b[i]&0x3F
		case c == 0xC4 && i+1 < len(b) && b[i+1] == 0x80:
			i++
			c = 0
		default:
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}

// appendByteString appends b as a byte string, UTF-8 encoded.
func appendByteString(dst, b []byte) []byte {
	for _, c := range b {
		switch {
		case c == 0:
			dst = append(dst, 0xC4, 0x80)
		case c < 0x80:
			dst = append(dst, c)
		default:
			dst = append(dst, 0xC0|c>>6, 0x80|c&0x3F)
		}
	}
	return dst
}

// opPromise implements OpPromise (promise, what): the state of a promise
// (what 0) or the value it settled with (what 1), read by the engine
// without running JavaScript; constant work, whatever the argument.
func (r *scriptRun) opPromise(ctx context.Context, args []uint64) uint64 {
	what := int32(-1)
	if len(args) > 2 {
		what, _ = quickjs.DecodeInt(args[2])
	}
	if what != 0 && what != 1 {
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (promise operation)"})
	}
	if what == 0 {
		st, err := r.in.PromiseState(ctx, args[1])
		if err != nil {
			r.guestErr(err)
		}
		if st < quickjs.PromiseNotAPromise || st > quickjs.PromiseRejected {
			st = quickjs.PromiseNotAPromise
		}
		return quickjs.Int(st)
	}
	v, err := r.in.PromiseResult(ctx, args[1])
	if err != nil {
		r.guestErr(err)
	}
	return v
}
