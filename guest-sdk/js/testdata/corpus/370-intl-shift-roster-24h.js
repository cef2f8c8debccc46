// A weekly shift roster for a European support team, as a model writes it:
// each shift's weekday with a 24-hour start time (hourCycle "h23") in the
// agent's own locale, the handover times in a compact form, and the
// resolved options a script checks before it trusts the format.
const agents = [
  { name: "Anna", locale: "de-DE", timeZone: "Europe/Berlin" },
  { name: "Luc", locale: "fr-FR", timeZone: "Europe/Paris" },
  { name: "Oliver", locale: "en-GB", timeZone: "Europe/London" },
  { name: "Giulia", locale: "it-IT", timeZone: "Europe/Rome" },
  { name: "Wei", locale: "zh-CN", timeZone: "Asia/Shanghai" },
  { name: "Sofia", locale: "pt-PT", timeZone: "Europe/Lisbon" },
];
const shifts = [
  Date.UTC(2024, 0, 15, 6, 0),
  Date.UTC(2024, 0, 16, 14, 30),
  Date.UTC(2024, 0, 17, 22, 0),
  Date.UTC(2024, 0, 20, 23, 5),
];
const lines = [];
const resolved = {};
for (const a of agents) {
  const start = new Intl.DateTimeFormat(a.locale, {
    timeZone: a.timeZone, weekday: "short", hour: "numeric", minute: "2-digit", hourCycle: "h23",
  });
  const handover = new Intl.DateTimeFormat(a.locale, {
    timeZone: a.timeZone, weekday: "long", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hour12: false,
  });
  const row = shifts.map((t) => start.format(t)).join(" | ");
  lines.push(`${a.name.padEnd(7)} ${row}`);
  lines.push(`        handover ${handover.format(shifts[shifts.length - 1])}`);
  const r = start.resolvedOptions();
  resolved[a.locale] = { hour: r.hour, minute: r.minute, hourCycle: r.hourCycle, weekday: r.weekday };
}
console.log(lines.join("\n"));
return { resolved, parts: new Intl.DateTimeFormat("de", { weekday: "short", hour: "numeric", minute: "2-digit", hourCycle: "h23", timeZone: "UTC" }).formatToParts(shifts[0]) };
