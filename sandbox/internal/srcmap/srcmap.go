// Package srcmap maps positions in generated JavaScript back to the source it
// was generated from, using a version 3 source map with one source (what
// esbuild emits for one transformed file).
package srcmap

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// Map is a decoded source map.
type Map struct {
	lines [][]segment // per generated line, sorted by generated column
}

type segment struct {
	genCol, srcLine, srcCol int32
}

// Parse decodes a source map's JSON.
func Parse(data []byte) (*Map, error) {
	var raw struct {
		Version  int    `json:"version"`
		Mappings string `json:"mappings"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("srcmap: %w", err)
	}
	if raw.Version != 3 {
		return nil, fmt.Errorf("srcmap: unsupported version %d", raw.Version)
	}
	m := &Map{}
	var line []segment
	var srcLine, srcCol, src, name int32
	s := raw.Mappings
	for len(s) > 0 {
		switch s[0] {
		case ';':
			m.lines = append(m.lines, line)
			line = nil
			s = s[1:]
			continue
		case ',':
			s = s[1:]
			continue
		}
		var fields [5]int32
		n := 0
		for len(s) > 0 && s[0] != ',' && s[0] != ';' {
			if n == 5 {
				return nil, errors.New("srcmap: segment with more than 5 fields")
			}
			v, rest, err := vlq(s)
			if err != nil {
				return nil, err
			}
			fields[n], s, n = v, rest, n+1
		}
		genCol := fields[0]
		if len(line) > 0 {
			genCol += line[len(line)-1].genCol
		}
		if n < 4 {
			continue // a generated position with no source
		}
		src += fields[1]
		srcLine += fields[2]
		srcCol += fields[3]
		if n == 5 {
			name += fields[4]
		}
		line = append(line, segment{genCol: genCol, srcLine: srcLine, srcCol: srcCol})
	}
	m.lines = append(m.lines, line)
	for _, l := range m.lines {
		sort.SliceStable(l, func(i, j int) bool { return l[i].genCol < l[j].genCol })
	}
	return m, nil
}

// Lookup maps a 0-based generated line and column to the 0-based source line
// and column of the closest mapping at or before it on that line (or the
// line's first mapping).
func (m *Map) Lookup(line, col int) (srcLine, srcCol int, ok bool) {
	srcLine, srcCol, _, ok = m.Segment(line, col)
	return srcLine, srcCol, ok
}

// Segment is Lookup that also returns the generated column of the mapping
// it used, which is at or before col unless col precedes the line's first
// mapping.
func (m *Map) Segment(line, col int) (srcLine, srcCol, genCol int, ok bool) {
	if m == nil || line < 0 || line >= len(m.lines) || len(m.lines[line]) == 0 {
		return 0, 0, 0, false
	}
	segs := m.lines[line]
	i := sort.Search(len(segs), func(i int) bool { return int(segs[i].genCol) > col }) - 1
	if i < 0 {
		i = 0
	}
	return int(segs[i].srcLine), int(segs[i].srcCol), int(segs[i].genCol), true
}

const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var b64Index = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(b64); i++ {
		t[b64[i]] = int8(i)
	}
	return t
}()

func vlq(s string) (int32, string, error) {
	var v, shift uint32
	for i := 0; i < len(s); i++ {
		d := b64Index[s[i]]
		if d < 0 {
			return 0, "", fmt.Errorf("srcmap: bad VLQ digit %q", s[i])
		}
		if shift > 30 {
			return 0, "", errors.New("srcmap: VLQ overflow")
		}
		v |= uint32(d&31) << shift
		if d&32 == 0 {
			n := int32(v >> 1)
			if v&1 != 0 {
				n = -n
			}
			return n, s[i+1:], nil
		}
		shift += 5
	}
	return 0, "", errors.New("srcmap: truncated VLQ")
}
