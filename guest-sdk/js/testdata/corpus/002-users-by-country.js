const users = await tools.users({ n: 60 });
const byCountry = {};
for (const u of users) {
  (byCountry[u.country] ??= []).push(u);
}
const summary = Object.entries(byCountry)
  .map(([country, list]) => ({ country, count: list.length, active: list.filter((u) => u.active).length }))
  .sort((a, b) => b.count - a.count || a.country.localeCompare(b.country));
console.log("countries:", summary.length);
return summary;
