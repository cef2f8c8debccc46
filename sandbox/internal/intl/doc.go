// Package intl answers the guest's Intl requests (ECMA-402: number, date,
// collation, plural and case formatting) from CLDR data in Go libraries, so
// that the guest prelude's Intl objects print what Node 20 prints.
//
//	h := intl.New()
//	out := h.Handle([]byte(`{"op":"nf","l":["de-DE"],"v":"1234.5"}`))
//	// out: {"r":{"locale":"de-DE",...},"s":"1.234,5"}
//
// Data sources: number symbols, grouping, numbering systems, currency
// symbols, digits and patterns come from github.com/bojanz/currency
// (generated from CLDR 48.1; Node 20's ICU 78.2 ships CLDR 48.0); percent
// patterns from the CLDR-generated github.com/go-playground/locales, which
// also names the linked locales (locales_gen.go); the names, eras and
// patterns of the Gregorian, Japanese, Buddhist, ROC and tabular Islamic
// calendars (calendar.go converts the days), list patterns, relative time fields, compact decimal and unit
// patterns from the CLDR 48.0 JSON distribution, extracted for the linked
// locales by internal/gencldr into cldr_gen.go; zone names (metazones,
// their names, the zones' metazones over time, exemplar cities) from the
// same distribution by internal/genzones into zonenames_gen.go
// (zonenames.go names a zone as ICU does); plural rules from CLDR 48.0's
// plurals.json and ordinals.json, compiled by internal/genplural into
// plurals_gen.go and evaluated by plural.go; language matching, collation
// and case mapping from golang.org/x/text; word, grapheme and sentence
// boundaries from github.com/rivo/uniseg, with words re-cut as ICU's word
// rules and its Chinese/Japanese, Thai, Lao, Burmese and Khmer dictionary
// engines cut them (segment.go, cjk.go, lookahead.go, thai.go, seasia.go),
// from ICU 78.2's own dictionaries, which
// internal/gendict takes from Node 20's executable into dict_gen.go; time
// zones and their offsets and daylight time from Go's embedded tzdata.
//
// # Requests
//
// A request is one JSON object {"op": …, "l": locales, "o": options, "v":
// value, "w": second value, "p": parts wanted}; op is "canon",
// "supported", "nf" (NumberFormat), "dtf" (DateTimeFormat), "col"
// (Collator), "pl" (PluralRules), "list", "rt" (RelativeTimeFormat), "seg"
// (Segmenter) or "case" (toLocaleUpperCase/LowerCase). The answer is one
// JSON object, either the op's result or {"e": "RangeError"|"TypeError",
// "m": message} with V8's message. Every size the guest controls is bounded
// before it is used: the request (MaxRequestBytes), strings, the number of
// locales and list items, and fraction and significant digits (V8's ranges).
//
// The hot paths use compiled requests instead (compiled.go): a letter ("N"
// format a number, "D" a date, "K" collation keys, "S" sort strings, "F"
// a number pattern), options as the same text every time, which the
// Handler resolves once and keeps, and a payload; the answer is "=" and
// text. The guest compares collation keys itself and formats plain
// decimals itself from an F pattern, so most comparisons and many number
// formats make no request at all (RATIONALE.md, "Why does the guest
// compare collation keys and format plain numbers itself?").
//
// # Concurrency
//
// A Handler is safe for concurrent use; it caches per-locale data and
// compiled options in bounded caches.
package intl
