// Dates in the Japanese, Buddhist, ROC and tabular Islamic calendars, as a
// model writes them for users who count years so: era names across the
// Reiwa/Heisei/Shōwa changes, 元年, the formatter's parts and options, a
// reused formatter, a day before the Julian calendar's end (1582), and the
// Islamic calendar's first day.
const days = [Date.UTC(2024, 0, 15, 9, 30), Date.UTC(2019, 4, 1), Date.UTC(2019, 3, 30), Date.UTC(1989, 0, 8),
  Date.UTC(1989, 0, 7), Date.UTC(1926, 11, 25), Date.UTC(1912, 0, 1), Date.UTC(1868, 9, 23), Date.UTC(1582, 9, 4)];
const out = {};
out.ja = days.map((t) => [new Date(t).toLocaleDateString("ja-JP-u-ca-japanese", { timeZone: "UTC" }),
  new Date(t).toLocaleDateString("ja-JP-u-ca-japanese", { era: "long", timeZone: "UTC" }),
  new Date(t).toLocaleDateString("ja-JP", { calendar: "japanese", dateStyle: "long", timeZone: "UTC" })].join(" | "));
const wareki = new Intl.DateTimeFormat("ja-JP-u-ca-japanese", { era: "long", year: "numeric", month: "long", day: "numeric", weekday: "short", timeZone: "UTC" });
out.parts = wareki.formatToParts(days[1]);
out.resolved = wareki.resolvedOptions();
out.reused = days.map((t) => wareki.format(t));
out.en = days.map((t) => new Intl.DateTimeFormat("en-US", { calendar: "japanese", dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(t));
out.buddhist = ["en", "de-DE", "ja", "ko-KR", "ar-EG", "es-MX"].map((l) => new Date(days[0]).toLocaleString(l + "-u-ca-buddhist", { timeZone: "UTC" }));
out.roc = ["zh-CN", "en-US", "ja-JP", "fr-FR"].map((l) => [days[0], days[6], days[7]].map((t) =>
  new Date(t).toLocaleDateString(l, { calendar: "roc", year: "numeric", month: "short", day: "numeric", timeZone: "UTC" })).join(" | "));
out.defaults = ["ja-JP-u-ca-japanese", "en-u-ca-buddhist", "de-u-ca-roc"].map((l) => new Intl.DateTimeFormat(l).resolvedOptions());
out.eras = ["short", "long", "narrow"].map((era) => new Date(days[0]).toLocaleDateString("en-GB-u-ca-japanese", { era, timeZone: "UTC" }));
out.twoDigit = days.slice(0, 4).map((t) => new Date(t).toLocaleDateString("ko-KR-u-ca-buddhist", { year: "2-digit", month: "2-digit", day: "2-digit", timeZone: "UTC" }));
out.hijri = ["ar-EG", "en", "fr-FR"].map((l) => [days[0], Date.UTC(2023, 6, 19), Date.UTC(622, 6, 19)].map((t) =>
  new Date(t).toLocaleDateString(l + "-u-ca-islamic-civil", { dateStyle: "long", timeZone: "UTC" })).join(" | "));
out.tbla = new Intl.DateTimeFormat("en", { calendar: "islamic-tbla", month: "long", day: "numeric", timeZone: "UTC" }).format(days[0]);
console.log(out.ja[1]);
return out;
