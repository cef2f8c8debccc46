const ROLES = ["admin", "editor", "viewer"] as const;
type Role = (typeof ROLES)[number];
type Counts = { [R in Role]: number };
type Partialish<T> = { [K in keyof T]?: T[K] };
interface User { id: number; role: Role; active: boolean }
const users: User[] = await tools.users({ n: 40 });
const counts: Counts = { admin: 0, editor: 0, viewer: 0 };
for (const u of users) if (u.active) counts[u.role]++;
const patch: Partialish<User> = { active: false };
const keys = Object.keys(counts) as (keyof Counts)[];
return { counts, keys, patch, roles: ROLES };
