// Dates in the Persian, Hebrew, Indian, Umm al-Qura, Coptic and Ethiopic
// calendars, as a model writes them for users who keep them: Nowruz and
// the Persian year ICU 78 does not leap (1502 AP), Hebrew leap years with
// Adar I and Adar II, Rosh Hashanah, the Saka new year, Ramadan in Umm
// al-Qura and at the ends of its table, the Ethiopian new year; parts,
// resolved options, a reused formatter, and hostile values (NaN, Date's
// ends, a long calendar name) that must fail or format as in Node.
const utc = { timeZone: "UTC" };
const days = [Date.UTC(2024, 0, 15, 9, 30), Date.UTC(2024, 2, 20), Date.UTC(2024, 2, 19), Date.UTC(2124, 2, 19), Date.UTC(2124, 2, 20),
  Date.UTC(2024, 1, 10), Date.UTC(2024, 2, 11), Date.UTC(2025, 2, 1), Date.UTC(2024, 9, 3), Date.UTC(2023, 2, 22), Date.UTC(2024, 2, 21),
  Date.UTC(2025, 2, 1, 18), Date.UTC(1882, 10, 12), Date.UTC(2174, 10, 26), Date.UTC(2023, 8, 12), Date.UTC(2024, 8, 11)];
const out = {};
const cals = ["persian", "hebrew", "indian", "islamic-umalqura", "coptic", "ethiopic", "ethioaa"];
for (const ca of cals) {
  const long = new Intl.DateTimeFormat("en-US-u-ca-" + ca, { dateStyle: "full", ...utc });
  out[ca] = days.map((t) => long.format(t));
  out[ca + "-short"] = ["de-DE", "fr-FR", "ja-JP", "ar-EG", "ko-KR", "ru", "zh-CN", "pt-BR", "sv", "it", "es-MX"].map((l) =>
    new Date(days[0]).toLocaleDateString(l, { calendar: ca, ...utc }));
  out[ca + "-resolved"] = new Intl.DateTimeFormat("de", { calendar: ca, month: "long", day: "numeric" }).resolvedOptions();
}
const persian = new Intl.DateTimeFormat("en-u-ca-persian", { era: "long", year: "numeric", month: "long", day: "numeric", weekday: "long", ...utc });
out.nowruzParts = persian.formatToParts(days[1]);
out.jalali = [2020, 2021, 2022, 2023, 2024, 2025, 2122, 2123, 2124, 2125].map((y) => persian.format(Date.UTC(y, 2, 20)));
const hebrew = new Intl.DateTimeFormat("en", { calendar: "hebrew", year: "numeric", month: "long", day: "numeric", ...utc });
out.adar = [2024, 2025, 2027, 2030].map((y) => hebrew.formatToParts(Date.UTC(y, 2, 10)).map((p) => p.value).join(""));
out.hebrewNumeric = ["de", "fr", "ja", "es"].map((l) => new Date(days[6]).toLocaleDateString(l + "-u-ca-hebrew", utc));
out.ramadan = [2020, 2024, 2025, 2030].map((y) =>
  new Date(Date.UTC(y, 3, 1)).toLocaleString("ar-EG-u-ca-islamic-umalqura", { dateStyle: "long", timeStyle: "short", ...utc }));
out.saka = new Intl.DateTimeFormat("en-IN", { calendar: "indian", dateStyle: "long", ...utc }).format(days[9]);
out.meskerem = ["en", "de"].map((l) => new Date(days[14]).toLocaleString(l + "-u-ca-ethiopic", { era: "short", ...utc }));
out.ends = cals.map((ca) => [-8.64e15, 8.64e15].map((t) =>
  new Intl.DateTimeFormat("en", { calendar: ca, era: "short", year: "numeric", month: "short", day: "numeric", ...utc }).format(t)).join(" | "));
out.nan = cals.map((ca) => {
  try {
    return new Intl.DateTimeFormat("en", { calendar: ca }).format(NaN);
  } catch (e) {
    return e.name + ": " + e.message;
  }
});
out.longName = new Intl.DateTimeFormat("en", { calendar: Array(100).fill("persian").join("-"), ...utc }).resolvedOptions().calendar;
try {
  new Intl.DateTimeFormat("en", { calendar: "persian!" });
} catch (e) {
  out.badName = e.name + ": " + e.message;
}
console.log(out.persian[1]);
return out;
