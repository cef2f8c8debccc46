// A multi-country travel itinerary, as a model writes it for a trip
// planner: each leg's dates in the traveller's language (Spanish, Korean,
// Chinese, Russian, Arabic, Dutch), flights as date-time ranges within a
// day and across midnight, and the whole trip as one range.
const legs = [
  { from: "Madrid", to: "Seoul", dep: "2024-09-14T10:20:00Z", arr: "2024-09-15T02:05:00Z", locale: "es-ES" },
  { from: "Seoul", to: "Shanghai", dep: "2024-09-18T01:10:00Z", arr: "2024-09-18T03:00:00Z", locale: "ko-KR" },
  { from: "Shanghai", to: "Moscow", dep: "2024-09-21T04:00:00Z", arr: "2024-09-21T13:40:00Z", locale: "zh-CN" },
  { from: "Moscow", to: "Cairo", dep: "2024-09-25T08:00:00Z", arr: "2024-09-25T12:30:00Z", locale: "ru-RU" },
  { from: "Cairo", to: "Amsterdam", dep: "2024-09-29T22:45:00Z", arr: "2024-09-30T03:15:00Z", locale: "ar-EG" },
  { from: "Amsterdam", to: "Madrid", dep: "2024-10-03T06:30:00Z", arr: "2024-10-03T09:05:00Z", locale: "nl-NL" },
];
const out = legs.map((l) => {
  const dep = Date.parse(l.dep), arr = Date.parse(l.arr);
  const flight = new Intl.DateTimeFormat(l.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  const times = new Intl.DateTimeFormat(l.locale, { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
  const days = new Intl.DateTimeFormat(l.locale, { weekday: "short", month: "long", day: "numeric", timeZone: "UTC" });
  return { leg: `${l.from} → ${l.to}`, flight: flight.formatRange(dep, arr), times: times.formatRange(dep, arr), days: days.formatRange(dep, arr) };
});
const trip = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
const whole = trip.formatRange(Date.parse(legs[0].dep), Date.parse(legs[legs.length - 1].arr));
for (const o of out) console.log(`${o.leg}: ${o.flight} | ${o.times} | ${o.days}`);
console.log("Trip: " + whole);
return { legs: out, whole, years: new Intl.DateTimeFormat("en", { year: "numeric", timeZone: "UTC" }).formatRange(Date.UTC(2019, 0), Date.UTC(2024, 0)) };
