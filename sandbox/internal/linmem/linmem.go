// Package linmem backs guest linear memory with one anonymous memory mapping
// per instance, reserved at its maximum size and committed by the kernel as
// the guest touches it, and lets the host store a word into that memory
// while the guest runs.
//
// wazero's default grows a linear memory by appending to a Go slice, which
// copies the whole memory on every growth and keeps it on the Go heap; a
// QuickJS guest growing to 64 MiB in small steps spends seconds copying (see
// RATIONALE.md, "Why an mmap'd linear memory?"). A mapping never moves, so
// growth is free. Where a mapping is not available the memory is a Go slice
// grown by copying, like wazero's own.
//
// A Pool recycles the mappings of freed memories: the first pages of a
// mapping are cleared and stay committed, the rest are handed back to the
// kernel. A fresh mapping costs a page fault at the first touch of every
// page, which on a virtual machine is several microseconds: ~0.8 ms for
// the 300 KiB an initialised QuickJS instance uses, against ~20 µs to clear
// them.
//
// A memory may also start as an Image, an initialised memory kept in a
// sealed memory file that every memory created from it maps copy-on-write
// (Linux): starting costs no copy, the pages a guest only reads are shared
// by all, and a freed mapping is reset to the image by handing its private
// pages back to the kernel, with no clearing.
//
// # Concurrency
//
// Reallocate and Free are called by wazero on the goroutine running the
// guest. StoreUint32 may be called from any goroutine at any time, also
// after Free (it is then a no-op). A Pool is safe for concurrent use.
package linmem

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
)

// Memory is one instance's linear memory. It implements
// experimental.LinearMemory.
type Memory struct {
	mu     sync.Mutex // guards buf against StoreUint32; held by growth and Free
	buf    []byte     // the guest's current view
	mapped bool       // buf's backing array is a mapping of max bytes
	max    uint64
	freed  bool
	pins   int    // Pin calls not yet undone by Unpin
	pool   *Pool  // where the mapping goes when freed; nil: unmapped
	img    *Image // what the mapping starts as; nil: zeros
	// kept has a bit per page DropClean found holding the guest's own
	// bytes: it is not compared again while private (a new Memory, as a
	// recycled mapping gets, starts with none).
	kept []uint64
}

// Image is an initialised memory that memories share copy-on-write (see
// NewFrom). It is immutable and safe for concurrent use; its memory file is
// closed when it becomes unreachable.
type Image struct {
	fd   int
	size uint64 // bytes of the file: len of the image rounded up to a page
	view []byte // the file mapped read-only; nil: resets drop the pages
}

// NewImage keeps b as an Image. It fails where memory files or mappings are
// not available; the caller then copies b into each memory instead.
func NewImage(b []byte) (*Image, error) {
	fd, size, err := newImageFD(b)
	if err != nil {
		return nil, err
	}
	img := &Image{fd: fd, size: size}
	img.view, _ = viewImage(fd, size)
	runtime.AddCleanup(img, func(fd int) { closeFD(fd) }, fd)
	if img.view != nil {
		runtime.AddCleanup(img, func(v []byte) { _ = unmap(v) }, img.view)
	}
	return img, nil
}

// poolKey identifies interchangeable mappings: of one size, starting as one
// image (nil: zeros).
type poolKey struct {
	size uint64
	img  *Image
}

// New reserves a memory of at most maxBytes (0 = unbounded, which is never
// mapped), with room for capBytes before the first growth. It is an
// experimental.MemoryAllocator function.
func New(capBytes, maxBytes uint64) *Memory { return (*Pool)(nil).New(capBytes, maxBytes) }

// Pool keeps the mappings of freed memories for reuse. The zero value is not
// usable; a nil *Pool keeps nothing.
type Pool struct {
	keep    uint64 // bytes of a mapping left committed, cleared
	maxFree int

	mu     sync.Mutex
	free   map[poolKey][][]byte
	nfree  int
	closed bool
}

// NewPool returns a pool that keeps up to maxFree mappings, each with at
// most keepBytes of it committed.
func NewPool(maxFree int, keepBytes uint64) *Pool {
	return &Pool{keep: keepBytes, maxFree: maxFree, free: map[poolKey][][]byte{}}
}

// New is like the package's New, reusing a mapping from the pool when it
// holds one of maxBytes.
func (p *Pool) New(capBytes, maxBytes uint64) *Memory {
	m, _ := p.NewFrom(capBytes, maxBytes, nil)
	return m
}

// NewFrom is like New, and when img is not nil and maxBytes is at least
// its size, the memory starts as img (copy-on-write): fromImage reports
// whether it does. A memory that does not reads as zeros.
func (p *Pool) NewFrom(capBytes, maxBytes uint64, img *Image) (m *Memory, fromImage bool) {
	if img != nil && img.size > maxBytes {
		img = nil
	}
	if maxBytes != 0 && maxBytes <= 1<<32 {
		if b := p.take(poolKey{maxBytes, img}); b != nil {
			return &Memory{buf: b[:0], mapped: true, max: maxBytes, pool: p, img: img}, img != nil
		}
		if b, err := mapAnon(maxBytes); err == nil {
			if img == nil {
				return &Memory{buf: b[:0], mapped: true, max: maxBytes, pool: p}, false
			}
			if err := mapImage(b, img.fd, img.size); err == nil {
				return &Memory{buf: b[:0], mapped: true, max: maxBytes, pool: p, img: img}, true
			}
			_ = unmap(b)
		}
	}
	return &Memory{buf: make([]byte, 0, capBytes), max: maxBytes}, false
}

// Allocator returns an allocator for experimental.WithMemoryAllocator that
// creates memories with p.New and hands each to created as well. limit, when
// not 0, lowers the maximum the runtime asks for: memory.grow past it fails.
func (p *Pool) Allocator(created func(*Memory), limit uint64) experimental.MemoryAllocator {
	return p.AllocatorFrom(nil, func(m *Memory, _ bool) {
		if created != nil {
			created(m)
		}
	}, limit)
}

// AllocatorFrom is like Allocator with memories made by NewFrom with img;
// created also hears whether the memory starts as img.
func (p *Pool) AllocatorFrom(img *Image, created func(m *Memory, fromImage bool), limit uint64) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capBytes, maxBytes uint64) experimental.LinearMemory {
		if limit != 0 && (maxBytes == 0 || limit < maxBytes) {
			maxBytes = limit
		}
		m, fromImage := p.NewFrom(capBytes, maxBytes, img)
		created(m, fromImage)
		return m
	})
}

// Close unmaps the mappings the pool holds; memories freed later are
// unmapped. Later calls do nothing.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for size, list := range p.free {
		for _, b := range list {
			_ = unmap(b)
		}
		delete(p.free, size)
	}
	p.nfree = 0
}

func (p *Pool) take(k poolKey) []byte {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.free[k]
	if len(list) == 0 {
		return nil
	}
	b := list[len(list)-1]
	if len(list) == 1 {
		delete(p.free, k) // no empty lists keep a dropped image reachable
	} else {
		p.free[k] = list[:len(list)-1]
	}
	p.nfree--
	return b
}

// put takes back a mapping whose first used bytes the guest may have
// written, or unmaps it when the pool is full or closed. Every byte of a
// mapping in the pool reads as zero, or as img where it maps img.
func (p *Pool) put(b []byte, used uint64, img *Image) {
	if p == nil || !p.hasRoom() {
		_ = unmap(b)
		return
	}
	keep := min(used, p.keep)
	if img != nil {
		// Copy the image back over the pages the guest wrote, which stay
		// committed for the next guest; failing that, drop every private
		// page, which resets it to the image too.
		keep = 0
		if resetToImage(b[:used], img, p.keep) {
			used = 0
		}
	}
	clear(b[:keep])
	if used > keep && release(b[keep:used]) != nil {
		_ = unmap(b)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.nfree >= p.maxFree {
		_ = unmap(b)
		return
	}
	k := poolKey{uint64(len(b)), img}
	p.free[k] = append(p.free[k], b)
	p.nfree++
}

// resetToImage makes every byte of b, which maps img, read as img again by
// copying img over the private pages of b, if they are at most keep bytes.
func resetToImage(b []byte, img *Image, keep uint64) bool {
	if img.view == nil {
		return false
	}
	page := os.Getpagesize()
	n := 0
	ok := privatePages(b, func(i int) {
		n++
		off := i * page
		end := min(off+page, len(b))
		if off < len(img.view) {
			c := copy(b[off:end], img.view[off:min(end, len(img.view))])
			off += c
		}
		clear(b[off:end])
	})
	return ok && uint64(n*page) <= keep
}

func (p *Pool) hasRoom() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.closed && p.nfree < p.maxFree
}

// Reallocate implements experimental.LinearMemory: it returns the memory
// resized to size bytes, or nil beyond its maximum.
func (m *Memory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.max != 0 && size > m.max {
		return nil
	}
	switch {
	case size <= uint64(cap(m.buf)):
		m.buf = m.buf[:size]
	case m.mapped:
		return nil
	default:
		n := make([]byte, size, max(size, 2*uint64(cap(m.buf))))
		copy(n, m.buf)
		m.buf = n
	}
	return m.buf
}

// Free implements experimental.LinearMemory: it releases the memory. wazero
// calls it when the instance closes, which may be while the guest still
// runs on another goroutine (wazero's Runtime.Close closes every module) or
// while host code still holds slices of the memory. A mapping handed back
// then would be written by the old guest after a new instance got it, or
// fault once unmapped; so while the memory is pinned, Free only marks it,
// and the last Unpin hands the mapping back.
func (m *Memory) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.freed {
		return
	}
	m.freed = true
	if m.pins == 0 {
		m.release()
	}
}

// Pin keeps the memory's backing array in place, unshared, until the
// matching Unpin, even if Free is called meanwhile. The holder of an
// instance pins its memory for as long as guest or host code may touch it.
func (m *Memory) Pin() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pins++
}

// Unpin undoes one Pin; once the memory is freed and no pin is left, its
// mapping goes back to the pool.
func (m *Memory) Unpin() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pins <= 0 {
		panic("linmem: Unpin without Pin")
	}
	m.pins--
	if m.pins == 0 && m.freed {
		m.release()
	}
}

// release hands the backing array back; m.mu is held.
func (m *Memory) release() {
	if m.mapped && m.buf != nil {
		m.pool.put(m.buf[:cap(m.buf)], uint64(len(m.buf)), m.img)
	}
	m.buf = nil
}

// StoreUint32 atomically stores v, little-endian, at byte offset off, which
// must be a multiple of 4. It does nothing when off is beyond the memory's
// current size or the memory has been freed.
//
// Memory model: the store is a Go atomic store and a reader on another
// goroutine reads the word with LoadUint32, a Go atomic load, so the pair is
// race-free and the reader sees the value once the store has happened (Go's
// atomics are sequentially consistent). A wasm load of the word is an
// ordinary aligned machine load, outside Go's model; on amd64 and arm64 it
// is never torn and cache coherence makes the store visible to it within a
// short time, which is all a flag needs, since nothing else is published
// through it. Holding mu makes the store safe against a concurrent growth
// (the fallback memory moves) and Free (the mapping goes away or back to
// the pool).
func (m *Memory) StoreUint32(off uint32, v uint32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.freed || off%4 != 0 || uint64(off)+4 > uint64(len(m.buf)) {
		return
	}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&m.buf[off])), littleEndian(v))
}

// littleEndian converts between a native uint32 and one whose bytes are in
// wasm's (little-endian) order: the identity, except on big-endian hosts.
func littleEndian(v uint32) uint32 {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	return binary.NativeEndian.Uint32(b[:])
}

// LoadUint32 atomically loads the little-endian word at the start of b, a
// slice of a Memory's current view at an offset that is a multiple of 4. It
// pairs with StoreUint32 on the goroutine running the guest.
func LoadUint32(b []byte) uint32 {
	return littleEndian(atomic.LoadUint32((*uint32)(unsafe.Pointer(&b[0]))))
}

// DropClean hands back to the kernel every page of the memory that the
// guest wrote but that holds what it would read without that write: the
// image's bytes, or zeros past the image. Such a page then reads the same,
// and is shared again (image) or not committed (zeros). A page it finds
// holding bytes of the guest's own is remembered and not compared again
// while it stays private, so a drop compares only the pages the guest made
// private since the last one: each cost the guest a page fault, and a
// sleeping chain with much memory written costs nothing per wake. It stops
// early, within stopEvery pages, once stop reads true. It returns how many
// pages it dropped and how many it compared. The caller must make sure that
// nothing writes the memory meanwhile: a write racing with the drop could
// be lost.
func (m *Memory) DropClean(stop *atomic.Bool) (dropped, compared int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.mapped || m.freed || len(m.buf) == 0 {
		return 0, 0
	}
	var view []byte
	if m.img != nil {
		if view = m.img.view; view == nil {
			return 0, 0
		}
	}
	page := os.Getpagesize()
	pages := len(m.buf) / page // the memory's size is whole wasm pages
	if words := (pages + 63) / 64; len(m.kept) < words {
		m.kept = append(m.kept, make([]uint64, words-len(m.kept))...)
	}
	run, runEnd := -1, -1 // a run of clean pages, dropped with one call
	flush := func() {
		if run >= 0 && release(m.buf[run*page:runEnd*page]) == nil {
			dropped += runEnd - run
		}
		run = -1
	}
	seen := 0
	privatePages(m.buf, func(i int) {
		if i >= pages || m.kept[i/64]&(1<<(i%64)) != 0 || stop != nil && stop.Load() {
			return
		}
		if seen++; seen%stopEvery == 0 && stop != nil && stop.Load() {
			return
		}
		off, end := i*page, (i+1)*page
		p := m.buf[off:end]
		compared++
		var clean bool
		if off < len(view) {
			clean = end <= len(view) && bytes.Equal(p, view[off:end])
		} else {
			clean = allZero(p)
		}
		if !clean {
			m.kept[i/64] |= 1 << (i % 64)
			return
		}
		if i != runEnd {
			flush()
			run = i
		}
		runEnd = i + 1
	})
	flush()
	return dropped, compared
}

// stopEvery is how many private pages DropClean looks at between readings
// of its stop flag.
const stopEvery = 64

func allZero(b []byte) bool {
	for len(b) >= 8 {
		if binary.NativeEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// PrivatePages returns how many pages of the memory may be its own (see
// privatePages), or -1 when that cannot be told.
func (m *Memory) PrivatePages() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	if !m.mapped || m.freed || !privatePages(m.buf, func(int) { n++ }) {
		return -1
	}
	return n
}
