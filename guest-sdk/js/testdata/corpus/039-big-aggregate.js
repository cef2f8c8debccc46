const items = await tools.big({ n: 2200 });
const stats = {};
for (const it of items) {
  const s = (stats[it.category] ??= { count: 0, sum: 0, min: Infinity, max: -Infinity, lowStock: 0 });
  s.count++;
  s.sum += it.price;
  s.min = Math.min(s.min, it.price);
  s.max = Math.max(s.max, it.price);
  if (it.stock < 10) s.lowStock++;
}
const report = Object.entries(stats)
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([cat, s]) => `${cat}: n=${s.count} avg=${(s.sum / s.count).toFixed(2)} min=${s.min} max=${s.max} low=${s.lowStock}`);
console.log(report.join("\n"));
return report;
