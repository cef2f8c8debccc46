import type { User, Order } from "./models";
import type * as Models from "./models";
export type Summary = { user: string; orders: number };

const users = (await tools.users({ n: 5 })) as User[];
const orders = (await tools.orders({ n: 10 })) as Order[];
const summary: Summary[] = users.map((u: User) => ({ user: u.name, orders: orders.filter((o: Order) => o.userId === u.id).length }));
let unused: Models.User | undefined;
return summary;
