// A Turkish bookkeeping summary: a ledger in tr-TR with accounting
// negatives ("-₺1.234,57", where plain "tr" writes "(1.234,57 $)" style
// parentheses for dollars), amounts written out by name ("$1.234,57 ABD
// doları"), and the same ledger for a Cyprus branch (tr-CY) and an
// English one in Germany (en-DE: "€1,234.57").
const users = await tools.users({ n: 5 });
const ledger = users.map((u, i) => ({ who: u.name, amount: (i % 2 ? -1 : 1) * (1234.567 * (i + 1)), currency: ["TRY", "USD", "EUR", "XOF", "GBP"][i] }));
const out = {};
for (const l of ["tr-TR", "tr", "tr-CY", "en-DE", "en-NL"]) {
  out[l] = ledger.map((e) => {
    const acc = new Intl.NumberFormat(l, { style: "currency", currency: e.currency, currencySign: "accounting" }).format(e.amount);
    const name = new Intl.NumberFormat(l, { style: "currency", currency: e.currency, currencyDisplay: "name" }).format(Math.abs(e.amount));
    return `${e.who}: ${acc} — ${name}`;
  });
}
const total = ledger.reduce((s, e) => s + e.amount, 0);
out.total = new Intl.NumberFormat("tr-TR", { style: "currency", currency: "TRY" }).format(total);
out.parts = new Intl.NumberFormat("tr-TR", { style: "currency", currency: "USD", currencyDisplay: "name" }).formatToParts(1234.57);
out.toLocale = (-42.5).toLocaleString("tr-TR", { style: "currency", currency: "EUR", currencySign: "accounting" });
console.log(out["tr-TR"].join("\n"));
return out;
