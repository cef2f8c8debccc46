const orders = await tools.orders({ n: 15 });
const lastPaid = orders.findLast((o) => o.status === "paid");
const lastIndex = orders.findLastIndex((o) => o.status === "shipped");
const skus = orders.flatMap((o) => o.items.map((i) => i.sku));
const sortedTotals = orders.map((o) => o.total).toSorted((a, b) => a - b);
const reversed = orders.map((o) => o.id).toReversed().slice(0, 3);
const replaced = [1, 2, 3].with(1, 20);
const spliced = ["a", "b", "c", "d"].toSpliced(1, 2, "x");
return { lastPaid: lastPaid.id, lastIndex, uniqueSkus: [...new Set(skus)].sort(), cheapest: sortedTotals[0], priciest: sortedTotals.at(-1), reversed, replaced, spliced, hasOwn: Object.hasOwn(orders[0], "id") };
