const all = [];
let cursor = undefined;
let pages = 0;
do {
  const page = await tools.page(cursor ? { cursor } : {});
  all.push(...page.items);
  cursor = page.nextCursor;
  pages++;
} while (cursor);
console.log(`fetched ${all.length} rows in ${pages} pages`);
return { pages, ids: all.map((r) => r.id), last: all.at(-1).name };
