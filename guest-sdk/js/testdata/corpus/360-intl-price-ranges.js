// Price ranges for a storefront report: each currency's orders give a
// "from – to" price band per SKU, written with
// Intl.NumberFormat.prototype.formatRange in the shop's locales. A band
// whose ends are equal (or equal once rounded) reads "~$3.00"; a symbol of
// more than one character is said once ("3,00–5,00 €", "USD 3.00–5.00"),
// a one-character one twice ("$3.00 – $5.00"); compact budgets collapse
// ("$3–5K"). formatRangeToParts marks which end a part comes from.
const orders = await tools.orders({ n: 40 });
const bands = {};
for (const o of orders) {
  for (const it of o.items) {
    const k = `${o.currency}:${it.sku}`;
    const b = bands[k] ?? (bands[k] = { currency: o.currency, sku: it.sku, lo: Infinity, hi: -Infinity });
    b.lo = Math.min(b.lo, it.price * it.qty);
    b.hi = Math.max(b.hi, it.price * it.qty);
  }
}
const locales = { USD: ["en-US", "es-MX", "ja"], EUR: ["de", "fr", "nl", "it"], GBP: ["en-GB", "pt-PT"] };
const report = {};
for (const b of Object.values(bands).sort((x, y) => (x.currency + x.sku < y.currency + y.sku ? -1 : 1))) {
  for (const l of locales[b.currency] ?? ["en"]) {
    const nf = new Intl.NumberFormat(l, { style: "currency", currency: b.currency });
    (report[b.sku] ??= []).push(`${l}: ${nf.formatRange(b.lo, b.hi)}`);
  }
}
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
const budgets = [[3000, 5000], [950, 1200], [1e6, 2.5e6], [2500, 2500], [999999, 1000000]];
const compact = {};
for (const l of ["en-US", "de", "ja", "es"]) {
  const c = new Intl.NumberFormat(l, { style: "currency", currency: l === "ja" ? "JPY" : "USD", notation: "compact" });
  const code = new Intl.NumberFormat(l, { style: "currency", currency: "EUR", currencyDisplay: "code", notation: "compact" });
  compact[l] = budgets.map(([a, b]) => `${c.formatRange(a, b)} | ${code.formatRange(a, b)}`);
}
const misc = [
  usd.formatRange(3, 3), usd.formatRange(2.999, 3.001), usd.formatRange(-5, 3), usd.formatRange(5, 3), usd.formatRange(-5, -3),
  new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", currencySign: "accounting" }).formatRange(-5, -3),
  new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR", currencyDisplay: "name" }).formatRange(1, 2),
  new Intl.NumberFormat("de-CH", { style: "currency", currency: "CHF" }).formatRange(10, 10),
  new Intl.NumberFormat("nl", { style: "currency", currency: "EUR" }).formatRange(10, 10),
  new Intl.NumberFormat("ar-EG", { style: "currency", currency: "EGP" }).formatRange(-5, 3),
  usd.formatRange(1n, 20n), usd.formatRange("19.99", "1e3"),
];
const parts = new Intl.NumberFormat("fr", { style: "currency", currency: "EUR" }).formatRangeToParts(1234.5, 2000);
const marked = parts.map((p) => (p.source === "shared" ? p.value : p.source === "startRange" ? `[${p.value}]` : `<${p.value}>`)).join("");
console.log(`${Object.keys(bands).length} bands; ${marked}`);
return { report, compact, misc, parts, approx: usd.formatRangeToParts(4.999, 5) };
