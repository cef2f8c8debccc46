package intl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPluralOperands checks the operands of UTS #35's table (Plural
// Operand Examples) and ICU's truncations.
func TestPluralOperands(t *testing.T) {
	for _, tc := range []struct {
		text string
		e    int
		want pluralOperands
	}{
		{"1", 0, pluralOperands{n: 1, i: 1}},
		{"1.0", 0, pluralOperands{n: 1, i: 1, v: 1}},
		{"1.00", 0, pluralOperands{n: 1, i: 1, v: 2}},
		{"1.3", 0, pluralOperands{n: 1.3, i: 1, v: 1, w: 1, f: 3, t: 3}},
		{"1.30", 0, pluralOperands{n: 1.3, i: 1, v: 2, w: 1, f: 30, t: 3}},
		{"1.03", 0, pluralOperands{n: 1.03, i: 1, v: 2, w: 2, f: 3, t: 3}},
		{"1.230", 0, pluralOperands{n: 1.23, i: 1, v: 3, w: 2, f: 230, t: 23}},
		{"1200000", 0, pluralOperands{n: 1200000, i: 1200000}},
		{"1200000", 6, pluralOperands{n: 1200000, i: 1200000, e: 6}}, // 1.2c6
		{"123400", 3, pluralOperands{n: 123400, i: 123400, e: 3}},    // 123.4c3
		// ICU keeps the last 18 integer digits and the first 19 fraction digits.
		{"1" + strings.Repeat("0", 21), 0, pluralOperands{n: 1e21, i: 0}},
		{"1234" + strings.Repeat("0", 17), 0, pluralOperands{n: 1.234e20, i: 4e17}},
		{"0." + strings.Repeat("1", 30), 0, pluralOperands{n: 0.1111111111111111, i: 0, v: 30, w: 30, f: 1111111111111111111, t: 1111111111111111111}},
	} {
		t.Run(tc.text, func(t *testing.T) {
			require.Equal(t, tc.want, operandsOf(tc.text, tc.e))
		})
	}
}

// TestPluralSamples checks each linked language's rules on CLDR 48's
// samples (plurals.json's @integer and @decimal lists, compact exponents
// written out: 1c6 is "1000000" with e = 6).
func TestPluralSamples(t *testing.T) {
	type sample struct {
		text string
		e    int
		want string
	}
	for _, tc := range []struct {
		tag     string
		ordinal bool
		samples []sample
	}{
		{"fr", false, []sample{{"0", 0, "one"}, {"1", 0, "one"}, {"1.5", 0, "one"}, {"1000000", 0, "many"}, {"1000000", 6, "many"},
			{"2000000", 6, "many"}, {"1100000", 6, "many"}, {"1000000.1", 6, "many"}, {"2", 0, "other"}, {"1000", 3, "other"},
			{"1000.1", 3, "other"}, {"1000000.0", 0, "other"}, {"2.0", 0, "other"}}},
		{"es", false, []sample{{"1", 0, "one"}, {"1.0", 0, "one"}, {"1.00", 0, "one"}, {"1000000", 0, "many"}, {"3000000", 6, "many"},
			{"0", 0, "other"}, {"1.1", 0, "other"}, {"1000", 3, "other"}}},
		{"it", false, []sample{{"1", 0, "one"}, {"1.0", 0, "other"}, {"1000000", 0, "many"}, {"2000000", 6, "many"}, {"2000", 3, "other"}}},
		{"pt", false, []sample{{"0", 0, "one"}, {"1.5", 0, "one"}, {"1000000", 0, "many"}, {"2", 0, "other"}}},
		{"pt-PT", false, []sample{{"1", 0, "one"}, {"0", 0, "other"}, {"1000000", 0, "many"}}},
		{"ru", false, []sample{{"1", 0, "one"}, {"21", 0, "one"}, {"2", 0, "few"}, {"24", 0, "few"}, {"0", 0, "many"}, {"11", 0, "many"},
			{"112", 0, "many"}, {"1.5", 0, "other"}, {"1.0", 0, "other"}}},
		{"pl", false, []sample{{"1", 0, "one"}, {"22", 0, "few"}, {"0", 0, "many"}, {"21", 0, "many"}, {"12", 0, "many"}, {"0.5", 0, "other"}}},
		{"ar", false, []sample{{"0", 0, "zero"}, {"0.0", 0, "zero"}, {"1", 0, "one"}, {"2.00", 0, "two"}, {"3", 0, "few"}, {"110", 0, "few"},
			{"11", 0, "many"}, {"1011.0", 0, "many"}, {"100", 0, "other"}, {"0.1", 0, "other"}}},
		{"hi", false, []sample{{"0", 0, "one"}, {"1", 0, "one"}, {"0.04", 0, "one"}, {"1.1", 0, "other"}, {"2", 0, "other"}}},
		{"en", true, []sample{{"1", 0, "one"}, {"21", 0, "one"}, {"11", 0, "other"}, {"2", 0, "two"}, {"12", 0, "other"}, {"3", 0, "few"},
			{"103", 0, "few"}, {"113", 0, "other"}, {"4", 0, "other"}}},
		{"sv", true, []sample{{"1", 0, "one"}, {"2", 0, "one"}, {"22", 0, "one"}, {"11", 0, "other"}, {"3", 0, "other"}}},
		{"it", true, []sample{{"8", 0, "many"}, {"11", 0, "many"}, {"800", 0, "many"}, {"9", 0, "other"}}},
		{"hi", true, []sample{{"1", 0, "one"}, {"3", 0, "two"}, {"4", 0, "few"}, {"6", 0, "many"}, {"5", 0, "other"}}},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			lc, err := resolve([]string{tc.tag})
			require.NoError(t, err)
			s, tag := pluralRulesOf(lc, tc.ordinal)
			require.Equal(t, tc.tag, tag)
			for _, sm := range tc.samples {
				o := operandsOf(sm.text, sm.e)
				require.Equal(t, sm.want, s.category(&o), "%s c%d", sm.text, sm.e)
			}
		})
	}
}

// TestPluralData checks the generated rules' shape: every linked language
// has them, a category is listed once and "other" last, and a rule reads
// only CLDR's operands.
func TestPluralData(t *testing.T) {
	for _, tag := range supported().tags {
		b, _ := tag.Base()
		_, ok := pluralLocales[b.String()]
		require.True(t, ok, "no plural rules for %s", tag)
	}
	for i, s := range pluralSets {
		require.Equal(t, "other", s.cats[len(s.cats)-1], "set %d", i)
		require.Len(t, s.cats, len(s.rules)+1, "set %d", i)
		for _, r := range s.rules {
			require.Contains(t, s.cats, r.cat)
			for _, and := range r.ors {
				require.NotEmpty(t, and)
				for _, rel := range and {
					require.Contains(t, "nivwfte", string(rel.op))
					require.NotEmpty(t, rel.in)
					require.Zero(t, len(rel.in)%2)
				}
			}
		}
	}
}

// FuzzPluralSelect: select() and selectRange answer any value text (a
// number as JS prints it or not, long digit strings) with one of the
// locale's categories, or an error; never a panic, and the operands
// bound their work by the text's length.
func FuzzPluralSelect(f *testing.F) {
	for _, s := range []struct {
		loc, opts uint8
		v, w      string
	}{
		{0, 0, "1", ""}, {1, 1, "1000000", "2"}, {2, 2, "1e21", "NaN"}, {3, 3, "-0", "Infinity"}, {4, 0, "0.000001", "1e-7"},
		{5, 1, strings.Repeat("9", 400), "1." + strings.Repeat("0", 300) + "1"}, {6, 2, "abc", "1"}, {7, 3, "", "-"},
	} {
		f.Add(s.loc, s.opts, s.v, s.w)
	}
	h := New()
	locales := []string{"en", "fr", "ar-EG", "ru", "pl", "pt-PT", "hi", "it"}
	opts := []string{`{}`, `{"type":"ordinal"}`, `{"minimumFractionDigits":20}`, `{"maximumSignificantDigits":1,"type":"ordinal"}`}
	f.Fuzz(func(t *testing.T, loc, opt uint8, v, w string) {
		l := locales[int(loc)%len(locales)]
		o := opts[int(opt)%len(opts)]
		vj, _ := json.Marshal(v)
		req := `{"op":"pl","l":["` + l + `"],"o":` + o + `,"v":` + string(vj)
		if w != "" {
			wj, _ := json.Marshal(w)
			req += `,"w":` + string(wj)
		}
		var ans struct {
			R struct {
				Cats []string `json:"pluralCategories"`
			} `json:"r"`
			S string `json:"s"`
			E string `json:"e"`
		}
		out := h.Handle([]byte(req + "}"))
		require.NoError(t, json.Unmarshal(out, &ans), string(out))
		if ans.E == "" {
			require.Contains(t, ans.R.Cats, ans.S, req)
		}
	})
}
