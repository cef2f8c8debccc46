const orders = await tools.orders({ n: 40 });
const revenue = {};
for (const o of orders) {
  if (o.status === "cancelled") continue;
  revenue[o.currency] = (revenue[o.currency] || 0) + o.total;
}
for (const [cur, amount] of Object.entries(revenue)) {
  console.log(`${cur}: ${amount.toFixed(2)}`);
}
const cancelled = orders.filter((o) => o.status === "cancelled").map((o) => o.id);
return { revenue: Object.fromEntries(Object.entries(revenue).map(([k, v]) => [k, Math.round(v * 100) / 100])), cancelled };
