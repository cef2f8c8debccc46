package intl

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// Compiled requests are the prelude's hot paths: a number or a date
// formatted with an instance's options, and collation keys for strings a
// collator compares. A JSON request pays for encoding, decoding and
// resolving its options on every call; a compiled request names its
// options once per instance, as the same text every time, and the handler
// resolves that text once and keeps the result (bounded, maxCompiled).
//
//	request = op cfg "\n" payload
//	op      = "N" (format a number) | "D" (format a date) | "K" (collation keys)
//	          | "S" (sort strings by K's keys)
//	cfg     = {"l": locales, "o": options}, as the JSON op of the kind reads
//	          them ("nf", "dtf", "col")
//	payload = N: the number as numText prints it; D: the time in ms, as JS
//	          prints a number; K: strings separated by NUL (none holds one);
//	          S: as K
//	answer  = "=" text, or the JSON error object {"e": …, "m": …}
//
// An S answer's text is the strings sorted by their keys (equal keys in
// the order given), separated by NUL: an array of up to maxSortStrings
// strings sorts in one request of up to MaxSortRequestBytes, without its
// keys crossing to the guest, and the guest splits the answer natively
// instead of running a loop over indexes. It is "null" when the keys would
// take more than maxSortKeyBytes (a collation key can be tens of times its
// string), when the payload splits into more than maxSortStrings pieces or
// a piece is longer than MaxKeyString (the guest's strings held a NUL: it
// counts the pieces), so that the guest sorts another way.
//
// A Format (format.go) is a compiled N or D cfg its caller keeps, to
// format values without a request each.
//
// A K answer's text is one key per string, separated by U+0001, written
// by writeKey (a case-level key joins its two parts with U+0002), so that
// comparing two keys as JavaScript strings (by UTF-16 code units) orders
// them as the collator does. It may hold keys
// for the first strings only, when the next would take the answer past
// MaxKeyAnswerBytes; the guest asks again for the rest.
//
// Compiled requests are bounded as JSON ones: MaxRequestBytes in all (the
// sandbox checks it before copying), maxKeyStrings strings of at most
// MaxKeyString bytes each; a cfg longer than maxCompiledConfig bytes is
// resolved for its request and not kept, so the cache holds at most
// maxCompiled × maxCompiledConfig bytes of options.
const (
	// MaxKeyString bounds one string a K request asks a key for, in bytes.
	MaxKeyString = 4096
	// MaxKeyAnswerBytes bounds a K answer: the keys that fit, at least one.
	MaxKeyAnswerBytes = 1 << 20
	maxKeyStrings     = 8192
	// MaxSortRequestBytes bounds an S request, in bytes.
	MaxSortRequestBytes = 1 << 20
	maxSortStrings      = 1 << 16
	maxSortKeyBytes     = 4 << 20
	maxCompiledConfig   = 4096
	maxCompiled         = 512
)

// compiled is what a cfg compiles to, for one op.
type compiled interface {
	run(payload string) (string, error)
}

// isCompiled says whether req is a compiled request rather than JSON.
func isCompiled(req []byte) bool {
	return len(req) > 0 && strings.IndexByte("NDKS", req[0]) >= 0
}

// RequestLimit is the most bytes a request starting with first may have:
// MaxSortRequestBytes for a sort, MaxRequestBytes for any other.
func RequestLimit(first byte) int {
	if first == 'S' {
		return MaxSortRequestBytes
	}
	return MaxRequestBytes
}

// handleCompiled answers a compiled request (isCompiled).
func (h *Handler) handleCompiled(req []byte) []byte {
	out, err := h.compiledAnswer(string(req))
	if err != nil {
		return errorAnswer(err)
	}
	return []byte(out)
}

func (h *Handler) compiledAnswer(req string) (string, error) {
	if limit := RequestLimit(req[0]); len(req) > limit {
		return "", rangeErr("Intl request of %d bytes exceeds %d", len(req), limit)
	}
	cfg, payload, ok := strings.Cut(req[1:], "\n")
	if !ok {
		return "", typeErr("malformed Intl request")
	}
	op := req[0]
	if op == 'S' {
		op = 'K'
	}
	c, err := h.compile(op, cfg)
	if err != nil {
		return "", err
	}
	switch req[0] {
	case 'S':
		out, err := c.(*compiledKeys).sort(payload)
		if err != nil {
			return "", err
		}
		return "=" + out, nil
	}
	out, err := c.run(payload)
	if err != nil {
		return "", err
	}
	return "=" + out, nil
}

// compile returns the compiled form of cfg for op, cached unless cfg is
// longer than maxCompiledConfig.
func (h *Handler) compile(op byte, cfg string) (compiled, error) {
	key := string(op) + cfg
	h.mu.Lock()
	c, ok := h.compiled[key]
	h.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := h.compileUncached(op, cfg)
	if err != nil || len(cfg) > maxCompiledConfig {
		return c, err
	}
	h.mu.Lock()
	if len(h.compiled) >= maxCompiled {
		// One entry out, as in cached: a chain cycling through options
		// cannot empty what every other chain relies on.
		for k := range h.compiled {
			delete(h.compiled, k)
			break
		}
	}
	h.compiled[key] = c
	h.mu.Unlock()
	return c, nil
}

func (h *Handler) compileUncached(op byte, cfg string) (c compiled, err error) {
	var raw struct {
		L []string        `json:"l"`
		O json.RawMessage `json:"o"`
	}
	if err := json.Unmarshal([]byte(cfg), &raw); err != nil {
		return nil, typeErr("malformed Intl request")
	}
	if len(raw.L) > maxLocales {
		return nil, rangeErr("more than %d locales", maxLocales)
	}
	for _, l := range raw.L {
		if len(l) > maxString {
			return nil, rangeErr("Incorrect locale information provided")
		}
	}
	req := &request{L: raw.L, O: raw.O}
	switch op {
	case 'N':
		ans, err := h.numberFormat(req)
		if err != nil {
			return nil, err
		}
		a := ans.(*numAnswer)
		c = &compiledNumber{nf: a.nf, res: a.R}
	case 'D':
		ans, err := h.dateTimeFormat(req)
		if err != nil {
			return nil, err
		}
		c = compiledDate(ans.(*dtAnswer).format)
	default: // 'K'
		k, err := h.compileKeys(req)
		if err != nil {
			return nil, err
		}
		c = k
	}
	return c, nil
}

// compiledNumber formats numbers with resolved options.
type compiledNumber struct {
	nf  *numFormat
	res numResolved
}

func (c *compiledNumber) run(v string) (string, error) {
	res := c.res // format reads it only, but a copy keeps instances apart
	parts, err := c.nf.format(&res, v)
	if err != nil {
		return "", err
	}
	return joinParts(parts), nil
}

// numberPattern is what a Format needs to format a number with plain
// decimal options without nf.format, as nf.format would (format.go):
// symbols, grouping and fraction digits.
type numberPattern struct {
	Decimal     string `json:"d"`
	Group       string `json:"g"`
	Minus       string `json:"m"`
	Primary     int    `json:"p"`
	Secondary   int    `json:"s"`
	MinGrouping int    `json:"mg"` // -1: no grouping
	MinFrac     int    `json:"mn"`
	MaxFrac     int    `json:"mx"`
}

// plainNumberOptions are the resolved options a plain decimal may have,
// with the values it must have (nil: any). Any other option, or another
// value, leaves the formatting to nf.format: an option added later is not
// formatted by a numberPattern that does not know it.
var plainNumberOptions = map[string]any{
	"locale": nil, "numberingSystem": "latn", "style": "decimal", "minimumIntegerDigits": 1.0,
	"minimumFractionDigits": nil, "maximumFractionDigits": nil, "useGrouping": nil, "notation": "standard",
	"signDisplay": "auto", "roundingMode": "halfExpand", "roundingIncrement": 1.0, "trailingZeroDisplay": "auto",
	"roundingPriority": "auto",
}

// plain returns c's numberPattern, or nil where its options are not a
// plain decimal's.
func (c *compiledNumber) plain() *numberPattern {
	b, err := json.Marshal(c.res)
	if err != nil {
		return nil
	}
	var opts map[string]any
	if json.Unmarshal(b, &opts) != nil {
		return nil
	}
	for k, v := range opts {
		want, ok := plainNumberOptions[k]
		if !ok || want != nil && v != want {
			return nil
		}
	}
	nf, sym := c.nf, c.nf.sym
	if c.res.MinFrac == nil || c.res.MaxFrac == nil || nf.compact != nil || sym.zero != '0' ||
		sym.primary <= 0 || sym.second <= 0 {
		return nil
	}
	aff := nf.aff
	if len(aff.pre[posAffix]) != 0 || len(aff.suf[posAffix]) != 0 || len(aff.suf[negAffix]) != 0 ||
		len(aff.pre[negAffix]) != 1 || aff.pre[negAffix][0][0] != "minusSign" {
		return nil
	}
	p := numberPattern{Decimal: sym.decimal, Group: sym.group, Minus: aff.pre[negAffix][0][1],
		Primary: sym.primary, Secondary: sym.second, MinFrac: *c.res.MinFrac, MaxFrac: *c.res.MaxFrac}
	switch c.res.UseGrouping {
	case "auto":
		p.MinGrouping = sym.minGrouping
	case "always":
		p.MinGrouping = 1
	case "min2":
		p.MinGrouping = 2
	case false:
		p.MinGrouping = -1
	default:
		return nil
	}
	return &p
}

// compiledDate formats times with resolved options.
type compiledDate func(ms float64) ([][2]string, error)

func (c compiledDate) run(v string) (string, error) {
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return "", typeErr("malformed Intl value")
	}
	return c.format(ms)
}

func (c compiledDate) format(ms float64) (string, error) {
	parts, err := c(ms)
	if err != nil {
		return "", err
	}
	// As format() in dateTimeFormat: U+0020 where CLDR has U+202F.
	return strings.ReplaceAll(joinParts(parts), "\u202f", " "), nil
}

// compiledKeys makes collation keys: the keys of two strings compare as
// the collator (collator in collate.go) compares the strings.
type compiledKeys struct {
	main *lockedCollator
	// base decides first for sensitivity "case", which x/text lacks: the
	// key is base's, then main's of the text without diacritics.
	base  *lockedCollator
	upper bool // caseFirst "upper": main's key of the text with case swapped
}

func (h *Handler) compileKeys(req *request) (compiled, error) {
	ans, err := h.collator(req)
	if err != nil {
		return nil, err
	}
	res := ans.(*colAnswer).R
	locale, _, err := collationLocale(req.L)
	if err != nil {
		return nil, err
	}
	lc := res.withCollation(loc{tag: locale, lang: language.MustParse(locale)})
	c := &compiledKeys{
		main:  h.collatorFor(lc, res.Sensitivity, res.Numeric, res.IgnorePunctuation),
		upper: res.CaseFirst == "upper",
	}
	if res.Sensitivity == "case" {
		c.base = h.collatorFor(lc, "base", res.Numeric, res.IgnorePunctuation)
	}
	return c, nil
}

func (c *compiledKeys) run(payload string) (string, error) {
	var b strings.Builder
	var buf collate.Buffer
	n := 0
	for s := range strings.SplitSeq(payload, "\x00") {
		if n++; n > maxKeyStrings {
			return "", rangeErr("more than %d strings in an Intl request", maxKeyStrings)
		}
		if len(s) > MaxKeyString {
			return "", rangeErr("Intl string of %d bytes exceeds %d", len(s), MaxKeyString)
		}
		mark := b.Len()
		if n > 1 {
			b.WriteByte(1)
		}
		c.writeKey(&b, &buf, s)
		if b.Len() > MaxKeyAnswerBytes && n > 1 {
			// This key does not fit: the guest asks again from here.
			return b.String()[:mark], nil
		}
	}
	return b.String(), nil
}

// writeKey writes the key of s (the engine's encoding of a JavaScript
// string) to b.
func (c *compiledKeys) writeKey(b *strings.Builder, buf *collate.Buffer, s string) {
	s = fromWTF8(s)
	if c.base != nil {
		writeKey(b, keyOf(c.base, buf, s))
		b.WriteByte(2)
		s = stripMarks(s)
	}
	if c.upper {
		s = swapCase(s)
	}
	writeKey(b, keyOf(c.main, buf, s))
}

// sort answers an S request: the order of the strings in payload (NUL
// separated) by their keys, as a JSON array of their indexes, equal keys
// in the order given.
func (c *compiledKeys) sort(payload string) (string, error) {
	n := strings.Count(payload, "\x00") + 1
	if n > maxSortStrings {
		return "null", nil
	}
	strs := make([]string, 0, n)
	keys := make([]string, 0, n)
	var b strings.Builder
	var buf collate.Buffer
	total := 0
	for s := range strings.SplitSeq(payload, "\x00") {
		if len(s) > MaxKeyString {
			return "null", nil
		}
		strs = append(strs, s)
		b.Reset()
		c.writeKey(&b, &buf, s)
		if total += b.Len(); total > maxSortKeyBytes {
			// Keys this large (long expansions) are not held at once:
			// the guest sorts by keys it asks for in K requests.
			return "null", nil
		}
		keys = append(keys, b.String())
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return strings.Compare(keys[i], keys[j]) })
	out := make([]byte, 0, len(payload))
	for i, x := range idx {
		if i > 0 {
			out = append(out, 0)
		}
		out = append(out, strs[x]...)
	}
	return string(out), nil
}

func keyOf(c *lockedCollator, buf *collate.Buffer, s string) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	buf.Reset()
	k := c.c.KeyFromString(buf, s)
	if c.r != nil {
		k = c.r.apply(k)
	}
	return k
}

// writeKey writes key so that keys compare by UTF-16 code unit as they
// compare by byte, in code points U+0003–U+00FF (the engine keeps such
// strings one byte a character, and compares them with memcmp): a byte b
// below 0xFC as b+3, and 0xFC–0xFF as U+00FF then b−0xFC+3. Codes are
// prefix-free and in the bytes' order, so sequences keep their order, and
// U+0001 and U+0002, below every code, can end or join keys.
func writeKey(b *strings.Builder, key []byte) {
	for _, x := range key {
		if x < 0xFC {
			b.WriteRune(rune(x) + 3)
		} else {
			b.WriteRune(0xFF)
			b.WriteRune(rune(x-0xFC) + 3)
		}
	}
}

// fromWTF8 replaces each lone surrogate the engine encodes in a string
// (ED A0–BF xx, which is not UTF-8) by U+FFFD, as decoding the JSON the
// other requests carry does.
func fromWTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			b.WriteString("\uFFFD")
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteByte(s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
