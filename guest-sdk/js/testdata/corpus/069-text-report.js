const [users, orders] = await Promise.all([tools.users({ n: 25 }), tools.orders({ n: 25 })]);
const spend = new Map();
for (const o of orders) spend.set(o.userId, (spend.get(o.userId) ?? 0) + o.total);
const lines = users
  .filter((u) => spend.has(u.id))
  .map((u) => ({ name: u.name, spend: spend.get(u.id) }))
  .sort((a, b) => b.spend - a.spend)
  .slice(0, 8)
  .map((r, i) => `${String(i + 1).padStart(2)}. ${r.name.padEnd(20, ".")} ${r.spend.toFixed(2).padStart(9)}`);
const report = ["TOP CUSTOMERS", "=".repeat(34), ...lines].join("\n");
console.log(report);
return report;
