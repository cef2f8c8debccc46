package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		rule string
		want [][]relation
	}{
		{"i = 1 and v = 0", [][]relation{{{op: 'i', ranges: []uint64{1, 1}}, {op: 'v', ranges: []uint64{0, 0}}}}},
		{"n % 10 = 2..4 and n % 100 != 12..14", [][]relation{{{op: 'n', mod: 10, ranges: []uint64{2, 4}}, {op: 'n', not: true, mod: 100, ranges: []uint64{12, 14}}}}},
		{"e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5", [][]relation{
			{{op: 'e', ranges: []uint64{0, 0}}, {op: 'i', not: true, ranges: []uint64{0, 0}}, {op: 'i', mod: 1000000, ranges: []uint64{0, 0}}, {op: 'v', ranges: []uint64{0, 0}}},
			{{op: 'e', not: true, ranges: []uint64{0, 5}}}}},
		{"n = 11,8,80..82", [][]relation{{{op: 'n', ranges: []uint64{11, 11, 8, 8, 80, 82}}}}},
		{"c = 1 or t mod 10 = 3", [][]relation{{{op: 'e', ranges: []uint64{1, 1}}}, {{op: 't', mod: 10, ranges: []uint64{3, 3}}}}},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			got, err := parse(tc.rule)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestParseRefuses: the parser stops at what CLDR 48 does not write.
func TestParseRefuses(t *testing.T) {
	for _, rule := range []string{"", "n", "n =", "n = 1 and", "n = 1 or", "x = 1", "n % 0 = 1", "n = 5..2", "n = 1,",
		"(n = 1)", "n in 1..2", "n = 99999999999", "n = 1 n = 2", "n = 1..", "n == 1", "n = -1",
		"n = 1" + strings.Repeat(" and n = 1", 200)} {
		t.Run(rule, func(t *testing.T) {
			_, err := parse(rule)
			require.Error(t, err)
		})
	}
}

// TestReadPinned: the generator reads only cldr-core 48.0.0's files, each
// checked against its SHA-256; an edited file, another name or a missing
// file stops it.
func TestReadPinned(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plurals.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"supplemental":{"plurals-type-cardinal":{"en":{"pluralRule-count-other":"@integer 0"}}}}`), 0o600))
	_, err := readPinned(file)
	require.ErrorContains(t, err, "SHA-256")
	other := filepath.Join(dir, "plurals-48.1.json")
	require.NoError(t, os.WriteFile(other, nil, 0o600))
	_, err = readPinned(other)
	require.ErrorContains(t, err, "no pinned SHA-256")
	_, err = readPinned(filepath.Join(dir, "ordinals.json"))
	require.Error(t, err)
	require.Len(t, pinned, 3)
}
