interface Item {
  id: number;
  sku: string;
  name: string;
  category: string;
  price: number;
  stock: number;
  tags: string[];
  rating: number;
}
const items: Item[] = await tools.big({ n: 2000 });
const byCat = new Map<string, Item[]>();
for (const it of items) {
  if (it.rating < 4) continue;
  const list = byCat.get(it.category) ?? [];
  list.push(it);
  byCat.set(it.category, list);
}
const best: Record<string, string> = {};
for (const [cat, list] of [...byCat].sort(([a], [b]) => a.localeCompare(b))) {
  best[cat] = list.reduce((a, b) => (b.price < a.price ? b : a)).sku;
}
return { categories: byCat.size, best, total: items.length };
