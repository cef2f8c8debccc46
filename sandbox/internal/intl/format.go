package intl

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/airlockrt/airlock/sandbox/internal/jsnum"
)

// Format is a number or date format whose options were compiled once (a
// compiled request's op and cfg, compiled.go), for a caller that formats
// many values with it without a request each: the sandbox's per-run table
// of formats (OpIntlFormat). It is safe for concurrent use.
type Format struct {
	c     compiled
	date  bool
	plain *numberPattern // a number format's, when its options are plain decimal ones
}

// CompileFormat compiles req, a compiled request's op ("N" for a number
// format, "D" for a date format) and cfg, optionally followed by "\n" (a
// compiled prefix), with the handler's cache of compiled options. The
// error is one ErrorAnswer turns into the guest's exception: the request
// is malformed, or its options are not valid.
func (h *Handler) CompileFormat(req string) (*Format, error) {
	if len(req) == 0 || req[0] != 'N' && req[0] != 'D' {
		return nil, typeErr("malformed Intl request")
	}
	if len(req) > MaxRequestBytes {
		return nil, rangeErr("Intl request of %d bytes exceeds %d", len(req), MaxRequestBytes)
	}
	cfg := strings.TrimSuffix(req[1:], "\n")
	c, err := h.compile(req[0], cfg)
	if err != nil {
		return nil, err
	}
	f := &Format{c: c, date: req[0] == 'D'}
	if n, ok := c.(*compiledNumber); ok {
		f.plain = n.plain()
	}
	return f, nil
}

// Append appends x formatted to dst: a number, or a date's time value in
// milliseconds. It appends what the compiled request of the same op, cfg
// and value (x as JavaScript prints it) answers; ok is false where that
// answer is an error, which the caller then asks for to report it.
func (f *Format) Append(dst []byte, x float64) (out []byte, ok bool) {
	var s string
	var err error
	switch {
	case f.date:
		s, err = f.c.(compiledDate).format(x)
	case f.plain != nil && x != 0 && !math.IsNaN(x) && !math.IsInf(x, 0):
		return f.plain.append(dst, x), true
	default:
		s, err = f.c.run(jsNumber(x))
	}
	if err != nil {
		return dst, false
	}
	return append(dst, s...), true
}

// ErrorAnswer is the answer that makes the guest throw err (an error of
// CompileFormat): {"e": name, "m": message}.
func ErrorAnswer(err error) []byte { return errorAnswer(err) }

// jsNumber prints x as JavaScript's Number::toString does (radix 10), with
// -0 as "-0" (the prelude's numText): the shortest decimal that reads back
// as x, in positional notation for exponents from -7 to 20, else as
// d.ddde±n.
func jsNumber(x float64) string {
	if x == 0 && math.Signbit(x) {
		return "-0"
	}
	return string(jsnum.Append(make([]byte, 0, 32), x))
}

// append appends x, a finite number other than zero, as a number format
// with p's plain decimal options does: its shortest decimal (jsNumber's
// digits) rounded half away from zero to MaxFrac fraction digits, its
// trailing fraction zeros dropped down to MinFrac, and its integer digits
// grouped. TestPlainFormatsAsNumberFormat checks it against nf.format.
func (p *numberPattern) append(out []byte, x float64) []byte {
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], math.Abs(x), 'e', -1, 64) // d[.ddd]e±xx
	e := bytes.IndexByte(b, 'e')
	exp := 0
	for _, c := range b[e+2:] {
		exp = exp*10 + int(c-'0')
	}
	if b[e+1] == '-' {
		exp = -exp
	}
	var dbuf [40]byte
	digits := append(dbuf[:0], b[0])
	if e > 1 {
		digits = append(digits, b[2:e]...)
	}
	// x = 0.digits × 10^n: the integer has max(n, 0) digits; write the
	// number as integer and fraction digits with at least one of each
	// place, 0 for places the shortest decimal has none.
	n := exp + 1
	var ibuf [400]byte
	num := ibuf[:0]
	if n <= 0 {
		num = append(num, '0')
		for range -n {
			num = append(num, '0')
		}
		num = append(num, digits...)
		n = 1
	} else {
		num = append(num, digits...)
		for len(num) < n {
			num = append(num, '0')
		}
	}
	// num holds the integer's n digits, then the fraction's.
	if frac := len(num) - n; frac > p.MaxFrac {
		up := num[n+p.MaxFrac] >= '5'
		num = num[:n+p.MaxFrac]
		if up {
			i := len(num) - 1
			for ; i >= 0 && num[i] == '9'; i-- {
				num[i] = '0'
			}
			if i >= 0 {
				num[i]++
			} else {
				num = append(num, 0)
				copy(num[1:], num)
				num[0] = '1'
				n++
			}
		}
	}
	end := len(num)
	for end > n+p.MinFrac && num[end-1] == '0' {
		end--
	}
	ip, fp := num[:n], num[n:end]
	// The integer part's leading zeros: the shortest decimal of a number
	// below 1 gave one "0", which rounding may have made "1".
	for len(ip) > 1 && ip[0] == '0' {
		ip = ip[1:]
	}
	if x < 0 {
		out = append(out, p.Minus...)
	}
	if p.MinGrouping >= 0 && len(ip) >= p.MinGrouping+p.Primary && len(ip) > p.Primary {
		first := len(ip) - p.Primary
		lead := first % p.Secondary
		if lead == 0 {
			lead = p.Secondary
		}
		out = append(out, ip[:lead]...)
		for i := lead; i < first; i += p.Secondary {
			out = append(out, p.Group...)
			out = append(out, ip[i:i+p.Secondary]...)
		}
		out = append(out, p.Group...)
		out = append(out, ip[first:]...)
	} else {
		out = append(out, ip...)
	}
	if len(fp) > 0 || p.MinFrac > 0 {
		out = append(out, p.Decimal...)
		out = append(out, fp...)
		for range p.MinFrac - len(fp) {
			out = append(out, '0')
		}
	}
	return out
}
