package nesting

// Config configures Scan.
type Config struct {
	// MaxDepth is the deepest nesting accepted; it must be positive.
	MaxDepth int
	// TS scans TypeScript: type operators (keyof, readonly, unique, infer)
	// and type arguments (`<`) count as levels, and Report.Work is computed.
	TS bool
	// MaxWork, when positive (TS only), stops the scan at the first
	// identifier that takes Report.Work past it.
	MaxWork uint64
	// MaxDepthWork, when positive, stops the scan at the first token that
	// takes Report.DepthWork past it.
	MaxDepthWork uint64
}

// Limit says which limit a scan stopped at.
type Limit int

// Limits of Config.
const (
	None      Limit = iota
	Depth           // Config.MaxDepth
	DepthWork       // Config.MaxDepthWork
	Work            // Config.MaxWork
)

// Report is what Scan found.
type Report struct {
	// Depth is the deepest nesting seen (up to the first violation).
	Depth int
	// Offset is the byte offset of the first token past Config.MaxDepth (or
	// of the identifier that crossed Config.MaxWork), or -1.
	Offset int
	// Token is the token at Offset, e.g. "(", "!", "=>", "if"; at most 16 bytes.
	Token string
	// Limit is the limit crossed at Offset, None if none.
	Limit Limit
	// DepthWork is the sum over tokens of their depth: esbuild spends time
	// quadratic in the depth on some shapes (destructuring patterns,
	// TypeScript types, arrows), so the sum bounds its time on many
	// moderately deep groups.
	DepthWork uint64
	// Work estimates, in units of one scope visited by esbuild's renamer,
	// what esbuild's number renamer does for this source (TS only): each
	// identifier costs its depth, times one plus the number of enclosing
	// declarations it may shadow and the numbered names it may collide
	// with. It over-estimates; 0 when Config.TS is false.
	Work uint64
}

// Over reports whether the scan stopped at a violation.
func (r Report) Over() bool { return r.Offset >= 0 }

// previous significant token, as far as the next one cares.
const (
	pStart   = iota // start of a statement: `/` starts a regex, `{` a block
	pOperand        // an operand is expected: `/` starts a regex, `{` an object
	pEnd            // an operand ended: `/` divides, `(` calls
	pDot            // after `.` or `?.`: a property name follows
)

// brace kinds
const (
	bObject = iota // object literal, class or function body in an expression
	bBlock         // block statement: its end ends the statement
	bDecl          // body of a function or class declaration: same
)

type level struct {
	kind    byte // 0 root, '(', '[', '{', '`' (a template's ${)
	brace   byte // for '{'
	head    bool // '(' of if/while/for/with/switch/catch
	forHead bool
	async   bool // await is an operator here
	gen     bool // yield is an operator here
	// exprAsync overrides async inside a braceless arrow body: -1 none.
	exprAsync int8
	ended     bool // a statement ended; counters reset unless else/catch/finally follows
	base      int  // depth of the level itself
	// counters of the constructs open at this level (see the package doc)
	stmt, expr, unary, chain, angle int
	bloom                           [4]uint64 // TS work estimate: names seen at this level
}

func (l *level) depth() int { return l.base + l.stmt + l.expr + l.unary + l.chain + l.angle }

func (l *level) resetStmt() {
	l.stmt, l.expr, l.unary, l.chain, l.angle, l.exprAsync, l.ended = 0, 0, 0, 0, 0, -1, false
}

type workState struct {
	open [256]uint32  // per bloom bit: open levels whose bloom has it
	v    [4096]uint32 // per base-name bucket: numbered names seen
	p    [4096]uint64 // per name bucket: weight of names seen
}

type scanner struct {
	src   string
	cfg   Config
	i     int
	stack []level
	prev  int
	// prevKw is the previous token if it was a keyword (or a ')' or '=>')
	// that matters; lastKw is prevKw as the current token found it.
	prevKw, lastKw string
	nl             bool // a line break since the previous significant token
	afterRB        bool // the previous token was a '}' (ASI applies without a line break)
	labelOK        bool // the previous token was an identifier at a statement start
	pendFn         bool // `function` seen: the next body brace is a function's
	pendDecl       bool // ... of a declaration
	pendAs         bool // `async` seen
	pendGen        bool // `function*` seen
	rep            Report
	work           *workState
}

// Scan measures src. It stops at the first violation of cfg.
func Scan(src string, cfg Config) Report {
	if cfg.MaxDepth < 1 {
		cfg.MaxDepth = 1
	}
	// The stack grows as brackets open (push checks the cap first): most
	// scripts nest a few levels, and a scan per run must not allocate for
	// the deepest.
	s := &scanner{src: src, cfg: cfg, stack: make([]level, 1, min(cfg.MaxDepth+1, 32))}
	s.stack[0] = level{async: true, exprAsync: -1}
	s.rep.Offset = -1
	if cfg.TS {
		s.work = new(workState)
	}
	s.run()
	return s.rep
}

func (s *scanner) top() *level { return &s.stack[len(s.stack)-1] }

// over records a violation at off; it returns true so callers can stop.
func (s *scanner) over(lim Limit, off, end int) bool {
	if s.rep.Offset < 0 {
		s.rep.Limit = lim
		s.rep.Offset = off
		end = min(end, off+16, len(s.src))
		s.rep.Token = s.src[off:end]
	}
	return true
}

// inc adds one to *c (a counter of the top level) and checks the depth.
func (s *scanner) inc(c *int, off, end int) bool {
	*c++
	return s.check(s.top().depth(), off, end)
}

func (s *scanner) check(d, off, end int) bool {
	if d > s.rep.Depth {
		s.rep.Depth = d
	}
	if d > s.cfg.MaxDepth {
		return s.over(Depth, off, end)
	}
	return false
}

// push opens a bracket level; it returns true past the cap.
func (s *scanner) push(kind byte, off int) bool {
	t := s.top()
	d := t.depth() + 1
	if s.check(d, off, off+1) {
		return true
	}
	s.stack = append(s.stack, level{kind: kind, base: d, async: t.async, gen: t.gen, exprAsync: -1})
	if t.exprAsync >= 0 {
		s.top().async = t.exprAsync == 1
	}
	return false
}

func (s *scanner) pop() level {
	l := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	if s.work != nil {
		for w, bits := range l.bloom {
			for bits != 0 {
				b := trailingZeros(bits)
				bits &= bits - 1
				s.work.open[w*64+b]--
			}
		}
	}
	return l
}

func trailingZeros(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

// boundary handles a token that can start a statement arriving after an
// operand: with a line break in between (or after a '}'), the statement ended.
func (s *scanner) boundary(word string) {
	t := s.top()
	if s.prev == pEnd && (s.nl || s.afterRB) {
		switch word {
		case "else", "catch", "finally":
			return
		}
		t.resetStmt()
		s.prev = pStart
	}
}

// settle applies a pending statement end before the next token.
func (s *scanner) settle(word string) {
	t := s.top()
	if !t.ended {
		return
	}
	t.ended = false
	switch word {
	case "else", "catch", "finally":
		return
	}
	t.resetStmt()
}

// binary handles a binary operator after an operand: prefix operators and
// chains before it are complete.
func (s *scanner) binary() {
	t := s.top()
	t.unary, t.chain = 0, 0
	s.prev = pOperand
}

func isIDStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '\\' || c >= 0x80
}

func isIDPart(c byte) bool { return isIDStart(c) || c >= '0' && c <= '9' }

// lineSep reports whether src[i:] starts with U+2028 or U+2029.
func lineSep(src string, i int) bool {
	return i+2 < len(src) && src[i] == 0xE2 && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9)
}

// skipSpace skips whitespace and comments from i and returns the new
// offset and whether a line break was crossed.
func skipSpace(src string, i int) (int, bool) {
	nl := false
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n' || c == '\r':
			nl = true
			i++
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			i++
		case lineSep(src, i):
			nl = true
			i += 3
		case c == 0xC2 && i+1 < len(src) && src[i+1] == 0xA0, // NBSP
			c == 0xEF && i+2 < len(src) && src[i+1] == 0xBB && src[i+2] == 0xBF: // BOM
			if c == 0xC2 {
				i += 2
			} else {
				i += 3
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' && src[i] != '\r' && !lineSep(src, i) {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i < len(src) && !(src[i] == '*' && i+1 < len(src) && src[i+1] == '/') {
				if src[i] == '\n' || src[i] == '\r' || lineSep(src, i) {
					nl = true
				}
				i++
			}
			i = min(i+2, len(src))
		default:
			return i, nl
		}
	}
	return i, nl
}

func (s *scanner) run() {
	src := s.src
	if len(src) >= 2 && src[0] == '#' && src[1] == '!' {
		for s.i < len(src) && src[s.i] != '\n' {
			s.i++
		}
	}
	s.prev = pStart
	for {
		var nl bool
		s.i, nl = skipSpace(src, s.i)
		s.nl = s.nl || nl
		if s.i >= len(src) || s.rep.Offset >= 0 {
			return
		}
		start := s.i
		c := src[start]
		afterRB := false
		s.lastKw, s.prevKw = s.prevKw, ""
		var stop bool
		switch {
		case isIDStart(c) && !(c == '\\' && (start+1 >= len(src) || src[start+1] != 'u')):
			stop = s.word()
		case c >= '0' && c <= '9' || c == '.' && start+1 < len(src) && src[start+1] >= '0' && src[start+1] <= '9':
			s.operandStart("")
			s.i++
			for s.i < len(src) {
				d := src[s.i]
				if isIDPart(d) || d == '.' {
					s.i++
				} else if (d == '+' || d == '-') && (src[s.i-1] == 'e' || src[s.i-1] == 'E') && !(src[start] == '0' && start+1 < len(src) && (src[start+1]|0x20) == 'x') {
					s.i++
				} else {
					break
				}
			}
			s.prev = pEnd
		case c == '\'' || c == '"':
			s.operandStart("")
			s.i++
			for s.i < len(src) && src[s.i] != c && src[s.i] != '\n' && src[s.i] != '\r' {
				if src[s.i] == '\\' {
					s.i++
					if s.i+1 < len(src) && src[s.i] == '\r' && src[s.i+1] == '\n' {
						s.i++
					}
				}
				s.i++
			}
			s.i = min(s.i+1, len(src))
			s.prev = pEnd
		case c == '`':
			if s.prev == pEnd || s.prev == pDot { // a tagged template, even after a line break
				s.settle("")
				if s.inc(&s.top().chain, start, start+1) {
					return
				}
			} else {
				s.operandStart("")
			}
			s.i++
			stop = s.template()
		case c == '/' && s.prev != pEnd && s.prev != pDot:
			s.operandStart("")
			stop = s.regex()
			s.prev = pEnd
		default:
			afterRB, stop = s.punct()
		}
		if stop || s.rep.Offset >= 0 {
			return
		}
		s.rep.DepthWork += uint64(s.top().depth())
		if s.cfg.MaxDepthWork > 0 && s.rep.DepthWork > s.cfg.MaxDepthWork {
			s.over(DepthWork, start, s.i)
			return
		}
		s.afterRB = afterRB
		s.nl = false
		if s.i == start { // cannot happen; guarantees progress
			s.i++
		}
	}
}

// operandStart prepares for a token that starts an operand (or a statement).
func (s *scanner) operandStart(word string) {
	s.boundary(word)
	s.settle(word)
	s.labelOK = false
}

// template scans a template literal's text from s.i (just after "`" or a
// substitution's "}"), up to its end or its next "${".
func (s *scanner) template() bool {
	src := s.src
	for s.i < len(src) {
		switch src[s.i] {
		case '\\':
			s.i += 2
			continue
		case '`':
			s.i++
			s.prev = pEnd
			return false
		case '$':
			if s.i+1 < len(src) && src[s.i+1] == '{' {
				if s.push('`', s.i) {
					return true
				}
				s.i += 2
				s.prev = pOperand
				return false
			}
		}
		s.i++
	}
	s.i = len(src)
	s.prev = pEnd
	return false
}

// regex scans a regular expression literal from its '/': QuickJS's regex
// compiler recurses on groups, so they count too.
func (s *scanner) regex() bool {
	src := s.src
	base := s.top().depth()
	groups := 0
	inClass := false
	s.i++
	for s.i < len(src) {
		c := src[s.i]
		if c == '\n' || c == '\r' || lineSep(src, s.i) {
			return false
		}
		switch {
		case c == '\\':
			s.i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			groups++
			if s.check(base+groups, s.i, s.i+1) {
				return true
			}
		case c == ')':
			groups = max(groups-1, 0)
		case c == '/':
			s.i++
			for s.i < len(src) && isIDPart(src[s.i]) {
				s.i++
			}
			return false
		}
		s.i++
	}
	return false
}

// word scans an identifier or keyword.
func (s *scanner) word() bool {
	src := s.src
	start := s.i
	for s.i < len(src) && isIDPart(src[s.i]) && !lineSep(src, s.i) {
		if src[s.i] == '\\' { // \uXXXX or \u{…}
			s.i += 2
			if s.i < len(src) && src[s.i] == '{' {
				for s.i < len(src) && src[s.i] != '}' {
					s.i++
				}
			}
		}
		s.i++
	}
	s.i = min(s.i, len(src))
	w := src[start:s.i]
	if s.prev == pDot {
		s.prev = pEnd
		s.labelOK = false
		return s.name(w, start)
	}
	t := s.top()
	// Binary keywords continue an expression.
	if s.prev == pEnd {
		switch w {
		case "in", "instanceof":
			s.settle(w)
			s.binary()
			return false
		case "of":
			if t.forHead {
				s.binary()
				return false
			}
		case "as", "satisfies":
			if s.cfg.TS && !s.nl {
				s.binary()
				return false
			}
		case "extends":
			s.binary()
			return s.inc(&t.expr, start, s.i)
		}
	}
	if w == "extends" { // class extends class extends …
		s.settle(w)
		s.prev = pOperand
		return s.inc(&s.top().expr, start, s.i)
	}
	wasStart := s.prev == pStart
	s.operandStart(w)
	t = s.top()
	if s.prev == pStart {
		wasStart = true
	}
	kw := s.lastKw
	switch w {
	case "if", "while", "for", "with", "else", "do":
		if j, _ := skipSpace(s.src, s.i); j < len(s.src) && s.src[j] == ':' {
			w = "" // a property name or label, not a statement
		}
	}
	switch w {
	case "if":
		s.prevKw = w
		s.prev = pOperand
		if kw == "else" {
			return false
		}
		return s.inc(&t.stmt, start, s.i)
	case "while", "for", "with":
		s.prevKw = w
		s.prev = pOperand
		return s.inc(&t.stmt, start, s.i)
	case "switch", "catch":
		s.prevKw = w
		s.prev = pOperand
		return false
	case "else", "do":
		s.prevKw = w
		s.prev = pStart
		return s.inc(&t.stmt, start, s.i)
	case "try", "finally":
		s.prev = pStart
		return false
	case "return", "throw", "case", "default", "var", "let", "const", "import", "export":
		s.prev = pOperand
		return false
	case "typeof", "void", "delete", "new":
		s.prev = pOperand
		return s.inc(&t.unary, start, s.i)
	case "await":
		if s.awaitIsOperator() {
			s.prev = pOperand
			return s.inc(&t.unary, start, s.i)
		}
	case "yield":
		if t.gen {
			s.prev = pOperand
			return s.inc(&t.expr, start, s.i)
		}
	case "function":
		s.pendFn, s.pendDecl = true, wasStart
		s.prevKw = w
		s.prev = pOperand
		return false
	case "class":
		s.pendDecl = wasStart
		s.prev = pOperand
		return false
	case "async":
		if j, nl := skipSpace(s.src, s.i); j < len(s.src) && !nl && (isIDStart(s.src[j]) || s.src[j] == '(') {
			s.pendAs = true
			s.prev = pOperand
			return false
		}
	case "keyof", "readonly", "unique", "infer":
		if s.cfg.TS {
			s.prev = pOperand
			return s.inc(&t.unary, start, s.i)
		}
	}
	s.prev = pEnd
	s.labelOK = wasStart
	return s.name(src[start:s.i], start)
}

// awaitIsOperator tells whether await is a keyword here.
func (s *scanner) awaitIsOperator() bool {
	t := s.top()
	if t.exprAsync >= 0 {
		return t.exprAsync == 1
	}
	return t.async
}

// name records an identifier for the TS work estimate.
func (s *scanner) name(w string, off int) bool {
	if s.work == nil {
		return false
	}
	t := s.top()
	d := uint64(t.depth())
	weight := d + 1
	h := hash(w)
	bit := (h >> 12) & 255
	word, mask := bit/64, uint64(1)<<(bit%64)
	if t.bloom[word]&mask == 0 {
		t.bloom[word] |= mask
		s.work.open[bit]++
	}
	// Shadowing: the enclosing levels that may declare this name, plus one
	// per construct open at this level (each may be a function).
	shadow := uint64(s.work.open[bit]) + uint64(t.depth()-t.base)
	shadow = min(shadow, d)
	b := h & 4095
	add := weight*(1+shadow) + weight*uint64(s.work.v[b])
	s.work.p[b] += weight
	// A numbered name (base + decimal >= 2, no leading zero) collides with
	// the renamer's candidates for base.
	for k := 1; k <= 7 && k < len(w); k++ {
		j := len(w) - k
		if w[j] < '0' || w[j] > '9' {
			break
		}
		if w[j] == '0' || (k == 1 && w[j] == '1') {
			continue
		}
		bb := hash(w[:j]) & 4095
		add += s.work.p[bb]
		s.work.v[bb]++
	}
	s.rep.Work += add
	if s.cfg.MaxWork > 0 && s.rep.Work > s.cfg.MaxWork {
		return s.over(Work, off, s.i)
	}
	return false
}

// hash is FNV-1a.
func hash(w string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		h ^= uint64(w[i])
		h *= 1099511628211
	}
	return h
}

var puncts = [...]string{
	">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
	"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "**", "<<", ">>",
}

// punct scans a punctuator. afterRB reports a '}'.
func (s *scanner) punct() (afterRB, stop bool) {
	src := s.src
	start := s.i
	p := src[start : start+1]
	for _, q := range puncts {
		if len(src)-start >= len(q) && src[start:start+len(q)] == q {
			p = q
			break
		}
	}
	if p == "?." && start+2 < len(src) && src[start+2] >= '0' && src[start+2] <= '9' {
		p = "?"
	}
	if p == "<" && start+3 < len(src) && src[start:start+4] == "<!--" || p == "--" && s.nl && start+2 < len(src) && src[start+2] == '>' {
		for s.i < len(src) && src[s.i] != '\n' { // HTML-like comment
			s.i++
		}
		return false, false
	}
	s.i += len(p)
	t := s.top()
	end := s.i
	switch p {
	case "{":
		s.settle("")
		kind := bObject
		switch {
		case s.pendDecl && s.prev == pEnd:
			kind = bDecl
		case s.prev == pStart:
			kind = bBlock
		}
		// A function's body: after `function …(…)`, a method's `(…)`, or
		// `=>` (whose async-ness push takes from the level's exprAsync).
		fn := s.pendFn || (s.prev == pEnd && s.lastKw == ")")
		async, gen := s.pendAs, s.pendGen
		s.pendFn, s.pendDecl, s.pendAs, s.pendGen = false, false, false, false
		obj := s.prev == pOperand && s.lastKw != "=>"
		if s.push('{', start) {
			return false, true
		}
		n := s.top()
		n.brace = byte(kind)
		if fn {
			n.async, n.gen = async, gen
		}
		s.prev = pStart
		if obj {
			s.prev = pOperand
		}
	case "(", "[":
		call := s.prev == pEnd && !(p == "(" && s.pendFn) // not `function f(`
		s.settle("")
		if call {
			if s.inc(&t.chain, start, end) {
				return false, true
			}
		}
		kw := s.lastKw
		if s.push(p[0], start) {
			return false, true
		}
		n := s.top()
		switch kw {
		case "if", "while", "for", "with", "switch", "catch":
			n.head = p == "("
			n.forHead = kw == "for"
		}
		s.prev = pOperand
	case ")", "]", "}":
		open := byte('(')
		switch p {
		case "]":
			open = '['
		case "}":
			open = '{'
		}
		if p == "}" && t.kind == '`' {
			s.pop()
			return false, s.template()
		}
		if t.kind != open {
			s.prev = pEnd // unbalanced: esbuild stops here
			return false, false
		}
		l := s.pop()
		s.prev = pEnd
		switch {
		case l.head:
			s.prev = pStart
		case p == ")":
			s.prevKw = ")"
		case p == "}":
			afterRB = true
			if l.brace != bObject {
				s.prev = pStart
				s.top().ended = true
			}
		}
		return afterRB, false
	case ";":
		// The expression ended; the statement bodies open at this level end
		// too, unless else, catch or finally follows (settle decides).
		t.expr, t.unary, t.chain, t.angle, t.exprAsync = 0, 0, 0, 0, -1
		t.ended = true
		s.prev = pStart
		s.pendFn, s.pendDecl, s.pendAs, s.pendGen = false, false, false, false
	case ",":
		s.settle("")
		if t.angle == 0 { // in TypeScript's <A, B> nothing ends
			t.expr, t.unary, t.chain, t.exprAsync = 0, 0, 0, -1
		}
		s.prev = pOperand
	case ":":
		s.settle("")
		if s.labelOK && s.prev == pEnd {
			s.prev = pStart
			s.labelOK = false
			return false, s.inc(&t.stmt, start, end)
		}
		s.binary()
	case ".", "?.":
		s.settle("")
		s.prev = pDot
		return false, s.inc(&t.chain, start, end)
	case "=>":
		s.settle("")
		s.binary()
		t.exprAsync = 0
		if s.pendAs {
			t.exprAsync = 1
		}
		s.pendAs = false
		s.prevKw = "=>"
		return false, s.inc(&t.expr, start, end)
	case "?", "=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>=", "&=", "|=", "^=", "&&=", "||=", "??=":
		s.settle("")
		s.binary()
		return false, s.inc(&t.expr, start, end)
	case "**":
		s.settle("")
		t.chain = 0
		s.prev = pOperand
		return false, s.inc(&t.unary, start, end)
	case "++", "--":
		if s.prev == pEnd && !s.nl {
			return false, false // postfix
		}
		s.operandStart("")
		s.prev = pOperand
		return false, s.inc(&t.unary, start, end)
	case "!", "~", "...", "@", "#":
		if p == "!" && s.prev == pEnd && !s.nl {
			return false, false // TypeScript's non-null assertion (an error in JavaScript)
		}
		if p == "#" { // private name
			for s.i < len(src) && isIDPart(src[s.i]) {
				s.i++
			}
			if s.prev != pDot {
				s.operandStart("")
			}
			s.prev = pEnd
			return false, false
		}
		s.operandStart("")
		s.prev = pOperand
		return false, s.inc(&t.unary, start, end)
	case "+", "-":
		s.settle("")
		if s.prev == pEnd {
			s.binary()
			return false, false
		}
		s.prev = pOperand
		return false, s.inc(&t.unary, start, end)
	case "*":
		s.settle("")
		if s.lastKw == "function" || s.prev != pEnd {
			s.pendGen = true // function* or a generator method
			s.prev = pOperand
			return false, false
		}
		s.binary()
	case "<", ">", ">>", ">>>":
		s.settle("")
		if s.cfg.TS {
			switch p {
			case "<":
				if s.prev != pEnd { // <T>x or <T>(…) => …: nests until the expression ends
					s.prev = pOperand
					if s.inc(&t.expr, start, end) {
						return false, true
					}
				} else {
					s.binary()
				}
				return false, s.inc(&t.angle, start, end)
			default:
				t.angle = max(t.angle-len(p), 0)
			}
		}
		s.binary()
	default: // other binary operators
		s.settle("")
		s.binary()
	}
	return false, false
}
