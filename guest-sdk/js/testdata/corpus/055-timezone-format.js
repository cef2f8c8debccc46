const events = await tools.events();
const lines = events.map((e) => {
  const fmt = new Intl.DateTimeFormat("en-US", {
    timeZone: e.timeZone, weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short",
  });
  return `${e.title}: ${fmt.format(new Date(e.start))}`;
});
console.log(lines.join("\n"));
const berlin = new Date("2024-03-31T00:30:00Z").toLocaleString("de-DE", { timeZone: "Europe/Berlin" });
const afterDst = new Date("2024-03-31T01:30:00Z").toLocaleString("de-DE", { timeZone: "Europe/Berlin" });
return { lines, berlin, afterDst };
