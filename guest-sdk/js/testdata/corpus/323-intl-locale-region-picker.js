// A signup form pre-fills the time zone and layout from the browser's
// locale: the region's zones (one: pick it; several: show a list), the
// text direction, the digits the locale writes, and a number and a date
// formatted for a preview with the Locale object itself.
const browsers = ["en-US", "en-GB", "pt-BR", "ar-SA", "ar-EG", "hi-IN", "ru", "zh-Hans-CN", "es-MX", "ko", "en-AU", "de-AT", "ja", "tr-TR", "en-CA"];
const form = browsers.map((tag) => {
  const loc = new Intl.Locale(tag);
  const full = loc.region ? loc : loc.maximize();
  const zones = full.timeZones ?? [];
  return {
    tag,
    region: full.region,
    zone: zones.length === 1 ? zones[0] : null,
    zoneChoices: zones.length > 1 ? zones.length : 0,
    firstZones: zones.slice(0, 3),
    direction: loc.textInfo.direction,
    digits: loc.numberingSystems[0],
    sample: new Intl.NumberFormat(loc, { style: "percent", maximumFractionDigits: 1 }).format(0.125),
    date: new Date(Date.UTC(2024, 11, 31)).toLocaleDateString(loc, { timeZone: zones[0] ?? "UTC", dateStyle: "medium" }),
  };
});
for (const f of form) {
  console.log(`${f.tag.padEnd(11)} ${String(f.region).padEnd(3)} ${f.zone ?? `${f.zoneChoices} zones`} ${f.direction} ${f.digits} ${f.sample} ${f.date}`);
}
const rtl = form.filter((f) => f.direction === "rtl").map((f) => f.tag);
const noRegion = new Intl.Locale("fr").timeZones;
return { form, rtl, noRegion: noRegion === undefined ? "undefined" : noRegion };
