interface Row { id: number; name: string }
interface Page { items: Row[]; nextCursor: string | null }
async function* paginate(): AsyncGenerator<Row, void, undefined> {
  let cursor: string | null = null;
  do {
    const page: Page = await tools.page(cursor ? { cursor } : {});
    for (const row of page.items) yield row;
    cursor = page.nextCursor;
  } while (cursor !== null);
}
const rows: Row[] = [];
for await (const r of paginate()) rows.push(r);
return { count: rows.length, last: rows[rows.length - 1] };
