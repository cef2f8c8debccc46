const orders = await tools.orders({ n: 5 });
console.table(orders.map((o) => ({ id: o.id, total: o.total, status: o.status })));
console.table([[1, 2], [3, 4]]);
console.table({ a: { x: 1 }, b: { y: 2 } });
return orders.length;
