// A model-style report whose words agree with their numbers: item and
// order counts per status, in English, French, Russian, Polish, Arabic and
// Portuguese, with Intl.PluralRules picking the word form (CLDR 48's
// rules: French, Spanish, Italian and Portuguese have "many" for a
// million), and the categories each language has.
const orders = await tools.orders({ n: 40 });
const words = {
  en: { one: "order", other: "orders" },
  fr: { one: "commande", many: "de commandes", other: "commandes" },
  ru: { one: "заказ", few: "заказа", many: "заказов", other: "заказа" },
  pl: { one: "zamówienie", few: "zamówienia", many: "zamówień", other: "zamówienia" },
  ar: { zero: "طلب", one: "طلب واحد", two: "طلبان", few: "طلبات", many: "طلبًا", other: "طلب" },
  pt: { one: "pedido", many: "de pedidos", other: "pedidos" },
};
const byStatus = {};
for (const o of orders) byStatus[o.status] = (byStatus[o.status] || 0) + 1;
const counts = [...Object.values(byStatus), 0, 1, 2, 3, 11, 21, 22, 25, 101, 1000000, 2000000, 1.5];
const report = {};
for (const [lang, w] of Object.entries(words)) {
  const pr = new Intl.PluralRules(lang);
  const nf = new Intl.NumberFormat(lang);
  report[lang] = counts.map((n) => `${nf.format(n)} ${w[pr.select(n)] ?? w.other}`).join("; ");
  report[lang + ".categories"] = pr.resolvedOptions().pluralCategories.join(",");
}
const items = orders.reduce((s, o) => s + o.items.length, 0);
const en = new Intl.PluralRules("en-US");
report.summary = `${orders.length} ${en.select(orders.length) === "one" ? "order" : "orders"} with ${items} ${en.select(items) === "one" ? "item" : "items"}`;
// The digit options change what the rules read: "1.0" is not "one" in English.
report.digits = [1, 1.0, 2, 0].map((n) => new Intl.PluralRules("en", { minimumFractionDigits: 1 }).select(n)).join(",");
report.sig = [1.04, 1.5, 21.4].map((n) => new Intl.PluralRules("ru", { maximumSignificantDigits: 2 }).select(n)).join(",");
return report;
