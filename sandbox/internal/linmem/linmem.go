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
// # Concurrency
//
// Reallocate and Free are called by wazero on the goroutine running the
// guest. StoreUint32 may be called from any goroutine at any time, also
// after Free (it is then a no-op). A Pool is safe for concurrent use.
package linmem

import (
	"encoding/binary"
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
	pins   int   // Pin calls not yet undone by Unpin
	pool   *Pool // where the mapping goes when freed; nil: unmapped
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
	free   map[uint64][][]byte // by mapping size
	nfree  int
	closed bool
}

// NewPool returns a pool that keeps up to maxFree mappings, each with at
// most keepBytes of it committed.
func NewPool(maxFree int, keepBytes uint64) *Pool {
	return &Pool{keep: keepBytes, maxFree: maxFree, free: map[uint64][][]byte{}}
}

// New is like the package's New, reusing a mapping from the pool when it
// holds one of maxBytes.
func (p *Pool) New(capBytes, maxBytes uint64) *Memory {
	if maxBytes != 0 && maxBytes <= 1<<32 {
		if b := p.take(maxBytes); b != nil {
			return &Memory{buf: b[:0], mapped: true, max: maxBytes, pool: p}
		}
		if b, err := mapAnon(maxBytes); err == nil {
			return &Memory{buf: b[:0], mapped: true, max: maxBytes, pool: p}
		}
	}
	return &Memory{buf: make([]byte, 0, capBytes), max: maxBytes}
}

// Allocator returns an allocator for experimental.WithMemoryAllocator that
// creates memories with p.New and hands each to created as well. limit, when
// not 0, lowers the maximum the runtime asks for: memory.grow past it fails.
func (p *Pool) Allocator(created func(*Memory), limit uint64) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capBytes, maxBytes uint64) experimental.LinearMemory {
		if limit != 0 && (maxBytes == 0 || limit < maxBytes) {
			maxBytes = limit
		}
		m := p.New(capBytes, maxBytes)
		if created != nil {
			created(m)
		}
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

func (p *Pool) take(size uint64) []byte {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.free[size]
	if len(list) == 0 {
		return nil
	}
	b := list[len(list)-1]
	p.free[size] = list[:len(list)-1]
	p.nfree--
	return b
}

// put takes back a mapping whose first used bytes the guest may have
// written, or unmaps it when the pool is full or closed. Every byte of a
// mapping in the pool reads as zero.
func (p *Pool) put(b []byte, used uint64) {
	if p == nil || !p.hasRoom() {
		_ = unmap(b)
		return
	}
	keep := min(used, p.keep)
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
	p.free[uint64(len(b))] = append(p.free[uint64(len(b))], b)
	p.nfree++
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
		m.pool.put(m.buf[:cap(m.buf)], uint64(len(m.buf)))
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
