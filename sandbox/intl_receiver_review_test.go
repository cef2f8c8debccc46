package sandbox

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestIntlRangeReceiverMessages: formatRange's and formatRangeToParts'
// TypeError for a wrong receiver, and the RangeError for an end that is
// not a number, show the value as V8's NoSideEffectsToString does (Node
// 20's messages): #<Constructor> where toString is Object.prototype's
// (#<DateTimeFormat>, #<Map>, #<Object> for Math and a toStringTag),
// [object Tag] where it is not ([object Array], [object Intl.Locale]), a
// function's source, an error's "Name: message". The two prelude files
// showed them otherwise, each in its own way.
func TestIntlRangeReceiverMessages(t *testing.T) {
	res, err := engine(t).Run(context.Background(), Script{Source: `
const out = [];
const recvs = [new Map, [1, 2], new Date(0), Object.create(null), { [Symbol.toStringTag]: "X" }, Math, new Intl.Collator,
  new Intl.Locale("en"), new TypeError("m"), function g() {}, Intl.NumberFormat.prototype, new Intl.PluralRules, new Number(3)];
for (const v of recvs) {
  for (const f of [Intl.NumberFormat.prototype.formatRange, Intl.DateTimeFormat.prototype.formatRangeToParts]) {
    try { f.call(v, 1, 2); out.push("no error"); } catch (e) { out.push(e.name + ": " + e.message.replace(/^.*receiver /, "")); }
  }
}
try { new Intl.NumberFormat().formatRange(1, new Intl.DateTimeFormat); } catch (e) { out.push(e.message); }
return out;`}, okBridge, Limits{Timeout: time.Minute})
	require.NoError(t, err)
	var got []string
	require.NoError(t, json.Unmarshal(res.Value, &got))
	te := func(s string) []string { return []string{"TypeError: " + s, "TypeError: " + s} }
	var want []string
	for _, s := range []string{"#<Map>", "[object Array]", "[object Date]", "[object Object]", "#<Object>", "#<Object>", "#<Collator>",
		"[object Intl.Locale]", "TypeError: m", "function g() {}", "#<NumberFormat>", "#<PluralRules>", "[object Number]"} {
		want = append(want, te(s)...)
	}
	want = append(want, "Invalid end : #<DateTimeFormat>")
	require.Equal(t, want, got)
}

// TestIntlRangeTinyDecimal: a decimal string below a double's range that
// is not zero is an end as written, as V8 keeps it and as format() has it
// ("1E-325 – 1E0" in scientific notation, Node 20); the prelude sent it as
// the double 0 ("0E0 – 1E0"). Past the exponents the host reads (1,000)
// it is still 0 (Node: "1E-1001 – 1E0").
func TestIntlRangeTinyDecimal(t *testing.T) {
	res, err := engine(t).Run(context.Background(), Script{Source: `
const s = new Intl.NumberFormat("en", { notation: "scientific" }), e = new Intl.NumberFormat("en", { notation: "engineering" });
return [s.formatRange("1e-325", 1), s.formatRange(" -1e-400 ", "-1e-400"), e.formatRange("0.0001e-400", 1), s.formatRange("-0.000", 1),
  new Intl.NumberFormat("en").formatRange("-1e-400", 1), s.formatRange("1e-1001", 1)];`}, okBridge, Limits{Timeout: time.Minute})
	require.NoError(t, err)
	var got []string
	require.NoError(t, json.Unmarshal(res.Value, &got))
	require.Equal(t, []string{"1E-325 – 1E0", "~-1E-400", "10E-405 – 1E0", "-0E0 – 1E0", "-0 – 1", "0E0 – 1E0"}, got)
}
