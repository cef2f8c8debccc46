interface Entity { id: number }
interface Named extends Entity { name: string }
interface Page<T extends Entity = Named> { items: T[]; nextCursor: string | null }
type Handler<T> = (item: T, index: number) => string;

const first: Page = await tools.page({});
const second: Page = await tools.page({ cursor: first.nextCursor! });
const describe: Handler<Named> = (row, i) => `${i}:${row.name}`;
const all: Named[] = [...first.items, ...second.items];
return { described: all.map(describe), next: second.nextCursor };
