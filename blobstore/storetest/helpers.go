package storetest

import (
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

const blockSize = 1 << 20

// DataReader is a deterministic stream of size pseudo-random bytes that
// uses 1 MiB of memory whatever its size. Create one with NewDataReader.
type DataReader struct {
	block []byte
	left  int64
	off   int
}

// NewDataReader returns a reader of exactly size bytes derived from seed.
// Equal seeds and sizes give equal streams.
func NewDataReader(seed uint64, size int64) *DataReader {
	var key [32]byte
	for i := range 8 {
		key[i] = byte(seed >> (8 * i))
	}
	block := make([]byte, blockSize)
	_, _ = rand.NewChaCha8(key).Read(block)
	return &DataReader{block: block, left: size}
}

// Read implements io.Reader.
func (r *DataReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.block[r.off:])
		n += c
		r.off = (r.off + c) % len(r.block)
	}
	r.left -= int64(n)
	return n, nil
}

// HeapSampler records the peak of runtime.MemStats.HeapInuse above the
// level at which it started. Create one with StartHeapSampler.
type HeapSampler struct {
	base uint64
	peak atomic.Uint64
	stop chan struct{}
	wg   sync.WaitGroup
}

// StartHeapSampler collects garbage, notes HeapInuse and then samples it
// every 10ms until Stop.
func StartHeapSampler() *HeapSampler {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h := &HeapSampler{base: ms.HeapInuse, stop: make(chan struct{})}
	h.peak.Store(ms.HeapInuse)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > h.peak.Load() {
				h.peak.Store(ms.HeapInuse)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// Stop ends sampling and returns the peak growth of HeapInuse in bytes.
func (h *HeapSampler) Stop() uint64 {
	close(h.stop)
	h.wg.Wait()
	return h.peak.Load() - h.base
}
