const orders = await tools.orders({ n: 12 });
const top = [...orders].sort((a, b) => b.total - a.total).slice(0, 5);
const rows = top.map((o) => `| ${o.id} | ${o.userId} | ${o.items.length} | ${o.total.toFixed(2)} ${o.currency} | ${o.status} |`);
const table = [
  "| Order | User | Items | Total | Status |",
  "|---|---:|---:|---:|---|",
  ...rows,
].join("\n");
console.log(table);
return table;
