const inputs = ["2024-03-01", "2024-03-01T10:20:30Z", "2024-03-01T10:20:30+02:00", "2024-03-01T10:20:30.123Z", "March 7, 2024", "not a date", "2024-02-30"];
const out = inputs.map((s) => {
  const d = new Date(s);
  return { s, valid: !isNaN(d), iso: isNaN(d) ? null : d.toISOString() };
});
const invalid = new Date("nope");
return { out, invalidString: String(invalid), invalidJSON: JSON.stringify({ d: invalid }), utc: Date.UTC(2024, 0, 31, 23, 59) };
