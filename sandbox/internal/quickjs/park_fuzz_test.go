package quickjs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/require"
)

// fuzzPages is the memory limit the fuzz target decodes against: 8 pages
// (512 KiB), so that a state claiming more is refused and one within it
// stays small.
const fuzzPages = 8

// parkedSamples are captured states as Capture builds them, without an
// engine: chunks, globals, precompiled code, clock counters.
func parkedSamples() []*Snapshot {
	page := func(seed byte, n int) []byte {
		b := make([]byte, n*chunkSize)
		for i := range b {
			b[i] = seed ^ byte(i*7)
		}
		return b
	}
	return []*Snapshot{
		{pages: 1, baseID: "base", heapLimit: 1 << 20, compiled: map[string]uint32{}},
		{pages: 4, baseID: "0123456789abcdef", heapLimit: 64 << 20, rt: 1024, ctx: 2048, undefined: 3,
			globals: []uint64{1, 2, 1 << 40}, compiled: map[string]uint32{"1+1": 4096, "x=>x": 8000},
			sys:    sysState{wallReads: 3, monoReads: 5, randBytes: 64},
			chunks: []chunk{{off: 0, data: page(1, 1)}, {off: 2 * chunkSize, data: page(9, 2)}}, size: 3 * chunkSize},
		{pages: fuzzPages, baseID: "full", heapLimit: 1 << 30,
			chunks: []chunk{{off: 0, data: page(0, fuzzPages*PageSize/chunkSize)}}, size: fuzzPages * PageSize,
			compiled: map[string]uint32{}},
	}
}

func marshalled(t testing.TB, s *Snapshot) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, s.Marshal(&buf))
	return buf.Bytes()
}

// requireSameState compares what Marshal writes of two Snapshots.
func requireSameState(t testing.TB, want, got *Snapshot) {
	t.Helper()
	require.Equal(t, want.pages, got.pages)
	require.Equal(t, want.baseID, got.baseID)
	require.Equal(t, want.heapLimit, got.heapLimit)
	require.Equal(t, [3]uint64{want.rt, want.ctx, want.undefined}, [3]uint64{got.rt, got.ctx, got.undefined})
	require.Equal(t, [3]int64{want.sys.wallReads, want.sys.monoReads, want.sys.randBytes},
		[3]int64{got.sys.wallReads, got.sys.monoReads, got.sys.randBytes})
	require.Equal(t, len(want.globals), len(got.globals))
	for i := range want.globals {
		require.Equal(t, want.globals[i], got.globals[i])
	}
	require.Equal(t, len(want.compiled), len(got.compiled))
	for k, v := range want.compiled {
		require.Equal(t, v, got.compiled[k], k)
	}
	require.Equal(t, want.size, got.size)
	require.Equal(t, len(want.chunks), len(got.chunks))
	for i := range want.chunks {
		require.Equal(t, want.chunks[i].off, got.chunks[i].off)
		require.True(t, bytes.Equal(want.chunks[i].data, got.chunks[i].data), "chunk %d", i)
	}
}

// TestParkedStateRoundTrip checks Unmarshal∘Marshal on captured states and
// the refusal of every truncation of them with ErrCorrupt.
func TestParkedStateRoundTrip(t *testing.T) {
	for i, s := range parkedSamples() {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			b := marshalled(t, s)
			got, err := Unmarshal(b, fuzzPages)
			require.NoError(t, err)
			requireSameState(t, s, got)
			step := max(1, len(b)/512) // every cut of a small state; a sample of a large one's
			for n := 0; n < len(b); n += step {
				_, err := Unmarshal(b[:n], fuzzPages)
				require.ErrorIs(t, err, ErrCorrupt, "cut to %d of %d bytes", n, len(b))
			}
			for _, n := range []int{len(b) - 1, len(b) - 2, len(b) - 5} {
				_, err := Unmarshal(b[:n], fuzzPages)
				require.ErrorIs(t, err, ErrCorrupt, "cut to %d of %d bytes", n, len(b))
			}
			_, err = Unmarshal(append(bytes.Clone(b), 0), fuzzPages)
			require.ErrorIs(t, err, ErrCorrupt, "a trailing byte")
			if s.pages > 1 {
				_, err = Unmarshal(b, s.pages-1)
				require.ErrorIs(t, err, ErrCorrupt, "more memory than allowed")
			}
		})
	}
}

// TestWriteParkedSeeds rewrites the fuzz seeds from the encoder when
// AIRLOCK_WRITE_SEEDS is set.
func TestWriteParkedSeeds(t *testing.T) {
	if os.Getenv("AIRLOCK_WRITE_SEEDS") == "" {
		t.Skip("set AIRLOCK_WRITE_SEEDS=1 to rewrite testdata/fuzz/FuzzUnmarshalParked")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzUnmarshalParked")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for i, s := range parkedSamples()[:2] {
		b := marshalled(t, s)
		for j, cut := range []int{len(b), len(b) / 2, len(b) - 1, 12} {
			name := filepath.Join(dir, fmt.Sprintf("sample%d-%d", i, j))
			require.NoError(t, os.WriteFile(name, fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b[:cut]), 0o644))
		}
	}
}

// FuzzUnmarshalParked feeds arbitrary bytes to Unmarshal, the decoder of
// parked engine states (stored bytes another process wrote). It must never
// panic; it refuses with ErrCorrupt or ErrIncompatible; what it accepts
// stays within the memory limit, allocates in proportion to it, and
// decodes again to the same state once marshalled. Seeds, valid states
// from Marshal and truncations, are in testdata/fuzz/FuzzUnmarshalParked.
func FuzzUnmarshalParked(f *testing.F) {
	for _, s := range parkedSamples()[:2] {
		f.Add(marshalled(f, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before := allocated()
		s, err := Unmarshal(data, fuzzPages)
		// The memory a state may claim, four times over for buffer growth,
		// plus the decompressor and the header's own size.
		bound := uint64(4*fuzzPages*PageSize + 64*len(data) + 1<<20)
		require.LessOrEqual(t, allocated()-before, bound, "allocated for %d bytes", len(data))
		if err != nil {
			require.True(t, errors.Is(err, ErrCorrupt) || errors.Is(err, ErrIncompatible), "%v", err)
			require.Nil(t, s)
			return
		}
		require.LessOrEqual(t, s.pages, uint32(fuzzPages))
		require.LessOrEqual(t, s.size, int(s.pages)*PageSize)
		for _, c := range s.chunks {
			require.LessOrEqual(t, int(c.off)+len(c.data), int(s.pages)*PageSize)
		}
		again, err := Unmarshal(marshalled(t, s), fuzzPages)
		require.NoError(t, err)
		requireSameState(t, s, again)
	})
}

// allocated returns the bytes the process has allocated so far, without
// stopping the world as runtime.ReadMemStats does.
func allocated() uint64 {
	m := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}
