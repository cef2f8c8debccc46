const users = await tools.users({ n: 18 });
const chunk = (arr, size) => Array.from({ length: Math.ceil(arr.length / size) }, (_, i) => arr.slice(i * size, i * size + size));
const results = [];
let batch = 0;
for (const group of chunk(users, 5)) {
  batch++;
  const orders = await Promise.all(group.map((u) => tools.orders({ n: 1 + (u.id % 3), userId: u.id })));
  results.push(...orders.map((os, i) => ({ user: group[i].id, orders: os.length })));
  console.log(`batch ${batch}: ${group.length} users`);
}
return results.filter((r) => r.orders > 1).map((r) => r.user);
