package service

import (
	"bytes"
	"testing"
	"time"
)

// FuzzDecodePayload: the service's envelope of a parked chain (profile,
// language, creation time, then the engine's state) is read back from the
// fleet's store; whatever bytes it holds, decoding returns an error or a
// header and state that encode back to the same bytes, and never panics
// or allocates beyond the input.
func FuzzDecodePayload(f *testing.F) {
	f.Add(encodePayload(parkMeta{Profile: "ops", Language: "javascript", Created: time.Unix(1700000000, 0).UTC()}, []byte("state")))
	f.Add(encodePayload(parkMeta{Language: "typescript"}, nil))
	f.Add([]byte(payloadMagic))
	f.Add([]byte(payloadMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Add([]byte("ALSV\x05{}"))
	f.Fuzz(func(t *testing.T, p []byte) {
		m, state, err := decodePayload(p)
		if err != nil {
			return
		}
		if len(state) > len(p) {
			t.Fatalf("state of %d bytes from %d", len(state), len(p))
		}
		if !bytes.HasSuffix(p, state) {
			t.Fatal("the state is not the payload's tail")
		}
		again, state2, err := decodePayload(encodePayload(m, state))
		if err != nil || !bytes.Equal(state, state2) || again.Profile != m.Profile || again.Language != m.Language || !again.Created.Equal(m.Created) {
			t.Fatalf("round trip: %v %+v %+v", err, m, again)
		}
	})
}
