// A meeting invitation for a team across time zones: each attendee's local
// time with an offset zone name (shortOffset, longOffset) or a zone name,
// in their language (Korean, Japanese, German, English, Arabic), and a
// few unusual field mixes a summary line produces (a day with a year but
// no month, a weekday with only a month).
const start = Date.UTC(2024, 2, 12, 15, 30);
const people = [
  ["민준", "ko-KR", "Asia/Seoul"], ["Haruto", "ja-JP", "Asia/Tokyo"], ["Lena", "de-DE", "Europe/Berlin"],
  ["Sam", "en-US", "America/New_York"], ["Omar", "ar-EG", "Africa/Cairo"], ["Priya", "hi-IN", "Asia/Kolkata"],
];
const lines = [];
for (const [name, locale, timeZone] of people) {
  const cells = ["shortOffset", "longOffset", "short", "shortGeneric"].map((tz) =>
    new Intl.DateTimeFormat(locale, { timeZone, hour: "numeric", minute: "2-digit", timeZoneName: tz }).format(start));
  const withDate = new Intl.DateTimeFormat(locale, { timeZone, month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "shortOffset" });
  lines.push(`${name}: ${cells.join(" | ")} | ${withDate.format(start)}`);
}
console.log(lines.join("\n"));
const odd = {};
for (const l of ["en", "de", "ko", "pl", "zh"]) {
  odd[l] = [
    new Intl.DateTimeFormat(l, { timeZone: "UTC", year: "numeric", day: "numeric" }),
    new Intl.DateTimeFormat(l, { timeZone: "UTC", weekday: "short", month: "long" }),
    new Intl.DateTimeFormat(l, { timeZone: "UTC", hour: "numeric", second: "numeric" }),
  ].map((f) => ({ text: f.format(start), resolved: f.resolvedOptions() }));
}
return { lines: lines.length, odd };
