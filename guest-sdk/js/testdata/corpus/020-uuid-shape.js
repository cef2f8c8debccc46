const users = await tools.users({ n: 5 });
const withIds = users.map((u) => ({ ...u, requestId: crypto.randomUUID() }));
const re = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const allValid = withIds.every((u) => re.test(u.requestId));
const unique = new Set(withIds.map((u) => u.requestId)).size === withIds.length;
console.log("ids valid:", allValid, "unique:", unique);
return { allValid, unique, length: withIds[0].requestId.length };
