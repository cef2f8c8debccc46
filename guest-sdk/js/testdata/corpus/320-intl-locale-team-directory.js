// A team directory normalises the locale each member typed in their
// profile (legacy codes, odd case, extension keys), shows the language
// and region parts, and fills in what the settings page needs: the full
// tag, the short tag to store, the clock and the first day of the week.
const profiles = [
  { name: "Ana", locale: "pt-br" },
  { name: "Bram", locale: "nl" },
  { name: "Chen", locale: "zh-Hant-TW" },
  { name: "Dana", locale: "iw-IL" },
  { name: "Emre", locale: "tr-TR-u-nu-latn" },
  { name: "Farah", locale: "ar-EG" },
  { name: "Gus", locale: "en-US-u-hc-h23" },
  { name: "Hiro", locale: "ja-JP-u-ca-japanese" },
  { name: "Ines", locale: "es-419" },
  { name: "Jonas", locale: "de-CH-u-co-phonebk" },
  { name: "Kiri", locale: "mi" },
  { name: "Lars", locale: "no-NO" },
  { name: "Mo", locale: "sh-YU" },
  { name: "Nia", locale: "en_GB" },
];
const days = ["", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const rows = profiles.map(({ name, locale }) => {
  try {
    const loc = new Intl.Locale(locale);
    const max = loc.maximize();
    return {
      name,
      tag: loc.toString(),
      baseName: loc.baseName,
      language: loc.language,
      script: max.script,
      region: max.region ?? null,
      short: loc.minimize().toString(),
      clock: loc.hourCycle ?? loc.hourCycles[0],
      calendar: loc.calendar ?? loc.calendars[0],
      weekStarts: days[loc.weekInfo.firstDay],
      rtl: loc.textInfo.direction === "rtl",
    };
  } catch (e) {
    return { name, error: `${e.name}: ${e.message}` };
  }
});
for (const r of rows) {
  console.log(r.error ? `${r.name}: ${r.error}` : `${r.name.padEnd(6)} ${r.tag.padEnd(24)} → ${r.short} (${r.clock}, week from ${r.weekStarts}${r.rtl ? ", rtl" : ""})`);
}
const byLanguage = {};
for (const r of rows) if (!r.error) (byLanguage[r.language] ??= []).push(r.name);
return { rows, byLanguage };
