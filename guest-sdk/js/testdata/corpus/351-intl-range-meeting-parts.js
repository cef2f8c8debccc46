// A calendar widget's event chips, as a model writes them: the time of
// each event as a range, with formatRangeToParts to bold the start and
// dim what both ends share, in the attendees' zones and hour cycles.
const events = [
  { title: "Standup", start: Date.UTC(2024, 5, 3, 14, 0), end: Date.UTC(2024, 5, 3, 14, 15) },
  { title: "Design review", start: Date.UTC(2024, 5, 3, 16, 30), end: Date.UTC(2024, 5, 3, 18, 0) },
  { title: "Release night", start: Date.UTC(2024, 5, 3, 22, 0), end: Date.UTC(2024, 5, 4, 2, 30) },
  { title: "Offsite", start: Date.UTC(2024, 5, 10, 7, 0), end: Date.UTC(2024, 5, 12, 16, 0) },
];
const viewers = [
  { name: "NYC", locale: "en-US", timeZone: "America/New_York" },
  { name: "London", locale: "en-GB", timeZone: "Europe/London" },
  { name: "Berlin", locale: "de-DE", timeZone: "Europe/Berlin", hourCycle: "h23" },
  { name: "Tokyo", locale: "ja-JP", timeZone: "Asia/Tokyo" },
];
const chip = (parts) => parts.map((p) => p.source === "startRange" ? `*${p.value}*` : p.source === "shared" ? p.value : `_${p.value}_`).join("");
const out = {};
for (const v of viewers) {
  const f = new Intl.DateTimeFormat(v.locale, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZone: v.timeZone, hourCycle: v.hourCycle });
  out[v.name] = events.map((e) => {
    const parts = f.formatRangeToParts(e.start, e.end);
    console.log(`${v.name} | ${e.title}: ${chip(parts)}`);
    return { title: e.title, text: f.formatRange(e.start, e.end), shared: parts.filter((p) => p.source === "shared" && p.type !== "literal").map((p) => p.type) };
  });
}
const sample = new Intl.DateTimeFormat("en-US", { timeStyle: "short", timeZone: "UTC" });
out.sameInstant = sample.formatRangeToParts(events[0].start, events[0].start);
out.sources = [...new Set(Object.values(out).flat().map((x) => typeof x === "object" && x.source).filter(Boolean))];
return out;
