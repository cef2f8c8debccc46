package linmem

import (
	"bytes"
	"os"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPoolReuseReadsZero(t *testing.T) {
	const max = 4 << 20
	p := NewPool(2, 64<<10)
	defer p.Close()
	m := p.New(0, max)
	b := m.Reallocate(256 << 10) // more than the pool keeps committed
	require.Len(t, b, 256<<10)
	for i := range b {
		b[i] = 0xAB
	}
	m.StoreUint32(32, 7)
	require.Equal(t, uint32(7), LoadUint32(b[32:]))
	base := &b[0]
	m.Free()
	m.StoreUint32(32, 9) // after Free: nothing happens

	m2 := p.New(0, max)
	b2 := m2.Reallocate(max)
	if runtime.GOOS == "linux" {
		require.Same(t, base, &b2[0], "the mapping is reused")
	}
	require.True(t, bytes.Equal(b2, make([]byte, max)), "a reused mapping reads as zero")
	require.Nil(t, m2.Reallocate(max+1))
	m2.Free()
	m2.Free() // twice is harmless
}

func TestPoolBounded(t *testing.T) {
	p := NewPool(1, 64<<10)
	ms := []*Memory{p.New(0, 1<<20), p.New(0, 1<<20), p.New(0, 1<<20)}
	for _, m := range ms {
		m.Reallocate(64 << 10)
		m.Free()
	}
	p.mu.Lock()
	require.Equal(t, 1, p.nfree)
	p.mu.Unlock()
	p.Close()
	p.Close()
	m := p.New(0, 1<<20) // a closed pool still allocates, and unmaps on Free
	m.Free()
	require.Equal(t, 0, p.nfree)
}

func TestHeapFallback(t *testing.T) {
	m := New(0, 0) // unbounded: never mapped
	b := m.Reallocate(1 << 16)
	require.Len(t, b, 1<<16)
	m.StoreUint32(8, 5)
	b = m.Reallocate(1 << 20) // moves: the stored word moves with it
	require.Equal(t, uint32(5), LoadUint32(b[8:]))
	m.Free()
}

// TestPinDefersRelease frees a pinned memory: the mapping stays the
// memory's, unshared, until the last Unpin, and only then goes back to the
// pool.
func TestPinDefersRelease(t *testing.T) {
	p := NewPool(2, 64<<10)
	defer p.Close()
	m := p.New(0, 1<<20)
	b := m.Reallocate(64 << 10)
	m.Pin()
	m.Pin()
	m.Free()
	b[100] = 1 // still ours
	m.Unpin()
	p.mu.Lock()
	require.Equal(t, 0, p.nfree, "pinned: not in the pool")
	p.mu.Unlock()
	m.Unpin()
	p.mu.Lock()
	require.Equal(t, 1, p.nfree, "unpinned and freed: back in the pool")
	p.mu.Unlock()
	require.Panics(t, m.Unpin)
	m2 := p.New(0, 1<<20)
	require.Equal(t, byte(0), m2.Reallocate(64 << 10)[100])
	m2.Free()
}

// TestImage starts memories as an image: each reads the image and zeros
// past it, writes stay private to the memory, and a recycled mapping reads
// as the image again, not as what its last guest wrote.
func TestImage(t *testing.T) {
	if runtime.GOOS != "linux" {
		_, err := NewImage([]byte{1})
		require.Error(t, err)
		return
	}
	src := make([]byte, 3*4096+100)
	for i := range src {
		src[i] = byte(i*7 + 1)
	}
	img, err := NewImage(src)
	require.NoError(t, err)
	require.True(t, privatePages(src, func(int) {}), "/proc/self/pagemap is readable")
	// A pool keeping 64 KiB resets a recycled mapping by copying the image
	// back; one keeping 4 KiB, by dropping the pages.
	for _, keep := range []uint64{64 << 10, 4 << 10} {
		testImage(t, img, src, keep)
	}
}

func testImage(t *testing.T, img *Image, src []byte, keep uint64) {
	p := NewPool(2, keep)
	defer p.Close()
	want := append(append([]byte(nil), src...), make([]byte, 64<<10-len(src))...)
	a, ok := p.NewFrom(0, 1<<20, img)
	require.True(t, ok)
	b, ok := p.NewFrom(0, 1<<20, img)
	require.True(t, ok)
	ab, bb := a.Reallocate(64<<10), b.Reallocate(64<<10)
	require.Equal(t, want, ab)
	for i := range ab {
		ab[i] = 0xEE
	}
	require.Equal(t, want, bb, "a's writes are its own")
	base := &ab[0]
	a.Free()
	c, ok := p.NewFrom(0, 1<<20, img)
	require.True(t, ok)
	cb := c.Reallocate(64 << 10)
	require.Same(t, base, &cb[0], "the mapping is reused")
	require.Equal(t, want, cb, "reset to the image")
	z := p.New(0, 1<<20) // another key: a mapping of zeros
	require.Equal(t, make([]byte, 64<<10), z.Reallocate(64<<10))
	small, ok := p.NewFrom(0, 4096, img) // smaller than the image: zeros
	require.False(t, ok)
	require.Equal(t, make([]byte, 4096), small.Reallocate(4096))
	for _, m := range []*Memory{b, c, z, small} {
		m.Free()
	}
}

// TestDropClean checks that DropClean hands back exactly the written pages
// that read as the image (or zeros past it) again, and that the memory
// reads the same afterwards.
func TestDropClean(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory images need Linux") // the build tags say so too: linmem_other.go
	}
	page := os.Getpagesize()
	src := make([]byte, 4*page)
	for i := range src {
		src[i] = byte(i*13 + 5)
	}
	img, err := NewImage(src)
	require.NoError(t, err)
	p := NewPool(1, 0)
	defer p.Close()
	m, ok := p.NewFrom(0, 1<<20, img)
	require.True(t, ok)
	defer m.Free()
	b := m.Reallocate(8 * uint64(page))
	count := func() int {
		n := 0
		require.True(t, privatePages(b, func(int) { n++ }))
		return n
	}
	require.Equal(t, 0, count(), "nothing written yet")
	b[0]++ // page 0: changed
	b[page]++
	b[page]--                               // page 1: written, as before
	copy(b[2*page:2*page+16], src[2*page:]) // page 2: written with the same bytes
	b[5*page] = 1                           // page 5, past the image: changed
	b[6*page] = 1
	b[6*page] = 0 // page 6: zero again
	want := append(append([]byte(nil), src...), make([]byte, 4*page)...)
	want[0]++
	want[5*page] = 1
	require.Equal(t, 5, count())
	dropped, compared := m.DropClean(nil)
	require.Equal(t, 3, dropped, "pages 1, 2 and 6")
	require.Equal(t, 5, compared)
	require.Equal(t, 2, count(), "pages 0 and 5 stay the memory's own")
	require.Equal(t, want, b, "the memory reads the same")
	require.Equal(t, 2, count(), "reading maps the shared zero page on pages 4, 6 and 7: not the memory's own")
	dropped, compared = m.DropClean(nil)
	require.Zero(t, dropped)
	require.Zero(t, compared, "pages 0 and 5 were compared once: not again while they stay private")
	var stop atomic.Bool
	stop.Store(true)
	b[page]++ // page 1 private again
	dropped, compared = m.DropClean(&stop)
	require.Zero(t, dropped+compared, "a stopped drop looks at nothing")
	b[page]--
	b[page] = 0xAA // a dropped page is written again: copied again
	require.Equal(t, byte(0xAA), b[page])
	require.Equal(t, src[page+1:2*page], b[page+1:2*page])
}
