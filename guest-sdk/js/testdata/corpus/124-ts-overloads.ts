function money(value: number): string;
function money(value: number, currency: string): string;
function money(value: number, currency = "USD"): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(value);
}
function pick<T, K extends keyof T>(obj: T, ...keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = obj[k];
  return out;
}
const [o] = await tools.orders({ n: 1 });
return { usd: money(o.total), eur: money(o.total, "EUR"), picked: pick(o, "id", "status") };
