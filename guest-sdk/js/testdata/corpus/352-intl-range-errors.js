// A report helper that validates its date ranges before formatting them,
// as a model writes it defensively: undefined ends, invalid dates, BigInt
// timestamps and a swapped range, each caught and reported.
const fmt = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
const ranges = [
  ["Q1 close", new Date("2024-03-28T09:00:00Z"), new Date("2024-04-02T17:30:00Z")],
  ["missing end", new Date("2024-05-01T00:00:00Z"), undefined],
  ["bad start", new Date("not a date"), new Date("2024-05-02T00:00:00Z")],
  ["bigint", 1717200000000n, 1717286400000n],
  ["swapped", Date.UTC(2024, 6, 9, 18), Date.UTC(2024, 6, 9, 9)],
  ["string stamps", "1717200000000", "1717203600000"],
  ["too far", 0, 8.64e15 + 1],
];
const report = [];
for (const [label, a, b] of ranges) {
  try {
    report.push({ label, ok: true, text: fmt.formatRange(a, b), parts: fmt.formatRangeToParts(a, b).length });
  } catch (e) {
    report.push({ label, ok: false, error: `${e.name}: ${e.message}` });
  }
}
let receiver;
try { Intl.DateTimeFormat.prototype.formatRange.call({}, 0, 1); } catch (e) { receiver = e.message; }
console.log(report.map((r) => `${r.label}: ${r.ok ? r.text : r.error}`).join("\n"));
return { report, receiver, lengths: [fmt.formatRange.length, fmt.formatRangeToParts.length] };
