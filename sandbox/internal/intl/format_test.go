package intl

import (
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJSNumber: jsNumber prints as JavaScript's Number::toString (values
// and texts checked in Node 20).
func TestJSNumber(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "-0"}, {math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
		{1, "1"}, {-1, "-1"}, {123456789, "123456789"}, {0.1, "0.1"}, {-0.000001, "-0.000001"}, {0.0000001, "1e-7"},
		{1.5e-7, "1.5e-7"}, {1e21, "1e+21"}, {1.25e21, "1.25e+21"}, {999999999999999900000, "999999999999999900000"},
		{123e18, "123000000000000000000"}, {0.30000000000000004, "0.30000000000000004"}, {4069326.06, "4069326.06"},
		{-1178276.5714285714, "-1178276.5714285714"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{5e-324, "5e-324"}, {-2.5e-5, "-0.000025"}, {100, "100"}, {1.7e300, "1.7e+300"},
	} {
		require.Equal(t, tt.want, jsNumber(tt.x), "%v", tt.x)
	}
}

// TestPlainFormatsAsNumberFormat: a format with plain decimal options
// prints, for random values that round, carry and group, what the number
// format prints for the value's text (the compiled request's answer), in
// locales with other symbols and grouping and with the options that change
// digits and grouping.
func TestPlainFormatsAsNumberFormat(t *testing.T) {
	h := New()
	locales := []string{"en-US", "de-DE", "fr-FR", "es-ES", "pl-PL", "en-IN", "sv-SE", "de-CH", "pt-PT", "it-IT", "hi-IN", "ja-JP"}
	options := []string{`{}`, `{"maximumFractionDigits":0}`, `{"maximumFractionDigits":2}`,
		`{"minimumFractionDigits":3,"maximumFractionDigits":5}`, `{"useGrouping":false}`, `{"useGrouping":"always"}`,
		`{"useGrouping":"min2"}`, `{"maximumFractionDigits":20}`, `{"minimumFractionDigits":2}`}
	r := rand.New(rand.NewPCG(3, 4))
	values := []float64{1, -1, 0.5, -0.5, 1.5, 2.5, 0.995, 9.995, 999.5, 9999.5, 99999.95, 0.0005, -0.0004, 1e-7, 123e-9,
		1e21, 1.5e21, -9.99e25, 1e300, 5e-324, math.MaxFloat64, 1234567.891, 0.30000000000000004, 1000, 10000, 100000, 1e15, 1 << 53}
	for range 3000 {
		scale := math.Pow(10, float64(r.IntN(40)-15))
		x := math.Round(r.Float64()*1e6) / 1e3 * scale
		if r.IntN(3) == 0 {
			x = -x
		}
		if r.IntN(5) == 0 {
			x = math.Floor(x) + 0.5
		}
		if r.IntN(7) == 0 {
			x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'f', r.IntN(4), 64)+"5", 64)
		}
		values = append(values, x)
	}
	plain := 0
	for _, l := range locales {
		for _, o := range options {
			req := `N{"l":["` + l + `"],"o":` + o + "}\n"
			f, err := h.CompileFormat(req)
			require.NoError(t, err)
			if f.plain != nil {
				plain++
			}
			for _, x := range values {
				got, ok := f.Append([]byte("="), x)
				require.True(t, ok)
				want := string(h.Handle([]byte(req + jsNumber(x))))
				require.Equal(t, want, string(got), "%s %s %v", l, o, x)
			}
		}
	}
	require.Greater(t, plain, len(locales)*len(options)/2, "most of these formats are plain decimal ones")
}

// TestFormatDates: a date format prints what the compiled request does
// for the time as JavaScript prints it, and fails where it does.
func TestFormatDates(t *testing.T) {
	h := New()
	req := `D{"l":["en-US"],"o":{"dateStyle":"medium","timeStyle":"short"}}` + "\n"
	f, err := h.CompileFormat(req)
	require.NoError(t, err)
	for _, ms := range []float64{0, -1, 1.5, 1e12, -8.64e15, 8.64e15, 1700000000123} {
		got, ok := f.Append([]byte("="), ms)
		require.True(t, ok)
		require.Equal(t, string(h.Handle([]byte(req+jsNumber(ms)))), string(got))
	}
	for _, ms := range []float64{math.NaN(), math.Inf(1), 8.64e15 + 1} {
		got, ok := f.Append([]byte("x"), ms)
		require.False(t, ok, "%v", ms)
		require.Equal(t, "x", string(got))
		require.NotEqual(t, '=', h.Handle([]byte(req + jsNumber(ms)))[0])
	}
	for _, bad := range []string{"", "K{}", "N", "Nnot json", `N{"l":["en"],"o":{"style":"currency"}}`, `D{"l":["en"],"o":{"timeZone":"Mars/Olympus"}}`} {
		_, err := h.CompileFormat(bad)
		require.Error(t, err, bad)
		require.Contains(t, string(ErrorAnswer(err)), `"e":`)
	}
}

// TestFormatConcurrent: one Format serves many goroutines (the runs of
// every engine share the handler's compiled formats); run with -race.
func TestFormatConcurrent(t *testing.T) {
	h := New()
	var fs []*Format
	for _, req := range []string{`N{"l":["de-DE"],"o":{"maximumFractionDigits":2}}`, `N{"l":["en-US"],"o":{"style":"percent"}}`,
		`D{"l":["fr-FR"],"o":{"dateStyle":"full"}}`} {
		f, err := h.CompileFormat(req)
		require.NoError(t, err)
		fs = append(fs, f)
	}
	want := make([][]string, len(fs))
	for k, f := range fs {
		for i := range 300 {
			b, ok := f.Append(nil, float64(i)*1234567.891)
			require.True(t, ok)
			want[k] = append(want[k], string(b))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for i := range 300 {
				k := (g + i) % len(fs)
				b, ok := fs[k].Append(buf[:0], float64(i)*1234567.891)
				if !ok || string(b) != want[k][i] {
					errs <- string(b)
					return
				}
				buf = b
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error("differs:", e)
	}
}
