async (): Promise<{ total: number; currency: string }[]> => {
  type Order = { total: number; currency: string; status: string };
  const orders: Order[] = await tools.orders({ n: 25 });
  const sums = new Map<string, number>();
  for (const o of orders.filter((x: Order) => x.status !== "cancelled")) {
    sums.set(o.currency, (sums.get(o.currency) ?? 0) + o.total);
  }
  return [...sums.entries()].map(([currency, total]) => ({ currency, total: Math.round(total * 100) / 100 })).sort((a, b) => b.total - a.total);
}
