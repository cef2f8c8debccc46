const orders = await tools.orders({ n: 4 });
let total = 0;
for (const o of orders) {
  total += o.total;
}
console.log("total", total.toFixed(2));
return { total, average: totl / orders.length };
