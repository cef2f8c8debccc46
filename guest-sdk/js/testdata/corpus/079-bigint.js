const items = await tools.big({ n: 500 });
let product = 1n;
for (const it of items.slice(0, 30)) product *= BigInt(it.stock + 1);
const huge = 2n ** 100n;
console.log("2^100 =", huge.toString());
return { digits: product.toString().length, last: (product % 1000000n).toString(), huge: huge.toString(), mixed: Number(huge / 10n ** 25n), typeof: typeof huge };
