// A calendar app builds the settings page for each user's locale: the
// week layout (first day, weekend, minimal days), the calendars and hour
// cycles the locale offers, and a preview date formatted with a locale
// object that carries the user's overrides. The objects themselves are
// logged as Node prints them.
const users = [
  { id: 1, locale: "en-US" },
  { id: 2, locale: "de-DE", hourCycle: "h12" },
  { id: 3, locale: "ar-EG", numberingSystem: "latn" },
  { id: 4, locale: "tr-TR" },
  { id: 5, locale: "ja-JP", calendar: "japanese" },
  { id: 6, locale: "en-IN" },
  { id: 7, locale: "zh-TW", calendar: "roc" },
  { id: 8, locale: "en-GB", hourCycle: "h12" },
];
const dayNames = (loc) => {
  const fmt = new Intl.DateTimeFormat(loc, { weekday: "short", timeZone: "UTC" });
  // 2024-01-01 was a Monday: day n (1 = Monday) is Jan n.
  return (n) => fmt.format(Date.UTC(2024, 0, n));
};
const preview = new Date(Date.UTC(2024, 4, 17, 18, 45));
const pages = users.map(({ id, locale, ...prefs }) => {
  const loc = new Intl.Locale(locale, prefs);
  const { firstDay, weekend, minimalDays } = loc.weekInfo;
  const name = dayNames(loc);
  return {
    id,
    locale: loc.toString(),
    weekStartsOn: name(firstDay),
    weekend: weekend.map(name),
    minimalDays,
    calendars: loc.calendars,
    hourCycles: loc.hourCycles,
    preview: new Intl.DateTimeFormat(loc, { dateStyle: "full", timeStyle: "short", timeZone: "UTC" }).format(preview),
    resolved: new Intl.DateTimeFormat(loc, { timeZone: "UTC" }).resolvedOptions().locale,
  };
});
for (const p of pages) console.log(`#${p.id} ${p.locale}: week from ${p.weekStartsOn}, weekend ${p.weekend.join("+")} | ${p.preview}`);
const sample = new Intl.Locale("en-Latn-US", { calendar: "gregory", hourCycle: "h23" });
console.log(sample);
console.log([sample.maximize(), sample.minimize()]);
console.log({ locale: new Intl.Locale("fr-CA") });
console.log(String(sample), Object.prototype.toString.call(sample), JSON.stringify({ sample }));
return pages;
