package sandbox

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/airlockrt/airlock/sandbox/internal/intl"
	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
)

// intlHandler answers every run's Intl requests. It holds only CLDR data
// derived from the linked libraries (the same for every run), in a bounded
// cache, so sharing it between engines leaks nothing between chains.
var intlHandler = intl.New()

// intl answers OpIntl: one Intl request from the prelude (50-intl.js). A
// request larger than its limit (intl.RequestLimit: intl.MaxRequestBytes,
// or MaxSortRequestBytes for a sort) is answered with a RangeError without
// copying it.
func (r *scriptRun) intl(ctx context.Context, args []uint64) uint64 {
	ref := r.str(ctx, args, 1)
	limit := intl.MaxRequestBytes
	if ref.Len() > limit {
		first, err := ref.Bytes(1)
		if err != nil {
			r.guestErr(err)
		}
		if len(first) == 1 {
			limit = intl.RequestLimit(first[0])
		}
	}
	if ref.Len() > limit {
		r.copyStr(ctx, ref, 0)
		return r.newString(ctx, []byte(`{"e":"RangeError","m":"Intl request too large"}`))
	}
	req := r.copyStr(ctx, ref, ref.Len())
	return r.newString(ctx, intlHandler.Handle(req))
}

// The run's table of Intl formats (OpIntlFormat, guest-sdk/ABI.md): a
// number or date format the prelude compiled once, by its compiled prefix,
// so that formatting a value is one host call with a handle and a number,
// without a request to build, copy or parse (BENCHMARKS.md, "Intl against
// Node"). The table goes with the run (a parked run carries its prefixes);
// it holds at most MaxIntlFormats formats and MaxIntlFormatBytes bytes of
// prefixes, after which the prelude formats by requests (OpIntl), as
// slowly as before and with the same results.
const (
	// MaxIntlFormats bounds the formats of a run's table.
	MaxIntlFormats = 256
	// MaxIntlFormatBytes bounds the bytes of the prefixes of a run's
	// table.
	MaxIntlFormatBytes = 64 << 10
)

// intlFormats is a run's table of Intl formats.
type intlFormats struct {
	formats  []*intl.Format // by handle; nil until compiled after a resume
	prefixes []string       // by handle
	byPrefix map[string]int32
	bytes    int
	buf      []byte // what a format appends to, reused
}

// intlFormat answers OpIntlFormat: (prefix) registers a format, (handle,
// number) formats with it; any other first argument (undefined: the
// prelude has no handle for it yet) is answered undefined.
func (r *scriptRun) intlFormat(ctx context.Context, args []uint64) uint64 {
	if len(args) < 2 {
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (missing argument)"})
	}
	if h, ok := quickjs.DecodeInt(args[1]); ok {
		if len(args) < 3 || h < 0 || int(h) >= len(r.formats.prefixes) {
			return r.in.Undefined()
		}
		x, ok := quickjs.DecodeNumber(args[2])
		if !ok {
			return r.in.Undefined()
		}
		f := r.formats.formats[h]
		if f == nil {
			var err error
			if f, err = intlHandler.CompileFormat(r.formats.prefixes[h]); err != nil {
				return r.in.Undefined()
			}
			r.formats.formats[h] = f
		}
		b, ok := f.Append(r.formats.buf[:0], x)
		if !ok {
			return r.in.Undefined()
		}
		r.formats.buf = b[:0]
		return r.newString(ctx, b)
	}
	if !quickjs.IsString(args[1]) {
		return r.in.Undefined() // toLocaleString's locale without a handle yet
	}
	ref := r.str(ctx, args, 1)
	if ref.Len() > intl.MaxRequestBytes {
		r.copyStr(ctx, ref, 0)
		return r.newString(ctx, []byte(`{"e":"RangeError","m":"Intl request too large"}`))
	}
	prefix := string(r.copyStr(ctx, ref, ref.Len()))
	if h, ok := r.formats.byPrefix[prefix]; ok {
		return quickjs.Int(h)
	}
	if !utf8.ValidString(prefix) {
		// A script that replaced JSON.stringify sent lone surrogates: a
		// parked state's JSON would rewrite them (U+FFFD), into duplicates
		// or past MaxIntlFormatBytes, and the run could not resume. Its
		// values go by requests, as past a full table.
		return quickjs.Int(-1)
	}
	f, err := intlHandler.CompileFormat(prefix)
	if err != nil {
		return r.newString(ctx, intl.ErrorAnswer(err))
	}
	h, ok := r.formats.add(prefix, f)
	if !ok {
		return quickjs.Int(-1)
	}
	return quickjs.Int(h)
}

// add adds a format to the table, within MaxIntlFormats and
// MaxIntlFormatBytes, and returns its handle.
func (t *intlFormats) add(prefix string, f *intl.Format) (int32, bool) {
	if len(t.prefixes) >= MaxIntlFormats || t.bytes+len(prefix) > MaxIntlFormatBytes {
		return 0, false
	}
	if t.byPrefix == nil {
		t.byPrefix = map[string]int32{}
	}
	h := int32(len(t.prefixes))
	t.prefixes = append(t.prefixes, prefix)
	t.formats = append(t.formats, f)
	t.byPrefix[prefix] = h
	t.bytes += len(prefix)
	return h, true
}

// restoreIntlFormats rebuilds a parked run's table from its prefixes; each
// is compiled again when first used.
func restoreIntlFormats(prefixes []string) (intlFormats, error) {
	var t intlFormats
	for _, p := range prefixes {
		if _, dup := t.byPrefix[p]; dup || len(p) == 0 || p[0] != 'N' && p[0] != 'D' || !utf8.ValidString(p) {
			return t, fmt.Errorf("%w: an Intl format", ErrCorruptState)
		}
		if _, ok := t.add(p, nil); !ok {
			return t, fmt.Errorf("%w: too many Intl formats", ErrCorruptState)
		}
	}
	return t, nil
}
