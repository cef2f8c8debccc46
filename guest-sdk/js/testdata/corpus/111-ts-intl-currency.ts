type Currency = "USD" | "EUR" | "GBP";
const locales: Record<Currency, string> = { USD: "en-US", EUR: "fr-FR", GBP: "en-GB" };
interface Order { total: number; currency: Currency }
const orders: Order[] = await tools.orders({ n: 15 });
const totals = new Map<Currency, number>();
for (const o of orders) totals.set(o.currency, (totals.get(o.currency) ?? 0) + o.total);
const lines: string[] = [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([cur, sum]) =>
  `${cur}: ${new Intl.NumberFormat(locales[cur], { style: "currency", currency: cur }).format(sum)}`);
console.log(lines.join("\n"));
return lines;
