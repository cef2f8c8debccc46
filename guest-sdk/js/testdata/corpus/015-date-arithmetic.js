const events = await tools.events();
const DAY = 24 * 60 * 60 * 1000;
const ref = new Date("2024-03-01T00:00:00Z");
const rows = events.map((e) => {
  const start = new Date(e.start);
  const end = new Date(start.getTime() + e.minutes * 60 * 1000);
  return {
    title: e.title,
    daysFromRef: Math.round((start - ref) / DAY),
    weekday: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][start.getUTCDay()],
    ends: end.toISOString(),
  };
});
rows.sort((a, b) => a.daysFromRef - b.daysFromRef);
for (const r of rows) console.log(`${r.title}: ${r.daysFromRef} days (${r.weekday})`);
const nextWeek = new Date(ref);
nextWeek.setUTCDate(nextWeek.getUTCDate() + 7);
return { rows, nextWeek: nextWeek.toISOString().slice(0, 10), leap: new Date(Date.UTC(2024, 1, 29)).getUTCMonth() };
