const orders = await tools.orders({ n: 12 });
const newest = [...orders].sort((a, b) => new Date(b.createdAt) - new Date(a.createdAt)).slice(0, 3).map((o) => o.id);
const byDay = {};
for (const o of orders) {
  const day = o.createdAt.slice(0, 10);
  byDay[day] = (byDay[day] || 0) + 1;
}
const span = (Date.parse(orders.at(-1).createdAt) - Date.parse(orders[0].createdAt)) / 3600000;
return { newest, byDay, spanHours: span };
