//go:build !linux

package linmem

import "github.com/tetratelabs/wazero/experimental"

func allocator() experimental.MemoryAllocator { return nil }
