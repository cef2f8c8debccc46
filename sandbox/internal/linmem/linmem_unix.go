//go:build linux

package linmem

import "syscall"

// mapAnon reserves n bytes of address space without committing them.
func mapAnon(n uint64) ([]byte, error) {
	return syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
}

func unmap(b []byte) error { return syscall.Munmap(b) }

// release hands b's pages back to the kernel; they read as zero afterwards.
func release(b []byte) error { return syscall.Madvise(b, syscall.MADV_DONTNEED) }
