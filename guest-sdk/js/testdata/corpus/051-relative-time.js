const events = await tools.events();
const now = new Date("2024-03-15T12:00:00Z").getTime();
const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const rtfDe = new Intl.RelativeTimeFormat("de-DE", { style: "long" });
const rtfEs = new Intl.RelativeTimeFormat("es-ES", { numeric: "auto" });
return events.map((e) => {
  const days = Math.round((new Date(e.start).getTime() - now) / 86400000);
  return `${e.title}: ${rtf.format(days, "day")} | ${rtfDe.format(days, "day")} | ${rtfEs.format(Math.round(days / 7), "week")}`;
});
