const [user] = await tools.users({ n: 1 });
const orders = await tools.orders({ n: 2, userId: user.id });
console.log("user:", user);
console.log("orders", orders.map((o) => ({ id: o.id, total: o.total })));
console.log(new Map([["Berlin", 12.5], ["Paris", 15]]));
console.log(new Set(["a", "b", "c"]));
console.log([1, [2, [3, [4, [5]]]]], { nested: { deeper: { deepest: { bottom: true } } } });
console.log(null, undefined, 42, true, "text", 10n);
return "done";
