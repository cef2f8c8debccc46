const items = await tools.big({ n: 50 });
let total = 0;
for (let i = 0; i <= items.length; i++) {
  total += items[i].price;
}
return total;
