package sandbox

// The prelude compiles a JavaScript chain as a plain script first and, when
// that fails, as the body of an async function (guest-sdk/js/prelude/90-run.js,
// start). Most chains end in a top-level `return`, which no script can
// hold: for them the first compile always fails, and costs a fresh start
// about a tenth of its instructions (a parse up to the return, a SyntaxError
// made and dropped). topLevelReturn lets the host tell the prelude to skip
// it.

// topLevelReturn reports whether src certainly holds a `return` statement
// outside every brace, parenthesis and bracket, and so certainly fails to
// compile as a script. It scans tokens just far enough to keep strings,
// comments, template literals and regular expressions apart; where it
// cannot be sure (a `/` after `)` or `}`, an HTML-like comment, anything it
// does not follow) it answers false, and the prelude tries the script form
// first, as it always did. A true answer only ever skips a compile that
// would have failed; the body form, and every error it reports, is the same.
func topLevelReturn(src string) bool {
	const (
		prevNone  = iota // start of the source, or after a punctuator after which `/` is a regex
		prevValue        // identifier, number, string, `]`: `/` divides
		prevClose        // `)` or `}`: `/` could be either
		prevDot          // `.`: an identifier after it is a property name
	)
	prev := prevNone
	depth := 0     // braces, parentheses and brackets open
	var tmpl []int // for each template literal's `${` open, the depth outside it
	i := 0
	// template reads a template literal's text from after src[i] (its
	// opening backquote, or the `}` closing one of its `${`) to its end or
	// its next `${`; false when it does not end.
	template := func() bool {
		end, open := templateEnd(src, i+1)
		if end < 0 {
			return false
		}
		i = end
		if open {
			tmpl = append(tmpl, depth)
			depth++
			prev = prevNone
		} else {
			prev = prevValue
		}
		return true
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			i++
		case c >= 0x80 || c == '\\':
			return false // non-ASCII identifiers, escapes, Unicode spaces: not followed
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' && src[i] != '\r' {
				if src[i] >= 0x80 {
					return false // U+2028 and U+2029 end a line too
				}
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := indexFrom(src, "*/", i+2)
			if end < 0 {
				return false
			}
			i = end + 2
		case c == '/':
			switch prev {
			case prevValue:
				i++
				prev = prevNone
			case prevNone:
				end := regexEnd(src, i)
				if end < 0 {
					return false
				}
				i = end
				prev = prevValue
			default:
				return false
			}
		case c == '\'' || c == '"':
			end := stringEnd(src, i)
			if end < 0 {
				return false
			}
			i = end
			prev = prevValue
		case c == '`':
			if !template() {
				return false
			}
		case c == '}' && len(tmpl) > 0 && depth == tmpl[len(tmpl)-1]+1:
			// The end of a template literal's `${…}`: the literal goes on.
			tmpl = tmpl[:len(tmpl)-1]
			depth--
			if !template() {
				return false
			}
		case c == '{' || c == '(' || c == '[':
			depth++
			i++
			prev = prevNone
		case c == '}' || c == ')' || c == ']':
			if depth == 0 {
				return false
			}
			depth--
			i++
			prev = prevClose
			if c == ']' {
				prev = prevValue
			}
		case c == '.' && (i+1 >= len(src) || src[i+1] < '0' || src[i+1] > '9'):
			i++
			if i+1 < len(src) && src[i] == '.' && src[i+1] == '.' {
				i += 2 // spread
				prev = prevNone
			} else {
				prev = prevDot
			}
		case isIdentStart(c) || (c >= '0' && c <= '9') || c == '.':
			j := i + 1
			for j < len(src) && (isIdentPart(src[j]) || (c >= '0' && c <= '9' || c == '.') && src[j] == '.') {
				j++
			}
			if j < len(src) && (src[j] >= 0x80 || src[j] == '\\') {
				return false
			}
			word := src[i:j]
			switch {
			case prev == prevDot || !isIdentStart(c):
				prev = prevValue
			case word == "return" && depth == 0:
				return true
			case word == "await" || word == "yield" || word == "of":
				prev = prevClose // also identifiers, after which `/` divides
			case regexAfterWord(word):
				prev = prevNone
			default:
				prev = prevValue
			}
			i = j
		case c == '<' && i+3 < len(src) && src[i+1] == '!' && src[i+2] == '-' && src[i+3] == '-',
			c == '-' && i+2 < len(src) && src[i+1] == '-' && src[i+2] == '>':
			return false // HTML-like comments (a script's, not a module's)
		case c == '#':
			if i == 0 {
				return false // a hashbang
			}
			i++ // a private name follows
			prev = prevDot
		case c == '?' && i+1 < len(src) && src[i+1] == '.' && (i+2 >= len(src) || src[i+2] < '0' || src[i+2] > '9'):
			i += 2
			prev = prevDot
		case c == '+' && i+1 < len(src) && src[i+1] == '+', c == '-' && i+1 < len(src) && src[i+1] == '-':
			i += 2
			prev = prevClose // `x++ / y` against `++/re/.lastIndex`
		default:
			// Any other punctuator: `/` after it starts a regex.
			i++
			prev = prevNone
		}
	}
	return false
}

// regexAfterWord reports whether word is a keyword after which `/` starts a
// regular expression (and which is not a value itself).
func regexAfterWord(word string) bool {
	switch word {
	case "return", "typeof", "instanceof", "in", "new", "delete", "void", "throw",
		"case", "do", "else", "extends":
		return true
	}
	return false
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// stringEnd returns the index after the string literal starting at
// src[i], or -1.
func stringEnd(src string, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case q:
			return j + 1
		case '\\':
			j++
		case '\n', '\r':
			return -1
		}
	}
	return -1
}

// templateEnd scans a template literal's text from src[i] and returns the
// index after its closing backtick (open false) or after a `${` (open
// true), or -1.
func templateEnd(src string, i int) (end int, open bool) {
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '`':
			return j + 1, false
		case '\\':
			j++
		case '$':
			if j+1 < len(src) && src[j+1] == '{' {
				return j + 2, true
			}
		}
	}
	return -1, false
}

// regexEnd returns the index after the regular expression literal starting
// at src[i] (its flags included), or -1.
func regexEnd(src string, i int) int {
	class := false
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case c == '\\':
			j++
		case c == '\n' || c == '\r' || c >= 0x80:
			return -1
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			j++
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			return j
		}
	}
	return -1
}
