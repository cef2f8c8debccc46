package quickjs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/airlockrt/airlock/sandbox/internal/jsnum"
)

// A tool call's arguments as JSON, read from the guest's memory. The
// engine's JSON.stringify is most of an awaited call's cost (for every
// object: a stack array searched for cycles, an array of its keys, a
// property lookup per key, a toJSON lookup up the prototype chain, a
// quoted copy of every key, and a per-character loop of calls), so the
// host writes the JSON of a plain value itself, straight from the engine's
// objects, while the guest waits in its host call: the same offsets as
// the call sites read (callsite.go), and a few more, QuickJS-NG 0.15.1's
// on wasm32, checked on every new instance (checkJSONFields) and against
// the engine's JSON.stringify by TestAppendJSON and FuzzAppendJSON. See
// RATIONALE.md, "Why does the host write a tool call's arguments as
// JSON?".
//
// Only values whose JSON.stringify runs no JavaScript and cannot throw are
// written (AppendJSON's rules); for anything else AppendJSON declines,
// having changed nothing, and the prelude calls JSON.stringify. Every read
// is bounds-checked and every loop and the recursion bounded.
const (
	// JSRuntime
	rtAtomArray = 60 // JSAtomStruct **atom_array
	rtAtomSize  = 48 // int atom_size
	// JSContext
	ctxRT         = 16 // JSRuntime *rt
	ctxClassProto = 56 // JSValue *class_proto
	// JSObject
	objFlags      = 5 // extensible, free_mark, is_exotic, fast_array, ...
	objExotic     = 1 << 2
	objFastArray  = 1 << 3
	objArrayCount = 40 // u.array.count
	objArrayVals  = 36 // u.array.u.values
	// JSShape
	shapeProto = 44
	// Shape property flags (JSShapeProperty.flags, the top 6 bits).
	propEnumerable = 1 << 2
	propTMask      = 0x30
	propLength     = 1 << 3
	// Class ids.
	classObject = 1
	classArray  = 2
	// Tags.
	tagInt  = 0
	tagBool = 1
	tagNull = 2
	// JSString.atom_type of a string atom.
	atomTypeString = 1
	// Atoms of the engine's own (JS_ATOM_length and JS_ATOM_toJSON: their
	// places in quickjs-atom.h).
	atomLength = 51
	atomToJSON = 154

	// jsonMaxDepth bounds the nesting AppendJSON follows; deeper values
	// are left to JSON.stringify.
	jsonMaxDepth = 64
	// jsonMaxRopeDepth bounds the nesting of a rope (JSStringRope) AppendJSON
	// follows: the engine keeps its ropes within 60 (JS_STRING_ROPE_MAX_DEPTH).
	jsonMaxRopeDepth = 64
	// JSStringRope: its halves, each a string or a rope.
	ropeLeft  = 16
	ropeRight = 24
	// jsonMaxCount bounds the properties of an object, or elements of an
	// array, AppendJSON reads (besides the output's bound, max).
	jsonMaxCount = 1 << 24
	// jsonStackBase and jsonStackPerLevel are what JSON.stringify may use
	// of the guest's stack, at most, for its own frames and for each level
	// of nesting: far more than it does (some 30 bytes a level, and well
	// under 4 KiB for the call), so that AppendJSON only writes what
	// JSON.stringify could write without passing QuickJS's stack limit,
	// and a script near it still gets its RangeError (TestAppendJSONStack,
	// and TestCallValueAsStringify's cases at the limit).
	jsonStackBase     = 4 << 10
	jsonStackPerLevel = 1 << 10
)

// jsonWriter is one AppendJSON: its output, what it may still do, and the
// atoms and prototypes it compares with.
type jsonWriter struct {
	in       *Instance
	out      []byte
	max      int // bytes the output may reach
	steps    int // properties and elements it may still visit
	depth    int // levels it may still enter
	toJSON   uint32
	length   uint32
	objProto uint32 // Object.prototype
	arrProto uint32 // Array.prototype
	atoms    uint32 // rt->atom_array
	atomSize uint32
}

// AppendJSON appends to dst the UTF-8 text JSON.stringify(v) would return,
// when v is a plain value and its text has at most max bytes, and reports
// true; else it reports false and dst is unchanged (and nothing in the
// guest either). It must be called from within a host call (the guest's
// stack is where JSON.stringify would run).
//
// A plain value is null, a boolean, a number, a string (flat, or a rope
// whose halves split no surrogate pair), or an array
// or object whose elements and properties are plain values, nested at
// most jsonMaxDepth deep: an array is an Array whose prototype is
// Array.prototype, held densely (fast_array) with as many elements as its
// length; an object is an ordinary object whose prototype is
// Object.prototype or null, whose own properties are data properties with
// string keys that do not begin with a digit. No own property, and no
// property of Array.prototype or Object.prototype, may be named toJSON;
// Array.prototype's prototype must be Object.prototype, whose own is null.
// An object property holding undefined is left out, as JSON.stringify
// leaves it out.
func (in *Instance) AppendJSON(dst []byte, v uint64, max int) ([]byte, bool) {
	if in.closed || max < 0 {
		return dst, false
	}
	w := jsonWriter{in: in, out: dst, max: len(dst) + max, steps: 4096 + max,
		toJSON: atomToJSON, length: atomLength}
	if !w.setup() {
		return dst, false
	}
	if !w.value(v) || len(w.out) > w.max {
		return dst, false
	}
	return w.out, true
}

// setup finds the prototypes and the atom table, checks that neither
// prototype lends a toJSON, and how deep JSON.stringify could nest here.
func (w *jsonWriter) setup() bool {
	in, m := w.in, w.in.mem
	rt, ok1 := m.ReadUint32Le(uint32(in.ctx) + ctxRT)
	protos, ok2 := m.ReadUint32Le(uint32(in.ctx) + ctxClassProto)
	op, ok3 := m.ReadUint64Le(protos + 8*classObject)
	ap, ok4 := m.ReadUint64Le(protos + 8*classArray)
	atoms, ok5 := m.ReadUint32Le(uint32(in.rt) + rtAtomArray)
	size, ok6 := m.ReadUint32Le(uint32(in.rt) + rtAtomSize)
	limit, ok7 := m.ReadUint32Le(uint32(in.rt) + in.layout.StackSizeOffset + 8)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || !ok7 || rt != uint32(in.rt) ||
		uint32(op>>jsTagShift) != tagObjectType || uint32(ap>>jsTagShift) != tagObjectType || in.sp == nil {
		return false
	}
	w.objProto, w.arrProto, w.atoms, w.atomSize = uint32(op), uint32(ap), atoms, size

	// Object.prototype: an ordinary object with no prototype; Array.prototype
	// an Array whose prototype is Object.prototype; neither with a toJSON.
	if c, proto, ok := w.object(w.objProto); !ok || c != classObject || proto != 0 || w.hasAtom(w.objProto, w.toJSON) {
		return false
	}
	if c, proto, ok := w.object(w.arrProto); !ok || c != classArray || proto != w.objProto || w.hasAtom(w.arrProto, w.toJSON) {
		return false
	}
	// The stack: JSON.stringify would run where the host call runs.
	sp := uint32(in.sp.Get())
	floor := max(limit, uint32(in.floor.Get()))
	if sp <= floor || sp-floor < jsonStackBase+jsonStackPerLevel {
		return false
	}
	w.depth = min(jsonMaxDepth, int((sp-floor-jsonStackBase)/jsonStackPerLevel)-1)
	return w.depth >= 0
}

// checkJSONFields verifies, on a new runtime and context, what AppendJSON
// reads beyond the call sites' fields: the context's runtime, the
// prototypes of Object and Array where class_proto says, and the two atoms
// it compares with in the atom table.
func checkJSONFields(in *Instance) error {
	m := in.mem
	rt, ok1 := m.ReadUint32Le(uint32(in.ctx) + ctxRT)
	protos, ok2 := m.ReadUint32Le(uint32(in.ctx) + ctxClassProto)
	op, ok3 := m.ReadUint64Le(protos + 8*classObject)
	ap, ok4 := m.ReadUint64Le(protos + 8*classArray)
	if !ok1 || !ok2 || !ok3 || !ok4 || rt != uint32(in.rt) ||
		uint32(op>>jsTagShift) != tagObjectType || uint32(ap>>jsTagShift) != tagObjectType {
		return errors.New("quickjs: the context's prototypes are not where expected")
	}
	c1, ok1 := m.ReadUint16Le(uint32(op) + objClassID)
	c2, ok2 := m.ReadUint16Le(uint32(ap) + objClassID)
	if !ok1 || !ok2 || c1 != classObject || c2 != classArray {
		return errors.New("quickjs: the context's prototypes are not where expected")
	}
	tab, ok := m.ReadUint32Le(uint32(in.rt) + rtAtomArray)
	for a, want := range map[uint32]string{atomLength: "length", atomToJSON: "toJSON"} {
		s, ok1 := m.ReadUint32Le(tab + 4*a)
		b, ok2 := in.readString(s, 16)
		if !ok || !ok1 || !ok2 || string(b) != want {
			return fmt.Errorf("quickjs: atom %d is not %q", a, want)
		}
	}
	return nil
}

// object reads an object's class id and its prototype (0 for null); ok
// is false for an exotic object other than an Array (whose exotic
// behaviour is its length) or one the memory does not hold.
func (w *jsonWriter) object(p uint32) (class uint16, proto uint32, ok bool) {
	m := w.in.mem
	flags, ok1 := m.ReadByte(p + objFlags)
	class, ok2 := m.ReadUint16Le(p + objClassID)
	shape, ok3 := m.ReadUint32Le(p + objShape)
	if !ok1 || !ok2 || !ok3 || (flags&objExotic != 0 && class != classArray) {
		return 0, 0, false
	}
	proto, ok = m.ReadUint32Le(shape + shapeProto)
	return class, proto, ok
}

// hasAtom reports whether the object at p has an own property named atom
// (true also when its shape cannot be read).
func (w *jsonWriter) hasAtom(p, atom uint32) bool {
	m := w.in.mem
	shape, ok1 := m.ReadUint32Le(p + objShape)
	count, ok2 := m.ReadUint32Le(shape + shapePropCount)
	if !ok1 || !ok2 || count > jsonMaxCount || int(count) > w.steps {
		return true
	}
	w.steps -= int(count)
	b, ok := m.Read(shape+shapeProps, 8*count)
	if !ok {
		return true
	}
	for i := uint32(0); i < count; i++ {
		if le32(b[8*i+4:]) == atom {
			return true
		}
	}
	return false
}

// value writes the JSON of v.
func (w *jsonWriter) value(v uint64) bool {
	if len(w.out) > w.max {
		return false
	}
	switch tag := uint32(v >> jsTagShift); {
	case tag == tagInt:
		w.out = strconv.AppendInt(w.out, int64(int32(uint32(v))), 10)
	case tag == tagBool:
		if uint32(v) != 0 {
			w.out = append(w.out, "true"...)
		} else {
			w.out = append(w.out, "false"...)
		}
	case tag == tagNull:
		w.out = append(w.out, "null"...)
	case tag == tagStringType || tag == tagStringRope:
		w.out = append(w.out, '"')
		if !w.chars(v, 0) {
			return false
		}
		w.out = append(w.out, '"')
		return len(w.out) <= w.max
	case tag == tagObjectType:
		return w.obj(uint32(v))
	default:
		f, ok := DecodeNumber(v)
		if !ok {
			return false // undefined, a symbol, a BigInt, a rope, ...
		}
		w.out = appendJSNumber(w.out, f)
	}
	return true
}

// obj writes the JSON of the object at p.
func (w *jsonWriter) obj(p uint32) bool {
	if w.depth == 0 {
		return false
	}
	class, proto, ok := w.object(p)
	if !ok {
		return false
	}
	w.depth--
	defer func() { w.depth++ }()
	switch {
	case class == classArray && proto == w.arrProto:
		return w.array(p)
	case class == classObject && (proto == w.objProto || proto == 0):
		return w.plain(p)
	}
	return false
}

// array writes a dense Array, whose only own property besides its
// elements may not be toJSON.
func (w *jsonWriter) array(p uint32) bool {
	m := w.in.mem
	flags, ok1 := m.ReadByte(p + objFlags)
	count, ok2 := m.ReadUint32Le(p + objArrayCount)
	vals, ok3 := m.ReadUint32Le(p + objArrayVals)
	shape, ok4 := m.ReadUint32Le(p + objShape)
	props, ok5 := m.ReadUint32Le(p + objProp)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || flags&objFastArray == 0 || count > jsonMaxCount || int(count) > w.steps {
		return false
	}
	// length is the first property (JS_PROP_LENGTH), and must equal count:
	// a longer array has elements past count that read as undefined.
	w0, ok1 := m.ReadUint32Le(shape + shapeProps)
	a0, ok2 := m.ReadUint32Le(shape + shapeProps + 4)
	l, ok3 := m.ReadUint64Le(props)
	if !ok1 || !ok2 || !ok3 || a0 != w.length || (w0>>26)&propLength == 0 {
		return false
	}
	if n, ok := DecodeNumber(l); !ok || n != float64(count) {
		return false
	}
	if w.hasAtom(p, w.toJSON) {
		return false
	}
	w.steps -= int(count)
	b, ok := m.Read(vals, 8*count)
	if !ok {
		return false
	}
	w.out = append(w.out, '[')
	for i := uint32(0); i < count; i++ {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		e := le64(b[8*i:])
		if e == jsUndefined {
			w.out = append(w.out, "null"...)
		} else if !w.value(e) {
			return false
		}
	}
	w.out = append(w.out, ']')
	return true
}

// plain writes an ordinary object: its enumerable own properties in the
// order the shape holds them (creation order, the one Object.keys gives
// when no key is an array index).
func (w *jsonWriter) plain(p uint32) bool {
	m := w.in.mem
	shape, ok1 := m.ReadUint32Le(p + objShape)
	props, ok2 := m.ReadUint32Le(p + objProp)
	count, ok3 := m.ReadUint32Le(shape + shapePropCount)
	if !ok1 || !ok2 || !ok3 || count > jsonMaxCount || int(count) > w.steps {
		return false
	}
	w.steps -= int(count)
	sp, ok1 := m.Read(shape+shapeProps, 8*count)
	vals, ok2 := m.Read(props, 8*count)
	if !ok1 || !ok2 {
		return false
	}
	w.out = append(w.out, '{')
	first := true
	for i := uint32(0); i < count; i++ {
		flags, atom := le32(sp[8*i:])>>26, le32(sp[8*i+4:])
		switch {
		case atom == 0: // a deleted property
			continue
		case atom == w.toJSON || flags&propTMask != 0: // toJSON; a getter, setter or lazy value
			return false
		case flags&propEnumerable == 0:
			continue
		}
		v := le64(vals[8*i:])
		if v == jsUndefined {
			// Left out; but the key must still be one JSON.stringify would
			// list after no array index.
			if !w.key(atom, false) {
				return false
			}
			continue
		}
		if !first {
			w.out = append(w.out, ',')
		}
		first = false
		if !w.key(atom, true) {
			return false
		}
		w.out = append(w.out, ':')
		if !w.value(v) {
			return false
		}
	}
	w.out = append(w.out, '}')
	return true
}

// key checks the atom of a property key (a string atom not beginning with
// a digit, so no array index) and, with write, writes it quoted.
func (w *jsonWriter) key(atom uint32, write bool) bool {
	if atom&(1<<31) != 0 || atom >= w.atomSize { // an integer atom; out of the table
		return false
	}
	s, ok := w.in.mem.ReadUint32Le(w.atoms + 4*atom)
	if !ok {
		return false
	}
	k, ok := w.in.mem.ReadUint32Le(s + strKind)
	if !ok || k>>30 != atomTypeString {
		return false
	}
	chars, n, wide, ok := w.in.stringChars(s)
	if !ok {
		return false
	}
	var c0 uint32
	switch {
	case n == 0:
	case wide:
		h, ok := w.in.mem.ReadUint16Le(chars)
		if !ok {
			return false
		}
		c0 = uint32(h)
	default:
		b, ok := w.in.mem.ReadByte(chars)
		if !ok {
			return false
		}
		c0 = uint32(b)
	}
	if c0 >= '0' && c0 <= '9' {
		return false
	}
	return !write || w.quote(chars, n, wide)
}

// chars writes the characters of the string v, a flat string or a rope
// depth deep in one, escaped as JS_ToQuotedString escapes them. The halves
// of a rope are written one after the other, as the string they make: a
// surrogate pair split between them is declined (the engine's quoting of
// the whole would join it), as is a rope nested deeper than the engine
// nests them.
func (w *jsonWriter) chars(v uint64, depth int) bool {
	if uint32(v>>jsTagShift) == tagStringRope {
		if depth >= jsonMaxRopeDepth || w.steps <= 0 {
			return false
		}
		w.steps--
		l, ok1 := w.in.mem.ReadUint64Le(uint32(v) + ropeLeft)
		r, ok2 := w.in.mem.ReadUint64Le(uint32(v) + ropeRight)
		return ok1 && ok2 && w.chars(l, depth+1) && w.chars(r, depth+1)
	}
	if uint32(v>>jsTagShift) != tagStringType {
		return false
	}
	chars, n, wide, ok := w.in.stringChars(uint32(v))
	if !ok {
		return false
	}
	if depth > 0 && wide && n > 0 {
		first, ok1 := w.in.mem.ReadUint16Le(chars)
		last, ok2 := w.in.mem.ReadUint16Le(chars + 2*(n-1))
		if !ok1 || !ok2 || (first >= 0xdc00 && first < 0xe000) || (last >= 0xd800 && last < 0xdc00) {
			return false
		}
	}
	return w.escape(chars, n, wide)
}

// quote writes n characters at chars quoted as JS_ToQuotedString quotes
// them, in UTF-8.
func (w *jsonWriter) quote(chars, n uint32, wide bool) bool {
	w.out = append(w.out, '"')
	if !w.escape(chars, n, wide) {
		return false
	}
	w.out = append(w.out, '"')
	return len(w.out) <= w.max
}

// escape writes n characters at chars escaped as JS_ToQuotedString
// escapes them, in UTF-8.
func (w *jsonWriter) escape(chars, n uint32, wide bool) bool {
	// Each character is at least one byte. (The output may already be
	// past max, by an opening quote: the difference is then negative,
	// and must not be read as a huge unsigned bound.)
	if len(w.out) > w.max || uint64(n) > uint64(w.max-len(w.out)) {
		return false
	}
	if !wide {
		b, ok := w.in.mem.Read(chars, n)
		if !ok {
			return false
		}
		for len(b) > 0 {
			// The run of characters written as they are.
			i := 0
			for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' && b[i] < utf8.RuneSelf {
				i++
			}
			w.out = append(w.out, b[:i]...)
			if i == len(b) {
				break
			}
			w.out = appendQuotedRune(w.out, rune(b[i]))
			if len(w.out) > w.max { // an escape is up to six bytes
				return false
			}
			b = b[i+1:]
		}
		return len(w.out) <= w.max
	}
	b, ok := w.in.mem.Read(chars, 2*n)
	if !ok {
		return false
	}
	for i := uint32(0); i < n; i++ {
		r := rune(b[2*i]) | rune(b[2*i+1])<<8
		if r >= 0xd800 && r < 0xdc00 && i+1 < n {
			if r2 := rune(b[2*i+2]) | rune(b[2*i+3])<<8; r2 >= 0xdc00 && r2 < 0xe000 {
				r = 0x10000 + (r-0xd800)<<10 + (r2 - 0xdc00)
				i++
			}
		}
		w.out = appendQuotedRune(w.out, r)
		if len(w.out) > w.max {
			return false
		}
	}
	return true
}

// appendQuotedRune appends one code point (a lone surrogate included) as
// JS_ToQuotedString writes it, in UTF-8.
func appendQuotedRune(dst []byte, r rune) []byte {
	switch r {
	case '\t':
		return append(dst, '\\', 't')
	case '\r':
		return append(dst, '\\', 'r')
	case '\n':
		return append(dst, '\\', 'n')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '"', '\\':
		return append(dst, '\\', byte(r))
	}
	if r < 0x20 || (r >= 0xd800 && r < 0xe000) {
		const hex = "0123456789abcdef"
		return append(dst, '\\', 'u', hex[r>>12], hex[r>>8&15], hex[r>>4&15], hex[r&15])
	}
	return utf8.AppendRune(dst, r)
}

// stringChars locates the characters of the flat JSString at p: their
// address, how many there are, and whether they are 16-bit.
func (in *Instance) stringChars(p uint32) (chars, n uint32, wide, ok bool) {
	m := in.mem
	w, ok1 := m.ReadUint32Le(p + strLen)
	k, ok2 := m.ReadUint32Le(p + strKind)
	if !ok1 || !ok2 {
		return 0, 0, false, false
	}
	n, wide = w&0x7fffffff, w>>31 != 0
	chars = p + strChars
	switch (k >> 28) & 3 {
	case 0: // normal
	case 1: // slice: {parent, start in bytes}
		parent, ok1 := m.ReadUint32Le(chars)
		start, ok2 := m.ReadUint32Le(chars + 4)
		if !ok1 || !ok2 {
			return 0, 0, false, false
		}
		chars = parent + strChars + start
	case 2: // indirect
		if chars, ok = m.ReadUint32Le(chars); !ok {
			return 0, 0, false, false
		}
	default:
		return 0, 0, false, false
	}
	return chars, n, wide, true
}

// appendJSNumber appends the finite or not number f as JSON.stringify
// writes it: ECMAScript's Number::toString (the shortest digits that read
// back as f), null for NaN and the infinities, 0 for -0.
func appendJSNumber(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	return jsnum.Append(dst, f)
}

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
