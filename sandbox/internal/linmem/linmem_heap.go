package linmem

// heapMemory is the fallback: a Go slice grown by copying, like wazero's own.
type heapMemory struct {
	buf []byte
	max uint64
}

func (m *heapMemory) Reallocate(size uint64) []byte {
	if m.max != 0 && size > m.max {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	n := make([]byte, size, max(size, 2*uint64(cap(m.buf))))
	copy(n, m.buf)
	m.buf = n
	return n
}

func (m *heapMemory) Free() { m.buf = nil }
