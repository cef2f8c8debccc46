function audit(order) {
  if (order.total > 300) console.trace(`large order ${order.id}`);
}
const orders = await tools.orders({ n: 6 });
orders.forEach(audit);
return orders.length;
