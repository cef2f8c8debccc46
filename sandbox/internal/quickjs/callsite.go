package quickjs

import (
	"context"
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// Call sites read from the guest's stack. A tool call needs the place the
// script made it only if it fails; capturing it with the engine
// (Error.captureStackTrace and call-site objects) costs a seventh of the
// call. The host reads it instead, while the guest waits in its host call:
// QuickJS's chain of stack frames, each frame's function and the position
// of the call it is making, decoded as the engine's own backtrace decodes
// it (build_backtrace, find_line_num and get_func_name in quickjs.c; see
// RATIONALE.md, "Why does the host read a tool call's site from the
// engine's stack frames?"). The
// offsets below are QuickJS-NG 0.15.1's on wasm32 (NaN-boxed JSValues);
// TestCallSites checks them against the engine's own call sites.
//
// The guest's memory is the guest's: every read is bounds-checked, every
// loop bounded, and anything unexpected makes CallSites report false, so
// that the caller lets the engine capture the site instead.
const (
	// JSStackFrame
	sfPrev    = 0
	sfCurFunc = 8
	sfCurPC   = 28
	// JSObject
	objClassID = 6
	objShape   = 16
	objProp    = 20
	objFuncB   = 32 // u.func.function_bytecode (the union is 8-aligned)
	// JSShape
	shapePropCount = 32
	shapeProps     = 48 // JSShapeProperty[]: {hash_next:26, flags:6; atom}
	// JSFunctionBytecode
	bcFlags     = 17 // the second byte of its bit-fields
	bcBarrier   = 1 << 3
	bcCode      = 20 // byte_code_buf
	bcFilename  = 64
	bcLineNum   = 68
	bcColNum    = 72
	bcPC2LineN  = 80
	bcPC2LineBf = 84
	// JSString
	strLen   = 4 // len:31, is_wide_char:1
	strKind  = 8 // hash:28, kind:2, atom_type:2
	strChars = 20
	// Class ids.
	classCFunction    = 12
	classBytecodeFunc = 13
	classGeneratorFn  = 17
	classAsyncFn      = 55
	classAsyncGenFn   = 59
	// Tags (the high word of a JSValue).
	tagStringType = 0xfffffff9 // JS_TAG_STRING (-7)

	// Bounds on what CallSites reads.
	maxStubDepth   = 8       // frames above the stub's
	maxShapeProps  = 256     // properties of a function object scanned for "name"
	maxNameBytes   = 1024    // a function name, in characters
	maxPC2LineSize = 1 << 24 // a function's line table
)

// Site is one frame of a call site, as the engine's call-site objects
// describe it.
type Site struct {
	// Native is set for a frame of a C function (no file, line or column).
	Native bool `json:"native,omitempty"`
	// Input is set for a frame of code whose file is "<input>" (the
	// script, and code it evaluates).
	Input bool `json:"input,omitempty"`
	// Name is the function's name, as getFunctionName() gives it; HasName
	// is false where that is null.
	Name    string `json:"name,omitempty"`
	HasName bool   `json:"has_name,omitempty"`
	// Line and Col are 1-based, as getLineNumber() and getColumnNumber().
	Line int32 `json:"line"`
	Col  int32 `json:"col"`
}

// Atom returns the atom of s, which the instance keeps (a Snapshot
// restores it).
func (in *Instance) Atom(ctx context.Context, s string) (uint32, error) {
	if a, ok := in.atoms[s]; ok {
		return a, nil
	}
	p, err := in.cString(ctx, s)
	if err != nil {
		return 0, err
	}
	a, err := in.call(ctx, fnNewAtomLen, in.ctx, p, uint64(len(s)))
	if err != nil {
		return 0, err
	}
	if err := in.freePtr(ctx, p); err != nil {
		return 0, err
	}
	if a == 0 {
		return 0, fmt.Errorf("%w: no atom for %q", errOutOfMemory, s)
	}
	in.ownMaps()
	if in.atoms == nil {
		in.atoms = map[string]uint32{}
	}
	in.atoms[s] = uint32(a)
	return uint32(a), nil
}

// CallSites reads, from within a host call, the call site a guest function
// stub was called from: the first n frames below stub's (found within
// maxStubDepth frames of the top), stopping after a backtrace barrier, as
// Error.captureStackTrace(o, stub) would give them. input and name are the
// atoms of "<input>" and "name". It reports false when the stack is not
// as expected.
func (in *Instance) CallSites(stub uint64, n int, input, name uint32, dst []Site) ([]Site, bool) {
	if in.closed {
		return dst, false
	}
	m := in.mem
	// rt->current_stack_frame follows stack_size, stack_top, stack_limit,
	// the 8-aligned current_exception and three bools.
	off := (in.layout.StackSizeOffset+12+7)&^7 + 12
	sf, ok := m.ReadUint32Le(uint32(in.rt) + off)
	if !ok {
		return dst, false
	}
	// The top frame is the host function's own.
	top, ok := m.ReadUint64Le(sf + sfCurFunc)
	if !ok || uint32(top>>jsTagShift) != tagObjectType {
		return dst, false
	}
	if c, ok := m.ReadUint16Le(uint32(top) + objClassID); !ok || c != classCFunction {
		return dst, false
	}
	found := false
	for range maxStubDepth {
		f, ok1 := m.ReadUint64Le(sf + sfCurFunc)
		prev, ok2 := m.ReadUint32Le(sf + sfPrev)
		if !ok1 || !ok2 {
			return dst, false
		}
		sf = prev
		if f == stub {
			found = true
			break
		}
		if sf == 0 {
			break
		}
	}
	if !found {
		return dst, false
	}
	for ; sf != 0 && n > 0; n-- {
		s, barrier, ok := in.site(sf, input, name)
		if !ok {
			return dst, false
		}
		dst = append(dst, s)
		if barrier {
			break
		}
		if sf, ok = m.ReadUint32Le(sf + sfPrev); !ok {
			return dst, false
		}
	}
	return dst, true
}

// site describes the frame at sf, as js_new_callsite_data does.
func (in *Instance) site(sf uint32, input, name uint32) (s Site, barrier, ok bool) {
	m := in.mem
	f, ok := m.ReadUint64Le(sf + sfCurFunc)
	if !ok || uint32(f>>jsTagShift) != tagObjectType {
		return s, false, false
	}
	obj := uint32(f)
	class, ok := m.ReadUint16Le(obj + objClassID)
	if !ok {
		return s, false, false
	}
	if s.Name, s.HasName, ok = in.funcName(obj, name); !ok {
		return s, false, false
	}
	switch class {
	case classBytecodeFunc, classGeneratorFn, classAsyncFn, classAsyncGenFn:
	default:
		s.Native, s.Line, s.Col = true, -1, -1
		return s, false, true
	}
	b, ok1 := m.ReadUint32Le(obj + objFuncB)
	flags, ok2 := m.ReadByte(b + bcFlags)
	code, ok3 := m.ReadUint32Le(b + bcCode)
	file, ok4 := m.ReadUint32Le(b + bcFilename)
	pc, ok5 := m.ReadUint32Le(sf + sfCurPC)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return s, false, false
	}
	s.Input = file == input
	if s.Line, s.Col, ok = in.lineCol(b, pc-code-1); !ok {
		return s, false, false
	}
	return s, flags&bcBarrier != 0, true
}

// funcName reads the function object's own "name" property when it is a
// plain data property holding a string, as get_func_name does.
func (in *Instance) funcName(obj, name uint32) (string, bool, bool) {
	m := in.mem
	shape, ok1 := m.ReadUint32Le(obj + objShape)
	props, ok2 := m.ReadUint32Le(obj + objProp)
	count, ok3 := m.ReadUint32Le(shape + shapePropCount)
	if !ok1 || !ok2 || !ok3 || count > maxShapeProps {
		return "", false, false
	}
	for i := range count {
		w, ok1 := m.ReadUint32Le(shape + shapeProps + 8*i)
		atom, ok2 := m.ReadUint32Le(shape + shapeProps + 8*i + 4)
		if !ok1 || !ok2 {
			return "", false, false
		}
		if atom != name {
			continue
		}
		if (w>>26)&0x30 != 0 { // JS_PROP_TMASK: not JS_PROP_NORMAL
			return "", false, true
		}
		v, ok := m.ReadUint64Le(props + 8*i)
		if !ok {
			return "", false, false
		}
		if uint32(v>>jsTagShift) != tagStringType {
			return "", false, true
		}
		b, ok := in.readString(uint32(v), maxNameBytes)
		return string(b), ok && len(b) > 0, ok
	}
	return "", false, true
}

// ReadString returns the UTF-8 bytes of the JSValue string v, read
// straight from the guest's memory (no guest call), when it holds at most
// max characters and is laid out flat (not a rope; strings under 512
// characters built by concatenation are). It reports false otherwise, and
// for a string with a lone surrogate: ToString converts those.
func (in *Instance) ReadString(v uint64, max int) ([]byte, bool) {
	if in.closed || uint32(v>>jsTagShift) != tagStringType || max < 0 {
		return nil, false
	}
	return in.readString(uint32(v), uint32(min(max, math.MaxInt32)))
}

// readString reads the JSString at p, of at most max characters, as
// UTF-8, as JS_ToCString converts it.
func (in *Instance) readString(p, max uint32) ([]byte, bool) {
	m := in.mem
	w, ok1 := m.ReadUint32Le(p + strLen)
	k, ok2 := m.ReadUint32Le(p + strKind)
	if !ok1 || !ok2 {
		return nil, false
	}
	n, wide := w&0x7fffffff, w>>31 != 0
	if n > max {
		return nil, false
	}
	chars := p + strChars
	switch (k >> 28) & 3 {
	case 0: // normal
	case 1: // slice: {parent, start in bytes}
		parent, ok1 := m.ReadUint32Le(chars)
		start, ok2 := m.ReadUint32Le(chars + 4)
		if !ok1 || !ok2 {
			return nil, false
		}
		chars = parent + strChars + start
	case 2: // indirect
		var ok bool
		if chars, ok = m.ReadUint32Le(chars); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	if !wide {
		b, ok := m.Read(chars, n)
		if !ok {
			return nil, false
		}
		ascii := true
		for _, c := range b {
			ascii = ascii && c < utf8.RuneSelf
		}
		if ascii {
			return append([]byte(nil), b...), true
		}
		out := make([]byte, 0, 2*n)
		for _, c := range b {
			out = utf8.AppendRune(out, rune(c))
		}
		return out, true
	}
	b, ok := m.Read(chars, 2*n)
	if !ok {
		return nil, false
	}
	out := make([]byte, 0, 3*n)
	for i := uint32(0); i < n; i++ {
		r := rune(b[2*i]) | rune(b[2*i+1])<<8
		if utf16.IsSurrogate(r) {
			// A lone surrogate, which the engine writes as WTF-8, is left
			// to it.
			if r >= 0xdc00 || i+1 >= n {
				return nil, false
			}
			r2 := rune(b[2*i+2]) | rune(b[2*i+3])<<8
			if r2 < 0xdc00 || r2 > 0xdfff {
				return nil, false
			}
			r = utf16.DecodeRune(r, r2)
			i++
		}
		out = utf8.AppendRune(out, r)
	}
	return out, true
}

// lineCol decodes the line table of the function bytecode b for pc, as
// find_line_num does.
func (in *Instance) lineCol(b, pc uint32) (line, col int32, ok bool) {
	m := in.mem
	l, ok1 := m.ReadUint32Le(b + bcLineNum)
	c, ok2 := m.ReadUint32Le(b + bcColNum)
	n, ok3 := m.ReadUint32Le(b + bcPC2LineN)
	p, ok4 := m.ReadUint32Le(b + bcPC2LineBf)
	if !ok1 || !ok2 || !ok3 || !ok4 || int32(n) < 0 || n > maxPC2LineSize {
		return 0, 0, false
	}
	line, col = int32(l), int32(c)
	if p == 0 {
		return line, 1, true
	}
	buf, ok := m.Read(p, n)
	if !ok {
		return 0, 0, false
	}
	var at uint32
	for i := 0; i < len(buf); {
		op := buf[i]
		i++
		var newLine int32
		if op == 0 {
			v, k := uleb(buf[i:])
			if k < 0 {
				return int32(l), 1, true
			}
			at += v
			i += k
			d, k := sleb(buf[i:])
			if k < 0 {
				return int32(l), 1, true
			}
			i += k
			newLine = line + d
		} else {
			op -= 1 // PC2LINE_OP_FIRST
			at += uint32(op / 5)
			newLine = line + int32(op%5) - 1 // PC2LINE_RANGE, PC2LINE_BASE
		}
		d, k := sleb(buf[i:])
		if k < 0 {
			return int32(l), 1, true
		}
		i += k
		newCol := col + d
		if pc < at {
			break
		}
		line, col = newLine, newCol
	}
	return line, col, true
}

// uleb decodes get_leb128's unsigned LEB128 (at most 5 bytes); it returns
// the bytes read, or -1.
func uleb(b []byte) (uint32, int) {
	var v uint32
	for i := 0; i < 5 && i < len(b); i++ {
		v |= uint32(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, -1
}

func sleb(b []byte) (int32, int) {
	v, n := uleb(b)
	if n < 0 {
		return 0, -1
	}
	return int32(v>>1) ^ -int32(v&1), n
}
