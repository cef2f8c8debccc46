// Package scrub finds secrets in what an upstream sends back (an HTTP
// response, an MCP server's result or error) and replaces them, in every
// form an upstream is likely to reflect them.
package scrub

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"sort"
	"unicode/utf8"
)

// Thresholds of secret scrubbing, in bytes of the secret value.
const (
	// MinSecretBytes is the shortest value scrubbed at all. A shorter one
	// (a one-letter flag, a region code) cannot be told apart from ordinary
	// text, so scrubbing it would mangle every response; it is not scrubbed.
	MinSecretBytes = 4
	// MinEncodedSecretBytes is the shortest value also recognised in base64
	// (standard or URL alphabet, padded or raw, at any alignment inside a
	// longer base64 text). The base64 of a shorter value is too short to
	// tell from ordinary text; such a value is scrubbed in its other forms
	// only.
	MinEncodedSecretBytes = 8
	// FragmentBytes is the length of the shortest part of a longer value
	// that is scrubbed on its own: any run of FragmentBytes consecutive
	// bytes of a secret (a truncated prefix, a suffix, a middle part), in
	// any of the forms below, is replaced. A value of at most FragmentBytes
	// bytes is recognised only whole.
	FragmentBytes = 12
)

// redacted replaces every part of a response that reflects a secret.
var redacted = []byte("[REDACTED]")

// A Scrubber finds configured secrets in what an upstream sends back, in
// every form an upstream is likely to reflect them:
//
//   - literally, and with its letters in any case;
//   - JSON-escaped (\", \/, \uXXXX…) or percent-encoded (%XX, any case),
//     wholly or in part: escapes are decoded once before matching;
//   - hex-encoded, in either case;
//   - base64-encoded, standard or URL alphabet, padded or raw, alone or
//     inside a longer base64 text (such as a Basic credential), for values
//     of at least MinEncodedSecretBytes;
//   - truncated: any FragmentBytes consecutive bytes of a longer value
//     (FragmentBytes*2 hex digits, FragmentBytes*4/3 base64 characters).
//
// Matching is linear in the size of the text: the text is decoded once
// into a view, and each window size makes one rolling-hash pass over the
// view and, when it differs, one over the text as it is (decoding can hide
// a literal, as in "%0123…").
type Scrubber struct {
	groups []*gramGroup
}

// gramGroup holds the windows of one length and case rule.
type gramGroup struct {
	window int
	fold   bool      // compare ASCII letters case-insensitively
	table  [256]byte // folds a byte (ASCII letters to lower case), or keeps it
	pow    uint64
	filter []uint64 // bitset over the hashes' low bits, a cheap first test
	grams  map[uint64][][]byte
}

const (
	hashBase   = 1099511628211
	filterBits = 1 << 16
)

// New builds the Scrubber of secrets; values shorter than
// MinSecretBytes are left out.
func New(secrets []string) *Scrubber {
	s := &Scrubber{}
	seen := map[string]bool{}
	for _, v := range secrets {
		if len(v) < MinSecretBytes || seen[v] {
			continue
		}
		seen[v] = true
		b := []byte(v)
		s.add(lowerASCII(b), true, FragmentBytes)
		s.add([]byte(hex.EncodeToString(b)), true, 2*FragmentBytes)
		if len(b) >= MinEncodedSecretBytes {
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
				// The whole encoding, padding included, where the value is
				// encoded alone; the core at each alignment where it is part
				// of a longer text.
				s.add([]byte(enc.EncodeToString(b)), false, FragmentBytes*4/3)
				for align := range 3 {
					s.add(base64Core(b, align, enc), false, FragmentBytes*4/3)
				}
			}
		}
	}
	return s
}

// base64Core returns the base64 characters that encode b, and nothing but
// b, when b starts align bytes into a 3-byte group of a longer text: every
// character whose 6 bits lie wholly within b. Whatever surrounds b in the
// encoded text, these characters appear there as they are.
func base64Core(b []byte, align int, enc *base64.Encoding) []byte {
	padded := make([]byte, align+len(b))
	copy(padded[align:], b)
	full := enc.EncodeToString(padded)
	first := (8*align + 5) / 6       // first character not touching the padding
	last := 8 * (align + len(b)) / 6 // characters wholly inside the data
	if last <= first {
		return nil
	}
	return []byte(full[first:last])
}

// add registers every window of pat (all of pat when it is not longer than
// window).
func (s *Scrubber) add(pat []byte, fold bool, window int) {
	if len(pat) == 0 {
		return
	}
	window = min(window, len(pat))
	var g *gramGroup
	for _, c := range s.groups {
		if c.window == window && c.fold == fold {
			g = c
		}
	}
	if g == nil {
		g = &gramGroup{window: window, fold: fold, pow: 1, filter: make([]uint64, filterBits/64), grams: map[uint64][][]byte{}}
		for i := range 256 {
			g.table[i] = byte(i)
			if fold && 'A' <= i && i <= 'Z' {
				g.table[i] += 'a' - 'A'
			}
		}
		for range window - 1 {
			g.pow *= hashBase
		}
		s.groups = append(s.groups, g)
	}
	for off := 0; off+window <= len(pat); off++ {
		w := pat[off : off+window]
		var h uint64
		for _, c := range w {
			h = h*hashBase + uint64(g.fold1(c))
		}
		g.filter[(h%filterBits)/64] |= 1 << (h % 64)
		if !slices.ContainsFunc(g.grams[h], func(e []byte) bool { return bytes.Equal(e, w) }) {
			g.grams[h] = append(g.grams[h], w)
		}
	}
}

func (g *gramGroup) fold1(c byte) byte { return g.table[c] }

// span is a half-open range of bytes.
type span struct{ start, end int }

// find returns the spans of view that match a window, sorted and merged.
func (g *gramGroup) find(view []byte) []span {
	w := g.window
	if len(view) < w {
		return nil
	}
	var out []span
	var h uint64
	t := &g.table
	for _, c := range view[:w] {
		h = h*hashBase + uint64(t[c])
	}
	for i := 0; ; i++ {
		if g.filter[(h%filterBits)/64]&(1<<(h%64)) != 0 && g.match(h, view[i:i+w]) {
			if n := len(out); n > 0 && out[n-1].end >= i {
				out[n-1].end = i + w
			} else {
				out = append(out, span{i, i + w})
			}
		}
		if i+w >= len(view) {
			return out
		}
		h = (h-uint64(t[view[i]])*g.pow)*hashBase + uint64(t[view[i+w]])
	}
}

func (g *gramGroup) match(h uint64, w []byte) bool {
	for _, e := range g.grams[h] {
		if g.fold && equalFoldASCII(e, w) || !g.fold && bytes.Equal(e, w) {
			return true
		}
	}
	return false
}

// spans returns the ranges of b that reflect a secret, sorted, disjoint,
// in b's own offsets.
func (s *Scrubber) spans(b []byte) []span {
	if len(s.groups) == 0 || len(b) == 0 {
		return nil
	}
	v := decodeView(b)
	var all []span
	for _, g := range s.groups {
		all = mergeSpans(all, g.find(v.text))
	}
	for i := range all {
		all[i] = span{v.origStart(all[i].start), v.origEnd(all[i].end - 1)}
	}
	if len(v.esc) > 0 {
		// Decoding can also hide a secret ("%01234…" decodes its "%01"):
		// match the text as it is too.
		for _, g := range s.groups {
			all = mergeSpans(all, g.find(b))
		}
	}
	// Mapped back, neighbouring spans may touch or overlap.
	out := all[:0]
	for _, sp := range all {
		if n := len(out); n > 0 && out[n-1].end >= sp.start {
			out[n-1].end = max(out[n-1].end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// mergeSpans merges two sorted lists of spans.
func mergeSpans(a, b []span) []span {
	if len(a) == 0 {
		return b
	}
	out := make([]span, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		var next span
		if len(b) == 0 || len(a) > 0 && a[0].start <= b[0].start {
			next, a = a[0], a[1:]
		} else {
			next, b = b[0], b[1:]
		}
		if n := len(out); n > 0 && out[n-1].end >= next.start {
			out[n-1].end = max(out[n-1].end, next.end)
			continue
		}
		out = append(out, next)
	}
	return out
}

// Contains reports whether b reflects a secret in any form.
func (s *Scrubber) Contains(b []byte) bool { return len(s.spans(b)) > 0 }

// Bytes returns b with every part that reflects a secret replaced by
// [REDACTED], and whether anything was replaced. b itself is not modified.
func (s *Scrubber) Bytes(b []byte) ([]byte, bool) {
	sp := s.spans(b)
	if len(sp) == 0 {
		return b, false
	}
	out := make([]byte, 0, len(b))
	prev := 0
	for _, r := range sp {
		out = append(out, b[prev:r.start]...)
		out = append(out, redacted...)
		prev = r.end
	}
	return append(out, b[prev:]...), true
}

// String is Bytes for text.
func (s *Scrubber) String(t string) string {
	b, changed := s.Bytes([]byte(t))
	if !changed {
		return t
	}
	return string(b)
}

// view is a text with its JSON and percent escapes decoded once, and the
// way back to the original offsets.
type view struct {
	text []byte
	esc  []escape // the decoded escapes, in order
}

// escape is one escape sequence: orig[o:o+on] became text[v:v+vn].
type escape struct{ v, vn, o, on int }

// decodeView decodes \", \\, \/, \b, \f, \n, \r, \t, \uXXXX (surrogate pairs
// joined) and %XX wherever they appear. Everything else is kept as is. A
// text without a backslash or percent sign is its own view.
func decodeView(b []byte) view {
	if bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b, '%') < 0 {
		return view{text: b}
	}
	v := view{text: make([]byte, 0, len(b))}
	for i := 0; i < len(b); {
		next := bytes.IndexAny(b[i:], `\%`)
		if next < 0 {
			v.text = append(v.text, b[i:]...)
			break
		}
		v.text = append(v.text, b[i:i+next]...)
		i += next
		at := len(v.text)
		text, n := decodeEscape(v.text, b[i:])
		if n == 0 {
			v.text = append(v.text, b[i])
			i++
			continue
		}
		v.esc = append(v.esc, escape{v: at, vn: len(text) - at, o: i, on: n})
		v.text = text
		i += n
	}
	return v
}

// decodeEscape appends the decoding of the escape at the start of b to dst
// and returns it with the escape's length in b, or dst and a zero length
// when b does not start with one.
func decodeEscape(dst, b []byte) ([]byte, int) {
	if len(b) >= 3 && b[0] == '%' && isHex(b[1]) && isHex(b[2]) {
		return append(dst, unhex(b[1])<<4|unhex(b[2])), 3
	}
	if len(b) < 2 || b[0] != '\\' {
		return dst, 0
	}
	switch b[1] {
	case '"', '\\', '/':
		return append(dst, b[1]), 2
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r, ok := hex4(b[2:])
		if !ok {
			return dst, 0
		}
		n := 6
		if 0xD800 <= r && r < 0xDC00 && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if lo, ok := hex4(b[8:]); ok && 0xDC00 <= lo && lo < 0xE000 {
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				n = 12
			}
		}
		return utf8.AppendRune(dst, r), n
	}
	return dst, 0
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		if !isHex(c) {
			return 0, false
		}
		r = r<<4 | rune(unhex(c))
	}
	return r, true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// escapeAt returns the index of the last escape starting at or before view
// offset p, or -1.
func (v view) escapeAt(p int) int {
	return sort.Search(len(v.esc), func(i int) bool { return v.esc[i].v > p }) - 1
}

// origStart returns the offset in the original text where the bytes
// producing view byte p start.
func (v view) origStart(p int) int {
	i := v.escapeAt(p)
	if i < 0 {
		return p
	}
	e := v.esc[i]
	if p < e.v+e.vn {
		return e.o
	}
	return e.o + e.on + p - (e.v + e.vn)
}

// origEnd returns the offset in the original text where the bytes producing
// view byte p end.
func (v view) origEnd(p int) int {
	i := v.escapeAt(p)
	if i < 0 {
		return p + 1
	}
	e := v.esc[i]
	if p < e.v+e.vn {
		return e.o + e.on
	}
	return e.o + e.on + p - (e.v + e.vn) + 1
}

func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

func equalFoldASCII(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
