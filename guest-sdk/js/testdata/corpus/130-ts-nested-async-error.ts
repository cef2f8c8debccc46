interface Order { id: string; items: { sku: string; qty: number }[] }
interface Stock { [sku: string]: number }

async function reserve(order: Order, stock: Stock): Promise<void> {
  for (const item of order.items) {
    const left: number = stock[item.sku].available;
    console.log(item.sku, left);
  }
}
const orders: Order[] = await tools.orders({ n: 2 });
await reserve(orders[0], {} as Stock);
return "reserved";
