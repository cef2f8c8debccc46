// A Taipei and Hong Kong office schedule, as a model writes it for the
// staff: toLocaleString in Traditional Chinese (Taiwan's y/M/d, Hong
// Kong's d/M/y), the flexible day periods (凌晨, 清晨, 中午, 晚上) of
// timeStyle and the dayPeriod option, and the same in English and Korean.
const offices = [
  { city: "台北", locale: "zh-TW", timeZone: "Asia/Taipei" },
  { city: "香港", locale: "zh-HK", timeZone: "Asia/Hong_Kong" },
  { city: "澳門", locale: "zh-MO", timeZone: "Asia/Macau" },
];
const meetings = [
  ["晨會", Date.UTC(2024, 2, 4, 22, 30)],
  ["客戶簡報", Date.UTC(2024, 2, 5, 1, 0)],
  ["午餐", Date.UTC(2024, 2, 5, 4, 0)],
  ["季度檢討", Date.UTC(2024, 2, 5, 7, 15)],
  ["晚間值班", Date.UTC(2024, 2, 5, 12, 45)],
  ["機房維護", Date.UTC(2024, 2, 5, 17, 5)],
];
const lines = [];
for (const o of offices) {
  const short = new Intl.DateTimeFormat(o.locale, { timeZone: o.timeZone, timeStyle: "short" });
  const period = new Intl.DateTimeFormat(o.locale, { timeZone: o.timeZone, hour: "numeric", minute: "2-digit", dayPeriod: "long" });
  for (const [title, at] of meetings) {
    const d = new Date(at);
    lines.push(`${o.city} ${title}: ${d.toLocaleString(o.locale, { timeZone: o.timeZone })} | ${short.format(d)} | ${period.format(d)} | ` +
      d.toLocaleDateString(o.locale, { timeZone: o.timeZone, dateStyle: "full" }) + " " +
      d.toLocaleTimeString(o.locale, { timeZone: o.timeZone, hour12: false }));
  }
}
for (const l of ["en", "ko", "zh-Hant"]) {
  const f = new Intl.DateTimeFormat(l, { timeZone: "UTC", hour: "numeric", dayPeriod: "long" });
  lines.push(l + ": " + [0, 6, 12, 15, 20, 23].map((h) => f.format(Date.UTC(2024, 0, 1, h))).join(", "));
}
const f = new Intl.DateTimeFormat("zh-TW", { timeZone: "Asia/Taipei", hour: "numeric", dayPeriod: "short" });
console.log(lines.join("\n"));
return {
  count: lines.length,
  resolved: f.resolvedOptions(),
  parts: f.formatToParts(Date.UTC(2024, 0, 1, 12)),
  narrow: new Date(Date.UTC(2024, 0, 1, 4)).toLocaleTimeString("zh-TW", { timeZone: "Asia/Taipei", dayPeriod: "narrow" }),
  styled: new Date(0).toLocaleString("zh-HK", { timeZone: "UTC", dateStyle: "short", timeStyle: "medium" }),
};
