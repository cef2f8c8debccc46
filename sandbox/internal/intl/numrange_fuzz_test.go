package intl

import (
	"encoding/json"
	"testing"
)

// FuzzNumberRange: "nfr" answers any two end texts (garbage, huge
// exponents, long digit runs, NaN) with any of several styles: a range,
// or a RangeError or TypeError; it never panics, and a value longer than
// maxValueChars is refused before it is read.
func FuzzNumberRange(f *testing.F) {
	for _, s := range []struct {
		a, b  string
		kinds uint8
		style uint8
	}{
		{"3", "5", 0, 0}, {"3", "3", 1, 1}, {"-0", "0", 0, 2}, {"1e1001", "2", 3, 3}, {"NaN", "1", 0, 4}, {"", " ", 3, 5},
		{"Infinity", "-Infinity", 0, 6}, {"0.10000000000000000001", "0.1", 3, 7}, {"999999", "1000000", 0, 8}, {"1", "x", 2, 0},
	} {
		f.Add(s.a, s.b, s.kinds, s.style)
	}
	h := New()
	styles := []string{`{}`, `{"style":"percent"}`, `{"signDisplay":"never"}`, `{"style":"currency","currency":"USD","currencySign":"accounting"}`,
		`{"style":"unit","unit":"kilometer","unitDisplay":"long"}`, `{"notation":"compact","compactDisplay":"long"}`,
		`{"notation":"scientific"}`, `{"maximumFractionDigits":20}`, `{"style":"currency","currency":"EUR","notation":"compact","currencyDisplay":"code"}`}
	locales := []string{"en", "de-CH", "ar-EG", "ja", "fr", "nl", "he", "ru", "hi"}
	f.Fuzz(func(t *testing.T, a, b string, kinds, style uint8) {
		kind := func(bit uint8) string {
			if kinds&bit != 0 {
				return "d"
			}
			return "n"
		}
		va, _ := json.Marshal([2]string{a, kind(1)})
		vb, _ := json.Marshal([2]string{b, kind(2)})
		req := `{"op":"nfr","l":["` + locales[int(style)%len(locales)] + `"],"o":` + styles[int(style)%len(styles)] +
			`,"v":` + string(va) + `,"w":` + string(vb) + `,"p":true}`
		var ans struct {
			S *string     `json:"s"`
			P [][3]string `json:"p"`
			E string      `json:"e"`
		}
		out := h.Handle([]byte(req))
		if err := json.Unmarshal(out, &ans); err != nil {
			t.Fatalf("%s: %s", req, out)
		}
		if (ans.S == nil) == (ans.E == "") {
			t.Fatalf("%s: neither a range nor an error: %s", req, out)
		}
		if ans.S != nil {
			text := ""
			for _, p := range ans.P {
				text += p[1]
				if p[2] != "startRange" && p[2] != "endRange" && p[2] != "shared" {
					t.Fatalf("%s: source %q", req, p[2])
				}
			}
			if text != *ans.S {
				t.Fatalf("%s: parts %q, text %q", req, text, *ans.S)
			}
		}
	})
}
