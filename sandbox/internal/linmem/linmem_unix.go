//go:build linux

package linmem

import (
	"sync"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

func allocator() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(allocate)
}

// allocate reserves max bytes without committing them. When the reservation
// fails it falls back to a Go slice of the initial capacity, grown by copying.
func allocate(capBytes, maxBytes uint64) experimental.LinearMemory {
	if maxBytes == 0 || maxBytes > 1<<32 {
		return &heapMemory{buf: make([]byte, 0, capBytes), max: maxBytes}
	}
	b, err := syscall.Mmap(-1, 0, int(maxBytes),
		syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return &heapMemory{buf: make([]byte, 0, capBytes), max: maxBytes}
	}
	return &mappedMemory{buf: b}
}

type mappedMemory struct {
	once sync.Once
	buf  []byte
}

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

func (m *mappedMemory) Free() {
	m.once.Do(func() { _ = syscall.Munmap(m.buf) })
}
