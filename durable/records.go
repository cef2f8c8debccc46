package durable

import (
	"encoding/json"
	"fmt"
	"time"
)

// The decoders of the records the fleet shares. Every record is read from
// the bucket, which other processes (and whoever else can write it) wrote:
// nothing in one is trusted. blobstore.GetRecord bounds a record's size;
// decodeChain bounds what decoding a chain record may allocate
// (maxRecordValues; the other records hold no slices of structs); each
// checks that the record names what it was read as. Each is fuzzed
// (records_fuzz_test.go).

// maxRecordValues bounds the objects, arrays and nulls a chain record may
// hold outside its result's value. Decoding a JSON array into a slice of
// structs allocates the whole struct for each element, however short it
// is written: a trace of [{},{},…] or [null,null,…] would make a 1 MiB
// record allocate hundreds of MiB. Under this bound a record allocates
// some tens of MiB at most. The records this package writes stay well
// under it: a chain record is at most recordBudget bytes and spends over
// 100 bytes on each trace record, pending approval, open call, log line or
// file. The result's value (json.RawMessage, kept as bytes) is not
// counted.
const maxRecordValues = 1 << 16

// countValues counts the objects, arrays and nulls in b, outside strings.
// It does not validate the JSON (Unmarshal does).
func countValues(b []byte) int {
	n, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[' || c == 'n':
			n++
		}
	}
	return n
}

// unmarshalRecord is json.Unmarshal with every failure wrapping
// ErrMalformed.
func unmarshalRecord(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}

// decodeChain decodes a chain's record (chains/<id>/rec or /end), which
// must name chain id of tenant. A record with more than maxRecordValues
// objects, arrays and nulls outside its result's value is refused before
// it is decoded.
func decodeChain(b []byte, tenant, id string) (*Chain, error) {
	if n := countValues(b); n > maxRecordValues {
		// Only the result's value, kept as bytes, may hold more.
		var v struct {
			Result *struct {
				Value json.RawMessage `json:"value"`
			} `json:"result"`
		}
		if err := unmarshalRecord(b, &v); err != nil {
			return nil, fmt.Errorf("durable: chain %s's record: %w", id, err)
		}
		if v.Result != nil {
			n -= countValues(v.Result.Value)
		}
		if n > maxRecordValues {
			return nil, fmt.Errorf("%w: chain %s's record holds more than %d objects, arrays and nulls", ErrMalformed, id, maxRecordValues)
		}
	}
	var c Chain
	if err := unmarshalRecord(b, &c); err != nil {
		return nil, fmt.Errorf("durable: chain %s's record: %w", id, err)
	}
	if c.ID != id || c.Tenant != tenant {
		return nil, fmt.Errorf("%w: chain %s's record names another chain", ErrMalformed, id)
	}
	return &c, nil
}

// decodeApproval decodes an approval request (approvals/<id>/req), which
// must name approval id of tenant.
func decodeApproval(b []byte, tenant, id string) (*Approval, error) {
	var a Approval
	if err := unmarshalRecord(b, &a); err != nil || a.ID != id || a.Tenant != tenant {
		return nil, fmt.Errorf("%w: approval %s's record", ErrMalformed, id)
	}
	return &a, nil
}

// decodeDecision decodes a decision (approvals/<id>/decision).
func decodeDecision(b []byte, id string) (*Decision, error) {
	var d Decision
	if err := unmarshalRecord(b, &d); err != nil {
		return nil, fmt.Errorf("%w: approval %s's decision", ErrMalformed, id)
	}
	return &d, nil
}

// claim is a parked generation's claim (chains/<id>/claim/<gen>).
type claim struct {
	Kind string    `json:"kind"`
	Node string    `json:"node"`
	At   time.Time `json:"at"`
	// Nonce makes each claim's bytes its own, so that createOnce tells a
	// claimant's own claim (written, its answer lost) from another's, even
	// one of the same process in the same nanosecond.
	Nonce string `json:"nonce,omitempty"`
}

func decodeClaim(b []byte) (claim, error) {
	var cl claim
	if err := unmarshalRecord(b, &cl); err != nil {
		return claim{}, fmt.Errorf("durable: a claim: %w", err)
	}
	return cl, nil
}

// decodeLive decodes the fleet index's entry stored under name, which must
// be the entry's own name (live/<tenant>/<id>).
func decodeLive(b []byte, name string) (Live, error) {
	var l Live
	if err := unmarshalRecord(b, &l); err != nil {
		return Live{}, fmt.Errorf("durable: index entry %s: %w", name, err)
	}
	if liveName(l.Tenant, l.ID) != name {
		return Live{}, fmt.Errorf("%w: index entry %s names another chain", ErrMalformed, name)
	}
	return l, nil
}
