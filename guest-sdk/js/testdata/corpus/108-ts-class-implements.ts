interface Store<T> {
  get(id: number): T | undefined;
  put(item: T): void;
  readonly size: number;
}
interface Item { id: number; name: string; price: number }

class MemoryStore<T extends { id: number }> implements Store<T> {
  private readonly items = new Map<number, T>();
  get(id: number): T | undefined { return this.items.get(id); }
  put(item: T): void { this.items.set(item.id, item); }
  get size(): number { return this.items.size; }
}
const store = new MemoryStore<Item>();
for (const it of (await tools.big({ n: 40 })) as Item[]) store.put(it);
const found = store.get(17);
return { size: store.size, found: found?.name, missing: store.get(999) ?? null };
