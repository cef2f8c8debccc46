// Package admit checks a WebAssembly module against documented caps before
// any compiler sees it: one linear pass over its sections that allocates
// nothing in proportion to what the module declares. A module that declares
// 2^28 locals, 2^32 table entries or a million functions is refused here,
// with the cap it broke, instead of making the compiler allocate gigabytes.
//
// # Concurrency
//
// Check is a pure function, safe for concurrent use.
//
// # Errors
//
// Check returns a *Error naming the cap or the malformation.
package admit

import (
	"errors"
	"fmt"
	"math"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
)

// Caps of an admitted module. They are far above what a chain needs (the
// compiled Go guest, a 2.6 MB module, uses under a tenth of each) and far
// below what makes compilation costly.
const (
	MaxModuleBytes             = 64 << 20 // the whole binary
	MaxTypes                   = 10000    // function types
	MaxParams                  = 1000     // parameters or results of one type
	MaxImports                 = 1000     // imported functions
	MaxFunctions               = 100000   // functions, imported and defined
	MaxLocals                  = 50000    // locals of one function
	MaxTotalLocals             = 1 << 20  // locals of all functions together
	MaxBlockDepth              = 4096     // nesting of block, loop and if in one function
	MaxDepthWork               = 1 << 28  // the sum over functions of their deepest nesting, squared
	MaxBranchTargets           = 8192     // targets of one br_table
	MaxTotalBranchTargets      = 1 << 20  // targets of all br_tables together
	MaxBodyBytes               = 8 << 20  // one function body
	MaxTables                  = 4        // tables, imported and defined
	MaxTableEntries            = 1 << 20  // the declared maximum of one table
	MaxMemories                = 1        // linear memories
	MaxGlobals                 = 10000    // globals
	MaxExports                 = 10000    // exports
	MaxElementSegments         = 10000    // element segments
	MaxElementItems            = 1 << 20  // items of all element segments
	MaxDataSegments            = 100000   // data segments
	MaxNameBytes               = 1024     // an import's or export's name
	TableEntryBytes            = 8        // what one table entry is charged against the memory limit
	maxSectionID          byte = 12
)

// Imports is the set of functions a module may import: module name → names.
// A module name mapped to nil allows every name in it.
type Imports map[string]map[string]bool

func (im Imports) allows(mod, name string) bool {
	names, ok := im[mod]
	return ok && (names == nil || names[name])
}

// Info is what admission learned that the runner needs.
type Info struct {
	// Wasm is the module to compile: the one checked, or a copy whose
	// tables without a declared maximum got their minimum as maximum.
	Wasm []byte
	// TableBytes is TableEntryBytes times the declared maximum entries of
	// every table: charged against the memory limit.
	TableBytes uint64
	// Functions, Locals, CodeBytes, MaxDepth, DepthWork, BranchTargets and
	// MaxBranchTable measure the module's code.
	Functions      int
	Locals         int
	CodeBytes      int
	MaxDepth       int
	DepthWork      int
	BranchTargets  int
	MaxBranchTable int
}

// Error is a refused module.
type Error struct {
	// Cap names the cap broken ("locals", "table maximum", …) or "malformed".
	Cap string
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// ErrRefused is wrapped by every *Error.
var ErrRefused = errors.New("admit: module refused")

// Unwrap returns ErrRefused.
func (e *Error) Unwrap() error { return ErrRefused }

func over(cap string, format string, args ...any) *Error {
	return &Error{Cap: cap, Msg: fmt.Sprintf(format, args...)}
}

func malformed(format string, args ...any) *Error {
	return &Error{Cap: "malformed", Msg: "malformed module: " + fmt.Sprintf(format, args...)}
}

// reader walks the binary; every read is bounds-checked.
type reader struct {
	b   []byte
	off int
}

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, malformed("unexpected end at byte %d", r.off)
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

// u32 reads an unsigned LEB128 of at most 5 bytes.
func (r *reader) u32() (uint32, error) {
	var v uint64
	for i := 0; i < 5; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if v > math.MaxUint32 {
				return 0, malformed("integer too large at byte %d", r.off)
			}
			return uint32(v), nil
		}
	}
	return 0, malformed("integer too long at byte %d", r.off)
}

// skipLEB skips a signed or unsigned LEB128 of at most 10 bytes.
func (r *reader) skipLEB() error {
	for i := 0; i < 10; i++ {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if c&0x80 == 0 {
			return nil
		}
	}
	return malformed("integer too long at byte %d", r.off)
}

func (r *reader) bytes(n uint32) ([]byte, error) {
	if uint64(r.off)+uint64(n) > uint64(len(r.b)) {
		return nil, malformed("a length of %d runs past the end at byte %d", n, r.off)
	}
	s := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return s, nil
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	if n > MaxNameBytes {
		return "", over("name", "a name of %d bytes is longer than %d", n, MaxNameBytes)
	}
	b, err := r.bytes(n)
	return string(b), err
}

// count reads a vector length and checks it against a cap.
func (r *reader) count(what string, max int) (int, error) {
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if uint64(n) > uint64(max) {
		return 0, over(what, "%d %s is more than the %d a chain module may have", n, what, max)
	}
	return int(n), nil
}

// limits reads a table's or memory's limits: min, and max if flagged.
func (r *reader) limits() (min uint32, max uint32, hasMax bool, err error) {
	flag, err := r.byte()
	if err != nil {
		return 0, 0, false, err
	}
	if flag > 3 { // 0, 1; 2 and 3 are shared memories
		return 0, 0, false, malformed("limits flag %#x", flag)
	}
	if min, err = r.u32(); err != nil {
		return 0, 0, false, err
	}
	if flag&1 == 1 {
		if max, err = r.u32(); err != nil {
			return 0, 0, false, err
		}
		hasMax = true
	}
	return min, max, hasMax, nil
}

// Check admits wasm if it is a well-formed module within every cap and
// imports only functions named in allowed. It reads each section once and
// skips what it does not need to look inside.
func Check(wasm []byte, allowed Imports) (*Info, error) {
	if len(wasm) > MaxModuleBytes {
		return nil, over("module size", "the module is %d bytes, more than %d", len(wasm), MaxModuleBytes)
	}
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, malformed("not a WebAssembly binary")
	}
	if string(wasm[4:8]) != "\x01\x00\x00\x00" {
		return nil, malformed("WebAssembly version %x is not 1", wasm[4:8])
	}
	r := &reader{b: wasm, off: 8}
	info := &Info{}
	var (
		types, imported, defined, tables, memories int
		lastID                                     byte
		tableSection                               [2]int // the table section's content, from and to
		newTables                                  []byte // its content with every maximum declared
	)
	table := func(r *reader) error {
		if tables++; tables > MaxTables {
			return over("tables", "more than %d tables", MaxTables)
		}
		if _, err := r.byte(); err != nil { // reference type
			return err
		}
		min, max, hasMax, err := r.limits()
		if err != nil {
			return err
		}
		if !hasMax {
			// A table with no maximum could grow to 2^32 entries (32 GiB) at
			// run time: it gets its minimum as maximum, so it cannot grow.
			max = min
		}
		if max > MaxTableEntries || min > max {
			return over("table maximum", "a table of up to %d entries is more than the %d a chain module may have", max, MaxTableEntries)
		}
		info.TableBytes += uint64(max) * TableEntryBytes
		return nil
	}
	memory := func(r *reader) error {
		if memories++; memories > MaxMemories {
			return over("memories", "more than %d memory", MaxMemories)
		}
		_, _, _, err := r.limits()
		return err
	}
	for r.off < len(r.b) {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		body, err := r.bytes(size)
		if err != nil {
			return nil, err
		}
		if id > maxSectionID {
			return nil, malformed("unknown section %d", id)
		}
		if id != 0 {
			if order(id) <= order(lastID) {
				return nil, malformed("section %d out of order", id)
			}
			lastID = id
		}
		s := &reader{b: body}
		switch id {
		case 0: // custom: skipped
			continue
		case 1: // types
			n, err := s.count("types", MaxTypes)
			if err != nil {
				return nil, err
			}
			types = n
			for range n {
				if form, err := s.byte(); err != nil || form != 0x60 {
					return nil, malformed("type form %#x", form)
				}
				for range 2 { // params, results
					k, err := s.count("parameters", MaxParams)
					if err != nil {
						return nil, err
					}
					if _, err := s.bytes(uint32(k)); err != nil {
						return nil, err
					}
				}
			}
		case 2: // imports
			n, err := s.count("imports", MaxImports)
			if err != nil {
				return nil, err
			}
			for range n {
				mod, err := s.name()
				if err != nil {
					return nil, err
				}
				name, err := s.name()
				if err != nil {
					return nil, err
				}
				kind, err := s.byte()
				if err != nil {
					return nil, err
				}
				if kind != 0 {
					return nil, over("imports", "import %s.%s is not a function: a chain module may import only the functions of guest-sdk/ABI.md", mod, name)
				}
				if !allowed.allows(mod, name) {
					return nil, over("imports", "import %s.%s is not one a chain module may use (guest-sdk/ABI.md lists them)", mod, name)
				}
				if _, err := s.u32(); err != nil {
					return nil, err
				}
				imported++
			}
		case 3: // functions
			n, err := s.count("functions", MaxFunctions)
			if err != nil {
				return nil, err
			}
			defined = n
			if imported+defined > MaxFunctions {
				return nil, over("functions", "%d functions is more than the %d a chain module may have", imported+defined, MaxFunctions)
			}
			for range n {
				t, err := s.u32()
				if err != nil {
					return nil, err
				}
				if int(t) >= types {
					return nil, malformed("function type %d out of range", t)
				}
			}
		case 4: // tables
			n, err := s.count("tables", MaxTables)
			if err != nil {
				return nil, err
			}
			for range n {
				if err := table(s); err != nil {
					return nil, err
				}
			}
			if patched := capTables(body); patched != nil {
				tableSection = [2]int{r.off - len(body), r.off}
				newTables = patched
			}
		case 5: // memories
			n, err := s.count("memories", MaxMemories)
			if err != nil {
				return nil, err
			}
			for range n {
				if err := memory(s); err != nil {
					return nil, err
				}
			}
		case 6: // globals
			if _, err := s.count("globals", MaxGlobals); err != nil {
				return nil, err
			}
		case 7: // exports
			n, err := s.count("exports", MaxExports)
			if err != nil {
				return nil, err
			}
			for range n {
				if _, err := s.name(); err != nil {
					return nil, err
				}
				if _, err := s.byte(); err != nil {
					return nil, err
				}
				if _, err := s.u32(); err != nil {
					return nil, err
				}
			}
		case 9: // elements
			n, err := s.count("element segments", MaxElementSegments)
			if err != nil {
				return nil, err
			}
			items, err := elementItems(s, n)
			if err != nil {
				return nil, err
			}
			if items > MaxElementItems {
				return nil, over("element items", "%d table elements is more than the %d a chain module may have", items, MaxElementItems)
			}
		case 10: // code
			n, err := s.count("functions", MaxFunctions)
			if err != nil {
				return nil, err
			}
			if n != defined {
				return nil, malformed("%d function bodies for %d functions", n, defined)
			}
			info.Functions = imported + defined
			for i := range n {
				size, err := s.u32()
				if err != nil {
					return nil, err
				}
				if size > MaxBodyBytes {
					return nil, over("function size", "function %d is %d bytes, more than %d", imported+i, size, MaxBodyBytes)
				}
				fb, err := s.bytes(size)
				if err != nil {
					return nil, err
				}
				info.CodeBytes += int(size)
				body := &reader{b: fb}
				n, err := locals(body, imported+i)
				if err != nil {
					return nil, err
				}
				if err := code(body.b[body.off:], imported+i, info); err != nil {
					return nil, err
				}
				if info.Locals += n; info.Locals > MaxTotalLocals {
					return nil, over("locals", "the functions declare more than %d locals together", MaxTotalLocals)
				}
			}
		case 11: // data
			if _, err := s.count("data segments", MaxDataSegments); err != nil {
				return nil, err
			}
		case 12: // data count
			if _, err := s.count("data segments", MaxDataSegments); err != nil {
				return nil, err
			}
		}
	}
	if defined > 0 && info.Functions == 0 {
		return nil, malformed("%d functions without a code section", defined)
	}
	info.Wasm = wasm
	if newTables != nil {
		info.Wasm = spliceSection(wasm, tableSection[0], tableSection[1], 4, newTables)
	}
	return info, nil
}

// capTables returns the content of a table section with every table that
// has no maximum given its minimum as maximum, or nil when all have one.
// The section was checked: every read succeeds.
func capTables(body []byte) []byte {
	r := &reader{b: body}
	n, _ := r.u32()
	out := appendU32(nil, n)
	changed := false
	for range n {
		ref, _ := r.byte()
		flag, _ := r.byte()
		min, _ := r.u32()
		out = append(out, ref)
		if flag&1 == 1 {
			max, _ := r.u32()
			out = appendU32(appendU32(append(out, flag), min), max)
			continue
		}
		changed = true
		out = appendU32(appendU32(append(out, flag|1), min), min)
	}
	if !changed {
		return nil
	}
	return out
}

// spliceSection returns wasm with the content from..to of section id (its
// header just before from) replaced by content under a new header.
func spliceSection(wasm []byte, from, to int, id byte, content []byte) []byte {
	// Walk back over the header: the id byte, then a LEB128 size.
	h := from - 1
	for wasm[h-1]&0x80 != 0 { // size bytes before the last one have the high bit
		h--
	}
	h-- // the id byte
	out := make([]byte, 0, len(wasm)+10)
	out = append(out, wasm[:h]...)
	out = append(out, id)
	out = appendU32(out, uint32(len(content)))
	out = append(out, content...)
	return append(out, wasm[to:]...)
}

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// order is a section's place: the data count section (12) comes before
// the code section (10).
func order(id byte) int {
	switch id {
	case 12:
		return 95
	case 10:
		return 100
	case 11:
		return 110
	}
	return int(id) * 10
}

// locals sums a body's local declarations without allocating, overflow-safe.
func locals(r *reader, fn int) (int, error) {
	groups, err := r.u32()
	if err != nil {
		return 0, err
	}
	var total uint64
	for range groups {
		n, err := r.u32()
		if err != nil {
			return 0, err
		}
		if total += uint64(n); total > MaxLocals {
			return 0, over("locals", "function %d declares more than %d locals", fn, MaxLocals)
		}
		if _, err := r.byte(); err != nil {
			return 0, err
		}
	}
	return int(total), nil
}

// code walks a function's instructions once: the compiler's work grows with
// the square of block nesting and faster than linearly with a br_table's
// size, so both are capped, per function and for the module.
func code(b []byte, fn int, info *Info) error {
	depth, deepest := 0, 0
	for p := 0; p < len(b); {
		n, err := wasmcode.InstrLen(b[p:])
		if err != nil {
			return malformed("function %d: %v", fn, err)
		}
		switch b[p] {
		case wasmcode.OpBlock, wasmcode.OpLoop, wasmcode.OpIf:
			if depth++; depth > MaxBlockDepth {
				return over("block depth", "function %d nests blocks deeper than %d", fn, MaxBlockDepth)
			}
			deepest = max(deepest, depth)
		case wasmcode.OpEnd:
			depth--
		case opBrTable:
			targets, _, err := wasmcode.ULEB(b[p+1:])
			if err != nil {
				return malformed("function %d: %v", fn, err)
			}
			if targets > MaxBranchTargets {
				return over("branch targets", "function %d has a br_table of %d targets, more than %d", fn, targets, MaxBranchTargets)
			}
			info.MaxBranchTable = max(info.MaxBranchTable, int(targets))
			if info.BranchTargets += int(targets); info.BranchTargets > MaxTotalBranchTargets {
				return over("branch targets", "the functions' br_tables have more than %d targets together", MaxTotalBranchTargets)
			}
		}
		p += n
	}
	info.MaxDepth = max(info.MaxDepth, deepest)
	if info.DepthWork += deepest * deepest; info.DepthWork > MaxDepthWork {
		return over("block depth", "the functions nest blocks too deeply together (the sum of their depths squared passes %d at function %d)", MaxDepthWork, fn)
	}
	return nil
}

const opBrTable = 0x0e

// elementItems counts the items of n element segments, reading only their
// headers and skipping their expressions. Forms follow the spec's flags 0–7.
func elementItems(r *reader, n int) (int, error) {
	total := 0
	for range n {
		flags, err := r.u32()
		if err != nil {
			return 0, err
		}
		if flags > 7 {
			return 0, malformed("element segment flags %d", flags)
		}
		if flags&1 == 0 { // active: table index (flags 2, 6) and offset
			if flags&2 != 0 {
				if _, err := r.u32(); err != nil {
					return 0, err
				}
			}
			if err := skipConstExpr(r); err != nil {
				return 0, err
			}
		}
		if flags&3 != 0 { // elemkind or reftype
			if _, err := r.byte(); err != nil {
				return 0, err
			}
		}
		k, err := r.count("element items", MaxElementItems)
		if err != nil {
			return 0, err
		}
		if total += k; total > MaxElementItems {
			return total, nil
		}
		for range k {
			if flags&4 == 0 {
				if _, err := r.u32(); err != nil { // function index
					return 0, err
				}
			} else if err := skipConstExpr(r); err != nil {
				return 0, err
			}
		}
	}
	return total, nil
}

// skipConstExpr skips a constant expression up to its end opcode.
func skipConstExpr(r *reader) error {
	for i := 0; i < 64; i++ {
		op, err := r.byte()
		if err != nil {
			return err
		}
		switch op {
		case 0x0b: // end
			return nil
		case 0x41, 0x42, 0x23, 0xd2: // i32.const, i64.const, global.get, ref.func
			if err := r.skipLEB(); err != nil {
				return err
			}
		case 0x43: // f32.const
			if _, err := r.bytes(4); err != nil {
				return err
			}
		case 0x44: // f64.const
			if _, err := r.bytes(8); err != nil {
				return err
			}
		case 0xd0: // ref.null t
			if _, err := r.byte(); err != nil {
				return err
			}
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // extended constant arithmetic
		default:
			return malformed("opcode %#x in a constant expression", op)
		}
	}
	return malformed("constant expression too long")
}
