package sandbox

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestIntlRangeBounds: formatRange's ends and supportedValuesOf's key are
// untrusted input to a host operation; each is bounded before any work
// (the request's 64 KiB, a value's 4,096 characters, the key's six names)
// and a hostile script gets V8's errors or the bound's, never a host
// failure.
func TestIntlRangeBounds(t *testing.T) {
	res, err := engine(t).Run(context.Background(), Script{Source: `
const out = [];
const nf = new Intl.NumberFormat("en");
for (const f of [
  () => nf.formatRange(1, "1" + "0".repeat(5000)),
  () => nf.formatRange(BigInt("9".repeat(5000)), 1n),
  () => nf.formatRange("1." + "0".repeat(70000), 2),
  () => nf.formatRange("1e1001", "-1e1001"),
  () => nf.formatRange("1e-1001", 1),
  () => nf.formatRangeToParts("x".repeat(70000), 1),
  () => Intl.supportedValuesOf("k".repeat(70000)).length,
  () => Intl.supportedValuesOf({ toString() { return "unit"; } }).length,
  () => new Intl.NumberFormat("en", { style: "unit", unit: "x".repeat(3000) }).formatRange(1, 2),
]) { try { out.push(String(f())); } catch (e) { out.push(e.name + ": " + e.message.slice(0, 60)); } }
let n = 0;
for (let i = 0; i < 400; i++) {
  const o = { maximumFractionDigits: i % 21, minimumIntegerDigits: 1 + (i >> 3) % 21, style: i % 2 ? "percent" : "decimal" };
  if (new Intl.NumberFormat("en-x-" + i.toString(36).padStart(3, "0"), o).formatRange(-i, i * 1.5).length > 0) n++;
}
out.push(n);
return out;`}, okBridge, Limits{Timeout: time.Minute})
	require.NoError(t, err)
	var got []any
	require.NoError(t, json.Unmarshal(res.Value, &got))
	require.Equal(t, []any{
		"1–∞", // 10^5000 is past a double's range: Infinity, as in V8
		"RangeError: Intl value of 5000 characters exceeds 4096",
		"RangeError: Intl request too large",
		"∞–-∞",
		"0–1",
		"RangeError: Invalid start : xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"RangeError: Invalid key : kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
		"45",
		"RangeError: Value of 3000 bytes out of range for options property unit",
		float64(400),
	}, got)
}

// TestIntlShapeDifferences pins the differences README.md lists of Intl's
// objects' shapes (each fails once fixed): reading format leaves an own
// property, and Intl's constructors are in another order than Node's.
func TestIntlShapeDifferences(t *testing.T) {
	res, err := engine(t).Run(context.Background(), Script{Source: `
const nf = new Intl.NumberFormat(); nf.format;
return [Object.getOwnPropertyNames(nf).join(","), Object.getOwnPropertyNames(Intl).slice(0, 4).join(",")];`}, okBridge, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `["format","getCanonicalLocales,supportedValuesOf,NumberFormat,DateTimeFormat"]`, string(res.Value),
		`Node: ["","getCanonicalLocales,supportedValuesOf,DateTimeFormat,NumberFormat"]`)
}
