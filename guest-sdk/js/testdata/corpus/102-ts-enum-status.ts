enum Status {
  Pending = "pending",
  Paid = "paid",
  Shipped = "shipped",
  Delivered = "delivered",
  Cancelled = "cancelled",
}
enum Priority { Low, Medium, High }

type Order = { id: string; status: Status; total: number };
const orders = (await tools.orders({ n: 20 })) as Order[];
const counts: Record<Status, number> = { pending: 0, paid: 0, shipped: 0, delivered: 0, cancelled: 0 } as Record<Status, number>;
for (const o of orders) counts[o.status]++;
const priority = (o: Order): Priority => (o.total > 300 ? Priority.High : o.total > 50 ? Priority.Medium : Priority.Low);
return { counts, high: orders.filter((o) => priority(o) === Priority.High).map((o) => o.id), name: Priority[Priority.Medium] };
