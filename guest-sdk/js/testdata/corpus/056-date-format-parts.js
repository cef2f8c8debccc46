const [ev] = await tools.events();
const d = new Date(ev.start);
const parts = new Intl.DateTimeFormat("en-GB", { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", timeZone: "UTC" }).formatToParts(d);
const get = (t) => parts.find((p) => p.type === t).value;
const stamp = `${get("year")}${get("month")}${get("day")}-${get("hour")}${get("minute")}`;
const ro = new Intl.DateTimeFormat("de-DE", { dateStyle: "medium", timeZone: "Europe/Berlin" }).resolvedOptions();
const nf = new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" }).formatToParts(1234.5).map((p) => `${p.type}:${p.value}`);
return { types: parts.map((p) => p.type), stamp, resolved: { locale: ro.locale, timeZone: ro.timeZone, calendar: ro.calendar }, nf };
