console.time("fetch");
const users = await tools.users({ n: 5 });
console.timeLog("fetch", "users loaded");
const orders = await tools.orders({ n: 5 });
console.timeEnd("fetch");
return { users: users.length, orders: orders.length };
