package durable

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// The records are decoded as chain "ch1" of tenant "acme", generation 2.
const (
	fuzzTenant = "acme"
	fuzzChain  = "ch1"
	fuzzGen    = 2
)

var fuzzKey = []byte("durable-fuzz-key-0123456789abcdef")

func fuzzStore(t testing.TB) *Store {
	t.Helper()
	bs := blobstore.New(memblob.New(), blobstore.Options{})
	t.Cleanup(func() { _ = bs.Close() })
	s, err := New(Options{Blobs: bs, Key: fuzzKey, Node: "n_fuzz"})
	require.NoError(t, err)
	return s
}

var at = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

func sampleApproval() Approval {
	args := `{"to":"bob"}`
	sum := sha256.Sum256([]byte(args))
	return Approval{ID: ApprovalID(fuzzChain, 3), Tenant: fuzzTenant, ChainID: fuzzChain, Seq: 3, Tool: "send", Risk: "HIGH",
		Args: json.RawMessage(args), ArgsHash: hex.EncodeToString(sum[:]), ArgsSize: len(args), DecisionID: "d_1",
		Created: at, Expires: at.Add(time.Hour)}
}

// sampleChains are chain records as the fleet writes them: running,
// parked, ended (the end record).
func sampleChains() []*Chain {
	rec := session.Record{Seq: 1, Tool: "search", Status: session.StatusOK, Start: at, End: at.Add(time.Second),
		Duration: time.Second, ArgBytes: 12, ResultBytes: 300, Refs: []string{"b_ref1"}, Risk: "SAFE", Gate: "allow",
		DecisionID: "d_1", Citations: []toolbox.Citation{{Source: "https://example.com", Title: "ex"}}}
	pending := sampleApproval()
	pending.Args = nil
	return []*Chain{
		{ID: fuzzChain, Tenant: fuzzTenant, Language: "js", Status: StatusRunning, Node: "n_a", Lease: at.Add(15 * time.Second),
			Created: at, Updated: at, Open: []OpenCall{{Seq: 2, Tool: "send", Start: at}}, Trace: []session.Record{rec}},
		{ID: fuzzChain, Tenant: fuzzTenant, Language: "ts", Status: StatusParked, Node: "n_a", Created: at, Updated: at,
			Gen: fuzzGen, Expires: at.Add(time.Hour), Wake: at.Add(time.Minute), Pending: []Approval{pending},
			Trace: []session.Record{rec}, TraceDropped: 4},
		{ID: fuzzChain, Tenant: fuzzTenant, Language: "js", Status: "ok", Node: "n_b", Created: at, Updated: at, Finished: at,
			Gen: fuzzGen, Trace: []session.Record{rec},
			Result: &chain.RunResult{ID: fuzzChain, Status: "ok", Value: json.RawMessage(`{"n":[1,2,{"x":null}]}`),
				Logs: []sandbox.LogEntry{{Level: sandbox.LogInfo, Text: "hello"}}, Trace: []session.Record{rec},
				Files:     []invoker.ChainFile{{Path: "/workspace/media/a_0.png", MIME: "image/png", Size: 4, Ref: "b_ref2"}},
				Artifacts: []invoker.Artifact{{Ref: "b_ref1", Preview: "[1,", Size: 300, MIME: "application/json"}}}},
	}
}

func sampleSeal(s *Store) *parkSeal {
	a := sampleApproval()
	seal := &parkSeal{Version: parkVersion, Tenant: fuzzTenant, ChainID: fuzzChain, Gen: fuzzGen, Ref: "b_state", Size: 1234,
		SHA256: strings.Repeat("ab", 32), Created: at, Expires: at.Add(time.Hour), Approvals: []string{a.ID + ":" + a.ArgsHash}}
	seal.MAC = hex.EncodeToString(seal.signed(s.keys[0].raw))
	return seal
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// seedRecords are the valid records of each fuzz target, as this package
// encodes them.
func seedRecords(t testing.TB, s *Store) map[string][][]byte {
	seeds := map[string][][]byte{}
	for _, c := range sampleChains() {
		b, err := s.encode(context.Background(), c)
		require.NoError(t, err)
		seeds["FuzzChainRecord"] = append(seeds["FuzzChainRecord"], b)
	}
	seeds["FuzzApprovalRecord"] = [][]byte{mustJSON(t, sampleApproval())}
	seeds["FuzzDecisionRecord"] = [][]byte{mustJSON(t, Decision{Approved: true, ArgsHash: sampleApproval().ArgsHash, By: "alice", At: at}),
		mustJSON(t, Decision{ArgsHash: "00", At: at})}
	seeds["FuzzClaimRecord"] = [][]byte{mustJSON(t, claim{Kind: "resume", Node: "n_a", At: at})}
	seeds["FuzzLiveRecord"] = [][]byte{mustJSON(t, Live{Tenant: fuzzTenant, ID: fuzzChain, Status: StatusParked, Node: "n_a",
		Gen: fuzzGen, Expires: at.Add(time.Hour), Wake: at.Add(time.Minute), Decided: true})}
	seeds["FuzzSealRecord"] = [][]byte{mustJSON(t, sampleSeal(s))}
	sealed, err := s.encrypt([]byte("AQJS parked state bytes"), fuzzTenant, fuzzChain, fuzzGen)
	require.NoError(t, err)
	seeds["FuzzSealedState"] = [][]byte{sealed}
	seeds["FuzzRecordEnvelope"] = [][]byte{s.sign(recBinding(fuzzTenant, fuzzChain), seeds["FuzzChainRecord"][2])}
	return seeds
}

// TestWriteRecordSeeds rewrites testdata/fuzz from the encoders (each valid
// record and a few truncations of it) when AIRLOCK_WRITE_SEEDS is set.
func TestWriteRecordSeeds(t *testing.T) {
	if os.Getenv("AIRLOCK_WRITE_SEEDS") == "" {
		t.Skip("set AIRLOCK_WRITE_SEEDS=1 to rewrite testdata/fuzz")
	}
	for name, recs := range seedRecords(t, fuzzStore(t)) {
		dir := filepath.Join("testdata", "fuzz", name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for i, b := range recs {
			for j, cut := range []int{len(b), len(b) - 1, len(b) / 2, 1} {
				file := filepath.Join(dir, fmt.Sprintf("seed%d-%d", i, j))
				require.NoError(t, os.WriteFile(file, fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b[:cut]), 0o644))
			}
		}
	}
}

// allocated returns the bytes the process has allocated so far.
func allocated() uint64 {
	m := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// requireBounded checks that decoding data allocated at most a constant
// plus perByte for each of its bytes.
func requireBounded(t *testing.T, before uint64, data []byte, perByte uint64) {
	t.Helper()
	used := allocated() - before
	require.LessOrEqual(t, used, 64<<10+perByte*uint64(len(data)), "allocated %d bytes for %d", used, len(data))
}

// requireFixedPoint checks that a decoded record, encoded again, decodes to
// what encodes the same: decode∘encode is the identity on what decode
// accepts.
func requireFixedPoint[T any](t *testing.T, v T, decode func([]byte) (T, error)) {
	t.Helper()
	b := mustJSON(t, v)
	again, err := decode(b)
	require.NoError(t, err, "%s", b)
	require.Equal(t, string(b), string(mustJSON(t, again)))
}

// perStruct bounds what decoding allocates per input byte: a struct of the
// largest element type for a two-byte {} or a four-byte null, slice growth
// included.
const perStruct = 1024

func fuzzRecords(f *testing.F, name string) {
	for _, b := range seedRecords(f, fuzzStore(f))[name] {
		f.Add(b)
	}
}

// FuzzChainRecord feeds arbitrary bytes to the decoder of chain records
// (chains/<id>/rec, and /end, the same format): it never panics, refuses
// with ErrMalformed, allocates in proportion to the input, and what it
// accepts round-trips.
func FuzzChainRecord(f *testing.F) {
	fuzzRecords(f, "FuzzChainRecord")
	f.Fuzz(func(t *testing.T, data []byte) {
		before := allocated()
		c, err := decodeChain(data, fuzzTenant, fuzzChain)
		requireBounded(t, before, data, perStruct)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			return
		}
		require.Equal(t, fuzzChain, c.ID)
		require.Equal(t, fuzzTenant, c.Tenant)
		requireFixedPoint(t, c, func(b []byte) (*Chain, error) { return decodeChain(b, fuzzTenant, fuzzChain) })
	})
}

// FuzzApprovalRecord: the same for approval requests (approvals/<id>/req).
func FuzzApprovalRecord(f *testing.F) {
	fuzzRecords(f, "FuzzApprovalRecord")
	id := sampleApproval().ID
	f.Fuzz(func(t *testing.T, data []byte) {
		before := allocated()
		a, err := decodeApproval(data, fuzzTenant, id)
		requireBounded(t, before, data, perStruct)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			return
		}
		require.Equal(t, id, a.ID)
		requireFixedPoint(t, a, func(b []byte) (*Approval, error) { return decodeApproval(b, fuzzTenant, id) })
	})
}

// FuzzDecisionRecord: the same for decisions (approvals/<id>/decision).
func FuzzDecisionRecord(f *testing.F) {
	fuzzRecords(f, "FuzzDecisionRecord")
	f.Fuzz(func(t *testing.T, data []byte) {
		before := allocated()
		d, err := decodeDecision(data, "pk_x")
		requireBounded(t, before, data, perStruct)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			return
		}
		requireFixedPoint(t, d, func(b []byte) (*Decision, error) { return decodeDecision(b, "pk_x") })
	})
}

// FuzzClaimRecord: the same for claims (chains/<id>/claim/<gen>).
func FuzzClaimRecord(f *testing.F) {
	fuzzRecords(f, "FuzzClaimRecord")
	f.Fuzz(func(t *testing.T, data []byte) {
		before := allocated()
		cl, err := decodeClaim(data)
		requireBounded(t, before, data, perStruct)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			return
		}
		requireFixedPoint(t, cl, decodeClaim)
	})
}

// FuzzLiveRecord: the same for the fleet index's entries (live/<tenant>/<id>).
func FuzzLiveRecord(f *testing.F) {
	fuzzRecords(f, "FuzzLiveRecord")
	name := liveName(fuzzTenant, fuzzChain)
	f.Fuzz(func(t *testing.T, data []byte) {
		before := allocated()
		l, err := decodeLive(data, name)
		requireBounded(t, before, data, perStruct)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			return
		}
		requireFixedPoint(t, l, func(b []byte) (Live, error) { return decodeLive(b, name) })
	})
}

// FuzzSealRecord feeds arbitrary bytes to the seal's decoder and check
// (chains/<id>/park/<gen>): it never panics, refuses with ErrTampered or
// ErrIncompatible, and accepts only the seal the fleet's key made: the
// fuzzer cannot forge the MAC, so whatever passes says what the seed says.
func FuzzSealRecord(f *testing.F) {
	fuzzRecords(f, "FuzzSealRecord")
	s := fuzzStore(f)
	want := mustJSON(f, sampleSeal(s))
	f.Fuzz(func(t *testing.T, data []byte) {
		before := allocated()
		seal, err := s.openSeal(data, fuzzTenant, fuzzChain, fuzzGen)
		requireBounded(t, before, data, perStruct)
		if err != nil {
			require.True(t, errors.Is(err, ErrTampered) || errors.Is(err, ErrIncompatible), "%v", err)
			return
		}
		require.Equal(t, string(want), string(mustJSON(t, seal)))
	})
}

// FuzzSealedState feeds arbitrary bytes to the decryption of a parked
// state: it never panics, refuses with ErrTampered, allocates at most the
// input's size again, and accepts only what the fleet's key sealed for
// this chain and generation.
func FuzzSealedState(f *testing.F) {
	s := fuzzStore(f)
	fuzzRecords(f, "FuzzSealedState")
	f.Fuzz(func(t *testing.T, data []byte) {
		sealed := bytes.Clone(data) // decrypt opens in place
		before := allocated()
		state, err := s.decrypt(sealed, fuzzTenant, fuzzChain, fuzzGen, 0)
		requireBounded(t, before, data, 1)
		if err != nil {
			require.ErrorIs(t, err, ErrTampered)
			return
		}
		require.Equal(t, "AQJS parked state bytes", string(state))
		// The same bytes are refused as another chain's or generation's.
		_, err = s.decrypt(bytes.Clone(data), fuzzTenant, fuzzChain, fuzzGen+1, 0)
		require.ErrorIs(t, err, ErrTampered)
		_, err = s.decrypt(bytes.Clone(data), "other", fuzzChain, fuzzGen, 0)
		require.ErrorIs(t, err, ErrTampered)
	})
}

// FuzzRecordEnvelope feeds arbitrary bytes to the check of an
// authenticated record (auth.go), as chain ch1's record of tenant acme: it
// never panics, refuses with ErrForged, allocates next to nothing, and
// accepts only what the fleet's key signed for that chain: the fuzzer
// cannot forge the MAC, so whatever passes is the seed's body. The body
// is then FuzzChainRecord's to decode.
func FuzzRecordEnvelope(f *testing.F) {
	s := fuzzStore(f)
	fuzzRecords(f, "FuzzRecordEnvelope")
	want := seedRecords(f, s)["FuzzChainRecord"][2]
	b := recBinding(fuzzTenant, fuzzChain)
	f.Fuzz(func(t *testing.T, data []byte) {
		before := allocated()
		body, err := s.open(b, data)
		requireBounded(t, before, data, 2)
		if err != nil {
			require.ErrorIs(t, err, ErrForged)
			return
		}
		require.Equal(t, string(want), string(body))
		// The same record is refused as another kind's, tenant's, chain's
		// or generation's.
		for _, other := range []binding{endBinding(fuzzTenant, fuzzChain), recBinding("globex", fuzzChain),
			recBinding(fuzzTenant, "ch2"), claimBinding(fuzzTenant, fuzzChain, 1)} {
			_, err := s.open(other, data)
			require.ErrorIs(t, err, ErrForged, "%s", other)
		}
	})
}

// TestRecordDecodersRoundTrip checks decode∘encode on the records the
// package writes, and that every truncation of them is refused.
func TestRecordDecodersRoundTrip(t *testing.T) {
	s := fuzzStore(t)
	for i, c := range sampleChains() {
		t.Run(fmt.Sprint("chain ", i), func(t *testing.T) {
			b, err := s.encode(context.Background(), c)
			require.NoError(t, err)
			got, err := decodeChain(b, fuzzTenant, fuzzChain)
			require.NoError(t, err)
			require.Equal(t, string(b), string(mustJSON(t, got)))
			for n := range len(b) {
				_, err := decodeChain(b[:n], fuzzTenant, fuzzChain)
				require.ErrorIs(t, err, ErrMalformed, "cut to %d", n)
			}
			_, err = decodeChain(b, fuzzTenant, "ch2")
			require.ErrorIs(t, err, ErrMalformed, "a record read as another chain's")
		})
	}
	seal := mustJSON(t, sampleSeal(s))
	got, err := s.openSeal(seal, fuzzTenant, fuzzChain, fuzzGen)
	require.NoError(t, err)
	require.Equal(t, string(seal), string(mustJSON(t, got)))
	for n := range len(seal) {
		_, err := s.openSeal(seal[:n], fuzzTenant, fuzzChain, fuzzGen)
		require.ErrorIs(t, err, ErrTampered, "cut to %d", n)
	}
	_, err = s.openSeal(seal, fuzzTenant, fuzzChain, fuzzGen+1)
	require.ErrorIs(t, err, ErrTampered, "another generation")
	_, err = s.openSeal(bytes.Replace(seal, []byte(`"version":1`), []byte(`"version":9`), 1), fuzzTenant, fuzzChain, fuzzGen)
	require.ErrorIs(t, err, ErrIncompatible)

	// An authenticated record: every truncation and every flipped bit is
	// refused.
	rec := s.sign(recBinding(fuzzTenant, fuzzChain), []byte(`{"id":"ch1"}`))
	body, err := s.open(recBinding(fuzzTenant, fuzzChain), rec)
	require.NoError(t, err)
	require.Equal(t, `{"id":"ch1"}`, string(body))
	for n := range len(rec) {
		_, err := s.open(recBinding(fuzzTenant, fuzzChain), rec[:n])
		require.ErrorIs(t, err, ErrForged, "cut to %d", n)
		for bit := range 8 {
			flipped := bytes.Clone(rec)
			flipped[n] ^= 1 << bit
			_, err := s.open(recBinding(fuzzTenant, fuzzChain), flipped)
			require.ErrorIs(t, err, ErrForged, "byte %d bit %d", n, bit)
		}
	}
}

// TestChainRecordAllocationBounded is the regression test of the
// amplification FuzzChainRecord's bound is about: a 1 MiB record of empty
// trace entries ({} or null, each decoded into a whole session.Record) is
// refused before it is decoded, while a legitimate record whose result
// value is a large array of small objects is read.
func TestChainRecordAllocationBounded(t *testing.T) {
	head := `{"id":"ch1","tenant":"acme","status":"running","trace":[`
	for _, elem := range []string{"{}", "null", "[]"} {
		t.Run(elem, func(t *testing.T) {
			n := (blobstore.MaxRecordBytes - len(head) - 2) / (len(elem) + 1)
			b := []byte(head + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]}")
			require.LessOrEqual(t, len(b), blobstore.MaxRecordBytes)
			before := allocated()
			_, err := decodeChain(b, fuzzTenant, fuzzChain)
			used := allocated() - before
			require.ErrorIs(t, err, ErrMalformed)
			require.Less(t, used, uint64(8<<20), "allocated %d bytes for a %d-byte record", used, len(b))
		})
	}
	value := "[" + strings.TrimSuffix(strings.Repeat(`{"a":1},`, 100_000), ",") + "]"
	b := []byte(`{"id":"ch1","tenant":"acme","status":"ok","result":{"id":"ch1","status":"ok","value":` + value + `}}`)
	c, err := decodeChain(b, fuzzTenant, fuzzChain)
	require.NoError(t, err, "a result value is kept as bytes and not counted")
	require.Len(t, c.Result.Value, len(value))
}
