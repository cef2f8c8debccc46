// Due dates on invoices in Spanish, Portuguese and other languages, as a
// billing script writes them: a long weekday with a short or long month
// and the year, a month and year heading, and a date with its era for an
// archive export.
const due = [Date.UTC(2024, 0, 15), Date.UTC(2024, 6, 4), Date.UTC(1970, 0, 1)];
const styles = {
  longShort: { weekday: "long", day: "numeric", month: "short", year: "numeric" },
  longLong: { weekday: "long", day: "numeric", month: "long", year: "numeric" },
  heading: { month: "long", year: "numeric" },
  shortWeekday: { weekday: "short", day: "2-digit", month: "2-digit" },
  archive: { era: "short", year: "numeric", month: "short", day: "numeric" },
  weekdayYear: { weekday: "long", year: "numeric" },
};
const out = {};
for (const l of ["es-ES", "es-MX", "pt-PT", "pt-BR", "en-AU", "nl-NL", "sv-SE", "pl-PL", "tr-TR", "ru-RU"]) {
  out[l] = {};
  for (const [k, o] of Object.entries(styles)) {
    const f = new Intl.DateTimeFormat(l, { timeZone: "UTC", ...o });
    out[l][k] = due.map((d) => f.format(d));
  }
  console.log(`${l}: ${out[l].longShort[0]} · ${out[l].longLong[2]} · ${out[l].archive[1]}`);
}
const r = new Intl.DateTimeFormat("pt-PT", { weekday: "long", month: "long", day: "numeric", year: "numeric" }).resolvedOptions();
return { out, ptPT: { weekday: r.weekday, month: r.month, day: r.day, year: r.year } };
