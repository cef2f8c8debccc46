const orders = await tools.orders({ n: 6 });
const pr = new Intl.PluralRules("en-US");
const ord = new Intl.PluralRules("en-US", { type: "ordinal" });
const suffix = { one: "st", two: "nd", few: "rd", other: "th" };
const lines = orders.map((o, i) => {
  const n = o.items.length;
  return `${i + 1}${suffix[ord.select(i + 1)]} order has ${n} ${pr.select(n) === "one" ? "item" : "items"}`;
});
const ar = new Intl.PluralRules("ar-EG");
const ru = new Intl.PluralRules("ru");
return { lines, ar: [0, 1, 2, 5, 11, 100].map((n) => ar.select(n)), ru: [1, 2, 5, 21].map((n) => ru.select(n)) };
