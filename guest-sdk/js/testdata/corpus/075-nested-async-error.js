async function enrich(user) {
  const orders = await tools.orders({ n: 2, userId: user.id });
  return { ...user, lastOrder: orders.at(-1).createdAt, address: user.address.city };
}
async function run() {
  const users = await tools.users({ n: 2 });
  return Promise.all(users.map(enrich));
}
return await run();
