// Checking how an app's time column looks in each market when the user
// forces a 24-hour or 12-hour clock: timeStyle with hourCycle and hour12
// in Korean, Japanese, French Canadian, English and Chinese, plus the
// resolved hour width a layout step reads.
const locales = ["ko-KR", "ja-JP", "fr-CA", "en-US", "zh-CN", "zh-TW", "hi-IN"];
const at = [Date.UTC(2024, 4, 1, 0, 7, 9), Date.UTC(2024, 4, 1, 13, 45, 0)];
const table = {};
for (const l of locales) {
  const row = {};
  for (const [label, opts] of [
    ["medium/h23", { timeStyle: "medium", hourCycle: "h23" }],
    ["short/h11", { timeStyle: "short", hourCycle: "h11" }],
    ["short/12h", { timeStyle: "short", hour12: true }],
    ["long/24h", { timeStyle: "long", hour12: false }],
    ["2-digit/12h", { hour: "2-digit", minute: "2-digit", hour12: true }],
    ["numeric/h24", { hour: "numeric", minute: "numeric", second: "numeric", hourCycle: "h24" }],
  ]) {
    const f = new Intl.DateTimeFormat(l, { timeZone: "UTC", ...opts });
    const r = f.resolvedOptions();
    row[label] = { text: at.map((t) => f.format(t)), hour: r.hour ?? null, hourCycle: r.hourCycle };
  }
  table[l] = row;
  console.log(l, Object.values(row).map((c) => c.text.join(" / ")).join(" · "));
}
return table;
