const cities = ["Berlin", "Madrid", "Cairo"];
const out = [];
for (const [i, city] of cities.entries()) {
  const w = await tools.weather({ city });
  out.push(`${i + 1}. ${city}: ${w.condition}`);
}
let n = 0;
for (const city of cities) {
  if (city.startsWith("M")) continue;
  n++;
}
return { out, n };
