// Validation of the rounding options: the error and its message for bad
// values, and the order in which NumberFormat reads and checks them.
const attempts = [
  { roundingIncrement: 3 }, { roundingIncrement: 0 }, { roundingIncrement: 5001 }, { roundingIncrement: 5000.5 },
  { roundingIncrement: NaN }, { roundingIncrement: "x" }, { roundingIncrement: "25" }, { roundingIncrement: 2.9 },
  { roundingIncrement: 1e300 }, { roundingIncrement: -Infinity }, { roundingIncrement: 5 },
  { roundingIncrement: 5, maximumFractionDigits: 2 }, { roundingIncrement: 5, minimumFractionDigits: 2 },
  { roundingIncrement: 5, minimumFractionDigits: 2, maximumFractionDigits: 2 },
  { roundingIncrement: 5, maximumSignificantDigits: 2 }, { roundingIncrement: 5, roundingPriority: "lessPrecision" },
  { roundingIncrement: 5, notation: "compact" }, { roundingIncrement: 10, style: "currency", currency: "USD" },
  { roundingIncrement: 10, style: "percent" },
  { roundingMode: "x" }, { roundingMode: "HALFEVEN" }, { roundingMode: "" }, { roundingMode: "halfeven" }, { roundingMode: null },
  { roundingPriority: "more" }, { roundingPriority: "" }, { trailingZeroDisplay: "strip" }, { trailingZeroDisplay: false },
  { maximumFractionDigits: 20.5 }, { maximumFractionDigits: 19.9 }, { minimumIntegerDigits: 21.5 }, { minimumIntegerDigits: 0.5 },
  { maximumSignificantDigits: 21.1 }, { minimumSignificantDigits: 0.9 }, { minimumFractionDigits: 3, maximumFractionDigits: 2 },
  { roundingMode: "x", roundingIncrement: 3 }, { roundingPriority: "x", roundingMode: "y" }, { trailingZeroDisplay: "x", maximumFractionDigits: 99 },
  { roundingMode: "x".repeat(500) },
];
const out = [];
for (const o of attempts) {
  try {
    const r = new Intl.NumberFormat("en", o).resolvedOptions();
    out.push("ok " + [r.minimumFractionDigits, r.maximumFractionDigits, r.roundingIncrement, r.roundingMode, r.roundingPriority, r.trailingZeroDisplay].join(","));
  } catch (e) {
    out.push(e.name + ": " + e.message);
  }
}
try {
  (1.5).toLocaleString("en", { roundingIncrement: 7 });
} catch (e) {
  console.log(e.name, e.message);
}
new Intl.NumberFormat("en", { roundingMode: "sideways" });
return out;
