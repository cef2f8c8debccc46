package intl

import (
	"encoding/json"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

type segOptions struct {
	Granularity string `json:"granularity"`
}

type segResolved struct {
	Locale      string `json:"locale"`
	Granularity string `json:"granularity"`
}

// segAnswer lists the segments as [start, end] UTF-16 offsets (and, for
// words, whether each is word-like: 1 or 0).
type segAnswer struct {
	R segResolved `json:"r"`
	B [][]int     `json:"b,omitempty"`
}

// segmenter implements Intl.Segmenter with UAX #29 (github.com/rivo/uniseg).
func (h *Handler) segmenter(req *request) (any, error) {
	lc, err := resolve(req.L)
	if err != nil {
		return nil, err
	}
	var o segOptions
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	res := segResolved{Locale: lc.tag}
	if res.Granularity, err = enumOption("Segmenter", "granularity", o.Granularity, "grapheme", "grapheme", "word", "sentence"); err != nil {
		return nil, err
	}
	ans := &segAnswer{R: res}
	if len(req.V) == 0 {
		return ans, nil
	}
	var s string
	if err := json.Unmarshal(req.V, &s); err != nil {
		return nil, typeErr("malformed Intl value")
	}
	ans.B = [][]int{}
	pos, state := 0, -1
	for s != "" {
		var seg string
		switch res.Granularity {
		case "grapheme":
			seg, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		case "word":
			seg, s, state = uniseg.FirstWordInString(s, state)
		default:
			seg, s, state = uniseg.FirstSentenceInString(s, state)
		}
		n := utf16Len(seg)
		b := []int{pos, pos + n}
		if res.Granularity == "word" {
			b = append(b, wordLike(seg))
		}
		ans.B = append(ans.B, b)
		pos += n
	}
	return ans, nil
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// wordLike is ICU's rule status for a word segment: letters, digits or
// ideographs, not spaces or punctuation.
func wordLike(seg string) int {
	for _, r := range seg {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) {
			return 1
		}
	}
	return 0
}

type caseAnswer struct {
	S string `json:"s"`
}

// caseMap implements toLocaleUpperCase and toLocaleLowerCase with
// x/text/cases, which applies the language's special casing (Turkish and
// Azeri dotted and dotless i, Lithuanian dot above).
func (h *Handler) caseMap(req *request) (any, error) {
	var lang language.Tag
	for _, l := range req.L {
		t, err := parseTag(l)
		if err != nil {
			return nil, err
		}
		if lang == language.Und {
			lang = t
		}
	}
	var o struct {
		Upper bool `json:"upper"`
	}
	if err := options(req.O, &o); err != nil {
		return nil, err
	}
	var s string
	if err := json.Unmarshal(req.V, &s); err != nil || !utf8.ValidString(s) {
		return nil, typeErr("malformed Intl value")
	}
	b, _ := lang.Base()
	t := language.Make(b.String())
	if o.Upper {
		return caseAnswer{S: cases.Upper(t).String(s)}, nil
	}
	return caseAnswer{S: cases.Lower(t).String(s)}, nil
}
