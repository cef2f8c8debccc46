// A multi-currency payout report written out in words, as a finance
// assistant would: each vendor's amount with currencyDisplay "name" in the
// vendor's language (plural forms: "1 West African CFA franc", "2 francs
// CFA", "5 рублей", "22 złote"), the currency's name from
// Intl.DisplayNames, and the total per currency.
const users = await tools.users({ n: 8 });
const currencies = ["XOF", "XAF", "KES", "NGN", "VND", "UAH", "ARS", "COP", "PEN", "CZK", "HUF", "RON", "ISK", "TWD", "THB", "MAD"];
const locales = ["en", "fr", "de", "es", "pt", "ru", "pl", "ar", "ja", "tr"];
const amounts = [1, 2, 5, 22, 0, 1234.5, 1.5, 101];
const lines = users.map((u, i) => {
  const code = currencies[i % currencies.length];
  const l = locales[i % locales.length];
  const amount = amounts[i % amounts.length];
  const nf = new Intl.NumberFormat(l, { style: "currency", currency: code, currencyDisplay: "name" });
  return `${u.name}: ${nf.format(amount)} (${new Intl.DisplayNames(l, { type: "currency" }).of(code)})`;
});
const table = {};
for (const code of currencies) {
  table[code] = locales.map((l) => {
    const nf = new Intl.NumberFormat(l, { style: "currency", currency: code, currencyDisplay: "name" });
    return amounts.slice(0, 4).map((a) => nf.format(a)).join(" | ");
  });
}
const totals = {};
for (const [i, code] of currencies.entries()) totals[code] = (totals[code] ?? 0) + (i + 1) * 1000.25;
const summary = Object.entries(totals).map(([code, v]) =>
  new Intl.NumberFormat("en", { style: "currency", currency: code, currencyDisplay: "name" }).format(v));
console.log(lines.join("\n"));
const parts = new Intl.NumberFormat("fr", { style: "currency", currency: "XOF", currencyDisplay: "name" }).formatToParts(2500);
return { lines, table, summary, parts, historic: ["DEM", "FRF", "ITL", "ESP"].map((c) =>
  new Intl.NumberFormat("en", { style: "currency", currency: c, currencyDisplay: "name" }).format(1)) };
