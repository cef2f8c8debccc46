function groupBy<T, K extends PropertyKey>(items: readonly T[], key: (item: T) => K): Record<K, T[]> {
  const out = {} as Record<K, T[]>;
  for (const item of items) {
    const k = key(item);
    (out[k] ??= []).push(item);
  }
  return out;
}
interface User { id: number; name: string; role: string; age: number }
const users: User[] = await tools.users({ n: 30 });
const byRole = groupBy(users, (u) => u.role);
const byDecade = groupBy(users, (u) => `${Math.floor(u.age / 10) * 10}s`);
return {
  roles: Object.fromEntries(Object.entries(byRole).map(([r, us]) => [r, us.length])),
  decades: Object.keys(byDecade).sort(),
};
