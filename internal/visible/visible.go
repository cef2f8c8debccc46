// Package visible renders text for a person who decides on it (an
// approval prompt, a preview of a call's arguments) so that what they read
// is what the text holds: nothing in it is invisible, reorders what
// follows, or is left out without saying so.
//
//	text := visible.String(`{"to":"ops‮gnp.exe"}`)   // {"to":"ops\u202egnp.exe"}
//	text, omitted := visible.Bounded(args, 4096)      // the start, and how many bytes are not shown
//
// A character is shown as an escape, \uXXXX (\UXXXXXXXX above U+FFFF, \xXX
// for a byte that is not UTF-8), when it is a control character (C0, DEL,
// C1: no exception, tab and newline included), a format character
// (category Cf: bidirectional embeddings, overrides and isolates U+202A–
// U+202E and U+2066–U+2069, the marks U+200E, U+200F and U+061C, the zero
// widths U+200B–U+200D, U+2060 and U+FEFF, soft hyphen, tag characters…),
// a space other than U+0020, a line or paragraph separator, a private-use
// or unassigned code point, a variation selector or another
// default-ignorable code point, a blank that is a letter or symbol (the
// Hangul fillers, the blank braille pattern), U+FFFD itself, the fifth and
// later combining marks on one character (stacked marks draw over their
// neighbours), and the brackets ⟨ ⟩ the renderer uses for its own notes.
// A run of 8 or more spaces is shown as ⟨N spaces⟩, and a run of 8 or more
// of one escaped character as ⟨N × \uXXXX⟩, so that padding cannot push
// the rest of the text out of sight. Everything else, non-ASCII letters
// included, is shown as it is. A backslash is kept: in JSON text it
// already starts an escape, and \uXXXX then means the same character
// either way.
//
// # Concurrency
//
// The functions are pure and safe for concurrent use.
//
// # Errors
//
// None: every input renders.
package visible

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinRun is the shortest run of spaces, or of one escaped character, that
// is counted instead of shown one by one.
const MinRun = 8

// maxMarks is how many combining marks in a row are shown as they are.
const maxMarks = 4

// String renders s whole.
func String(s string) string {
	text, _ := Bounded(s, -1)
	return text
}

// Bounded renders s in at most max bytes (no bound when max < 0): the
// longest start of s whose rendering fits, never cutting a character or an
// escape, and the number of bytes of s left out (0 when all of s is
// shown). The caller says what was left out and where to read it all.
func Bounded(s string, max int) (text string, omitted int) {
	var b strings.Builder
	marks := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		invalid := r == utf8.RuneError && size == 1
		n := 1 // the run of this same character (or byte)
		for i+(n+1)*size <= len(s) && s[i+n*size:i+(n+1)*size] == s[i:i+size] {
			n++
		}
		isMark := !invalid && unicode.In(r, unicode.Mn, unicode.Me)
		if !isMark {
			marks = 0
		}
		var tok string
		used := size
		switch {
		case r == ' ' && n >= MinRun:
			tok, used = "⟨"+strconv.Itoa(n)+" spaces⟩", n*size
		case invalid:
			tok = fmt.Sprintf(`\x%02x`, s[i])
			if n >= MinRun {
				tok, used = "⟨"+strconv.Itoa(n)+" × "+tok+"⟩", n*size
			}
		case hidden(r) || (isMark && marks >= maxMarks):
			tok = escape(r)
			if n >= MinRun {
				tok, used = "⟨"+strconv.Itoa(n)+" × "+tok+"⟩", n*size
			}
		default:
			tok = s[i : i+size]
		}
		if isMark {
			marks++
		}
		if max >= 0 && b.Len()+len(tok) > max {
			return b.String(), len(s) - i
		}
		b.WriteString(tok)
		i += used
	}
	return b.String(), 0
}

// hidden reports whether r is shown as an escape.
func hidden(r rune) bool {
	switch r {
	case ' ':
		return false
	case utf8.RuneError, '⟨', '⟩', 0x115f, 0x1160, 0x2800, 0x3164, 0xffa0:
		return true
	}
	return !unicode.IsPrint(r) || // controls, formats, other spaces, separators, private use, unassigned
		unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

func escape(r rune) string {
	if r > 0xffff {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
