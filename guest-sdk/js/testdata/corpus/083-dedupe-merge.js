const pages = await Promise.all([tools.users({ n: 8 }), tools.users({ n: 8, offset: 4 }), tools.users({ n: 8, offset: 6 })]);
const merged = pages.flat();
const unique = [...new Map(merged.map((u) => [u.id, u])).values()];
const emails = unique.map((u) => u.email);
console.log(`merged ${merged.length} rows into ${unique.length} users`);
return { count: unique.length, firstLast: [emails[0], emails.at(-1)], duplicates: merged.length - unique.length };
