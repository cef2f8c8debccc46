package sandbox

import (
	"context"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
)

// CallSite is where in the submitted script a tool call was made: the line
// of the script's own code that called tools.x (for TypeScript, a line of
// the TypeScript as submitted), as the engine recorded the call.
type CallSite struct {
	// Line is 1-based.
	Line int
	// Column is 1-based, in UTF-16 units as error positions count
	// (ExitError.Column); 0 when only the line is known (a call on the
	// script's first line of a script whose form the host cannot tell).
	Column int
}

// CallSiteOf returns the call site of the tool call whose Bridge received
// ctx. ok is false when the engine could not tell: a module's call, a call
// the script queued behind Limits.MaxInFlight or made under an
// Error.stackTraceLimit the host does not read frames for, a call made
// directly by a built-in (setTimeout(tools.x)) with no frame of the
// script, and a pending call retried after a resumption.
//
// The Bridge signature is unchanged: the position rides on the call's
// context (one small allocation for a call whose site is known), so that
// bridges that do not care see nothing new.
func CallSiteOf(ctx context.Context) (CallSite, bool) {
	if p, ok := ctx.Value(siteKey{}).(*CallSite); ok && p != nil {
		return *p, true
	}
	return CallSite{}, false
}

type siteKey struct{}

// siteCtx is the context a Bridge call with a known site gets: the run's,
// with the site as a value (one allocation, where context.WithValue and a
// boxed CallSite would take two).
type siteCtx struct {
	context.Context
	site CallSite
}

func (c *siteCtx) Value(key any) any {
	if _, ok := key.(siteKey); ok {
		return &c.site
	}
	return c.Context.Value(key)
}

// The prefixes the prelude puts before the script, on its first line
// (guest-sdk/js/prelude/90-run.js, SCRIPT_PREFIX and BODY_PREFIX): the
// first for a script compiled as a script, the second for one compiled as
// the body of an async function.
const (
	scriptPrefix = `"use strict";__airlock_mark();`
	bodyPrefix   = `(async () => { "use strict"; `
)

// maxCallScan bounds how far back from the engine's position callAt looks
// for the call's parenthesis, in bytes.
const maxCallScan = 4096

// callSite turns the frames the host read for a call of tool
// (scriptRun.callSites) into its position in the submitted script: the
// first frame of code whose file is the script's, placed where V8 places a
// call (callAt) and mapped as errors are (TypeScript through the source
// map). Frames of built-ins (Array.prototype.map calling a tools.x passed
// to it) and of the prelude are passed over. The zero CallSite when no
// frame is the script's or the position falls outside it (the prelude's
// wrapper).
//
// A site is worked out once per engine position and tool (siteMemo, up to
// maxSiteMemo of them): a loop calling from one line costs one scan of it.
func (r *scriptRun) callSite(tool string, sites []quickjs.Site) CallSite {
	for _, s := range sites {
		if s.Native || !s.Input {
			continue
		}
		key := siteKeyOf{line: s.Line, col: s.Col, tool: tool}
		if cs, ok := r.siteMemo[key]; ok {
			return cs
		}
		cs := r.scriptPosition(int(s.Line), int(s.Col), tool)
		if r.siteMemo == nil {
			r.siteMemo = map[siteKeyOf]CallSite{}
		}
		if len(r.siteMemo) < maxSiteMemo {
			r.siteMemo[key] = cs
		}
		return cs
	}
	return CallSite{}
}

// siteKeyOf is what a call site's position depends on.
type siteKeyOf struct {
	line, col int32
	tool      string
}

// maxSiteMemo bounds the call sites a run remembers.
const maxSiteMemo = 1024

// scriptPosition is callSite for one frame of the script's code.
func (r *scriptRun) scriptPosition(engineLine, engineCol int, tool string) CallSite {
	line, col := r.codePosition(engineLine, engineCol, tool)
	if line == 0 || r.prep.lang != LangTS {
		return CallSite{Line: line, Column: col}
	}
	l, c, ok := r.prep.mapTS(line, max(col, 1))
	if !ok {
		return CallSite{}
	}
	if col == 0 {
		c = 0
	}
	return CallSite{Line: l, Column: c}
}

// codePosition turns an engine position of a call of tool in the code the
// guest evaluated (line 1-based; column in UTF-8 bytes, from 1, except on
// the first line, which holds the prelude's prefix and counts from 0) into
// the line and UTF-16 column of the call in the code (the submitted
// JavaScript, or the JavaScript generated from TypeScript). line is 0
// outside the code; col is 0 when the line is known but the column is
// not.
//
// On the first line, which prefix the prelude used is known only for a
// script with a top-level return (prepared.body); otherwise the first
// compile's outcome decides it, which the host does not see: both are
// tried, and a column is given only when they agree on a call of tool.
func (r *scriptRun) codePosition(line, col int, tool string) (int, int) {
	starts := r.codeLines()
	if line < 1 || line > len(starts) {
		return 0, 0
	}
	start := starts[line-1]
	var off int
	switch {
	case line > 1:
		off = start + col - 1
	case r.prep.body:
		off = col - len(bodyPrefix)
	default:
		a, na := r.callAt(col-len(scriptPrefix), tool)
		b, nb := r.callAt(col-len(bodyPrefix), tool)
		switch {
		case na && nb && a != b, !na && !nb:
			return line, 0
		case nb && !na:
			a = b
		}
		return r.position(a)
	}
	if off < start || off >= len(r.prep.code) {
		return line, 0
	}
	at, _ := r.callAt(off, tool)
	return r.position(at)
}

// codeLines returns the offsets of the lines of the code, found on first
// use.
func (r *scriptRun) codeLines() []int {
	if r.lineStarts == nil {
		code := r.prep.code
		r.lineStarts = []int{0}
		for i := 0; i < len(code); i++ {
			if code[i] == '\n' {
				r.lineStarts = append(r.lineStarts, i+1)
			}
		}
	}
	return r.lineStarts
}

// position returns the 1-based line and UTF-16 column of byte offset off
// of the code.
func (r *scriptRun) position(off int) (int, int) {
	code := r.prep.code
	for off > 0 && off < len(code) && !utf8.RuneStart(code[off]) {
		off--
	}
	starts := r.codeLines()
	i, found := slices.BinarySearch(starts, off)
	if !found {
		i--
	}
	n := 0
	for _, c := range code[starts[i]:off] {
		n += utf16.RuneLen(c)
	}
	return i + 1, n + 1
}

// callAt places a call whose engine position is off where V8 places it: at
// its callee's last name (the engine records the position of the first
// token of a call's arguments, or of the callee). It tries the calls off
// may belong to, innermost first (the engine's position may be in a call
// among the arguments: tools.x(f(a))), and takes the first whose callee's
// last name is tool; named reports that it found one. Without one it takes
// the innermost call, or off itself. It scans the text as the prelude's
// callAt does (guest-sdk/js/prelude/05-errors.js): brackets in strings and
// comments are not told apart, and a site reached through an alias
// (const t = tools.x; t()) is not named.
func (r *scriptRun) callAt(off int, tool string) (at int, named bool) {
	code := r.prep.code
	if off < 0 || off >= len(code) {
		return max(min(off, len(code)), 0), false
	}
	at = -1
	// callee considers the call whose callee ends at j, before the
	// parenthesis.
	callee := func(j int) bool {
		for j >= 0 && isSpace(code[j]) {
			j--
		}
		if j < 0 {
			return false
		}
		s := j + 1
		for s > 0 && isIdentByte(code[s-1]) {
			s--
		}
		pos := s
		if s > j {
			pos = j // not a name: tools["x"](…), (f)(…)
		}
		if s <= j && code[s:j+1] == tool {
			at, named = pos, true
			return true
		}
		if at < 0 {
			at = pos
		}
		return false
	}
	if isIdentByte(code[off]) && (off == 0 || !isIdentByte(code[off-1])) {
		e := off
		for e < len(code) && isIdentByte(code[e]) {
			e++
		}
		n := e
		for n < len(code) && isSpace(code[n]) {
			n++
		}
		if (strings.HasPrefix(code[n:], "(") || strings.HasPrefix(code[n:], "?.(")) && callee(e-1) {
			return at, true
		}
	}
	if code[off] == '(' && callee(off-1) {
		return at, true
	}
	depth := 0
	for i := off - 1; i >= 0 && off-i < maxCallScan; i-- {
		switch code[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth > 0 {
				depth--
			}
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			if callee(i - 1) {
				return at, true
			}
		}
	}
	if at < 0 {
		return off, false
	}
	return at, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isIdentByte tells a byte that may be part of a name: ASCII letters,
// digits, _ and $, and every byte of a non-ASCII character.
func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}
