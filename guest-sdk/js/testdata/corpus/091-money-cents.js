const orders = await tools.orders({ n: 20 });
const cents = orders.reduce((s, o) => s + Math.round(o.total * 100), 0);
const floaty = orders.reduce((s, o) => s + o.total, 0);
const fmt = (loc, cur, v) => new Intl.NumberFormat(loc, { style: "currency", currency: cur }).format(v);
return {
  cents, floaty, exact: cents / 100,
  us: fmt("en-US", "USD", cents / 100),
  de: fmt("de-DE", "EUR", cents / 100),
  jp: fmt("ja-JP", "JPY", cents / 100),
  inr: fmt("hi-IN", "INR", 1234567.891),
  code: new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR", currencyDisplay: "code" }).format(-42.5),
  accounting: new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", currencySign: "accounting" }).format(-42.5),
};
