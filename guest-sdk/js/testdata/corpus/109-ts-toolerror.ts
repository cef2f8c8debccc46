type Outcome = { city: string; ok: true; temp: number } | { city: string; ok: false; reason: string };
async function check(city: string): Promise<Outcome> {
  try {
    const w: { tempC: number } = await tools.weather({ city });
    return { city, ok: true, temp: w.tempC };
  } catch (e: unknown) {
    if (e instanceof ToolError) return { city, ok: false, reason: `${e.status}/${e.reason}` };
    throw e;
  }
}
const out: Outcome[] = await Promise.all(["Paris", "Narnia", "Cairo"].map(check));
console.log(out.map((o) => (o.ok ? `${o.city}=${o.temp}` : `${o.city}!${o.reason}`)).join(" "));
return out;
