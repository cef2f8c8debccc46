package intl

import (
	"fmt"
	"math"
	"testing"
)

// FuzzFormat: a Format appends, for any value (NaN payloads, -0,
// subnormals, the extremes) and any options of a number or date format,
// what the compiled request answers for the value as JavaScript prints it,
// or fails where that answer is an error; it never panics.
func FuzzFormat(f *testing.F) {
	for _, s := range []struct {
		date           bool
		loc, min, max  uint8
		grouping, opts uint8
		x              float64
	}{
		{false, 0, 0, 3, 0, 0, 1234.5}, {false, 1, 20, 20, 1, 0, 5e-324}, {false, 2, 0, 0, 2, 0, math.MaxFloat64},
		{false, 3, 2, 2, 3, 1, -0.005}, {true, 4, 0, 0, 0, 2, 8.64e15}, {true, 5, 0, 0, 0, 3, -8.64e15},
		{false, 0, 0, 20, 0, 0, math.Float64frombits(0x7ff8_0000_0000_0001)}, {false, 0, 0, 2, 0, 0, math.Copysign(0, -1)},
		{true, 12, 0, 0, 0, 1, -8.64e15}, {true, 13, 0, 0, 0, 2, 8.64e15}, {true, 14, 0, 0, 0, 0, 6.5e12}, {true, 16, 0, 0, 0, 1, math.NaN()},
		{true, 0, 0, 0, 0, 4, 8.64e15}, {true, 1, 0, 0, 0, 5, -8.64e15}, {true, 2, 0, 0, 0, 6, 1.7e12}, {true, 0, 0, 0, 0, 5, 0},
	} {
		f.Add(s.date, s.loc, s.min, s.max, s.grouping, s.opts, s.x)
	}
	h := New()
	locales := []string{"en-US", "de-DE", "en-IN", "fr-CH", "ja-JP-u-ca-japanese", "ar-EG", "th-TH-u-ca-buddhist", "zh-TW-u-ca-roc",
		"en-u-ca-islamic-civil", "sv", "pl", "hi-IN", "de-u-ca-hebrew", "en-u-ca-persian", "ar-EG-u-ca-islamic-umalqura", "fr-u-ca-ethiopic",
		"ja-u-ca-coptic", "es-u-ca-indian"}
	groupings := []string{``, `,"useGrouping":false`, `,"useGrouping":"min2"`, `,"useGrouping":"always"`}
	dateOpts := []string{`{"dateStyle":"full","timeStyle":"long","timeZone":"UTC"}`, `{"era":"long","year":"numeric","month":"long","day":"numeric"}`,
		`{"year":"2-digit","month":"narrow","weekday":"short","hour":"numeric","timeZone":"Asia/Tokyo"}`, `{}`,
		`{"timeStyle":"full","timeZone":"Europe/Dublin"}`, `{"timeZoneName":"longGeneric","timeZone":"Australia/Lord_Howe"}`,
		`{"hour":"2-digit","minute":"2-digit","timeZoneName":"shortGeneric","timeZone":"Europe/Berlin"}`}
	numOpts := []string{``, `,"style":"percent"`, `,"notation":"compact"`, `,"style":"currency","currency":"JPY"`}
	f.Fuzz(func(t *testing.T, date bool, loc, mn, mx, grouping, opts uint8, x float64) {
		l := locales[int(loc)%len(locales)]
		var req string
		if date {
			req = fmt.Sprintf(`D{"l":[%q],"o":%s}`+"\n", l, dateOpts[int(opts)%len(dateOpts)])
		} else {
			req = fmt.Sprintf(`N{"l":[%q],"o":{"minimumFractionDigits":%d,"maximumFractionDigits":%d%s%s}}`+"\n",
				l, mn%22, mx%22, groupings[int(grouping)%len(groupings)], numOpts[int(opts)%len(numOpts)])
		}
		fm, err := h.CompileFormat(req)
		if err != nil {
			return
		}
		got, ok := fm.Append([]byte("="), x)
		want := h.Handle([]byte(req + jsNumber(x)))
		if ok != (want[0] == '=') || ok && string(got) != string(want) {
			t.Fatalf("%s%v: Append %q (%v), the request %q", req, x, got, ok, want)
		}
	})
}
