async function process(order) {
  if (order.status === "cancelled") throw new Error(`order ${order.id} was cancelled`);
  return order.total;
}
const orders = await tools.orders({ n: 3 });
let sum = 0;
for (const o of orders) {
  try {
    sum += await process(o);
  } catch (err) {
    console.error("failed:", err);
  }
}
return sum;
