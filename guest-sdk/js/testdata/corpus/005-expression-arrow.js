async () => {
  const [users, orders] = await Promise.all([tools.users({ n: 25 }), tools.orders({ n: 30 })]);
  const names = new Map(users.map((u) => [u.id, u.name]));
  const perUser = {};
  for (const o of orders) perUser[o.userId] = (perUser[o.userId] ?? 0) + 1;
  const best = Object.entries(perUser).sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
  return { customer: names.get(Number(best[0])), orders: best[1] };
}
