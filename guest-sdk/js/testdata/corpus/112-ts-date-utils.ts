type ISODate = string;
interface Ev { title: string; start: ISODate; minutes: number; timeZone: string }
const MS_PER_MIN = 60_000;
const addMinutes = (d: Date, m: number): Date => new Date(d.getTime() + m * MS_PER_MIN);
const fmt = (d: Date, tz: string): string =>
  d.toLocaleString("en-GB", { timeZone: tz, hour: "2-digit", minute: "2-digit", day: "numeric", month: "short" });
const events: Ev[] = await tools.events();
return events.map((e: Ev) => {
  const start = new Date(e.start);
  const end = addMinutes(start, e.minutes);
  return `${e.title}: ${fmt(start, e.timeZone)} – ${fmt(end, e.timeZone)} (${e.timeZone})`;
});
