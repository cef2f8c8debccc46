package main

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadTOCRefuses: a table of contents whose offsets point past the
// data is refused, not read out of range (commonData tries every "CmnD"
// in an executable, most of which are not ICU's package).
func TestReadTOCRefuses(t *testing.T) {
	for _, tc := range []struct {
		name          string
		nameOff, data uint32
	}{
		{"name past the end", 1 << 20, 16},
		{"data past the end", 12, 1 << 20},
		{"name at the end", 32, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exe := make([]byte, 32)
			binary.LittleEndian.PutUint16(exe, 8) // header size: the TOC starts at 8
			exe[2], exe[3] = 0xda, 0x27
			binary.LittleEndian.PutUint32(exe[8:], 1) // one entry
			binary.LittleEndian.PutUint32(exe[12:], tc.nameOff-8)
			binary.LittleEndian.PutUint32(exe[16:], tc.data-8)
			require.NotPanics(t, func() {
				_, err := readTOC(exe, 0)
				require.Error(t, err)
			})
		})
	}
}
