// A price list shown in several storefronts: each currency with its
// symbol, narrow symbol and ISO code in the shop's locale ("5,00 INR" in
// Italian, "₹5.00" in English, "5,00 ₹" in German), accounting negatives
// for refunds, and the currency's display name in the shop's language.
const prices = await tools.prices({ symbols: ["AAPL", "MSFT", "GOOG"] });
const base = Object.values(prices);
const shops = ["it", "de", "fr-CH", "en-IN", "ja", "es-MX", "zh-TW", "ar-EG"];
const codes = ["INR", "USD", "EUR", "JPY", "KRW", "RUB", "BYN", "RON", "TWD", "XCG"];
const out = {};
for (const l of shops) {
  out[l] = codes.map((c, i) => {
    const p = base[i % base.length];
    const sym = new Intl.NumberFormat(l, { style: "currency", currency: c }).format(p);
    const narrow = new Intl.NumberFormat(l, { style: "currency", currency: c, currencyDisplay: "narrowSymbol" }).format(p);
    const code = new Intl.NumberFormat(l, { style: "currency", currency: c, currencyDisplay: "code" }).format(p);
    const refund = new Intl.NumberFormat(l, { style: "currency", currency: c, currencySign: "accounting" }).format(-p / 10);
    return `${c}: ${sym} / ${narrow} / ${code} / ${refund}`;
  });
  const dn = new Intl.DisplayNames(l, { type: "currency" });
  out[l + ":names"] = codes.map((c) => dn.of(c)).join("; ");
}
out.parts = new Intl.NumberFormat("it", { style: "currency", currency: "INR" }).formatToParts(-1234.5);
out.unknown = [new Intl.DisplayNames("en", { type: "currency" }).of("XYZ"),
  new Intl.DisplayNames("en", { type: "currency", fallback: "none" }).of("XYZ"),
  new Intl.NumberFormat("de", { style: "currency", currency: "xyz" }).format(3)];
console.log(out.it.slice(0, 4).join("\n"));
return out;
