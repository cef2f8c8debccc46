// A meeting planner tells each office when the all-hands starts, in its
// own language and with its zone spelled out (timeZoneName "long",
// timeStyle "full"), in winter and in summer, and lists the zone names a
// calendar invite would show.
const offices = [
  { city: "San Francisco", locale: "en-US", timeZone: "America/Los_Angeles" },
  { city: "New York", locale: "en-US", timeZone: "America/New_York" },
  { city: "London", locale: "en-GB", timeZone: "Europe/London" },
  { city: "Berlin", locale: "de-DE", timeZone: "Europe/Berlin" },
  { city: "Paris", locale: "fr-FR", timeZone: "Europe/Paris" },
  { city: "São Paulo", locale: "pt-BR", timeZone: "America/Sao_Paulo" },
  { city: "Moscow", locale: "ru-RU", timeZone: "Europe/Moscow" },
  { city: "Bengaluru", locale: "hi-IN", timeZone: "Asia/Kolkata" },
  { city: "Tokyo", locale: "ja-JP", timeZone: "Asia/Tokyo" },
  { city: "Sydney", locale: "en-AU", timeZone: "Australia/Sydney" },
  { city: "St. John's", locale: "en-CA", timeZone: "America/St_Johns" },
  { city: "Tehran", locale: "en", timeZone: "Asia/Tehran" },
];
const meetings = [new Date("2024-01-18T16:00:00Z"), new Date("2024-07-18T16:00:00Z")];
const schedule = offices.map((o) => ({
  city: o.city,
  starts: meetings.map((m) => new Intl.DateTimeFormat(o.locale, {
    timeZone: o.timeZone, weekday: "long", hour: "numeric", minute: "2-digit", timeZoneName: "long",
  }).format(m)),
  full: new Intl.DateTimeFormat(o.locale, { timeZone: o.timeZone, dateStyle: "medium", timeStyle: "full" }).format(meetings[1]),
}));
for (const s of schedule) console.log(`${s.city}: ${s.starts.join(" / ")}`);
const zoneOf = (locale, timeZone, when) => new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: "long" })
  .formatToParts(when).find((p) => p.type === "timeZoneName").value;
const invite = ["en", "es", "it", "ko", "zh", "nl", "pl", "sv", "tr", "ar"].map((l) =>
  [l, zoneOf(l, "America/Los_Angeles", meetings[0]), zoneOf(l, "Europe/London", meetings[1]), zoneOf(l, "Pacific/Auckland", meetings[0])]);
const local = meetings.map((m) => m.toLocaleTimeString("en-US", { timeZone: "America/Chicago", timeZoneName: "long" }));
return { schedule, invite, local };
