async function* rows() {
  let cursor;
  do {
    const page = await tools.page(cursor ? { cursor } : {});
    yield* page.items;
    cursor = page.nextCursor;
  } while (cursor);
}
const names = [];
for await (const row of rows()) {
  if (row.id % 2 === 0) names.push(row.name);
  if (names.length === 5) break;
}
function* range(a, b, step = 1) { for (let i = a; i < b; i += step) yield i; }
return { names, range: [...range(0, 20, 7)] };
