const [a, b] = await Promise.all([tools.users({ n: 20 }), tools.users({ n: 20, offset: 10 })]);
const idsA = new Set(a.map((u) => u.id));
const idsB = new Set(b.map((u) => u.id));
const both = [...idsA].filter((id) => idsB.has(id));
const onlyA = [...idsA].filter((id) => !idsB.has(id));
const byId = new Map([...a, ...b].map((u) => [u.id, u]));
const roles = new Map();
for (const u of byId.values()) roles.set(u.role, (roles.get(u.role) ?? 0) + 1);
return { both: both.length, onlyA: onlyA.length, total: byId.size, roles: Object.fromEntries([...roles].sort()) };
