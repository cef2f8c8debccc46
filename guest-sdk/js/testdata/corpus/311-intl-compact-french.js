// French (and Spanish, Italian, Portuguese) compact numbers, short and
// long, as a dashboard writes revenue and audience figures: "mille",
// "1 million", "2 millions", "1,5 milliard"; the plural category of the
// same numbers; and a unit and a currency written out in full.
const prices = await tools.prices({ symbols: ["AAPL", "MSFT", "GOOG", "AMZN"] });
const figures = [0, 1, 999, 1000, 1234, 1500, 21000, 999999, 1e6, 1.5e6, 2e6, 2.1e6, 1e9, 1.5e9, 2e9, 1e12, 2.5e12, 1e15,
  ...Object.values(prices).map((p) => p * 1e7)];
const out = {};
for (const l of ["fr", "fr-CA", "es", "it", "pt", "pt-PT"]) {
  const long = new Intl.NumberFormat(l, { notation: "compact", compactDisplay: "long" });
  const short = new Intl.NumberFormat(l, { notation: "compact" });
  const pr = new Intl.PluralRules(l);
  out[l] = figures.map((x) => `${long.format(x)} / ${short.format(x)} / ${pr.select(x)}`);
}
out.parts = new Intl.NumberFormat("fr", { notation: "compact", compactDisplay: "long" }).formatToParts(1000);
out.units = [1, 2, 1e6, 2.5e6].map((x) => new Intl.NumberFormat("fr", { style: "unit", unit: "kilometer", unitDisplay: "long" }).format(x));
out.money = [1, 1.5, 2, 1e6].map((x) => new Intl.NumberFormat("fr", { style: "currency", currency: "EUR", currencyDisplay: "name" }).format(x));
out.selects = [1e6, 2e6, 1e7, 1000001, 1e6 + 0.5, 1e21].map((x) => new Intl.PluralRules("fr").select(x)).join(",");
return out;
