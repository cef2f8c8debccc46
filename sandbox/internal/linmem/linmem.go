// Package linmem backs guest linear memory with one anonymous memory mapping
// per instance, reserved at its maximum size and committed by the kernel as
// the guest touches it.
//
// wazero's default grows a linear memory by appending to a Go slice, which
// copies the whole memory on every growth and keeps it on the Go heap; a
// QuickJS guest growing to 64 MiB in small steps spends seconds copying (see
// sandbox/RATIONALE-engine.md). A mapping never moves, so growth is free, and
// unmapping returns the pages to the kernel as soon as the instance closes.
package linmem

import "github.com/tetratelabs/wazero/experimental"

// Allocator returns the memory allocator to install with
// experimental.WithMemoryAllocator, or nil where mappings are not supported
// (wazero's default allocator is used then).
func Allocator() experimental.MemoryAllocator {
	return allocator()
}
