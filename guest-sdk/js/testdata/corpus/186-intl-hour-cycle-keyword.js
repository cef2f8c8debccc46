// The -u-hc- keyword against hour12 and hourCycle, in several locales and
// styles: the formatted time and what resolvedOptions reports.
const when = Date.UTC(2024, 0, 15, 0, 7, 9);
const noon = Date.UTC(2024, 0, 15, 12, 30, 0);
const out = [];
for (const base of ["en-US", "en-GB", "de-DE", "ja-JP", "ar-EG", "fr-CA"]) {
  for (const hc of ["", "-u-hc-h11", "-u-hc-h12", "-u-hc-h23", "-u-hc-h24", "-u-hc-h25", "-u-hc-foo"]) {
    for (const o of [{ hour: "numeric", minute: "numeric" }, { timeStyle: "short" }, { hour: "numeric", minute: "numeric", second: "numeric", hour12: true },
      { hour: "numeric", hour12: false }, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, { hour: "numeric", hourCycle: "h11" },
      { dateStyle: "short" }, {}]) {
      const tag = base + hc;
      try {
        const f = new Intl.DateTimeFormat(tag, { ...o, timeZone: "UTC" });
        const r = f.resolvedOptions();
        out.push(`${tag} ${JSON.stringify(o)}: ${f.format(when)} / ${f.format(noon)} — ${r.locale} ${r.hourCycle} ${r.hour12}`);
      } catch (e) {
        out.push(`${tag} ${JSON.stringify(o)}: ${e.name}: ${e.message}`);
      }
    }
  }
}
out.push(new Date(when).toLocaleTimeString("en-US-u-hc-h23", { timeZone: "UTC" }));
out.push(new Date(noon).toLocaleString("de-u-hc-h12", { timeZone: "UTC" }));
console.log(out.length);
return out;
