//go:build wasip1

package airlock

// Extism kernel functions (memory blocks addressed by 64-bit offsets).

//go:wasmimport extism:host/env input_length
func extismInputLength() uint64

//go:wasmimport extism:host/env input_load_u8
func extismInputLoadU8(offs uint64) uint32

//go:wasmimport extism:host/env alloc
func extismAlloc(n uint64) uint64

//go:wasmimport extism:host/env free
func extismFree(offs uint64)

//go:wasmimport extism:host/env length
func extismLength(offs uint64) uint64

//go:wasmimport extism:host/env load_u8
func extismLoadU8(offs uint64) uint32

//go:wasmimport extism:host/env load_u64
func extismLoadU64(offs uint64) uint64

//go:wasmimport extism:host/env store_u8
func extismStoreU8(offs uint64, v uint32)

//go:wasmimport extism:host/env store_u64
func extismStoreU64(offs uint64, v uint64)

//go:wasmimport extism:host/env output_set
func extismOutputSet(offs, n uint64)

//go:wasmimport extism:host/env error_set
func extismErrorSet(offs uint64)

// airlock's own host functions (ABI.md).

//go:wasmimport extism:host/user airlock_call
func airlockCall(name, args uint64) uint64

//go:wasmimport extism:host/user airlock_log
func airlockLog(level, text uint64)

// put copies b into a new kernel memory block.
func put(b []byte) uint64 {
	offs := extismAlloc(uint64(len(b)))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		v := uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
			uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
		extismStoreU64(offs+uint64(i), v)
	}
	for ; i < len(b); i++ {
		extismStoreU8(offs+uint64(i), uint32(b[i]))
	}
	return offs
}

// get copies a kernel memory block out.
func get(offs uint64) []byte {
	n := extismLength(offs)
	b := make([]byte, n)
	i := uint64(0)
	for ; i+8 <= n; i += 8 {
		v := extismLoadU64(offs + i)
		for k := uint64(0); k < 8; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	for ; i < n; i++ {
		b[i] = byte(extismLoadU8(offs + i))
	}
	return b
}

func hostCall(tool string, args []byte) ([]byte, error) {
	name, a := put([]byte(tool)), put(args)
	env := airlockCall(name, a)
	extismFree(name)
	extismFree(a)
	b := get(env)
	extismFree(env)
	return b, nil
}

func hostInput() ([]byte, error) {
	n := extismInputLength()
	b := make([]byte, n)
	for i := uint64(0); i < n; i++ {
		b[i] = byte(extismInputLoadU8(i))
	}
	return b, nil
}

func hostOutput(b []byte) error {
	extismOutputSet(put(b), uint64(len(b)))
	return nil
}

func hostError(msg string) { extismErrorSet(put([]byte(msg))) }

func hostLog(level, msg string) {
	offs := put([]byte(msg))
	n := uint64(1)
	switch level {
	case "debug":
		n = 0
	case "warn":
		n = 2
	case "error":
		n = 3
	}
	airlockLog(n, offs)
	extismFree(offs)
}
