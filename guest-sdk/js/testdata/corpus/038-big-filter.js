const items = await tools.big({ n: 2000 });
console.log(`received ${items.length} items, ${JSON.stringify(items).length} bytes`);
const picks = items
  .filter((i) => i.category === "kitchen" && i.stock > 150 && i.tags.includes("eco"))
  .sort((a, b) => b.price - a.price || a.id - b.id)
  .slice(0, 5)
  .map(({ id, sku, price, stock }) => ({ id, sku, price, stock }));
return { matched: picks.length, picks };
