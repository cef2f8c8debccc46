//go:build linux

package linmem

import (
	"encoding/binary"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapAnon reserves n bytes of address space without committing them.
func mapAnon(n uint64) ([]byte, error) {
	return syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
}

func unmap(b []byte) error { return syscall.Munmap(b) }

// release hands b's pages back to the kernel; they read as zero afterwards,
// or, where b maps an Image, as the image.
func release(b []byte) error { return syscall.Madvise(b, syscall.MADV_DONTNEED) }

// newImageFD returns a sealed memory file holding b, padded with zeros to a
// whole number of pages.
func newImageFD(b []byte) (fd int, size uint64, err error) {
	fd, err = unix.MemfdCreate("airlock-linmem-image", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return -1, 0, err
	}
	page := uint64(unix.Getpagesize())
	size = (uint64(len(b)) + page - 1) / page * page
	if err = unix.Ftruncate(fd, int64(size)); err == nil {
		for off := 0; off < len(b) && err == nil; {
			var n int
			n, err = unix.Pwrite(fd, b[off:], int64(off))
			off += n
		}
	}
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS,
			unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE|unix.F_SEAL_SEAL)
	}
	if err != nil {
		_ = unix.Close(fd)
		return -1, 0, err
	}
	return fd, size, nil
}

func closeFD(fd int) { _ = unix.Close(fd) }

// mapImage maps the image file fd, size bytes, copy-on-write over the start
// of the mapping b.
func mapImage(b []byte, fd int, size uint64) error {
	_, err := unix.MmapPtr(fd, 0, unsafe.Pointer(&b[0]), uintptr(size),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED)
	return err
}

// viewImage maps the image file read-only, shared: the bytes a reset
// copies back.
func viewImage(fd int, size uint64) ([]byte, error) {
	return unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

// pagemap is /proc/self/pagemap, opened at the first use and kept open;
// nil when it cannot be read.
var pagemap = sync.OnceValue(func() *os.File {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil
	}
	return f
})

// privatePages calls fn with the index of every page of b (page-aligned)
// that may hold a private copy: an anonymous page present in memory and
// mapped only here, or any page swapped out (or being migrated); that is,
// what the guest wrote in a mapping of an image, or anywhere in an
// anonymous one. A page left out is one nobody wrote: it reads as the image
// or zero (a page only read past the image maps the kernel's shared zero
// page, which is not exclusive). It reports false when it cannot tell.
func privatePages(b []byte, fn func(page int)) bool {
	pm := pagemap()
	if pm == nil || len(b) == 0 {
		return false
	}
	const (
		present      = 1 << 63
		swapped      = 1 << 62
		fileOrShared = 1 << 61
		exclusive    = 1 << 56 // mapped once: not the shared zero page a read maps
	)
	page := unix.Getpagesize()
	n := (len(b) + page - 1) / page
	var buf [512 * 8]byte
	base := int64(uintptr(unsafe.Pointer(&b[0])) / uintptr(page) * 8)
	for i := 0; i < n; {
		k := min(n-i, len(buf)/8)
		got, err := pm.ReadAt(buf[:k*8], base+int64(i)*8)
		if err != nil || got != k*8 {
			return false
		}
		for j := range k {
			e := binary.NativeEndian.Uint64(buf[j*8:])
			if e&swapped != 0 || e&present != 0 && e&fileOrShared == 0 && e&exclusive != 0 {
				fn(i + j)
			}
		}
		i += k
	}
	return true
}
